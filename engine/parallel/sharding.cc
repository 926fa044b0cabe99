#include "engine/parallel/sharding.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "engine/moe.h"
#include "engine/parallel/collectives.h"
#include "engine/parallel/transformer_blocks.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

// kExpertTp: a MoE layer under tensor parallelism (every expert's width /
// tp, input whole, partial-sum output whole); kExpertEp: a MoE layer under
// expert parallelism (the busiest GPU's share, MoeShard); kDataParallel:
// any other layer under expert parallelism (the GPU's requests, weights
// whole).
enum class Role {
  kReplicated,
  kColumn,
  kRow,
  kInterior,
  kExpertTp,
  kExpertEp,
  kDataParallel
};

// One MoE layer under expert parallelism, on the busiest GPU.
struct MoeShard {
  double work = 1;     // pairs on the GPU / all token-expert pairs
  double weights = 1;  // experts it reads / experts read unsharded
  double rows = 1;     // activation rows: pairs on the GPU / tokens
  GemmShape gemm;      // touched local experts x rows each
};

struct Split {
  double tp = 1;
  double dense = 1;  // ep: the GPU's share of the requests, ceil(B/ep) / B
  absl::flat_hash_map<int, MoeShard> moe;  // by node
};

Cost ScaleCost(const Cost& c, Role role, const Split& split, int node) {
  Cost s = c;
  const double f = 1.0 / split.tp;
  const double act_read = c.bytes_read - c.weight_bytes;
  switch (role) {
    case Role::kReplicated:
      return s;
    case Role::kDataParallel:
      s.bytes_read = act_read * split.dense + c.weight_bytes;
      s.bytes_written *= split.dense;
      s.macs *= split.dense;
      s.other_flops *= split.dense;
      return s;
    case Role::kExpertEp: {
      const MoeShard& m = split.moe.at(node);
      s.bytes_read = act_read * m.rows + c.weight_bytes * m.weights;
      s.bytes_written *= m.rows;
      s.weight_bytes *= m.weights;
      s.macs *= m.work;
      s.other_flops *= m.work;
      return s;
    }
    case Role::kExpertTp:  // the input read whole, the output written whole
      s.bytes_read = act_read + c.weight_bytes * f;
      break;
    case Role::kInterior:
      s.bytes_read *= f;
      s.bytes_written *= f;
      break;
    case Role::kColumn:  // the input is read whole
      s.bytes_read = (c.bytes_read - c.weight_bytes) + c.weight_bytes * f;
      s.bytes_written *= f;
      break;
    case Role::kRow:  // the partial-sum output is written whole
      s.bytes_read *= f;
      break;
  }
  s.macs *= f;
  s.other_flops *= f;
  s.weight_bytes *= f;
  return s;
}

// The GEMM one rank runs: columns (column-parallel), the contraction
// (row-parallel), or heads (the batch of attention products) divided.
GemmShape ScaleGemm(GemmShape g, Role role, const Split& split, int node) {
  if (!(g.batch > 0)) return g;
  const double tp = split.tp;
  switch (role) {
    case Role::kReplicated:
      break;
    case Role::kDataParallel:
      g.m *= split.dense;
      break;
    case Role::kExpertEp:
      return split.moe.at(node).gemm;
    case Role::kColumn:
    case Role::kExpertTp:
      g.n /= tp;
      break;
    case Role::kRow:
      g.k /= tp;
      break;
    case Role::kInterior:
      if (g.batch >= tp) {
        g.batch /= tp;
      } else {
        g.n /= tp;
      }
      break;
  }
  return g;
}

// What a tensor-parallel role reads and writes per GPU, as ScaleCost
// scales it.
NodeShare ShareOf(Role role, double tp) {
  const double f = 1.0 / tp;
  switch (role) {
    case Role::kColumn:
      return {.activations_read = 1, .weights_read = f, .written = f};
    case Role::kRow:
      return {.activations_read = f, .weights_read = f, .written = 1};
    case Role::kInterior:
      return {.activations_read = f, .weights_read = f, .written = f};
    case Role::kExpertTp:
      return {.activations_read = 1, .weights_read = f, .written = 1};
    case Role::kReplicated:
    case Role::kExpertEp:
    case Role::kDataParallel:
      break;
  }
  return {};
}

// A collective that tensor parallelism places after a graph node.
struct TpCollective {
  int node = -1;
  CollectiveOp op = CollectiveOp::kAllReduce;
};

// The collectives of a tensor-parallel layout: an all-reduce after every
// row-parallel MatMul and every MoE layer, an all-gather after a split LM
// head.
std::vector<TpCollective> TensorParallelCollectives(
    const TransformerBlocks& b, const std::vector<MoeLayer>& moe,
    bool split_lm_head) {
  std::vector<TpCollective> out;
  for (const MegatronBlock& block : b.blocks) {
    out.push_back({block.row, CollectiveOp::kAllReduce});
  }
  for (const MoeLayer& m : moe) {
    out.push_back({m.node, CollectiveOp::kAllReduce});
  }
  if (split_lm_head) out.push_back({b.lm_head, CollectiveOp::kAllGather});
  return out;
}

// A runtime that keeps the LM head whole runs it on every GPU, unsplit.
bool SplitsLmHead(const TransformerBlocks& b, const Runtime& runtime) {
  return b.lm_head >= 0 && !runtime.tp_replicates_lm_head;
}

// The kernel that holds both `node` and a reader of its outputs (reached
// through layers without a kernel: views), or -1. `layer_of`: per node,
// its index in a.layers.
int KernelAcross(const graph::Graph& graph, const Analysis& a,
                 const std::vector<int>& layer_of, int node) {
  const int li = layer_of[node];
  const int k = li >= 0 ? a.layers[li].kernel : -1;
  if (k < 0) return -1;
  std::vector<int> stack(graph.node(node).outputs.begin(),
                         graph.node(node).outputs.end());
  absl::flat_hash_set<int> seen;
  while (!stack.empty()) {
    const int t = stack.back();
    stack.pop_back();
    if (t < 0 || !seen.insert(t).second) continue;
    for (int c : graph.tensor(t).consumers) {
      const int cl = layer_of[c];
      if (cl < 0) continue;
      if (a.layers[cl].kernel == k) return k;
      if (a.layers[cl].kernel < 0) {
        const graph::Node& view = graph.node(c);
        stack.insert(stack.end(), view.outputs.begin(), view.outputs.end());
      }
    }
  }
  return -1;
}

double Ratio(double scaled, double original) {
  return original > 0 ? scaled / original : 1.0;
}

// A collective layer and kernel placed after a graph layer and its kernel.
struct Insert {
  int after_layer = -1;   // index into Analysis::layers
  int after_kernel = -1;  // index into Analysis::kernels
  CollectiveWork work;
  std::string name;
  std::vector<TensorInfo> tensors;
};

// Rebuilds the layer and kernel lists with the collectives in place. The
// layers are merged from the back inside their own vector (Analyze keeps
// AnalyzeOptions::spare_layers of room): a 70B graph has 12,000 layers of
// about half a kilobyte, and a second vector of them is 5 MB of fresh pages.
void InsertCollectives(Analysis* a, std::vector<Insert> inserts) {
  std::stable_sort(inserts.begin(), inserts.end(),
                   [](const Insert& x, const Insert& y) {
                     return x.after_layer < y.after_layer;
                   });
  std::vector<LayerResult>& layers = a->layers;
  // An insert names a layer of the analysis (ShardAnalysis builds them so);
  // one that did not would have no place.
  std::erase_if(inserts, [&](const Insert& in) {
    return in.after_layer < 0 ||
           in.after_layer >= static_cast<int>(layers.size());
  });
  const size_t old_size = layers.size();
  std::vector<int> remap(old_size, -1);
  std::vector<int> new_layer(inserts.size(), -1);
  layers.resize(old_size + inserts.size());
  size_t write = layers.size();  // one past the next slot to fill
  size_t next = inserts.size();  // inserts still to place, from the back
  for (size_t i = old_size; i-- > 0;) {
    // Inserts after layer i go right after it, in their sorted order.
    for (; next > 0 && inserts[next - 1].after_layer == static_cast<int>(i);
         --next) {
      const Insert& in = inserts[next - 1];
      LayerResult l;
      l.name = in.name;
      l.op_type = std::string(CollectiveOpName(in.work.op));
      l.domain = "ridgeline.parallel";
      l.inputs = in.tensors;
      l.outputs = in.tensors;
      l.message_bytes = in.work.message_bytes;
      l.bytes = in.work.message_bytes;
      new_layer[next - 1] = static_cast<int>(--write);
      layers[write] = std::move(l);
    }
    remap[i] = static_cast<int>(--write);
    if (write != i) layers[write] = std::move(layers[i]);
  }
  // The inserts after each kernel, in their sorted order.
  std::vector<std::vector<size_t>> after_kernel(a->kernels.size());
  for (size_t j = 0; j < inserts.size(); ++j) {
    const int k = inserts[j].after_kernel;
    if (k >= 0 && k < static_cast<int>(after_kernel.size())) {
      after_kernel[k].push_back(j);
    }
  }
  std::vector<KernelResult> kernels;
  kernels.reserve(a->kernels.size() + inserts.size());
  for (size_t k = 0; k < a->kernels.size(); ++k) {
    KernelResult kernel = std::move(a->kernels[k]);
    for (int& li : kernel.layers) li = remap[li];
    kernels.push_back(std::move(kernel));
    for (size_t j : after_kernel[k]) {
      KernelResult c;
      c.name = inserts[j].name;
      c.fusion = "collective";
      c.layers = {new_layer[j]};
      c.work.kind = KernelClass::kCollective;
      c.work.op_type = std::string(CollectiveOpName(inserts[j].work.op));
      c.work.collective = inserts[j].work;
      kernels.push_back(std::move(c));
    }
  }
  a->kernels = std::move(kernels);
  for (LayerResult& l : a->layers) {
    if (l.kernel >= 0 || l.message_bytes > 0) l.kernel = -1;
  }
  for (size_t k = 0; k < a->kernels.size(); ++k) {
    for (int li : a->kernels[k].layers) {
      a->layers[li].kernel = static_cast<int>(k);
    }
  }
}

std::string LinkText(const Interconnect& ic) {
  std::string out =
      ic.present()
          ? fmt::format(
                "{}: {:.0f} GB/s per direction per GPU, {} GPUs per "
                "node",
                ic.intra_node, ic.intra_node_bandwidth_bytes_per_s / 1e9,
                ic.gpus_per_node)
          : "no intra-node link";
  if (ic.has_network()) {
    out += fmt::format("; across nodes {}: {:.0f} GB/s per GPU", ic.inter_node,
                       ic.inter_node_bandwidth_bytes_per_s / 1e9);
  }
  if (!ic.measured_collectives.empty()) {
    std::set<int> counts;  // each GPU count once, ascending
    for (const MeasuredCollective& m : ic.measured_collectives) {
      counts.insert(m.gpus);
    }
    std::string listed;
    for (int n : counts) {
      listed += fmt::format("{}{}", listed.empty() ? "" : "/", n);
    }
    out += fmt::format(
        "; collectives on {} GPUs of a node timed from measured NCCL times",
        listed);
  }
  return out;
}

absl::Status CheckOptions(const ParallelOptions& o, const Hardware& hw) {
  if (o.tp < 1 || o.pp < 1 || o.ep < 1 || o.microbatches < 1) {
    return absl::InvalidArgumentError(fmt::format(
        "--tp {}, --pp {}, --ep {}, --microbatches {}: each must be >= 1", o.tp,
        o.pp, o.ep, o.microbatches));
  }
  if (o.tp > 1 && o.ep > 1) {
    return absl::InvalidArgumentError(
        fmt::format("--tp {} with --ep {}: expert parallelism is modelled with "
                    "data-parallel attention (--tp 1); use one of the two",
                    o.tp, o.ep));
  }
  const Interconnect& ic = hw.interconnect;
  const int gpus = o.gpus();
  if (gpus > 1 && !ic.present() && !ic.has_network()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} ({} GPUs): hardware '{}' has no "
        "interconnect data (\"interconnect\" in its hardware file); "
        "a100-40gb-sxm, a100-80gb-sxm, h100-sxm, h200-sxm, b200 and mi300x "
        "have it",
        LayoutFlags(o), gpus, hw.key));
  }
  if (gpus > ic.gpus_per_node && !ic.has_network()) {
    return absl::InvalidArgumentError(
        fmt::format("{} needs {} GPUs, but a '{}' node holds {} and "
                    "its hardware file gives no network between nodes",
                    LayoutFlags(o), gpus, hw.key, ic.gpus_per_node));
  }
  if (o.ep > ic.gpus_per_node && ic.gpus_per_node > 1 &&
      o.ep % ic.gpus_per_node != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "--ep {} spans nodes of {} '{}' GPUs: it must be a multiple of {}",
        o.ep, ic.gpus_per_node, hw.key, ic.gpus_per_node));
  }
  if (o.tp > ic.gpus_per_node && ic.gpus_per_node > 1 &&
      o.tp % ic.gpus_per_node != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "--tp {} spans nodes of {} '{}' GPUs: it must be a multiple of {}",
        o.tp, ic.gpus_per_node, hw.key, ic.gpus_per_node));
  }
  return absl::OkStatus();
}

// Roles of the nodes under tensor parallelism; errors name the block. The
// LM head is column-parallel when `split_lm_head`, else replicated.
absl::Status AssignRoles(const graph::Graph& graph, const TransformerBlocks& b,
                         int tp, bool split_lm_head, std::vector<Role>* role) {
  for (const MegatronBlock& block : b.blocks) {
    const std::string& name = graph.node(block.row).name;
    if (block.attention) {
      if (block.heads % tp != 0 || block.kv_heads % tp != 0) {
        return absl::InvalidArgumentError(fmt::format(
            "--tp {} does not divide the attention heads: {} query heads and "
            "{} KV heads (attention block before '{}'); use a --tp that "
            "divides both",
            tp, block.heads, block.kv_heads, name));
      }
    } else if (block.columns % tp != 0) {
      return absl::InvalidArgumentError(
          fmt::format("--tp {} does not divide the MLP width {} (block before "
                      "'{}')",
                      tp, block.columns, name));
    }
    for (int n : block.column) (*role)[n] = Role::kColumn;
    for (int n : block.interior) (*role)[n] = Role::kInterior;
    (*role)[block.row] = Role::kRow;
  }
  if (split_lm_head) (*role)[b.lm_head] = Role::kColumn;
  return absl::OkStatus();
}

// What sharding changes of a layer, as the unsharded analysis had it.
struct Before {
  double flops = 0;
  double bytes = 0;
  double weight_bytes = 0;
  double bytes_written = 0;
};

// The tensor-parallel split of every layer and kernel.
void ScaleWork(const std::vector<Before>& in, const std::vector<Role>& role,
               const Split& split, Analysis* out) {
  const double fpm = out->pricing.flops_per_mac;
  for (LayerResult& l : out->layers) {
    if (l.skipped || l.node < 0) continue;
    const Role r = role[l.node];
    l.cost = ScaleCost(l.cost, r, split, l.node);
    l.cost.gemm = ScaleGemm(l.cost.gemm, r, split, l.node);
    l.flops = l.cost.Flops(fpm);
    l.bytes = l.cost.Bytes();
    l.intensity = l.bytes > 0 ? l.flops / l.bytes : 0;
  }
  for (KernelResult& k : out->kernels) {
    double f0 = 0, f1 = 0, b0 = 0, b1 = 0, w0 = 0, w1 = 0;
    for (int li : k.layers) {
      const Before& before = in[li];
      const LayerResult& after = out->layers[li];
      f0 += before.flops;
      f1 += after.flops;
      b0 += before.bytes;
      b1 += after.bytes;
      w0 += before.weight_bytes;
      w1 += after.cost.weight_bytes;
    }
    const double rf = Ratio(f1, f0), rb = Ratio(b1, b0), rw = Ratio(w1, w0);
    k.work.matrix_flops *= rf;
    k.work.other_flops *= rf;
    k.work.bytes *= rb;
    k.work.weight_bytes *= rw;
    // An attention kernel's (sequence, KV head) blocks split with its KV
    // bytes (one GPU's heads).
    k.work.attention_blocks *= rb;
    if (k.anchor >= 0) {
      k.work.gemm = ScaleGemm(k.work.gemm, role[k.anchor], split, k.anchor);
    }
  }
}

}  // namespace

std::string LayoutFlags(const ParallelOptions& options) {
  std::string out;
  for (const auto& [flag, n] : {std::pair{"--tp", options.tp},
                                {"--pp", options.pp},
                                {"--ep", options.ep}}) {
    if (n > 1) out += fmt::format("{}{} {}", out.empty() ? "" : " ", flag, n);
  }
  return out.empty() ? std::string("--tp 1") : out;
}

absl::StatusOr<ShardingStructure> FindShardingStructure(
    const graph::Graph& graph) {
  ShardingStructure out;
  absl::StatusOr<TransformerBlocks> blocks = FindTransformerBlocks(graph);
  if (!blocks.ok()) return blocks.status();
  out.blocks = *std::move(blocks);
  out.weight_source.resize(graph.tensors().size());
  for (size_t t = 0; t < graph.tensors().size(); ++t) {
    out.weight_source[t] = WeightSource(graph, static_cast<int>(t));
  }
  return out;
}

namespace {

// `*structure`, or when it is null the structure found in `graph`, held in
// `*found`.
absl::Status EnsureStructure(const graph::Graph& graph,
                             const ShardingStructure** structure,
                             std::optional<ShardingStructure>* found) {
  if (*structure != nullptr) return absl::OkStatus();
  absl::StatusOr<ShardingStructure> s = FindShardingStructure(graph);
  if (!s.ok()) return s.status();
  *found = *std::move(s);
  *structure = &**found;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<int>> CollectiveBarriers(
    const graph::Graph& graph, const Runtime* runtime,
    const ShardingStructure* structure) {
  std::vector<int> barriers;
  std::optional<ShardingStructure> found;
  if (absl::Status s = EnsureStructure(graph, &structure, &found); !s.ok()) {
    return s;
  }
  const bool split_lm_head =
      structure->blocks.lm_head >= 0 &&
      (runtime == nullptr || !runtime->tp_replicates_lm_head);
  for (const TpCollective& c : TensorParallelCollectives(
           structure->blocks, FindMoeLayers(graph), split_lm_head)) {
    for (int t : graph.node(c.node).outputs) {
      if (t >= 0) barriers.push_back(t);
    }
  }
  return barriers;
}

namespace {

// The nodes an expert-parallel all-to-all follows: each MoE layer (the
// combine) and the producers of its activation inputs (the dispatch;
// weights excluded).
std::vector<int> AllToAllNodes(const graph::Graph& graph,
                               const std::vector<MoeLayer>& moe) {
  std::vector<int> nodes;
  for (const MoeLayer& m : moe) {
    nodes.push_back(m.node);
    for (int t : graph.node(m.node).inputs) {
      if (t < 0 || graph.IsWeight(graph.tensor(t))) continue;
      const int producer = graph.tensor(t).producer;
      if (producer >= 0) nodes.push_back(producer);
    }
  }
  return nodes;
}

}  // namespace

std::vector<int> ExpertParallelBarriers(const graph::Graph& graph) {
  std::vector<int> barriers;
  for (int n : AllToAllNodes(graph, FindMoeLayers(graph))) {
    for (int t : graph.node(n).outputs) {
      if (t >= 0) barriers.push_back(t);
    }
  }
  std::sort(barriers.begin(), barriers.end());
  barriers.erase(std::unique(barriers.begin(), barriers.end()), barriers.end());
  return barriers;
}

absl::StatusOr<Analysis> ShardAnalysis(const graph::Graph& graph,
                                       Analysis analysis,
                                       const ParallelOptions& options,
                                       const ShardingStructure* structure) {
  const Hardware& hw = analysis.hardware;
  if (absl::Status s = CheckOptions(options, hw); !s.ok()) return s;
  std::optional<ShardingStructure> found;
  if (absl::Status s = EnsureStructure(graph, &structure, &found); !s.ok()) {
    return s;
  }
  if (structure->weight_source.size() != graph.tensors().size()) {
    return absl::InvalidArgumentError(
        "ShardAnalysis: the sharding structure is of another graph");
  }
  const TransformerBlocks* blocks = &structure->blocks;
  const int tp = options.tp, pp = options.pp, ep = options.ep;
  const std::vector<MoeLayer> moe = FindMoeLayers(graph);
  if (ep > 1 && moe.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "--ep {}: found no mixture-of-experts layer (com.microsoft MoE node) "
        "in the graph",
        ep));
  }
  for (const MoeLayer& m : moe) {
    const std::string& name = graph.node(m.node).name;
    if (m.experts % ep != 0) {
      return absl::InvalidArgumentError(fmt::format(
          "--ep {} does not divide the {} experts of MoE layer '{}'; use an "
          "--ep that divides {}",
          ep, m.experts, name, m.experts));
    }
    if (m.ffn % tp != 0) {
      return absl::InvalidArgumentError(
          fmt::format("--tp {} does not divide the experts' width {} (MoE "
                      "layer '{}')",
                      tp, m.ffn, name));
    }
  }
  int64_t attention_blocks = 0;
  for (const MegatronBlock& b : blocks->blocks) attention_blocks += b.attention;
  if ((tp > 1 || pp > 1) && attention_blocks == 0) {
    return absl::InvalidArgumentError(
        "--tp/--pp: found no transformer layer in the graph (weight MatMuls "
        "reading one activation whose outputs meet in attention and feed "
        "one projection)");
  }
  const bool split_lm_head = SplitsLmHead(*blocks, analysis.pricing.runtime);
  const std::vector<TpCollective> tp_collectives =
      tp > 1 ? TensorParallelCollectives(*blocks, moe, split_lm_head)
             : std::vector<TpCollective>{};
  std::vector<int> layer_of(graph.nodes().size(), -1);
  for (size_t i = 0; i < analysis.layers.size(); ++i) {
    if (analysis.layers[i].node >= 0) {
      layer_of[analysis.layers[i].node] = static_cast<int>(i);
    }
  }
  // No kernel may span a collective (the analysis is planned with the
  // layout's CollectiveBarriers).
  for (const TpCollective& c : tp_collectives) {
    const int k = KernelAcross(graph, analysis, layer_of, c.node);
    if (k < 0) continue;
    return absl::FailedPreconditionError(fmt::format(
        "ShardAnalysis: kernel '{}' spans the {} after '{}'; analyze with "
        "AnalyzeOptions::fusion_barriers = CollectiveBarriers(...) first",
        analysis.kernels[k].name, CollectiveOpName(c.op),
        graph.node(c.node).name));
  }
  std::vector<Role> role(graph.nodes().size(), Role::kReplicated);
  if (tp > 1) {
    if (absl::Status s = AssignRoles(graph, *blocks, tp, split_lm_head, &role);
        !s.ok()) {
      return s;
    }
    for (const MoeLayer& m : moe) role[m.node] = Role::kExpertTp;
  }
  // Expert parallel: the busiest GPU's share of each MoE layer (balanced
  // routing), every other layer on the GPU's ceil(B / ep) requests.
  Split split;
  split.tp = tp;
  if (ep > 1) {
    const double b = static_cast<double>(std::max<int64_t>(1, analysis.batch));
    split.dense = std::ceil(b / ep) / b;
    std::fill(role.begin(), role.end(), Role::kDataParallel);
    for (const MoeLayer& m : moe) {
      role[m.node] = Role::kExpertEp;
      const double k = static_cast<double>(m.experts_per_token);
      const double pairs = m.tokens * k;
      const double on_gpu = std::ceil(pairs / ep);
      const double local = static_cast<double>(m.experts / ep);
      const double touched = std::min(local, on_gpu);
      MoeShard shard;
      shard.work = pairs > 0 ? on_gpu / pairs : 1;
      shard.weights =
          touched / TouchedExperts(static_cast<double>(m.experts), m.tokens, k);
      shard.rows = m.tokens > 0 ? on_gpu / m.tokens : 1;
      shard.gemm = {touched, on_gpu / touched, static_cast<double>(m.ffn),
                    static_cast<double>(m.hidden)};
      split.moe[m.node] = shard;
    }
  }

  Analysis& out = analysis;  // sharded in place
  std::vector<Before> before(out.layers.size());
  std::vector<int> kernel_before(out.layers.size(), -1);
  for (size_t i = 0; i < out.layers.size(); ++i) {
    const LayerResult& l = out.layers[i];
    before[i] = {l.flops, l.bytes, l.cost.weight_bytes, l.cost.bytes_written};
    kernel_before[i] = l.kernel;
  }
  ParallelSummary ps;
  ps.gpus = options.gpus();
  ps.tp = tp;
  ps.pp = pp;
  ps.ep = ep;
  ps.moe_layers = static_cast<int64_t>(moe.size());
  if (!moe.empty()) ps.experts_per_gpu = moe.front().experts / ep;
  ps.microbatches = options.microbatches;
  ps.transformer_layers = attention_blocks;
  ps.interconnect = LinkText(analysis.pricing.interconnect);
  ps.lm_head = blocks->lm_head < 0 ? "no LM head found"
               : tp <= 1           ? "whole on one GPU"
               : split_lm_head
                   ? "column-parallel (vocabulary split) + all-gather of the "
                     "logits"
                   : "replicated: whole on every GPU (the runtime's "
                     "tp_replicates_lm_head)";
  if (tp > 1 || ep > 1) ScaleWork(before, role, split, &out);

  if (tp > 1) {
    ps.node_shares.resize(graph.nodes().size());
    for (size_t n = 0; n < role.size(); ++n) {
      ps.node_shares[n] = ShareOf(role[n], tp);
    }
  }
  // Expert parallel (tp is 1): the GPU's requests on every other layer, its
  // routed rows and touched experts on a MoE layer (as ScaleCost scales
  // them); the dispatch all-to-all follows the producers of a MoE layer's
  // activations, the combine follows the layer.
  if (ep > 1) {
    ps.node_shares.resize(graph.nodes().size());
    for (size_t n = 0; n < role.size(); ++n) {
      NodeShare& share = ps.node_shares[n];
      if (role[n] == Role::kDataParallel) {
        share = {.activations_read = split.dense,
                 .weights_read = 1,
                 .written = split.dense};
      }
    }
    for (const MoeLayer& m : moe) {
      const MoeShard& shard = split.moe.at(m.node);
      ps.node_shares[m.node] = {.activations_read = shard.rows,
                                .weights_read = shard.weights,
                                .written = shard.rows};
    }
    for (int n : AllToAllNodes(graph, moe)) {
      ps.node_shares[n].collective_after = true;
    }
  }
  // Two all-reduces per transformer layer, the logits' all-gather.
  std::vector<Insert> inserts;
  auto add = [&](int node, CollectiveOp op, int gpus) {
    const int li = layer_of[node];
    if (li < 0 || kernel_before[li] < 0) return;
    if (!ps.node_shares.empty()) ps.node_shares[node].collective_after = true;
    const LayerResult& l = out.layers[li];
    Insert in;
    in.after_layer = li;
    in.after_kernel = kernel_before[li];
    in.work.op = op;
    in.work.gpus = gpus;
    in.work.message_bytes = before[li].bytes_written;
    in.name = fmt::format("{}:{}", CollectiveOpName(op), l.name);
    in.tensors = l.outputs;
    inserts.push_back(std::move(in));
  };
  for (const TpCollective& c : tp_collectives) add(c.node, c.op, tp);
  // Expert parallel: an all-to-all of the GPU's routed tokens (tokens x k x
  // hidden) before each MoE layer (dispatch) and after it (combine).
  for (const MoeLayer& m : ep > 1 ? moe : std::vector<MoeLayer>{}) {
    const int li = layer_of[m.node];
    if (li < 1 || kernel_before[li] < 1) continue;
    const double per_row = m.tokens > 0 ? before[li].bytes_written / m.tokens
                                        : 0;  // hidden x activation bytes
    const double message = m.tokens * split.dense *
                           static_cast<double>(m.experts_per_token) * per_row;
    const LayerResult& l = out.layers[li];
    for (const bool dispatch : {true, false}) {
      Insert in;
      in.after_layer = dispatch ? li - 1 : li;
      in.after_kernel = dispatch ? kernel_before[li] - 1 : kernel_before[li];
      in.work.op = CollectiveOp::kAllToAll;
      in.work.gpus = ep;
      in.work.message_bytes = message;
      in.name = fmt::format("AllToAll:{}:{}", dispatch ? "dispatch" : "combine",
                            l.name);
      in.tensors = dispatch ? l.inputs : l.outputs;
      inserts.push_back(std::move(in));
    }
  }
  for (const Insert& in : inserts) {
    absl::StatusOr<CollectiveTime> check =
        TimeCollective(in.work, hw.interconnect);
    if (!check.ok()) return check.status();
  }
  InsertCollectives(&out, std::move(inserts));
  TimeKernels(&out);

  // Pipeline stages: cut after a transformer layer's MLP (and its
  // all-reduce), the cut closest to each equal share of the time.
  std::vector<int> stage_end;  // last kernel of each stage but the last
  if (pp > 1) {
    struct Cut {
      int kernel = -1;
      int layer = -1;
      int node = -1;        // the transformer layer's MLP row / MoE node
      double before_s = 0;  // time of the kernels up to and with it
      double message_bytes = 0;
    };
    std::vector<Cut> cuts;
    std::vector<double> cumulative(out.kernels.size(), 0);
    double total = 0;
    for (size_t k = 0; k < out.kernels.size(); ++k) {
      total += out.kernels[k].time.latency_s;
      cumulative[k] = total;
    }
    // A transformer layer ends at its MLP's row MatMul or its MoE layer.
    absl::flat_hash_set<int> mlp_row;
    for (const MegatronBlock& b : blocks->blocks) {
      if (!b.attention) mlp_row.insert(b.row);
    }
    for (const MoeLayer& m : moe) mlp_row.insert(m.node);
    for (size_t k = 0; k < out.kernels.size(); ++k) {
      for (int li : out.kernels[k].layers) {
        const LayerResult& l = out.layers[li];
        const bool row_end = l.node >= 0 && mlp_row.contains(l.node) &&
                             tp == 1 && ep == 1 &&
                             l.kernel == static_cast<int>(k);
        const bool reduce_end =
            l.message_bytes > 0 &&
            (l.op_type == "AllReduce" || l.op_type == "AllToAll") && li > 0 &&
            out.layers[li - 1].node >= 0 &&
            mlp_row.contains(out.layers[li - 1].node);
        if (!row_end && !reduce_end) continue;
        const LayerResult& row = reduce_end ? out.layers[li - 1] : l;
        cuts.push_back(
            {static_cast<int>(k), li, row.node, cumulative[k],
             before[layer_of[row.node]].bytes_written * split.dense});
      }
    }
    // The last layer's end is no cut (nothing follows but the head).
    if (!cuts.empty()) cuts.pop_back();
    if (static_cast<int>(cuts.size()) < pp - 1) {
      return absl::InvalidArgumentError(fmt::format(
          "--pp {} needs {} cuts between transformer layers; the graph has "
          "{} transformer layers",
          pp, pp - 1, attention_blocks));
    }
    const std::vector<int>& given = options.pipeline_cut_nodes;
    if (!given.empty() && static_cast<int>(given.size()) != pp - 1) {
      return absl::InvalidArgumentError(
          fmt::format("--pp {} needs {} stage cuts; {} were given", pp, pp - 1,
                      given.size()));
    }
    std::vector<Insert> sends;
    size_t from = 0;
    for (int s = 1; s < pp; ++s) {
      const double target = total * s / pp;
      const size_t last = cuts.size() - static_cast<size_t>(pp - 1 - s);
      size_t best = from;
      if (!given.empty()) {
        best = cuts.size();
        for (size_t c = from; c < last; ++c) {
          if (cuts[c].node == given[s - 1]) best = c;
        }
        if (best == cuts.size()) {
          return absl::InvalidArgumentError(fmt::format(
              "stage cut {} of --pp {}: node {} ends no transformer layer in "
              "order",
              s, pp, given[s - 1]));
        }
      } else {
        for (size_t c = from; c < last; ++c) {
          if (std::abs(cuts[c].before_s - target) <
              std::abs(cuts[best].before_s - target)) {
            best = c;
          }
        }
      }
      ps.pipeline_cut_nodes.push_back(cuts[best].node);
      const int g = hw.interconnect.gpus_per_node;
      Insert in;
      in.after_layer = cuts[best].layer;
      in.after_kernel = cuts[best].kernel;
      in.work.op = CollectiveOp::kPointToPoint;
      in.work.gpus = 2;
      in.work.message_bytes = cuts[best].message_bytes;
      const int per_stage = tp * ep;  // GPUs of one stage
      in.work.across_nodes = ((s - 1) * per_stage) / g != (s * per_stage) / g;
      in.name = fmt::format("SendRecv:stage{}->stage{}", s - 1, s);
      in.tensors = out.layers[cuts[best].layer].outputs;
      absl::StatusOr<CollectiveTime> check =
          TimeCollective(in.work, hw.interconnect);
      if (!check.ok()) return check.status();
      sends.push_back(std::move(in));
      from = best + 1;
    }
    InsertCollectives(&out, std::move(sends));
    TimeKernels(&out);
    for (size_t k = 0; k < out.kernels.size(); ++k) {
      if (out.kernels[k].work.kind == KernelClass::kCollective &&
          out.kernels[k].work.collective.op == CollectiveOp::kPointToPoint) {
        stage_end.push_back(static_cast<int>(k));
      }
    }
  }

  // Stage times and the pipeline.
  ps.stage_latency_s.assign(pp, 0);
  std::vector<int> stage_of_kernel(out.kernels.size(), 0);
  int stage = 0;
  for (size_t k = 0; k < out.kernels.size(); ++k) {
    stage_of_kernel[k] = stage;
    ps.stage_latency_s[stage] += out.kernels[k].time.latency_s;
    if (out.kernels[k].work.kind == KernelClass::kCollective) {
      ++ps.collectives;
      ps.collective_s += out.kernels[k].time.latency_s;
    }
    if (stage < pp - 1 && std::find(stage_end.begin(), stage_end.end(),
                                    static_cast<int>(k)) != stage_end.end()) {
      ++stage;
    }
  }
  const double m = options.microbatches;
  double slowest = 0, sum = 0;
  for (double s : ps.stage_latency_s) {
    slowest = std::max(slowest, s);
    sum += s;
  }
  ps.pipeline_latency_s = sum + (m - 1) * slowest + out.summary.per_inference_s;
  ps.bubble_fraction = (pp - 1.0) / (m + pp - 1.0);
  ps.throughput_per_s =
      ps.pipeline_latency_s > 0
          ? m * static_cast<double>(out.batch) / ps.pipeline_latency_s
          : 0;
  // One GPU runs one stage: its MFU is the stage's share.
  out.summary.mfu /= pp;

  // Weights per GPU: sharded ones / tp, experts / ep, on the most loaded
  // stage.
  std::vector<double> stage_bytes(pp, 0);
  std::vector<double> stage_params(pp, 0);
  std::vector<int> first_use(graph.tensors().size(), -1);
  std::vector<double> share(graph.tensors().size(), 1.0);
  std::vector<int> out_layer_of(graph.nodes().size(), -1);
  for (size_t i = 0; i < out.layers.size(); ++i) {
    if (out.layers[i].node >= 0) {
      out_layer_of[out.layers[i].node] = static_cast<int>(i);
    }
  }
  for (int n : graph.topological_order()) {
    for (int in : graph.node(n).inputs) {
      const int w = in >= 0 ? structure->weight_source[in] : -1;
      if (w < 0) continue;
      if (first_use[w] < 0) first_use[w] = n;
      const Role r = role[n];
      const double f = r == Role::kExpertEp ? 1.0 / ep
                       : r == Role::kReplicated || r == Role::kDataParallel
                           ? 1.0
                           : 1.0 / tp;
      share[w] = std::min(share[w], f);
    }
  }
  double raw_bytes = 0;
  for (const graph::Tensor& t : graph.tensors()) {
    if (graph.IsWeight(t) && t.shape_known) raw_bytes += t.Bytes();
  }
  // Weight bytes at the analysis' pricing (--precision) per raw byte.
  const double priced = Ratio(out.summary.weight_bytes, raw_bytes);
  for (size_t w = 0; w < graph.tensors().size(); ++w) {
    const graph::Tensor& t = graph.tensor(static_cast<int>(w));
    if (!graph.IsWeight(t) || !t.shape_known) continue;
    int s = 0;
    if (first_use[w] >= 0) {
      // The first consumer's kernel, or the nearest kernel after it.
      const int li = out_layer_of[first_use[w]];
      int k = li >= 0 ? out.layers[li].kernel : -1;
      for (size_t j = li >= 0 ? li : 0; k < 0 && j < out.layers.size(); ++j) {
        k = out.layers[j].kernel;
      }
      if (k >= 0) s = stage_of_kernel[k];
    }
    stage_bytes[s] += t.Bytes() * priced * share[w];
    stage_params[s] += static_cast<double>(t.NumElements()) * share[w];
  }
  for (int s = 0; s < pp; ++s) {
    if (stage_bytes[s] >= ps.weight_bytes_per_gpu) {
      ps.weight_bytes_per_gpu = stage_bytes[s];
      ps.params_per_gpu = static_cast<int64_t>(std::llround(stage_params[s]));
    }
  }
  ps.fits_in_memory_per_gpu =
      ps.weight_bytes_per_gpu + out.summary.peak_activation_bytes <=
      hw.memory_capacity_bytes;
  out.summary.parallel = std::move(ps);
  return analysis;
}

absl::StatusOr<std::vector<int>> LayoutBarriers(
    const graph::Graph& graph, const Runtime* runtime,
    const ParallelOptions& layout, const ShardingStructure* structure) {
  if (layout.tp > 1) return CollectiveBarriers(graph, runtime, structure);
  if (layout.ep > 1) return ExpertParallelBarriers(graph);
  return std::vector<int>();
}

absl::StatusOr<Analysis> AnalyzeSharded(const graph::Graph& graph,
                                        const Hardware& hardware,
                                        const AnalyzeOptions& options,
                                        const ParallelOptions& parallel) {
  if (parallel.gpus() <= 1) return Analyze(graph, hardware, options);
  absl::StatusOr<ShardingStructure> structure = FindShardingStructure(graph);
  if (!structure.ok()) return structure.status();
  absl::StatusOr<std::vector<int>> barriers =
      LayoutBarriers(graph, options.runtime, parallel, &*structure);
  if (!barriers.ok()) return barriers.status();
  AnalyzeOptions planned = options;
  planned.fusion_barriers = *std::move(barriers);
  // A collective follows a barrier (tp, ep) or a stage (pp).
  planned.spare_layers = planned.fusion_barriers.size() +
                         static_cast<size_t>(std::max(parallel.pp, 1));
  absl::StatusOr<Analysis> a = Analyze(graph, hardware, planned);
  if (!a.ok()) return a;
  return ShardAnalysis(graph, *std::move(a), parallel, &*structure);
}

std::string_view ParallelAxisName(ParallelAxis axis) {
  switch (axis) {
    case ParallelAxis::kTensor:
      return "tp";
    case ParallelAxis::kPipeline:
      return "pp";
    case ParallelAxis::kExpert:
      return "ep";
  }
  return "tp";
}

ParallelOptions LayoutAlong(ParallelAxis axis, int width) {
  ParallelOptions o;
  switch (axis) {
    case ParallelAxis::kTensor:
      o.tp = width;
      break;
    case ParallelAxis::kPipeline:
      o.pp = width;
      break;
    case ParallelAxis::kExpert:
      o.ep = width;
      break;
  }
  return o;
}

std::function<absl::StatusOr<Analysis>(int width)> ShardAtEachWidth(
    const graph::Graph& graph, const Hardware& hardware,
    const AnalyzeOptions& options, const Analysis& base, ParallelAxis axis) {
  struct Shared {
    std::optional<ShardingStructure> structure;
    std::optional<Analysis> planned;  // with the axis' barriers
  };
  auto shared = std::make_shared<Shared>();
  return [&graph, &hardware, &options, &base, shared,
          axis](int width) -> absl::StatusOr<Analysis> {
    if (!shared->structure) {
      absl::StatusOr<ShardingStructure> s = FindShardingStructure(graph);
      if (!s.ok()) return s.status();
      shared->structure = *std::move(s);
    }
    const ShardingStructure* structure = &*shared->structure;
    const ParallelOptions layout = LayoutAlong(axis, width);
    if (width <= 1 || axis == ParallelAxis::kPipeline) {
      return ShardAnalysis(graph, base, layout, structure);
    }
    if (!shared->planned) {
      absl::StatusOr<std::vector<int>> barriers =
          LayoutBarriers(graph, options.runtime, layout, structure);
      if (!barriers.ok()) return barriers.status();
      AnalyzeOptions planned = options;
      planned.fusion_barriers = *std::move(barriers);
      absl::StatusOr<Analysis> a = Analyze(graph, hardware, planned);
      if (!a.ok()) return a.status();
      a->model = base.model;
      shared->planned = *std::move(a);
    }
    return ShardAnalysis(graph, *shared->planned, layout, structure);
  };
}

}  // namespace ridgeline::engine
