#include "engine/kernel_plan.h"

#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "graph/dtype.h"

namespace ridgeline::engine {
namespace {

constexpr int64_t kSmallHostElements = 64;

bool OneOf(std::string_view op, std::initializer_list<std::string_view> set) {
  for (std::string_view s : set) {
    if (op == s) return true;
  }
  return false;
}

}  // namespace

std::vector<bool> FindHostNodes(const graph::Graph& graph) {
  const size_t n = graph.nodes().size();
  std::vector<bool> host(n, false);
  // A tensor is host-derived when its value is known without device work.
  auto host_derived = [&](int t) {
    const graph::Tensor& tensor = graph.tensor(t);
    if (tensor.int_values.has_value()) return true;
    if (tensor.kind == graph::TensorKind::kInitializer) return true;
    if (tensor.producer < 0) return false;  // a graph input
    return static_cast<bool>(host[tensor.producer]);
  };
  for (int i : graph.topological_order()) {
    const graph::Node& node = graph.node(i);
    if (!node.domain.empty() && node.domain != "ai.onnx") continue;
    if (OneOf(node.op_type, {"Shape", "Size", "Constant"})) {
      host[i] = true;
      continue;
    }
    if (OneOf(node.op_type, {"If", "Loop", "Scan"})) continue;
    bool any_output = false, all_folded = true, all_integer = true;
    bool outputs_known = true;
    int64_t elements = 0;
    for (int t : node.outputs) {
      if (t < 0) continue;
      const graph::Tensor& out = graph.tensor(t);
      any_output = true;
      if (!out.int_values.has_value()) all_folded = false;
      if (graph::IsFloating(out.dtype)) all_integer = false;
      if (!out.shape_known) {
        outputs_known = false;
      } else {
        elements += out.NumElements();
      }
    }
    if (!any_output) continue;
    if (all_folded) {
      host[i] = true;
      continue;
    }
    bool inputs_host = true, any_input = false;
    for (int t : node.inputs) {
      if (t < 0) continue;
      any_input = true;
      if (!host_derived(t)) inputs_host = false;
    }
    if (!any_input || !inputs_host) continue;
    if (all_integer || (outputs_known && elements <= kSmallHostElements)) {
      host[i] = true;
    }
  }
  return host;
}

std::vector<bool> FindStridedViews(const graph::Graph& graph) {
  const size_t n = graph.nodes().size();
  std::vector<bool> view(n, false);
  for (size_t i = 0; i < n; ++i) {
    const graph::Node& node = graph.node(static_cast<int>(i));
    if (!node.domain.empty() && node.domain != "ai.onnx") continue;
    if (node.op_type == "Expand") {
      view[i] = true;
    } else if (node.op_type == "Slice") {
      // steps: input 4 (opset >= 10) or absent (all 1).
      const int steps = node.Input(4);
      bool positive = true;
      if (steps >= 0) {
        const auto& values = graph.tensor(steps).int_values;
        positive = values.has_value();
        if (positive) {
          for (int64_t s : *values) positive = positive && s > 0;
        }
      }
      view[i] = positive;
    } else if (node.op_type == "Transpose") {
      const int out = node.Output(0);
      bool reshaped = out < 0;
      if (out >= 0) {
        for (int c : graph.tensor(out).consumers) {
          reshaped |= OneOf(graph.node(c).op_type, {"Reshape", "Flatten"});
        }
      }
      view[i] = !reshaped;
    }
  }
  return view;
}

std::optional<KernelWork> ActivationQuantizeWork(const KernelWork& gemm) {
  if (gemm.kind != KernelClass::kMatrix || gemm.weight_bytes <= 0 ||
      gemm.gemm.batch <= 0) {
    return std::nullopt;
  }
  const double elements = gemm.gemm.batch * gemm.gemm.m * gemm.gemm.k;
  KernelWork q;
  q.kind = KernelClass::kReduction;
  q.other_flops = 3 * elements;
  q.bytes = (2 + 1) * elements;
  q.op_type = "DynamicQuantizeLinear";
  return q;
}

bool IsKvAppend(const graph::Graph& graph, int node) {
  const graph::Node& n = graph.node(node);
  if (n.op_type != "Concat" || !n.domain.empty()) return false;
  if (n.outputs.empty() || n.outputs[0] < 0) return false;
  bool is_output = false;
  for (int t : graph.outputs()) is_output |= t == n.outputs[0];
  if (!is_output) return false;
  int past = 0;
  for (int t : n.inputs) {
    if (t >= 0 && graph.tensor(t).kind == graph::TensorKind::kGraphInput) {
      ++past;
    }
  }
  return past == 1 && n.NumPresentInputs() >= 2;
}

double KvAppendBytes(const graph::Graph& graph, int node,
                     const TensorPricer& pricer) {
  double bytes = 0;
  for (int t : graph.node(node).inputs) {
    if (t < 0) continue;
    const graph::Tensor& tensor = graph.tensor(t);
    if (tensor.kind == graph::TensorKind::kGraphInput) continue;
    bytes += 2 * pricer.TensorBytes(graph, tensor);
  }
  return bytes;
}

KernelClass ClassOfNode(const graph::Node& node, const Cost& cost) {
  const std::string_view op = node.op_type;
  if (cost.macs > 0) {
    const GemmShape& g = cost.gemm;
    if (g.batch > 0 && (g.n < 16 || g.k < 16)) return KernelClass::kElementwise;
    if (OneOf(op, {"Attention", "QAttention", "MultiHeadAttention",
                   "GroupQueryAttention", "PackedAttention",
                   "DecoderMaskedMultiHeadAttention",
                   "DecoderMaskedSelfAttention"})) {
      return KernelClass::kAttention;
    }
    return KernelClass::kMatrix;
  }
  if (op.starts_with("Reduce") || OneOf(op, {"Softmax",
                                             "LogSoftmax",
                                             "LayerNormalization",
                                             "SimplifiedLayerNormalization",
                                             "SkipLayerNormalization",
                                             "SkipSimplifiedLayerNormalization",
                                             "RMSNormalization",
                                             "GroupNormalization",
                                             "InstanceNormalization",
                                             "LpNormalization",
                                             "MeanVarianceNormalization",
                                             "MaxPool",
                                             "AveragePool",
                                             "GlobalAveragePool",
                                             "GlobalMaxPool",
                                             "LpPool",
                                             "ArgMax",
                                             "ArgMin",
                                             "TopK",
                                             "CumSum",
                                             "NonMaxSuppression",
                                             "Hardmax"})) {
    return KernelClass::kReduction;
  }
  if (OneOf(op, {"Concat",
                 "Slice",
                 "Gather",
                 "GatherElements",
                 "GatherND",
                 "Transpose",
                 "Expand",
                 "Pad",
                 "Tile",
                 "Split",
                 "ScatterND",
                 "ScatterElements",
                 "Scatter",
                 "DepthToSpace",
                 "SpaceToDepth",
                 "Resize",
                 "Upsample",
                 "Compress",
                 "NonZero",
                 "Trilu",
                 "ReverseSequence",
                 "Col2Im",
                 "GridSample",
                 "RoiAlign",
                 "GatherBlockQuantized"})) {
    return KernelClass::kMovement;
  }
  return KernelClass::kElementwise;
}

KernelWork NodeKernelWork(const graph::Node& node, const Cost& cost,
                          double flops_per_mac) {
  KernelWork w;
  w.kind = ClassOfNode(node, cost);
  w.op_type = node.op_type;
  w.matrix_flops = cost.macs * flops_per_mac;
  w.other_flops = cost.other_flops;
  w.bytes = cost.Bytes();
  w.weight_bytes = cost.weight_bytes;
  w.gemm = cost.gemm;
  if (w.kind == KernelClass::kAttention) {
    w.attention_score_share = cost.attention_score_share;
    w.gemm = cost.attention_scores;
  }
  PlaceFlopsByClass(&w);
  return w;
}

void PlaceFlopsByClass(KernelWork* work) {
  if (work->kind == KernelClass::kMatrix ||
      work->kind == KernelClass::kAttention) {
    return;
  }
  work->other_flops += work->matrix_flops;
  work->matrix_flops = 0;
}

}  // namespace ridgeline::engine
