// The fusion what-if under tensor parallelism (--fuse with --tp): a
// hand-built transformer block on a toy device with hand-computed per-GPU
// group FLOPs and bytes, the zoo Llama-3.1-8B decode step sharded over 2
// GPUs, and the CLI. fp32 = 4 bytes per element; FLOPs at 2 per MAC; the
// elementwise costs are engine/counters/cost_table.h's: Mul 1, Sigmoid
// 8 + 1 + 4 = 13, Softmax 1 + 1 + 8 + 1 + 4 = 15 FLOPs per element.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/analysis.h"
#include "engine/fusion.h"
#include "engine/parallel/sharding.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"
#include "tests/what_if_graphs.h"
#include "tests/zoo_test_util.h"
#include "zoo/runtime_catalog.h"

namespace ridgeline::engine {
namespace {

using ::ridgeline::testing::Attrs;
using ::ridgeline::testing::GraphBuilder;

// One transformer layer, 4 tokens, hidden 8, 2 heads of 4, MLP width 16, no
// norms (x is the residual stream):
//   q, k, v = x @ Wq, Wk, Wv                 [1,4,8]   column-parallel
//   Reshape [1,4,2,4] -> Transpose -> QK^T -> * scale -> Softmax -> @ V ->
//   Transpose [1,4,2,4] -> Reshape [1,4,8]    interior (heads / T)
//   attn = . @ Wo                            [1,4,8]   row-parallel
//   h = x + attn                                       replicated
//   g, u = h @ Wg, Wu                        [1,4,16]  column-parallel
//   m = g * Sigmoid(g) * u                             interior
//   d = m @ Wd                               [1,4,8]   row-parallel
//   y = h + d                                          replicated
// With `decoder`, a one-layer Llama-style decoder: RMSNorms (one node each,
// weight [8]) before the attention (input_norm: q, k, v read a =
// input_norm(x)), before the MLP (post_norm: gate and up read
// n = post_norm(h)) and after the layer (final_norm), then the LM head
// logits = final_norm(y) @ Wlm [8, 32], the graph output.
graph::Graph TransformerLayer(bool decoder = false) {
  GraphBuilder b;
  const int x = b.Input("x", {1, 4, 8});
  auto rms_norm = [&b](const std::string& name, int in) {
    const int w = b.Weight(name + "_w", {8});
    const int out = b.Value(name, {1, 4, 8});
    b.Node(name, "RMSNormalization", {in, w}, {out});
    return out;
  };
  const int a = decoder ? rms_norm("input_norm", x) : x;
  const int split_shape = b.Weight("split_shape", {4}, graph::DType::kInt64);
  const int merge_shape = b.Weight("merge_shape", {3}, graph::DType::kInt64);
  const int scale = b.Weight("scale", {1});
  auto perm = [](std::vector<int64_t> p) { return Attrs({{"perm", p}}); };
  int heads[3];  // q, k^T, v as [1, 2 heads, ...]
  const char* names[3] = {"q", "k", "v"};
  for (int i = 0; i < 3; ++i) {
    const std::string n = names[i];
    const int w = b.Weight("W" + n, {8, 8});
    const int p = b.Value(n, {1, 4, 8});
    const int r = b.Value(n + "_r", {1, 4, 2, 4});
    heads[i] = b.Value(n + "_t", {1, 2, 4, 4});
    b.Node(n + "_proj", "MatMul", {a, w}, {p});
    b.Node(n + "_reshape", "Reshape", {p, split_shape}, {r});
    b.Node(n + "_transpose", "Transpose", {r}, {heads[i]},
           perm(i == 1 ? std::vector<int64_t>{0, 2, 3, 1}
                       : std::vector<int64_t>{0, 2, 1, 3}));
  }
  const int s = b.Value("scores", {1, 2, 4, 4});
  const int ss = b.Value("scaled", {1, 2, 4, 4});
  const int pr = b.Value("probs", {1, 2, 4, 4});
  const int o = b.Value("o", {1, 2, 4, 4});
  const int ot = b.Value("o_t", {1, 4, 2, 4});
  const int om = b.Value("o_m", {1, 4, 8});
  b.Node("qk", "MatMul", {heads[0], heads[1]}, {s});
  b.Node("scale_mul", "Mul", {s, scale}, {ss});
  b.Node("softmax", "Softmax", {ss}, {pr}, Attrs({{"axis", int64_t{-1}}}));
  b.Node("av", "MatMul", {pr, heads[2]}, {o});
  b.Node("o_transpose", "Transpose", {o}, {ot}, perm({0, 2, 1, 3}));
  b.Node("o_reshape", "Reshape", {ot, merge_shape}, {om});
  const int wo = b.Weight("Wo", {8, 8});
  const int attn = b.Value("attn", {1, 4, 8});
  const int h = b.Value("h", {1, 4, 8});
  b.Node("o_proj", "MatMul", {om, wo}, {attn});
  b.Node("attn_residual", "Add", {x, attn}, {h});
  const int wg = b.Weight("Wg", {8, 16});
  const int wu = b.Weight("Wu", {8, 16});
  const int wd = b.Weight("Wd", {16, 8});
  const int g = b.Value("g", {1, 4, 16});
  const int u = b.Value("u", {1, 4, 16});
  const int sg = b.Value("sig", {1, 4, 16});
  const int sl = b.Value("silu", {1, 4, 16});
  const int m = b.Value("m", {1, 4, 16});
  const int d = b.Value("d", {1, 4, 8});
  const int y = b.Value("y", {1, 4, 8});
  const int mlp_in = decoder ? rms_norm("post_norm", h) : h;
  b.Node("gate_proj", "MatMul", {mlp_in, wg}, {g});
  b.Node("up_proj", "MatMul", {mlp_in, wu}, {u});
  b.Node("sigmoid", "Sigmoid", {g}, {sg});
  b.Node("silu_mul", "Mul", {g, sg}, {sl});
  b.Node("gate_up_mul", "Mul", {sl, u}, {m});
  b.Node("down_proj", "MatMul", {m, wd}, {d});
  b.Node("mlp_residual", "Add", {h, d}, {y});
  if (!decoder) {
    b.Output(y);
    return b.Finish();
  }
  const int f = rms_norm("final_norm", y);
  const int wlm = b.Weight("Wlm", {8, 32});
  const int logits = b.Value("logits", {1, 4, 32});
  b.Node("lm_head", "MatMul", {f, wlm}, {logits});
  b.Output(logits);
  return b.Finish();
}

// The toy device of what_if_graphs.h (1 TFLOP/s fp32, 100 GB/s) with an
// NVLink-like node of 8 GPUs, so that it can be sharded.
Hardware ToyNode() {
  Hardware hw = ::ridgeline::testing::ToyDevice();
  hw.interconnect.intra_node = "test";
  hw.interconnect.intra_node_bandwidth_bytes_per_s = 100e9;
  hw.interconnect.gpus_per_node = 8;
  hw.interconnect.intra_node_latency_s = 1e-6;
  hw.interconnect.collective_launch_s = 5e-6;
  hw.interconnect.source = "test";
  return hw;
}

struct Fused {
  Analysis analysis;
  FusionResult result;
};

// Analyzes `g` (sharded over `tp` GPUs when tp > 1), plans `kinds` with the
// analysis' collective tensors as barriers and fuses.
Fused Fuse(const graph::Graph& g, const Hardware& hw,
           const AnalyzeOptions& options, int tp, FusionKinds kinds) {
  Fused f;
  absl::StatusOr<Analysis> a = AnalyzeSharded(g, hw, options, {.tp = tp});
  EXPECT_TRUE(a.ok()) << a.status();
  if (!a.ok()) return f;
  f.analysis = *std::move(a);
  absl::StatusOr<FusionPlan> plan =
      PlanFusion(g, kinds, CollectiveTensors(g, f.analysis));
  EXPECT_TRUE(plan.ok()) << plan.status();
  if (!plan.ok()) return f;
  EXPECT_TRUE(ValidateFusionPlan(g, *plan).ok());
  absl::StatusOr<FusionResult> r = ApplyFusion(f.analysis, *plan, g, options);
  EXPECT_TRUE(r.ok()) << r.status();
  if (r.ok()) f.result = *std::move(r);
  return f;
}

const GroupResult* FindGroup(const FusionResult& r, const std::string& name) {
  for (const GroupResult& g : r.groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::vector<std::string> GroupNames(const FusionResult& r) {
  std::vector<std::string> names;
  for (const GroupResult& g : r.groups) names.push_back(g.name);
  return names;
}

TEST(FusionTensorParallel, NoGroupSpansTheAllReduce) {
  const graph::Graph g = TransformerLayer();
  const AnalyzeOptions o = ::ridgeline::testing::ToyOptions(10e-6);
  // One GPU: the row-parallel MatMuls take their residual Adds as epilogues.
  const Fused one = Fuse(g, ToyNode(), o, 1, FusionKinds::All());
  EXPECT_EQ(
      GroupNames(one.result),
      (std::vector<std::string>{"attention:qk", "epilogue:o_proj",
                                "epilogue:gate_proj", "epilogue:down_proj"}));
  EXPECT_TRUE(CollectiveTensors(g, one.analysis).empty());
  // Two GPUs: o_proj and down_proj write partial sums that are all-reduced
  // before the residual Adds, so neither fuses with its Add; the Adds stay
  // alone (h + d cannot join h's own Add: the path through the MLP would
  // leave the group and re-enter it).
  const Fused two = Fuse(g, ToyNode(), o, 2, FusionKinds::All());
  EXPECT_EQ(GroupNames(two.result),
            (std::vector<std::string>{"attention:qk", "epilogue:gate_proj"}));
  EXPECT_EQ(CollectiveTensors(g, two.analysis).size(), 2u);  // attn, d
  // A plan made without the barriers is refused on the sharded analysis.
  absl::StatusOr<FusionResult> wrong =
      ApplyFusion(two.analysis, *PlanFusion(g, FusionKinds::All()), g, o);
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("spans the collective after"),
            std::string::npos)
      << wrong.status();
}

// Per GPU at T = 2, by hand:
// gate group {gate_proj, sigmoid, silu_mul, gate_up_mul}:
//   FLOPs: gate_proj 4 x 8 x 16 = 512 MACs / 2 = 256 MACs = 512 FLOPs;
//   sigmoid 64 / 2 = 32 elements x 13 = 416; the two Muls 32 each: 992
//   (one GPU: 2 x 512 + 64 x 13 + 2 x 64 = 1984).
//   Bytes read: h whole (the column-parallel input) 4 x 8 x 4 = 128 B; Wg
//   [8,16] split 8 x 16 x 4 / 2 = 256 B; u (up_proj's column shard, read by
//   the interior Mul) 4 x 16 x 4 / 2 = 128 B: 512 B. Written: m, the
//   interior Mul's shard, 4 x 16 x 4 / 2 = 128 B. Total 640 B (one GPU:
//   128 + 512 + 256 + 256 = 1152 B).
//   Time (flat toy profile, efficiencies 1): max(992 / 1e12, 640 / 1e11)
//   = 6.4 ns + the 10 us per-layer tax.
// attention group {q/k/v Transposes and Reshapes, qk, scale_mul, softmax,
// av, o_transpose}, every member interior (heads / 2):
//   FLOPs: qk 2 heads x 4 x 4 x 4 = 128 MACs = 256 FLOPs; scale 32 x 1;
//   softmax 32 x 15 = 480; av 256: 1024, per GPU 512.
//   Bytes read: q, k, v 4 x 8 x 4 = 128 B each, scale 4 B, all / 2: 194 B.
//   Written: o_t 4 x 2 x 4 x 4 = 128 B / 2 = 64 B. Total 258 B.
TEST(FusionTensorParallel, GroupsPerGpuByHand) {
  const graph::Graph g = TransformerLayer();
  const AnalyzeOptions o = ::ridgeline::testing::ToyOptions(10e-6);
  const Fused two = Fuse(g, ToyNode(), o, 2, FusionKinds::All());
  EXPECT_EQ(two.result.gpus, 2);
  EXPECT_EQ(two.result.tp, 2);
  const GroupResult* gate = FindGroup(two.result, "epilogue:gate_proj");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->members.size(), 4u);
  EXPECT_DOUBLE_EQ(gate->flops, 992);
  EXPECT_DOUBLE_EQ(gate->bytes_read, 512);
  EXPECT_DOUBLE_EQ(gate->bytes_written, 128);
  EXPECT_DOUBLE_EQ(gate->bytes, 640);
  EXPECT_DOUBLE_EQ(gate->weight_bytes, 256);
  EXPECT_NEAR(gate->latency_s, 10e-6 + 6.4e-9, 1e-15);
  const GroupResult* attention = FindGroup(two.result, "attention:qk");
  ASSERT_NE(attention, nullptr);
  EXPECT_EQ(attention->members.size(), 11u);
  EXPECT_DOUBLE_EQ(attention->flops, 512);
  EXPECT_DOUBLE_EQ(attention->bytes_read, 194);
  EXPECT_DOUBLE_EQ(attention->bytes_written, 64);
  // One GPU, the same groups: twice the FLOPs and (every tensor split)
  // twice the attention group's bytes; the gate group reads h whole on
  // each GPU, so its bytes do not halve.
  const Fused one = Fuse(g, ToyNode(), o, 1, FusionKinds::All());
  const GroupResult* gate1 = FindGroup(one.result, "epilogue:gate_proj");
  const GroupResult* attention1 = FindGroup(one.result, "attention:qk");
  ASSERT_NE(gate1, nullptr);
  ASSERT_NE(attention1, nullptr);
  EXPECT_DOUBLE_EQ(gate1->flops, 1984);
  EXPECT_DOUBLE_EQ(gate1->bytes, 1152);
  EXPECT_DOUBLE_EQ(attention1->flops, 1024);
  EXPECT_DOUBLE_EQ(attention1->bytes, 516);
}

// The unfused total is the sharded analysis' latency (collectives
// included); fusion only takes each group's saving off it.
TEST(FusionTensorParallel, UnfusedTotalIsTheShardedLatency) {
  const graph::Graph g = TransformerLayer();
  const AnalyzeOptions o = ::ridgeline::testing::ToyOptions(10e-6);
  const Fused two = Fuse(g, ToyNode(), o, 2, FusionKinds::All());
  const Analysis& a = two.analysis;
  ASSERT_TRUE(a.summary.parallel.has_value());
  double kernels = a.summary.per_inference_s;
  for (const KernelResult& k : a.kernels) kernels += k.time.latency_s;
  EXPECT_NEAR(two.result.latency_unfused_s, a.summary.latency_s, 1e-15);
  EXPECT_NEAR(two.result.latency_unfused_s, kernels, 1e-15);
  EXPECT_GT(a.summary.parallel->collective_s, 0);
  EXPECT_DOUBLE_EQ(two.result.collective_s, a.summary.parallel->collective_s);
  double saved = 0;
  for (const GroupResult& group : two.result.groups) saved += group.saved_s;
  EXPECT_NEAR(two.result.latency_s, a.summary.latency_s - saved, 1e-15);
  // Flat toy profile: each of the 20 non-view nodes is a kernel (the 4
  // Reshapes are views), + 2 all-reduces; the groups' 8 (attention: 4
  // Transposes, qk, scale, softmax, av) and 4 kernels become 1 each.
  EXPECT_EQ(two.result.kernels_unfused, 22);
  EXPECT_EQ(static_cast<int64_t>(a.kernels.size()), 22);
  EXPECT_EQ(two.result.kernels, 22 - 7 - 3);
}

// Llama-3.1-8B decode on 2 GPUs, eager runtime (no fusion of its own, so
// every planned group is priced): the GPUs' fused FLOPs add up to the
// one-GPU fused FLOPs, and attention groups (all heads split) move half
// the bytes per GPU.
TEST(FusionTensorParallel, Llama8bFlopsOverTheGpusSumToTheWhole) {
  absl::StatusOr<zoo::ModelEntry> e =
      ::ridgeline::testing::SourceEntry("llama-3.1-8b-decode");
  ASSERT_TRUE(e.ok()) << e.status();
  absl::StatusOr<graph::Graph> g = ::ridgeline::testing::ImportEntry(*e);
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<Hardware> hw =
      ::ridgeline::testing::SourceHardware("h100-sxm");
  ASSERT_TRUE(hw.ok()) << hw.status();
  absl::StatusOr<Runtime> rt = zoo::ResolveRuntime("eager");
  ASSERT_TRUE(rt.ok()) << rt.status();
  AnalyzeOptions o;
  o.runtime = &*rt;
  o.precision = "bf16";
  const Fused two = Fuse(*g, *hw, o, 2, FusionKinds::All());
  ASSERT_FALSE(two.result.groups.empty());
  // The one-GPU analysis fused with the two-GPU plan (the same groups).
  absl::StatusOr<Analysis> whole = Analyze(*g, *hw, o);
  ASSERT_TRUE(whole.ok()) << whole.status();
  absl::StatusOr<FusionPlan> plan =
      PlanFusion(*g, FusionKinds::All(), CollectiveTensors(*g, two.analysis));
  ASSERT_TRUE(plan.ok()) << plan.status();
  absl::StatusOr<FusionResult> one = ApplyFusion(*whole, *plan, *g, o);
  ASSERT_TRUE(one.ok()) << one.status();
  ASSERT_EQ(one->groups.size(), two.result.groups.size());
  // Per member: a sharded layer's FLOPs run on each GPU once (x 2 over the
  // GPUs), a replicated one's are the same work done twice (counted once).
  std::vector<const LayerResult*> by_node(g->nodes().size(), nullptr);
  for (const LayerResult& l : two.analysis.layers) {
    if (l.node >= 0) by_node[l.node] = &l;
  }
  std::vector<const LayerResult*> whole_by_node(g->nodes().size(), nullptr);
  for (const LayerResult& l : whole->layers) whole_by_node[l.node] = &l;
  double all_gpus = 0, unsharded = 0;
  int attention = 0;
  for (size_t i = 0; i < one->groups.size(); ++i) {
    const GroupResult& a = two.result.groups[i];
    const GroupResult& b = one->groups[i];
    ASSERT_EQ(a.name, b.name);
    double over_gpus = 0;
    for (int m : a.member_nodes) {
      const double split = by_node[m]->flops, full = whole_by_node[m]->flops;
      over_gpus += split == full ? full : 2 * split;
    }
    EXPECT_NEAR(over_gpus, b.flops, 1e-9 * b.flops) << a.name;
    all_gpus += over_gpus;
    unsharded += b.flops;
    if (a.kind == FusionKind::kAttention) {
      ++attention;
      EXPECT_NEAR(2 * a.flops, b.flops, 1e-9 * b.flops) << a.name;
      EXPECT_NEAR(2 * a.bytes, b.bytes, 1e-9 * b.bytes) << a.name;
    }
  }
  EXPECT_EQ(attention, 32);
  EXPECT_NEAR(all_gpus, unsharded, 1e-9 * unsharded);
  // The per-layer report's latency is the unfused total.
  EXPECT_DOUBLE_EQ(two.result.latency_unfused_s,
                   two.analysis.summary.latency_s);
  EXPECT_LT(two.result.latency_s, two.result.latency_unfused_s);
}

// The kernels of an analysis in launch order, each as its layers' names
// (sorted).
std::vector<std::vector<std::string>> KernelLayers(const Analysis& a) {
  std::vector<std::vector<std::string>> out;
  for (const KernelResult& k : a.kernels) {
    std::vector<std::string> names;
    for (int li : k.layers) names.push_back(a.layers[li].name);
    std::sort(names.begin(), names.end());
    out.push_back(std::move(names));
  }
  return out;
}

using Kernels = std::vector<std::vector<std::string>>;

// The runtime profile's own kernel plan under --tp: a collective is a
// barrier to its fusion, as it is to the --fuse what-if's.
absl::StatusOr<Analysis> ShardedUnder(const graph::Graph& g,
                                      const std::string& runtime, int tp,
                                      Runtime* rt) {
  absl::StatusOr<Runtime> r = zoo::ResolveRuntime(runtime);
  if (!r.ok()) return r.status();
  *rt = *std::move(r);
  AnalyzeOptions o;
  o.runtime = rt;
  return AnalyzeSharded(g, ToyNode(), o, {.tp = tp});
}

// The toy's GEMMs are narrower than 16 (n or k), so they run as
// elementwise-class kernels (ClassOfNode, engine/kernel_plan.h) and are
// not merged as sibling GEMMs: q, k and v stay three kernels, up stays
// apart from gate. A fused kernel is launched where its first member is:
// the attention kernel (its first member q's Transpose) before k_proj.
// The attention kernel: every non-view member of the attention group (the
// q/k/v Reshapes and o_reshape are views, in no kernel).
const std::vector<std::string> kAttention = {
    "av", "k_transpose", "o_transpose", "q_transpose",
    "qk", "scale_mul",   "softmax",     "v_transpose"};
// gate_proj with its epilogue (SiLU and the product with up).
const std::vector<std::string> kGate = {"gate_proj", "gate_up_mul", "sigmoid",
                                        "silu_mul"};

// One layer, no norms, `compiled` (epilogue + elementwise + attention
// fusion). One GPU: o_proj and down take their residual Adds as
// epilogues: q, attention, k, v, o_proj+Add, gate, up, down+Add = 8
// kernels. Two GPUs: o_proj and down write partial sums that are
// all-reduced before the Adds read them, so each Add is a kernel of its own
// after its all-reduce (h + d cannot join h's Add either: the path through
// the MLP would leave the group and re-enter it): 10 + 2 all-reduces = 12.
TEST(RuntimeFusionTensorParallel, CompiledKeepsNoKernelAcrossTheAllReduce) {
  const graph::Graph g = TransformerLayer();
  Runtime rt;
  absl::StatusOr<Analysis> one = ShardedUnder(g, "compiled", 1, &rt);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(KernelLayers(*one), (Kernels{{"q_proj"},
                                         kAttention,
                                         {"k_proj"},
                                         {"v_proj"},
                                         {"attn_residual", "o_proj"},
                                         kGate,
                                         {"up_proj"},
                                         {"down_proj", "mlp_residual"}}));
  EXPECT_EQ(one->summary.kernels, 8);
  absl::StatusOr<Analysis> two = ShardedUnder(g, "compiled", 2, &rt);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(KernelLayers(*two), (Kernels{{"q_proj"},
                                         kAttention,
                                         {"k_proj"},
                                         {"v_proj"},
                                         {"o_proj"},
                                         {"AllReduce:o_proj"},
                                         {"attn_residual"},
                                         kGate,
                                         {"up_proj"},
                                         {"down_proj"},
                                         {"AllReduce:down_proj"},
                                         {"mlp_residual"}}));
  EXPECT_EQ(two->summary.kernels, 12);
  EXPECT_EQ(two->summary.parallel->collectives, 2);
  // o_proj's kernel is o_proj alone, row-parallel on each GPU: 4 x 8 x 8 /
  // 2 = 128 MACs = 256 FLOPs; reads o_m (4 x 8 x 4 B) / 2 = 64 B and Wo
  // (8 x 8 x 4 B) / 2 = 128 B, writes the whole partial sum 4 x 8 x 4 =
  // 128 B: 320 B. The layer's latency is its kernel's.
  int checked = 0;
  for (const LayerResult& l : two->layers) {
    if (l.name != "o_proj") continue;
    ASSERT_GE(l.kernel, 0);
    const KernelResult& k = two->kernels[l.kernel];
    EXPECT_EQ(k.layers.size(), 1u);
    EXPECT_DOUBLE_EQ(k.work.matrix_flops + k.work.other_flops, 256);
    EXPECT_DOUBLE_EQ(k.work.bytes, 320);
    EXPECT_DOUBLE_EQ(l.latency_s, k.time.latency_s);
    ++checked;
  }
  EXPECT_EQ(checked, 1);
}

// The one-layer decoder (RMSNorms, LM head) on two GPUs. `compiled` keeps
// the LM head whole (gpt-fast): input_norm, q, attention, k, v, o_proj,
// all-reduce, attn_residual + post_norm (the Add fuses forward with the
// norm it feeds, as Inductor does), gate, up, down, all-reduce,
// mlp_residual + final_norm, LM head: 12 + 2 = 14 kernels. One GPU: the
// Adds are o_proj's and down's epilogues and the norms stand alone: 12.
// `tensorrt` splits the LM head by vocabulary: the same kernels and an
// all-gather of the logits, 15.
TEST(RuntimeFusionTensorParallel, DecoderAddFusesWithTheNextNorm) {
  const graph::Graph g = TransformerLayer(/*decoder=*/true);
  Runtime rt;
  absl::StatusOr<Analysis> one = ShardedUnder(g, "compiled", 1, &rt);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(KernelLayers(*one), (Kernels{{"input_norm"},
                                         {"q_proj"},
                                         kAttention,
                                         {"k_proj"},
                                         {"v_proj"},
                                         {"attn_residual", "o_proj"},
                                         {"post_norm"},
                                         kGate,
                                         {"up_proj"},
                                         {"down_proj", "mlp_residual"},
                                         {"final_norm"},
                                         {"lm_head"}}));
  EXPECT_EQ(one->summary.kernels, 12);
  const Kernels sharded = {{"input_norm"},
                           {"q_proj"},
                           kAttention,
                           {"k_proj"},
                           {"v_proj"},
                           {"o_proj"},
                           {"AllReduce:o_proj"},
                           {"attn_residual", "post_norm"},
                           kGate,
                           {"up_proj"},
                           {"down_proj"},
                           {"AllReduce:down_proj"},
                           {"final_norm", "mlp_residual"},
                           {"lm_head"}};
  absl::StatusOr<Analysis> compiled = ShardedUnder(g, "compiled", 2, &rt);
  ASSERT_TRUE(compiled.ok()) << compiled.status();
  EXPECT_EQ(KernelLayers(*compiled), sharded);
  EXPECT_EQ(compiled->summary.kernels, 14);
  // The Add + norm kernel: reads x (4 x 8 x 4 = 128 B), the all-reduced
  // attn (128 B, whole) and post_norm's weight (8 x 4 = 32 B); writes h
  // (128 B, read again by mlp_residual) and n (128 B): 544 B.
  int checked = 0;
  for (const KernelResult& k : compiled->kernels) {
    if (k.layers.size() == 2 &&
        compiled->layers[k.layers[0]].name == "attn_residual") {
      EXPECT_DOUBLE_EQ(k.work.bytes, 544);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1);
  absl::StatusOr<Analysis> trt = ShardedUnder(g, "tensorrt", 2, &rt);
  ASSERT_TRUE(trt.ok()) << trt.status();
  Kernels with_gather = sharded;
  with_gather.push_back({"AllGather:lm_head"});
  EXPECT_EQ(KernelLayers(*trt), with_gather);
  EXPECT_EQ(trt->summary.kernels, 15);
}

// `eager` fuses nothing: every node that is not a view is a kernel, sharded
// or not. Views: the four Reshapes and, as PyTorch strided views, the q, k
// and v Transposes (o_transpose feeds a Reshape: a copy kernel). Kernels:
// 3 norms, 3 projections, qk, scale, softmax, av, o_transpose, o_proj,
// attn_residual, gate, up, sigmoid, two Muls, down, mlp_residual, LM head
// = 21, + 2 all-reduces + the logits' all-gather = 24 on two GPUs.
TEST(RuntimeFusionTensorParallel, EagerHasNothingToSplit) {
  const graph::Graph g = TransformerLayer(/*decoder=*/true);
  Runtime rt;
  absl::StatusOr<Analysis> one = ShardedUnder(g, "eager", 1, &rt);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->summary.kernels, 21);
  absl::StatusOr<Analysis> two = ShardedUnder(g, "eager", 2, &rt);
  ASSERT_TRUE(two.ok()) << two.status();
  EXPECT_EQ(two->summary.kernels, 24);
}

// An analysis planned without the barriers (one GPU's plan) is refused by
// the tensor-parallel sharding, naming the kernel and the collective.
TEST(RuntimeFusionTensorParallel, ShardingRefusesAPlanAcrossACollective) {
  const graph::Graph g = TransformerLayer();
  absl::StatusOr<Runtime> rt = zoo::ResolveRuntime("compiled");
  ASSERT_TRUE(rt.ok()) << rt.status();
  AnalyzeOptions o;
  o.runtime = &*rt;
  absl::StatusOr<Analysis> a = Analyze(g, ToyNode(), o);
  ASSERT_TRUE(a.ok()) << a.status();
  absl::StatusOr<Analysis> s = ShardAnalysis(g, *a, {.tp = 2});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.status().message().find(
                "kernel 'epilogue:o_proj' spans the AllReduce after 'o_proj'"),
            std::string::npos)
      << s.status();
  // One GPU's sharding (tp 1) inserts no collective: the plan stands.
  EXPECT_TRUE(ShardAnalysis(g, *a, {.tp = 1}).ok());
  // With the barriers it shards; the barriers are the row-parallel outputs.
  absl::StatusOr<std::vector<int>> barriers = CollectiveBarriers(g, &*rt);
  ASSERT_TRUE(barriers.ok()) << barriers.status();
  std::vector<std::string> names;
  for (int t : *barriers) names.push_back(g.tensor(t).name);
  EXPECT_EQ(names, (std::vector<std::string>{"attn", "d"}));
  o.fusion_barriers = *barriers;
  absl::StatusOr<Analysis> planned = Analyze(g, ToyNode(), o);
  ASSERT_TRUE(planned.ok()) << planned.status();
  EXPECT_TRUE(ShardAnalysis(g, *std::move(planned), {.tp = 2}).ok());
}

TEST(FusionTensorParallelCli, TpAndPpFuse) {
  using cli_testing::RunCli;
  const std::vector<std::string> base = {
      "--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision", "bf16"};
  auto run = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return RunCli(args);
  };
  cli_testing::Result r = run({"--tp", "2", "--fuse", "all"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(cli_testing::Contains(r.out, "one inference sharded over 2 GPUs"))
      << r.out;
  // JSON: the fusion summary's unfused latency is the report's latency.
  r = run(
      {"--tp", "2", "--fuse", "all", "--runtime", "eager", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["fusion"]["latency_unfused_s"].get<double>(),
                   j["summary"]["latency_s"].get<double>());
  EXPECT_EQ(j["fusion"]["gpus"], 2);
  EXPECT_LT(j["fusion"]["latency_s"].get<double>(),
            j["fusion"]["latency_unfused_s"].get<double>());
  // --tp 1 is the unsharded what-if, byte for byte.
  const cli_testing::Result plain = run({"--fuse", "all", "--format", "json"});
  const cli_testing::Result tp1 =
      run({"--tp", "1", "--fuse", "all", "--format", "json"});
  ASSERT_EQ(plain.code, 0) << plain.err;
  EXPECT_EQ(plain.out, tp1.out);
  EXPECT_FALSE(nlohmann::json::parse(tp1.out)["fusion"].contains("gpus"));
  // Pipeline parallel: the nodes run whole, one stage after the other, so
  // fusion saves what it saves unsharded, less any group the stage's send
  // cuts; the send keeps its time; the result is one inference on 2 GPUs.
  // (Eager: the default runtime fuses already and the what-if saves 0.)
  r = run(
      {"--pp", "2", "--fuse", "all", "--runtime", "eager", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json piped = nlohmann::json::parse(r.out);
  r = run({"--fuse", "all", "--runtime", "eager", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json whole = nlohmann::json::parse(r.out)["fusion"];
  EXPECT_EQ(piped["fusion"]["gpus"], 2);
  EXPECT_DOUBLE_EQ(piped["fusion"]["latency_unfused_s"].get<double>(),
                   piped["summary"]["latency_s"].get<double>());
  const double saved_piped =
      piped["fusion"]["latency_unfused_s"].get<double>() -
      piped["fusion"]["latency_s"].get<double>();
  const double saved_whole = whole["latency_unfused_s"].get<double>() -
                             whole["latency_s"].get<double>();
  EXPECT_GT(saved_piped, 0.9 * saved_whole);
  EXPECT_LE(saved_piped, saved_whole * (1 + 1e-9));
  r = run({"--pp", "2", "--what-if"});
  EXPECT_EQ(r.code, 0) << r.err;
  // Weight quantization is sharded over the pipeline's stages.
  r = run({"--pp", "2", "--weights", "int8", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json pp = nlohmann::json::parse(r.out);
  EXPECT_EQ(pp["quantize"]["summary"]["gpus"], 2);
  EXPECT_LT(
      pp["quantize"]["summary"]["weight_bytes_per_gpu"].get<double>(),
      pp["quantize"]["summary"]["weight_bytes_per_gpu_before"].get<double>());
  // --activations with --tp is still refused (the all-reduce messages).
  r = run({"--tp", "2", "--activations", "int8"});
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(cli_testing::Contains(r.err, "--activations is not sharded"))
      << r.err;
}

// Expert parallel: every layer is the busiest GPU's share and no group spans
// a dispatch or combine all-to-all. Mixtral-8x7B decode, batch 8 over 8 GPUs,
// PyTorch eager (so the what-if has kernels to fuse), by hand for the first
// layer's output projection with its residual Add as the epilogue: each GPU
// serves ceil(8 / 8) = 1 request, so it reads the whole 4096 x 4096 bf16
// weight (33,554,432 B), one row of the attention output and one of the
// residual (4096 x 2 B = 8,192 B each): 33,570,816 B; it writes one row,
// 8,192 B; FLOPs 2 x 4096 x 4096 + 4096 (the Add) = 33,558,528.
TEST(FusionExpertParallelCli, GroupsAreTheBusiestGpusShare) {
  using cli_testing::RunCli;
  const std::vector<std::string> base = {"--zoo",       "mixtral-8x7b-decode",
                                         "--hw",        "h100",
                                         "--precision", "bf16",
                                         "--batch",     "8",
                                         "--ep",        "8",
                                         "--runtime",   "eager"};
  std::vector<std::string> fused = base;
  fused.insert(fused.end(), {"--fuse", "all", "--format", "json"});
  const cli_testing::Result r = RunCli(fused);
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const nlohmann::json& f = j["fusion"];
  EXPECT_EQ(f["gpus"], 8);
  EXPECT_EQ(f["ep"], 8);
  EXPECT_EQ(f["tp"], 1);
  EXPECT_DOUBLE_EQ(f["latency_unfused_s"].get<double>(),
                   j["summary"]["latency_s"].get<double>());
  EXPECT_LT(f["latency_s"].get<double>(), f["latency_unfused_s"].get<double>());
  EXPECT_LT(f["kernels"].get<int>(), f["kernels_unfused"].get<int>());
  bool found = false;
  for (const nlohmann::json& g : j["groups"]) {
    // The MoE layer sits between its dispatch and its combine: alone.
    for (const nlohmann::json& op : g["ops"]) {
      EXPECT_EQ(op.get<std::string>().find("MoE"), std::string::npos)
          << g["name"];
    }
    if (g["name"] == "epilogue:/layers.0/self_attn/o_proj/MatMul") {
      found = true;
      EXPECT_DOUBLE_EQ(g["bytes_read"].get<double>(), 33570816.0);
      EXPECT_DOUBLE_EQ(g["bytes_written"].get<double>(), 8192.0);
      EXPECT_DOUBLE_EQ(g["flops"].get<double>(), 33558528.0);
    }
  }
  EXPECT_TRUE(found);
  // The --what-if table runs with --ep too.
  std::vector<std::string> table = base;
  table.push_back("--what-if");
  const cli_testing::Result w = RunCli(table);
  EXPECT_EQ(w.code, 0) << w.err;
}

}  // namespace
}  // namespace ridgeline::engine
