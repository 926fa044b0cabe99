#include "engine/counter_registry.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/counters/common.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

std::string_view NormalizeDomain(std::string_view domain) {
  return domain == "ai.onnx" ? std::string_view() : domain;
}

std::string Key(std::string_view domain, std::string_view op_type) {
  const std::string_view d = NormalizeDomain(domain);
  std::string key;  // once per node: no format parse
  key.reserve(d.size() + 1 + op_type.size());
  key.append(d).append("/").append(op_type);
  return key;
}

std::string OpName(const graph::Node& node) {
  const std::string_view domain = NormalizeDomain(node.domain);
  return domain.empty() ? node.op_type
                        : fmt::format("{}:{}", domain, node.op_type);
}

// Largest trip count taken at face value; exporters write INT64_MAX for
// "no trip count" (a while loop).
constexpr int64_t kMaxTrips = int64_t{1} << 40;

// How many times a node inside control-flow bodies runs per inference, and a
// note when that is a guess.
struct Repetition {
  double times = 1;
  std::string note;
};

void AddNote(std::string_view text, std::string* note) {
  if (note->find(text) != std::string::npos) return;
  if (!note->empty()) *note += "; ";
  *note += text;
}

// Iterations of a Scan node: the length of its first scan input along its
// scan axis.
std::optional<double> ScanIterations(const graph::Graph& graph,
                                     const graph::Node& scan) {
  const int64_t num_scan_inputs = scan.GetInt("num_scan_inputs", 0);
  if (num_scan_inputs <= 0) return std::nullopt;
  const int64_t present = static_cast<int64_t>(scan.inputs.size());
  if (scan.opset > 0 && scan.opset < 9) {
    // Opset 8: [sequence_lens, states..., scan inputs...] with a batch axis
    // first; the scan axis is 1.
    const int t = scan.Input(static_cast<size_t>(present - num_scan_inputs));
    if (t < 0) return std::nullopt;
    const graph::Tensor& x = graph.tensor(t);
    if (!x.shape_known || x.dims.size() < 2) return std::nullopt;
    return static_cast<double>(x.dims[1]);
  }
  const int t = scan.Input(static_cast<size_t>(present - num_scan_inputs));
  if (t < 0) return std::nullopt;
  const graph::Tensor& x = graph.tensor(t);
  if (!x.shape_known || x.dims.empty()) return std::nullopt;
  const std::vector<int64_t> axes = scan.GetInts("scan_input_axes");
  int64_t axis = axes.empty() ? 0 : axes[0];
  const int64_t rank = static_cast<int64_t>(x.dims.size());
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) return std::nullopt;
  return static_cast<double>(x.dims[axis]);
}

// Walks from `node` up through its enclosing If/Loop/Scan nodes.
//  - Loop: the body runs M times when M (input 0) is a folded constant below
//    2^40; otherwise once, with a note.
//  - Scan: the body runs once per slice of the first scan input.
//  - If: with a folded condition only the taken branch counts (the other
//    costs 0); otherwise both branches count (an upper bound), with a note.
Repetition BodyRepetition(const graph::Graph& graph, const graph::Node& node) {
  Repetition rep;
  const graph::Node* child = &node;
  while (child->parent >= 0 &&
         child->parent < static_cast<int>(graph.nodes().size())) {
    const graph::Node& parent = graph.node(child->parent);
    if (parent.op_type == "Loop") {
      std::optional<int64_t> trips;
      if (parent.Input(0) >= 0) {
        trips = counters::FoldedScalar(&graph.tensor(parent.Input(0)));
      }
      if (trips.has_value() && *trips >= 0 && *trips < kMaxTrips) {
        rep.times *= static_cast<double>(*trips);
      } else {
        AddNote(fmt::format("trip count of Loop '{}' unknown: body counted "
                            "once",
                            parent.name),
                &rep.note);
      }
    } else if (parent.op_type == "Scan") {
      std::optional<double> iterations = ScanIterations(graph, parent);
      if (iterations.has_value()) {
        rep.times *= *iterations;
      } else {
        AddNote(fmt::format("iterations of Scan '{}' unknown: body counted "
                            "once",
                            parent.name),
                &rep.note);
      }
    } else if (parent.op_type == "If") {
      std::optional<int64_t> cond;
      if (parent.Input(0) >= 0) {
        cond = counters::FoldedScalar(&graph.tensor(parent.Input(0)));
      }
      if (cond.has_value()) {
        const std::string_view taken =
            *cond != 0 ? "then_branch" : "else_branch";
        if (child->parent_attribute != taken) rep.times = 0;
      } else {
        AddNote(fmt::format("condition of If '{}' unknown: both branches "
                            "counted",
                            parent.name),
                &rep.note);
      }
    }
    child = &parent;
  }
  return rep;
}

// An op with no counter: zero FLOPs, the bytes of all its tensors.
Cost UnknownCost(const CountContext& ctx) {
  Cost cost = counters::DefaultTraffic(ctx);
  cost.unknown = true;
  cost.note = fmt::format("no counter for {}: 0 FLOPs, bytes of its tensors",
                          OpName(ctx.node));
  return cost;
}

}  // namespace

double TensorPricer::ElementBytes(const graph::Graph& graph,
                                  const graph::Tensor& tensor) const {
  (void)graph;
  return graph::ElementBytes(tensor.dtype);
}

double TensorPricer::TensorBytes(const graph::Graph& graph,
                                 const graph::Tensor& tensor) const {
  if (!tensor.shape_known) return 0;
  return static_cast<double>(tensor.NumElements()) *
         ElementBytes(graph, tensor);
}

const graph::Tensor* CountContext::input(size_t i) const {
  const int t = node.Input(i);
  return t < 0 ? nullptr : &graph.tensor(t);
}

const graph::Tensor* CountContext::output(size_t i) const {
  const int t = node.Output(i);
  return t < 0 ? nullptr : &graph.tensor(t);
}

double CountContext::InputBytes(size_t i) const {
  const graph::Tensor* t = input(i);
  return t == nullptr ? 0 : pricer.TensorBytes(graph, *t);
}

double CountContext::OutputBytes(size_t i) const {
  const graph::Tensor* t = output(i);
  return t == nullptr ? 0 : pricer.TensorBytes(graph, *t);
}

double CountContext::AllInputBytes() const {
  double total = 0;
  std::vector<int> seen;
  for (int t : node.inputs) {
    if (t < 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) {
      continue;
    }
    seen.push_back(t);
    total += pricer.TensorBytes(graph, graph.tensor(t));
  }
  return total;
}

double CountContext::AllOutputBytes() const {
  double total = 0;
  std::vector<int> seen;
  for (int t : node.outputs) {
    if (t < 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) {
      continue;
    }
    seen.push_back(t);
    total += pricer.TensorBytes(graph, graph.tensor(t));
  }
  return total;
}

double CountContext::WeightInputBytes() const {
  double total = 0;
  std::vector<int> seen;
  for (int t : node.inputs) {
    if (t < 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) {
      continue;
    }
    seen.push_back(t);
    if (counters::IsWeight(graph, graph.tensor(t))) {
      total += pricer.TensorBytes(graph, graph.tensor(t));
    }
  }
  return total;
}

const CounterRegistry& CounterRegistry::Default() {
  static const CounterRegistry* registry = [] {
    auto* r = new CounterRegistry();
    counters::RegisterConvCounters(*r);
    counters::RegisterMatMulCounters(*r);
    counters::RegisterEinsumCounters(*r);
    counters::RegisterElementwiseCounters(*r);
    counters::RegisterNormCounters(*r);
    counters::RegisterPoolCounters(*r);
    counters::RegisterReduceCounters(*r);
    counters::RegisterMovementCounters(*r);
    counters::RegisterResizeCounters(*r);
    counters::RegisterSamplingCounters(*r);
    counters::RegisterSignalCounters(*r);
    counters::RegisterAttentionCounters(*r);
    counters::RegisterQuantizedCounters(*r);
    counters::RegisterMoeCounters(*r);
    counters::RegisterRnnCounters(*r);
    counters::RegisterMiscCounters(*r);
    counters::RegisterMlCounters(*r);
    return r;
  }();
  return *registry;
}

void CounterRegistry::Register(std::string_view domain,
                               std::string_view op_type, CounterFn fn) {
  counters_[Key(domain, op_type)] = std::move(fn);
}

bool CounterRegistry::Has(std::string_view domain,
                          std::string_view op_type) const {
  return counters_.contains(Key(domain, op_type));
}

std::vector<std::pair<std::string, std::string>> CounterRegistry::Ops() const {
  std::vector<std::pair<std::string, std::string>> ops;
  ops.reserve(counters_.size());
  for (const auto& [key, fn] : counters_) {
    const size_t slash = key.find('/');
    ops.emplace_back(key.substr(0, slash), key.substr(slash + 1));
  }
  std::sort(ops.begin(), ops.end());
  return ops;
}

absl::StatusOr<Cost> CounterRegistry::Count(const graph::Graph& graph,
                                            int node_index,
                                            const TensorPricer& pricer) const {
  if (node_index < 0 || node_index >= static_cast<int>(graph.nodes().size())) {
    return absl::OutOfRangeError(
        fmt::format("node index {} is out of range (the graph has {} nodes)",
                    node_index, graph.nodes().size()));
  }
  const graph::Node& node = graph.node(node_index);
  if (node.not_run) {
    Cost cost;
    cost.view = true;  // no work, no traffic, no kernel
    cost.note = "not run: in the If branch its folded condition skips";
    return cost;
  }
  auto check_known = [&](const graph::IndexList& tensors,
                         std::string_view kind) -> absl::Status {
    for (int t : tensors) {
      if (t < 0) continue;
      const graph::Tensor& tensor = graph.tensor(t);
      if (!tensor.shape_known && !tensor.non_tensor) {
        return absl::FailedPreconditionError(
            fmt::format("node '{}' ({}): the shape of {} '{}' is unknown",
                        node.name, OpName(node), kind, tensor.name));
      }
    }
    return absl::OkStatus();
  };
  if (absl::Status s = check_known(node.inputs, "input"); !s.ok()) return s;
  if (absl::Status s = check_known(node.outputs, "output"); !s.ok()) return s;

  const CountContext ctx{graph, node, pricer};
  Cost cost;
  auto it = counters_.find(Key(node.domain, node.op_type));
  if (it == counters_.end()) {
    cost = UnknownCost(ctx);
  } else {
    absl::StatusOr<Cost> counted = it->second(ctx);
    if (!counted.ok()) return counted.status();
    cost = *std::move(counted);
  }
  if (node.parent >= 0) {
    Repetition rep = BodyRepetition(graph, node);
    if (rep.times != 1) counters::ScaleCost(rep.times, &cost);
    if (!rep.note.empty()) AddNote(rep.note, &cost.note);
  }
  return cost;
}

}  // namespace ridgeline::engine
