// If, Loop, Scan and SequenceMap: body inputs get their shapes from the
// parent's inputs, body nodes are resolved, and the parent's outputs come
// from the body outputs.
#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "importers/shapes/resolver.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

constexpr char kLoopTrips[] =
    "data-dependent: the number of Loop iterations depends on values known "
    "only when running";

}  // namespace

void Resolver::IndexBodyNames(Body& body) const {
  body.names.clear();
  for (int m : body.nodes) {
    const onnx::NodeProto& p = *protos_[m];
    for (int j = 0; j < p.output_size(); ++j) {
      if (!p.output(j).empty()) {
        body.names.try_emplace(p.output(j), graph_.node(m).Output(j));
      }
    }
  }
  for (int j = 0;
       j < body.graph->input_size() && j < static_cast<int>(body.inputs.size());
       ++j) {
    body.names.try_emplace(body.graph->input(j).name(), body.inputs[j]);
  }
}

int Resolver::BodyOutput(const Body& body, int i) const {
  if (i < 0 || i >= body.graph->output_size()) return -1;
  const std::string& name = body.graph->output(i).name();
  auto it = body.names.find(name);
  if (it != body.names.end()) return it->second;
  // A body initializer (renamed with the body's prefix when it shadows an
  // outer name) or an outer-scope tensor.
  std::optional<int> prefixed = graph_.FindTensor(fmt::format(
      "{}/{}/{}", graph_.node(body.parent).name, body.attribute, name));
  if (prefixed.has_value()) return *prefixed;
  std::optional<int> t = graph_.FindTensor(name);
  return t.has_value() ? *t : -1;
}

void Resolver::CopyKnown(int from, int to) {
  const graph::Tensor& src = graph_.tensor(from);
  if (src.shape_known) {
    SetDims(to, src.dtype, src.dims);
    return;
  }
  auto seq = state_.sequences.find(from);
  if (seq != state_.sequences.end()) {
    SequenceInfo copy = seq->second;
    graph_.mutable_tensor(to).dtype = copy.dtype;
    state_.sequences[to] = std::move(copy);
    return;
  }
  graph_.mutable_tensor(to).dtype = src.dtype;
  SetReason(to, fmt::format("input '{}' is unresolved: {}", src.name,
                            RootReason(from)));
}

absl::Status Resolver::ResolveControlFlow(int n) {
  const std::string& op = graph_.node(n).op_type;
  std::vector<Body>& bodies = bodies_[n];
  for (Body& body : bodies) IndexBodyNames(body);
  absl::Status s;
  if (op == "If") {
    s = ResolveIf(n, bodies);
  } else if (bodies.size() != 1) {
    s = absl::InvalidArgumentError(
        fmt::format("node '{}' ({}) has {} bodies, expected 1",
                    graph_.node(n).name, op, bodies.size()));
  } else if (op == "Loop") {
    s = ResolveLoop(n, bodies[0]);
  } else if (op == "Scan") {
    s = ResolveScan(n, bodies[0]);
  } else {
    s = ResolveSequenceMap(n, bodies[0]);
  }
  if (!s.ok()) return s;
  if (absl::Status v = ValidateOutputs(n); !v.ok()) return v;
  FinishOutputs(n, "the control-flow body left it unresolved");
  return absl::OkStatus();
}

void Resolver::MarkNotRun(const Body& body) {
  absl::flat_hash_set<int> dead(body.nodes.begin(), body.nodes.end());
  // Nested bodies: a node whose ancestor is in the branch does not run.
  for (size_t n = 0; n < graph_.nodes().size(); ++n) {
    for (int p = graph_.node(static_cast<int>(n)).parent; p >= 0;
         p = graph_.node(p).parent) {
      if (dead.contains(p)) {
        dead.insert(static_cast<int>(n));
        break;
      }
    }
  }
  for (int n : dead) graph_.mutable_node(n).not_run = true;
}

void Resolver::InlineTakenBranches() {
  // The branch a folded If takes ("" when its condition is not folded).
  auto taken = [&](int n) -> std::string_view {
    const graph::Node& node = graph_.node(n);
    if (node.op_type != "If" || !node.domain.empty()) return "";
    const int cond = node.Input(0);
    if (cond < 0 || !graph_.tensor(cond).int_values.has_value() ||
        graph_.tensor(cond).int_values->size() != 1) {
      return "";
    }
    return (*graph_.tensor(cond).int_values)[0] != 0 ? "then_branch"
                                                     : "else_branch";
  };
  for (size_t i = 0; i < graph_.nodes().size(); ++i) {
    graph::Node& node = graph_.mutable_node(static_cast<int>(i));
    if (node.not_run) continue;
    // Up through every folded If whose taken branch holds the node (nested
    // ones included).
    while (node.parent >= 0 && taken(node.parent) == node.parent_attribute) {
      const graph::Node& parent = graph_.node(node.parent);
      node.parent_attribute = parent.parent_attribute;
      node.parent = parent.parent;
    }
  }
  // A main-graph If passes the taken branch's outputs on: where its output
  // is a graph output, so is the branch's (a present KV written by the
  // branch is the graph's, as in the unmerged decoder).
  absl::flat_hash_set<int> outputs(graph_.outputs().begin(),
                                   graph_.outputs().end());
  for (const auto& [n, bodies] : bodies_) {
    const std::string_view branch = taken(n);
    if (branch.empty() || graph_.node(n).parent >= 0) continue;
    for (const Body& body : bodies) {
      if (body.attribute != branch) continue;
      const graph::Node& node = graph_.node(n);
      for (size_t i = 0; i < node.outputs.size(); ++i) {
        if (!outputs.contains(node.outputs[i])) continue;
        const int inner = BodyOutput(body, static_cast<int>(i));
        if (inner >= 0 && outputs.insert(inner).second) {
          graph_.MarkOutput(inner);
        }
      }
    }
  }
}

absl::Status Resolver::ResolveIf(int n, std::vector<Body>& bodies) {
  const Body* then_body = nullptr;
  const Body* else_body = nullptr;
  for (const Body& b : bodies) {
    if (b.attribute == "then_branch") then_body = &b;
    if (b.attribute == "else_branch") else_body = &b;
  }
  if (then_body == nullptr || else_body == nullptr) {
    return absl::InvalidArgumentError(
        fmt::format("node '{}' (If) lacks then_branch or else_branch",
                    graph_.node(n).name));
  }
  for (const Body* b : {then_body, else_body}) {
    if (absl::Status s = ResolveBodyNodes(*b); !s.ok()) return s;
  }
  const graph::Node& node = graph_.node(n);
  const int cond = node.Input(0);
  const bool cond_folded = cond >= 0 &&
                           graph_.tensor(cond).int_values.has_value() &&
                           graph_.tensor(cond).int_values->size() == 1;
  if (cond_folded) {
    MarkNotRun((*graph_.tensor(cond).int_values)[0] != 0 ? *else_body
                                                         : *then_body);
  }
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const int out = node.outputs[i];
    if (out < 0) continue;
    const int a = BodyOutput(*then_body, static_cast<int>(i));
    const int b = BodyOutput(*else_body, static_cast<int>(i));
    if (a < 0 || b < 0) {
      SetReason(out, "the If branch has no such output");
      continue;
    }
    if (cond_folded) {
      CopyKnown((*graph_.tensor(cond).int_values)[0] != 0 ? a : b, out);
      continue;
    }
    const graph::Tensor& ta = graph_.tensor(a);
    const graph::Tensor& tb = graph_.tensor(b);
    if (ta.shape_known && tb.shape_known) {
      if (ta.dims == tb.dims) {
        CopyKnown(a, out);
      } else {
        graph_.mutable_tensor(out).dtype = ta.dtype;
        SetReason(out,
                  fmt::format("data-dependent: the If branches give {} and {}, "
                              "and the condition is known only when running",
                              DimsString(ta.dims), DimsString(tb.dims)));
      }
      continue;
    }
    auto sa = state_.sequences.find(a);
    auto sb = state_.sequences.find(b);
    if (sa != state_.sequences.end() && sb != state_.sequences.end()) {
      SequenceInfo merged = sa->second;
      if (merged.length != sb->second.length) merged.length = -1;
      if (!sb->second.elems_known || merged.elems != sb->second.elems) {
        merged.elems_known = false;
        merged.elems.clear();
      }
      if (!sb->second.elem_dims_known ||
          merged.elem_dims != sb->second.elem_dims) {
        merged.elem_dims_known = false;
      }
      graph_.mutable_tensor(out).dtype = merged.dtype;
      state_.sequences[out] = std::move(merged);
      continue;
    }
    CopyKnown(IsKnown(a) ? b : a, out);  // propagates the unknown one
  }
  return absl::OkStatus();
}

std::optional<Resolver::LoopGrowth> Resolver::SequenceGrowth(int loop, int in,
                                                             int out) const {
  LoopGrowth growth;
  int t = out;
  // Every step moves one node back in the body; more steps than the graph
  // has nodes means a cycle, which a valid graph does not have.
  for (size_t steps = 0; t != in; ++steps) {
    if (t < 0 || steps > graph_.nodes().size()) return std::nullopt;
    const int producer = graph_.tensor(t).producer;
    if (producer < 0) return std::nullopt;
    const graph::Node& p = graph_.node(producer);
    if (p.parent != loop || !p.domain.empty()) return std::nullopt;
    if (p.op_type == "SequenceInsert") {
      const int elem = p.Input(1);
      if (elem < 0 || !graph_.tensor(elem).shape_known) {
        growth.elems_agree = false;
      } else if (growth.inserted == 0) {
        growth.elem_dims = graph_.tensor(elem).dims;
      } else if (growth.elem_dims != graph_.tensor(elem).dims) {
        growth.elems_agree = false;
      }
      ++growth.inserted;
      ++growth.delta;
    } else if (p.op_type == "SequenceErase") {
      --growth.delta;
    } else if (p.op_type != "Identity") {
      return std::nullopt;
    }
    t = p.Input(0);
  }
  return growth;
}

absl::Status Resolver::ResolveLoop(int n, Body& body) {
  const graph::Node& node = graph_.node(n);
  const size_t carried = node.inputs.size() > 2 ? node.inputs.size() - 2 : 0;
  if (body.inputs.size() != carried + 2) {
    return absl::InvalidArgumentError(fmt::format(
        "node '{}' (Loop): the body has {} inputs for {} loop-carried values",
        node.name, body.inputs.size(), carried));
  }
  SetDims(body.inputs[0], graph::DType::kInt64, {});
  SetDims(body.inputs[1], graph::DType::kBool, {});
  for (size_t i = 0; i < carried; ++i) {
    const int init = node.inputs[2 + i];
    if (init < 0) {
      SetReason(body.inputs[2 + i], "the loop-carried input is omitted");
    } else {
      CopyKnown(init, body.inputs[2 + i]);
      // A carried sequence may grow or shrink with each iteration.
      auto seq = state_.sequences.find(body.inputs[2 + i]);
      if (seq != state_.sequences.end()) {
        seq->second.length = -1;
        seq->second.elems_known = false;
        seq->second.elems.clear();
      }
    }
  }
  if (absl::Status s = ResolveBodyNodes(body); !s.ok()) return s;
  // Final values of the loop-carried dependencies.
  for (size_t i = 0; i < carried && i < node.outputs.size(); ++i) {
    const int out = node.outputs[i];
    const int last = BodyOutput(body, static_cast<int>(1 + i));
    if (out < 0) continue;
    if (last < 0) {
      SetReason(out, "the Loop body has no such output");
      continue;
    }
    const graph::Tensor& t = graph_.tensor(last);
    const graph::Tensor& first = graph_.tensor(body.inputs[2 + i]);
    if (t.shape_known && first.shape_known && t.dims != first.dims) {
      graph_.mutable_tensor(out).dtype = t.dtype;
      SetReason(out,
                fmt::format("data-dependent: the loop-carried value changes "
                            "shape across iterations ({} -> {})",
                            DimsString(first.dims), DimsString(t.dims)));
      continue;
    }
    CopyKnown(last, out);
    auto seq = state_.sequences.find(out);
    if (seq != state_.sequences.end()) {
      auto before = state_.sequences.find(body.inputs[2 + i]);
      if (before == state_.sequences.end() ||
          before->second.length != seq->second.length) {
        seq->second.length = -1;  // grows by an unknown number of elements
        seq->second.elems_known = false;
        seq->second.elems.clear();
      }
    }
  }
  // Trip count: M when it is folded and the body's condition stays true.
  int64_t trips = -1;
  const int m = node.Input(0);
  const int cond = node.Input(1);
  if (m >= 0 && graph_.tensor(m).int_values.has_value() &&
      graph_.tensor(m).int_values->size() == 1) {
    int cond_out = BodyOutput(body, 0);
    // Follow Identity nodes back to the body's condition input.
    while (cond_out >= 0 && cond_out != body.inputs[1] &&
           graph_.tensor(cond_out).producer >= 0 &&
           graph_.node(graph_.tensor(cond_out).producer).op_type ==
               "Identity" &&
           graph_.node(graph_.tensor(cond_out).producer).parent == n) {
      cond_out = graph_.node(graph_.tensor(cond_out).producer).Input(0);
    }
    const bool cond_in_true =
        cond < 0 || (graph_.tensor(cond).int_values.has_value() &&
                     graph_.tensor(cond).int_values->size() == 1 &&
                     (*graph_.tensor(cond).int_values)[0] != 0);
    const auto& folded = cond_out >= 0 ? graph_.tensor(cond_out).int_values
                                       : std::optional<std::vector<int64_t>>();
    const bool stays_true =
        cond_in_true &&
        ((cond_out == body.inputs[1]) ||
         (folded.has_value() && folded->size() == 1 && (*folded)[0] != 0));
    const int64_t max_trips = (*graph_.tensor(m).int_values)[0];
    if (max_trips <= 0 || !cond_in_true) {
      trips = 0;
    } else if (stays_true) {
      trips = max_trips;
    }
  }
  // A carried sequence that each iteration grows by the same elements (a
  // scripted list.append: SequenceEmpty -> Loop { SequenceInsert }) ends
  // with its initial length + trips x the growth.
  for (size_t i = 0; i < carried && i < node.outputs.size() && trips >= 0;
       ++i) {
    const int out = node.outputs[i];
    const int init = node.inputs[2 + i];
    if (out < 0 || init < 0) continue;
    auto seq = state_.sequences.find(out);
    auto first = state_.sequences.find(init);
    if (seq == state_.sequences.end() || first == state_.sequences.end() ||
        first->second.length < 0 || seq->second.is_optional) {
      continue;
    }
    std::optional<LoopGrowth> growth =
        SequenceGrowth(n, body.inputs[2 + i], BodyOutput(body, 1 + i));
    if (!growth.has_value()) continue;
    const int64_t length = first->second.length + trips * growth->delta;
    if (length < 0) continue;
    SequenceInfo& info = seq->second;
    info.length = length;
    info.elems_known = false;
    info.elems.clear();
    // The elements' common dims: the inserted ones', when they share them
    // with each other and with those already in the list.
    const bool initial_agrees =
        first->second.length == 0 ||
        (first->second.elem_dims_known &&
         (growth->inserted == 0 ||
          first->second.elem_dims == growth->elem_dims));
    if (growth->inserted > 0 && growth->elems_agree && initial_agrees) {
      info.elem_dims_known = true;
      info.elem_dims = growth->elem_dims;
    } else if (growth->inserted == 0 && first->second.elem_dims_known) {
      info.elem_dims_known = true;
      info.elem_dims = first->second.elem_dims;
    } else {
      info.elem_dims_known = false;
    }
  }
  for (size_t k = carried; k < node.outputs.size(); ++k) {
    const int out = node.outputs[k];
    if (out < 0) continue;
    const int elem = BodyOutput(body, static_cast<int>(1 + k));
    if (elem < 0) {
      SetReason(out, "the Loop body has no such output");
      continue;
    }
    const graph::Tensor& e = graph_.tensor(elem);
    graph_.mutable_tensor(out).dtype = e.dtype;
    if (!e.shape_known) {
      CopyKnown(elem, out);
      continue;
    }
    if (trips < 0) {
      SetReason(out, kLoopTrips);
      continue;
    }
    graph::Dims dims = {trips};
    dims.insert(dims.end(), e.dims.begin(), e.dims.end());
    SetDims(out, e.dtype, std::move(dims));
  }
  return absl::OkStatus();
}

absl::Status Resolver::ResolveScan(int n, Body& body) {
  const graph::Node& node = graph_.node(n);
  const bool v8 = node.opset < 9;  // opset 8: batch axis and sequence_lens
  const size_t first = v8 ? 1 : 0;
  const int64_t num_scan = node.GetInt("num_scan_inputs", 0);
  if (num_scan <= 0 || node.inputs.size() < first + num_scan) {
    return absl::InvalidArgumentError(fmt::format(
        "node '{}' (Scan): bad num_scan_inputs {}", node.name, num_scan));
  }
  const size_t states = node.inputs.size() - first - num_scan;
  if (body.inputs.size() != states + num_scan) {
    return absl::InvalidArgumentError(fmt::format(
        "node '{}' (Scan): the body has {} inputs for {} states and {} scan "
        "inputs",
        node.name, body.inputs.size(), states, num_scan));
  }
  const std::vector<int64_t> in_axes = node.GetInts("scan_input_axes");
  int64_t seq_len = -1, batch = -1;
  for (size_t i = 0; i < states + num_scan; ++i) {
    const int src = node.inputs[first + i];
    const int dst = body.inputs[i];
    if (src < 0 || !graph_.tensor(src).shape_known) {
      if (src >= 0) {
        CopyKnown(src, dst);
      } else {
        SetReason(dst, "the Scan input is omitted");
      }
      continue;
    }
    const graph::Tensor& t = graph_.tensor(src);
    graph::Dims dims = t.dims;
    if (v8) {
      if (dims.empty()) return Unresolved("Scan-8 input of rank 0");
      batch = dims[0];
      dims.erase(dims.begin());
    }
    if (i >= states) {
      const size_t j = i - states;
      int64_t axis = v8 ? 0 : (j < in_axes.size() ? in_axes[j] : 0);
      absl::StatusOr<int64_t> a =
          NormalizeAxis(axis, static_cast<int64_t>(dims.size()));
      if (!a.ok()) {
        return absl::InvalidArgumentError(fmt::format(
            "node '{}' (Scan): {}", node.name, MessageOf(a.status())));
      }
      if (j == 0) seq_len = dims[*a];
      dims.erase(dims.begin() + *a);
    }
    SetDims(dst, t.dtype, std::move(dims));
  }
  if (absl::Status s = ResolveBodyNodes(body); !s.ok()) return s;
  const std::vector<int64_t> out_axes = node.GetInts("scan_output_axes");
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    const int out = node.outputs[k];
    if (out < 0) continue;
    const int elem = BodyOutput(body, static_cast<int>(k));
    if (elem < 0) {
      SetReason(out, "the Scan body has no such output");
      continue;
    }
    const graph::Tensor& e = graph_.tensor(elem);
    if (!e.shape_known) {
      CopyKnown(elem, out);
      continue;
    }
    graph::Dims dims = e.dims;
    if (k >= states) {
      if (seq_len < 0) {
        SetReason(out, "the Scan sequence length is unknown");
        continue;
      }
      const size_t j = k - states;
      int64_t axis = v8 ? 0 : (j < out_axes.size() ? out_axes[j] : 0);
      absl::StatusOr<int64_t> a =
          NormalizeAxis(axis, static_cast<int64_t>(dims.size()) + 1);
      if (!a.ok()) {
        return absl::InvalidArgumentError(fmt::format(
            "node '{}' (Scan): {}", node.name, MessageOf(a.status())));
      }
      dims.insert(dims.begin() + *a, seq_len);
    }
    if (v8) dims.insert(dims.begin(), batch);
    SetDims(out, e.dtype, std::move(dims));
  }
  return absl::OkStatus();
}

absl::Status Resolver::ResolveSequenceMap(int n, Body& body) {
  const graph::Node& node = graph_.node(n);
  if (body.inputs.size() != node.inputs.size()) {
    return absl::InvalidArgumentError(fmt::format(
        "node '{}' (SequenceMap): the body has {} inputs for {} node inputs",
        node.name, body.inputs.size(), node.inputs.size()));
  }
  int64_t length = -1;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    const int src = node.inputs[i];
    const int dst = body.inputs[i];
    auto seq = src >= 0 ? state_.sequences.find(src) : state_.sequences.end();
    if (seq != state_.sequences.end()) {
      if (i == 0) length = seq->second.length;
      graph_.mutable_tensor(dst).dtype = seq->second.dtype;
      if (seq->second.elem_dims_known) {
        SetDims(dst, seq->second.dtype, seq->second.elem_dims);
      } else {
        SetReason(dst,
                  "data-dependent: the sequence's elements differ in "
                  "shape");
      }
    } else if (src >= 0) {
      CopyKnown(src, dst);
    }
  }
  if (absl::Status s = ResolveBodyNodes(body); !s.ok()) return s;
  for (size_t k = 0; k < node.outputs.size(); ++k) {
    const int out = node.outputs[k];
    if (out < 0) continue;
    const int elem = BodyOutput(body, static_cast<int>(k));
    SequenceInfo info;
    info.length = length;
    if (elem >= 0) {
      const graph::Tensor& e = graph_.tensor(elem);
      info.dtype = e.dtype;
      info.elem_dims_known = e.shape_known;
      if (e.shape_known) info.elem_dims = e.dims;
    }
    graph_.mutable_tensor(out).dtype = info.dtype;
    state_.sequences[out] = std::move(info);
  }
  return absl::OkStatus();
}

}  // namespace ridgeline::importers::shapes
