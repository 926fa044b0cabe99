#include "importers/shapes/resolver.h"

#include <algorithm>

#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "graph/list_some.h"
#include "importers/shapes/onnx_fallback.h"
#include "importers/shapes/schema_check.h"
#include "importers/shapes/util.h"
#include "importers/tensor_proto.h"

namespace ridgeline::importers::shapes {
namespace {

bool IsControlFlow(const graph::Node& node) {
  return node.domain.empty() &&
         (node.op_type == "If" || node.op_type == "Loop" ||
          node.op_type == "Scan" || node.op_type == "SequenceMap");
}

// Dims of a tensor type when every dim is a non-negative value.
bool ConcreteDims(const onnx::TypeProto& type, graph::Dims* dims) {
  if (!type.has_tensor_type() || !type.tensor_type().has_shape()) return false;
  dims->clear();
  for (const auto& d : type.tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return false;
    dims->push_back(d.dim_value());
  }
  return true;
}

// Sequence/optional info from a graph input's declared type.
bool SequenceFromType(const onnx::TypeProto& type, SequenceInfo* info) {
  const onnx::TypeProto* elem = nullptr;
  if (type.has_sequence_type()) {
    elem = &type.sequence_type().elem_type();
  } else if (type.has_optional_type()) {
    elem = &type.optional_type().elem_type();
    info->is_optional = true;
    if (elem->has_sequence_type()) {  // optional(sequence): the sequence
      info->is_optional = false;
      elem = &elem->sequence_type().elem_type();
    }
  } else {
    return false;
  }
  if (elem->has_tensor_type()) {
    info->dtype = DTypeFromAttr(elem->tensor_type().elem_type());
    info->elem_dims_known = ConcreteDims(*elem, &info->elem_dims);
  }
  return true;
}

}  // namespace

Resolver::Resolver(const std::vector<const onnx::NodeProto*>& protos,
                   const onnx::ModelProto& model, graph::Graph* graph)
    : protos_(protos),
      model_(model),
      graph_(*graph),
      registry_(DefaultShapeRegistry()) {}

absl::Status Resolver::Run() {
  IndexSubgraphs();
  IndexInitializers(model_.graph(), "");
  BindGraphInputTypes();
  for (int n : graph_.topological_order()) {
    if (graph_.node(n).parent >= 0) continue;  // resolved with its parent
    if (absl::Status s = ResolveNode(n); !s.ok()) return s;
  }
  InlineTakenBranches();
  PublishFloatValues();
  const auto& tensors = graph_.tensors();
  for (size_t t = 0; t < tensors.size(); ++t) {
    const graph::Tensor& tensor = tensors[t];
    if (tensor.shape_known || tensor.is_weight()) continue;
    // A tensor of a branch that does not run is not missing.
    if (tensor.producer >= 0 && graph_.node(tensor.producer).not_run) continue;
    // A sequence or optional value is known for what it is.
    if (state_.sequences.contains(static_cast<int>(t))) {
      graph_.mutable_tensor(static_cast<int>(t)).non_tensor = true;
      continue;
    }
    std::string node =
        tensor.producer >= 0 ? graph_.node(tensor.producer).name : "";
    std::string reason;
    if (auto it = reasons_.find(static_cast<int>(t)); it != reasons_.end()) {
      reason = it->second;
    } else if (tensor.kind == graph::TensorKind::kGraphInput) {
      reason = "the graph input declares no tensor shape";
    } else {
      reason = "not reached: its producer was not resolved";
    }
    graph_.unresolved.push_back({tensor.name, node, std::move(reason)});
  }
  // Sizes taken at their upper bound, outside branches that do not run.
  std::vector<std::string> bounded;
  for (const graph::Tensor& tensor : tensors) {
    if (!tensor.upper_bound) continue;
    const graph::Node& producer = graph_.node(tensor.producer);
    if (producer.not_run) continue;
    bounded.push_back(fmt::format("'{}' ({})", tensor.name, producer.op_type));
  }
  if (!bounded.empty()) {
    graph_.warnings.push_back(fmt::format(
        "{} data-dependent size(s) taken at their upper bound, so the layers "
        "after them are priced at the worst case (NonZero: every element "
        "non-zero; Compress: every slice kept; NonMaxSuppression: "
        "min(max_output_boxes_per_class, boxes) per batch and class; Unique: "
        "every value distinct): {}",
        bounded.size(), graph::ListSome(bounded, 5)));
  }
  return absl::OkStatus();
}

void Resolver::PublishFloatValues() {
  for (const auto& [t, values] : state_.floats) {
    if (values.size() <= graph::Tensor::kMaxFloatValues) {
      graph_.mutable_tensor(t).float_values = values;
    }
  }
  // Initializers the folds never read: decode the scalars only.
  for (const auto& [t, proto] : state_.lazy_floats) {
    if (graph_.tensor(t).float_values.has_value()) continue;
    int64_t count = 1;
    for (int64_t d : proto->dims()) count *= std::max<int64_t>(d, 0);
    if (count != 1) continue;
    graph_.mutable_tensor(t).float_values = TensorProtoFloats(*proto, 1);
  }
}

void Resolver::IndexSubgraphs() {
  const auto& nodes = graph_.nodes();
  const auto& tensors = graph_.tensors();
  // Body inputs: tensors whose producer is a node that does not output them,
  // in creation order (= attribute order, then input order).
  absl::flat_hash_map<int, std::vector<int>> body_inputs;
  for (size_t t = 0; t < tensors.size(); ++t) {
    const int p = tensors[t].producer;
    if (p < 0) continue;
    const auto& outs = nodes[p].outputs;
    if (std::find(outs.begin(), outs.end(), static_cast<int>(t)) ==
        outs.end()) {
      body_inputs[p].push_back(static_cast<int>(t));
    }
  }
  for (size_t n = 0; n < nodes.size() && n < protos_.size(); ++n) {
    const onnx::NodeProto* proto = protos_[n];
    bool any = false;
    for (const auto& a : proto->attribute()) {
      any |= a.type() == onnx::AttributeProto::GRAPH ||
             a.type() == onnx::AttributeProto::GRAPHS;
    }
    if (!any) continue;
    std::vector<Body>& bodies = bodies_[static_cast<int>(n)];
    const std::vector<int>& inputs = body_inputs[static_cast<int>(n)];
    size_t next = 0;
    auto add = [&](const std::string& name, const onnx::GraphProto& g) {
      Body body;
      body.parent = static_cast<int>(n);
      body.attribute = name;
      body.graph = &g;
      for (int i = 0; i < g.input_size() && next < inputs.size(); ++i) {
        body.inputs.push_back(inputs[next++]);
      }
      bodies.push_back(std::move(body));
    };
    for (const auto& a : proto->attribute()) {
      if (a.type() == onnx::AttributeProto::GRAPH) add(a.name(), a.g());
      if (a.type() == onnx::AttributeProto::GRAPHS) {
        for (const auto& g : a.graphs()) add(a.name(), g);
      }
    }
    for (const Body& body : bodies) {
      IndexInitializers(*body.graph,
                        fmt::format("{}/{}/", nodes[n].name, body.attribute));
    }
  }
  if (bodies_.empty()) return;
  for (int n : graph_.topological_order()) {
    const graph::Node& node = nodes[n];
    if (node.parent < 0) continue;
    auto it = bodies_.find(node.parent);
    if (it == bodies_.end()) continue;
    for (Body& body : it->second) {
      if (body.attribute == node.parent_attribute) {
        body.nodes.push_back(n);
        break;
      }
    }
  }
}

void Resolver::IndexInitializers(const onnx::GraphProto& g,
                                 const std::string& prefix) {
  for (const auto& init : g.initializer()) {
    const auto dtype = graph::DTypeFromOnnx(init.data_type());
    if (!dtype.has_value() || !graph::IsFloating(*dtype) ||
        init.data_location() == onnx::TensorProto::EXTERNAL) {
      continue;
    }
    int64_t count = 1;
    for (int64_t d : init.dims()) count *= std::max<int64_t>(d, 0);
    if (count > kMaxFoldedElements) continue;
    std::optional<int> t;
    if (!prefix.empty()) t = graph_.FindTensor(prefix + init.name());
    if (!t.has_value()) t = graph_.FindTensor(init.name());
    if (t.has_value() && graph_.tensor(*t).is_weight()) {
      state_.lazy_floats.try_emplace(*t, &init);
    }
  }
}

void Resolver::BindGraphInputTypes() {
  for (const auto& input : model_.graph().input()) {
    if (input.type().has_tensor_type()) continue;
    SequenceInfo info;
    if (!SequenceFromType(input.type(), &info)) continue;
    std::optional<int> t = graph_.FindTensor(input.name());
    if (!t.has_value()) continue;
    graph_.mutable_tensor(*t).dtype = info.dtype;
    state_.sequences[*t] = std::move(info);
  }
}

bool Resolver::IsKnown(int tensor) const {
  return graph_.tensor(tensor).shape_known || state_.sequences.contains(tensor);
}

bool Resolver::HasValues(int tensor) const {
  return graph_.tensor(tensor).int_values.has_value() ||
         state_.floats.contains(tensor) || state_.lazy_floats.contains(tensor);
}

std::string Resolver::RootReason(int tensor) const {
  auto it = reasons_.find(tensor);
  if (it == reasons_.end()) {
    return graph_.tensor(tensor).kind == graph::TensorKind::kGraphInput
               ? "the graph input declares no tensor shape"
               : "unknown";
  }
  // Propagated reasons read "input 'x' is unresolved: ROOT".
  const std::string& r = it->second;
  if (r.rfind("input '", 0) == 0) {
    const size_t colon = r.find("' is unresolved: ");
    if (colon != std::string::npos) {
      return r.substr(colon + sizeof("' is unresolved: ") - 1);
    }
  }
  return r;
}

void Resolver::SetReason(int tensor, std::string reason) {
  reasons_[tensor] = std::move(reason);
}

absl::Status Resolver::ResolveNode(int n) {
  const graph::Node& node = graph_.node(n);
  const onnx::NodeProto* node_proto =
      n < static_cast<int>(protos_.size()) ? protos_[n] : nullptr;
  if (absl::Status s = CheckAgainstSchema(node, node_proto); !s.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "node '{}' ({}): {}", node.name, node.op_type, s.message()));
  }
  if (bodies_.contains(n)) {
    if (IsControlFlow(node)) return ResolveControlFlow(n);
    // Another op with subgraphs: resolve what can be resolved inside.
    for (const Body& body : bodies_[n]) {
      for (int t : body.inputs) {
        SetReason(t, fmt::format("input of a {} body, whose shapes are not "
                                 "modeled",
                                 node.op_type));
      }
      if (absl::Status s = ResolveBodyNodes(body); !s.ok()) return s;
    }
  }
  for (int t : node.inputs) {
    if (t >= 0 && !IsKnown(t)) {
      FinishOutputs(n, fmt::format("input '{}' is unresolved: {}",
                                   graph_.tensor(t).name, RootReason(t)));
      return absl::OkStatus();
    }
  }
  InferContext ctx(&graph_, n, node_proto, &state_);
  ShapeFn fn = registry_.Find(node.domain, node.op_type);
  absl::Status s = fn != nullptr ? fn(ctx) : InferWithOnnxSchema(ctx);
  if (!s.ok() && !IsUnresolved(s)) {
    return absl::Status(s.code(), fmt::format("node '{}' ({}): {}", node.name,
                                              node.op_type, MessageOf(s)));
  }
  if (absl::Status v = ValidateOutputs(n); !v.ok()) return v;
  if (s.ok()) {
    if (const FoldEntry* fold = registry_.FindFold(node.domain, node.op_type)) {
      TryFold(ctx, *fold);
    }
  }
  ApplyHints(n);
  if (absl::Status v = ValidateOutputs(n); !v.ok()) return v;
  FinishOutputs(n, s.ok() ? std::string("the shape function left it unresolved")
                          : std::string(MessageOf(s)));
  return absl::OkStatus();
}

absl::Status Resolver::ResolveBodyNodes(const Body& body) {
  for (int m : body.nodes) {
    if (absl::Status s = ResolveNode(m); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void Resolver::FinishOutputs(int n, const std::string& reason) {
  for (int t : graph_.node(n).outputs) {
    if (t >= 0 && !IsKnown(t) && !reasons_.contains(t)) SetReason(t, reason);
  }
}

absl::Status Resolver::ValidateOutputs(int n) {
  const graph::Node& node = graph_.node(n);
  for (int t : node.outputs) {
    if (t < 0) continue;
    const graph::Tensor& tensor = graph_.tensor(t);
    if (!tensor.shape_known) continue;
    absl::StatusOr<int64_t> count =
        graph::CheckedNumElements(tensor.dims, tensor.name);
    if (!count.ok()) {
      return absl::InvalidArgumentError(fmt::format("node '{}' ({}): {}",
                                                    node.name, node.op_type,
                                                    MessageOf(count.status())));
    }
  }
  return absl::OkStatus();
}

void Resolver::TryFold(InferContext& ctx, const FoldEntry& fold) {
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (!ctx.has_output(i)) continue;
    const graph::Tensor& t = ctx.output(i);
    if (!t.shape_known || t.dtype == graph::DType::kString ||
        t.dtype == graph::DType::kUndefined ||
        t.NumElements() > kMaxFoldedElements) {
      return;
    }
  }
  if (fold.needs_input_values) {
    for (int t : ctx.node().inputs) {
      if (t >= 0 && !HasValues(t)) return;
    }
  }
  fold.fn(ctx);
}

void Resolver::ApplyHints(int n) {
  const graph::Node& node = graph_.node(n);
  bool missing = false;
  for (int t : node.outputs) missing |= t >= 0 && !IsKnown(t);
  if (!missing || n >= static_cast<int>(protos_.size())) return;
  if (!hints_built_) {
    hints_built_ = true;
    // Main graph and every subgraph: value_info and outputs.
    std::vector<const onnx::GraphProto*> stack = {&model_.graph()};
    while (!stack.empty()) {
      const onnx::GraphProto* g = stack.back();
      stack.pop_back();
      for (const auto& vi : g->value_info()) hints_[vi.name()] = &vi.type();
      for (const auto& vi : g->output()) hints_[vi.name()] = &vi.type();
      for (const auto& node_proto : g->node()) {
        for (const auto& a : node_proto.attribute()) {
          if (a.type() == onnx::AttributeProto::GRAPH) stack.push_back(&a.g());
          for (const auto& sub : a.graphs()) stack.push_back(&sub);
        }
      }
    }
  }
  const onnx::NodeProto& proto = *protos_[n];
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    const int t = node.outputs[i];
    if (t < 0 || IsKnown(t) || static_cast<int>(i) >= proto.output_size()) {
      continue;
    }
    auto it = hints_.find(proto.output(i));
    if (it == hints_.end()) continue;
    graph::Dims dims;
    if (!ConcreteDims(*it->second, &dims)) continue;
    const graph::DType dtype =
        DTypeFromAttr(it->second->tensor_type().elem_type());
    if (dtype == graph::DType::kUndefined) continue;
    SetDims(t, dtype, std::move(dims));
  }
}

void Resolver::SetDims(int tensor, graph::DType dtype, graph::Dims dims) {
  graph::Tensor& t = graph_.mutable_tensor(tensor);
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.shape_known = true;
}

}  // namespace ridgeline::importers::shapes
