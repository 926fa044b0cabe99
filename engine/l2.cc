#include "engine/l2.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "engine/kernel_plan.h"  // IsKvAppend

namespace ridgeline::engine {
namespace {

// How deep a chain of views is followed back to its writer (Reshape of a
// Transpose of ...).
constexpr int kMaxViewDepth = 16;

struct Residency {
  const graph::Graph& graph;
  std::vector<int> kernel_of_node;  // -1: no kernel
  std::vector<bool> view_node;      // no kernel, not host: an alias
  // A KV-cache append written in place: its output is the cache, of which
  // it wrote the new entries only; the rest was written steps ago.
  std::vector<bool> in_place_append;
  std::vector<double> before;  // bytes of the kernels before kernel i
  double l2_bytes = 0;

  // The kernel that wrote tensor `t` (through views), -1 for none (a graph
  // input, a weight, a host value, a KV cache appended in place).
  int WriterKernel(int t, int depth = 0) const {
    if (t < 0 || depth > kMaxViewDepth) return -1;
    const int producer = graph.tensor(t).producer;
    if (producer < 0 || in_place_append[producer]) return -1;
    if (kernel_of_node[producer] >= 0) return kernel_of_node[producer];
    if (!view_node[producer]) return -1;
    const graph::Node& node = graph.node(producer);
    return node.inputs.empty() ? -1 : WriterKernel(node.inputs[0], depth + 1);
  }

  // The kernels reading `t` (through views, each tensor visited once) into
  // `out`; `stack` and `seen` are scratch space.
  void ReaderKernels(int t, std::vector<int>* out, std::vector<int>* stack,
                     std::vector<int>* seen) const {
    out->clear();
    stack->assign(1, t);
    seen->clear();
    while (!stack->empty()) {
      const int x = stack->back();
      stack->pop_back();
      if (std::find(seen->begin(), seen->end(), x) != seen->end()) continue;
      seen->push_back(x);
      for (int consumer : graph.tensor(x).consumers) {
        if (kernel_of_node[consumer] >= 0) {
          out->push_back(kernel_of_node[consumer]);
        } else if (view_node[consumer]) {
          for (int o : graph.node(consumer).outputs) {
            if (o >= 0) stack->push_back(o);
          }
        }
      }
    }
  }

  // Whether `bytes` written by kernel `writer` are still in the L2 when
  // kernel `reader` runs.
  bool StillInL2(int writer, int reader, double bytes) const {
    if (writer < 0 || reader <= writer) return false;
    return bytes + before[reader] - before[writer + 1] <= l2_bytes;
  }
};

// Adds `t` to `seen`; false when it was there.
bool FirstTime(int t, std::vector<int>* seen) {
  if (std::find(seen->begin(), seen->end(), t) != seen->end()) return false;
  seen->push_back(t);
  return true;
}

}  // namespace

double ModelledL2Bytes(const Runtime& runtime, const Hardware& hardware) {
  return runtime.size_aware ? hardware.UsableL2Bytes() : 0;
}

double TouchedWeightBytes(const graph::Graph& graph, const TensorPricer& pricer,
                          const std::vector<int>& layer_of,
                          const std::vector<LayerResult>& layers) {
  double touched = 0;
  const std::vector<graph::Tensor>& tensors = graph.tensors();
  for (size_t t = 0; t < tensors.size(); ++t) {
    const graph::Tensor& tensor = tensors[t];
    if (!graph.IsWeight(tensor)) continue;
    const double bytes = pricer.TensorBytes(graph, tensor);
    double gathered = 0;
    bool only_gathered = !tensor.consumers.empty();
    for (int c : tensor.consumers) {
      const graph::Node& node = graph.node(c);
      const bool gather =
          ((node.domain.empty() &&
            (node.op_type == "Gather" || node.op_type == "GatherElements" ||
             node.op_type == "GatherND")) ||
           (node.domain == "com.microsoft" &&
            node.op_type == "GatherBlockQuantized")) &&
          node.Input(0) == static_cast<int>(t);
      const int li = c < static_cast<int>(layer_of.size()) ? layer_of[c] : -1;
      if (!gather || li < 0) {
        only_gathered = false;
        break;
      }
      gathered += layers[li].cost.weight_bytes;
    }
    touched += only_gathered ? std::min(bytes, gathered) : bytes;
  }
  return touched;
}

bool WeightsStayInL2(double touched_weight_bytes, double peak_activation_bytes,
                     double l2_bytes) {
  return l2_bytes > 0 && touched_weight_bytes > 0 &&
         touched_weight_bytes + peak_activation_bytes <= l2_bytes;
}

void AssignL2Residency(const graph::Graph& graph, const TensorPricer& pricer,
                       double l2_bytes, bool weights_resident,
                       bool kv_append_in_place,
                       const std::vector<LayerResult>& layers,
                       std::vector<KernelResult>* kernels) {
  if (!(l2_bytes > 0)) return;
  const size_t nodes = graph.nodes().size();
  Residency r{graph,
              std::vector<int>(nodes, -1),
              std::vector<bool>(nodes, false),
              std::vector<bool>(nodes, false),
              {},
              l2_bytes};
  if (kv_append_in_place) {
    for (size_t n = 0; n < nodes; ++n) {
      r.in_place_append[n] = IsKvAppend(graph, static_cast<int>(n));
    }
  }
  for (const LayerResult& layer : layers) {
    if (layer.node < 0 || layer.node >= static_cast<int>(nodes)) continue;
    if (layer.kernel >= 0) {
      r.kernel_of_node[layer.node] = layer.kernel;
    } else if (!layer.host && !layer.skipped) {
      r.view_node[layer.node] = true;
    }
  }
  r.before.assign(kernels->size() + 1, 0);
  for (size_t i = 0; i < kernels->size(); ++i) {
    r.before[i + 1] = r.before[i] + (*kernels)[i].work.bytes;
  }
  const absl::flat_hash_set<int> graph_outputs(graph.outputs().begin(),
                                               graph.outputs().end());

  std::vector<int> readers;
  std::vector<int> stack;
  std::vector<int> visited;
  std::vector<int> order;  // a kernel's member nodes in launch order
  std::vector<int> read;
  std::vector<int> written;
  for (size_t c = 0; c < kernels->size(); ++c) {
    KernelResult& kernel = (*kernels)[c];
    kernel.work.l2_activation_share = 0;
    kernel.work.l2_weights = weights_resident && kernel.work.weight_bytes > 0;
    order.clear();
    for (int li : kernel.layers) {
      if (layers[li].node >= 0) order.push_back(layers[li].node);
    }
    if (order.empty()) continue;  // a collective
    // A kernel holds a handful of nodes: linear searches, no hash sets.
    auto member = [&](int node) {
      return std::find(order.begin(), order.end(), node) != order.end();
    };
    const int self = static_cast<int>(c);
    double total = 0;
    double served = 0;
    read.clear();
    written.clear();
    for (int n : order) {
      for (int t : graph.node(n).inputs) {
        if (t < 0 || graph.IsWeight(graph.tensor(t))) continue;
        const int producer = graph.tensor(t).producer;
        if (producer >= 0 && member(producer)) continue;
        if (!FirstTime(t, &read)) continue;
        const double bytes = pricer.TensorBytes(graph, graph.tensor(t));
        total += bytes;
        if (r.StillInL2(r.WriterKernel(t), self, bytes)) served += bytes;
      }
      for (int t : graph.node(n).outputs) {
        if (t < 0 || !FirstTime(t, &written)) continue;
        r.ReaderKernels(t, &readers, &stack, &visited);
        const bool external = graph_outputs.contains(t) ||
                              std::any_of(readers.begin(), readers.end(),
                                          [&](int k) { return k != self; });
        if (!external) continue;
        const double bytes = pricer.TensorBytes(graph, graph.tensor(t));
        total += bytes;
        const bool kept =
            !graph_outputs.contains(t) &&
            std::all_of(readers.begin(), readers.end(), [&](int k) {
              return k == self || r.StillInL2(self, k, bytes);
            });
        if (kept) served += bytes;
      }
    }
    kernel.work.l2_activation_share = total > 0 ? served / total : 0;
  }
}

}  // namespace ridgeline::engine
