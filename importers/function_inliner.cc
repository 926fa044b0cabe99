#include "importers/function_inliner.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "fmt/format.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/unknown_field_set.h"

namespace ridgeline::importers {
namespace {

using NameSet = absl::flat_hash_set<std::string>;

std::string Key(const std::string& domain, const std::string& name) {
  std::string key = domain;
  key.push_back('\0');
  key.append(name);
  return key;
}

// Renames the values of one function call: formals to the call's actuals,
// everything else (the body's own values) to "<prefix>/<name>"; "" (an
// omitted optional input) stays "".
class CallScope {
 public:
  CallScope(std::string prefix,
            absl::flat_hash_map<std::string, std::string> io)
      : prefix_(std::move(prefix)), io_(std::move(io)) {}

  std::string Rename(const std::string& name) const {
    if (name.empty()) return name;
    auto it = io_.find(name);
    if (it != io_.end()) return it->second;
    return prefix_ + "/" + name;
  }
  const std::string& prefix() const { return prefix_; }

 private:
  std::string prefix_;
  absl::flat_hash_map<std::string, std::string> io_;
};

// Names a subgraph defines itself (inputs, initializers, node outputs), so
// that only its references to the enclosing body are renamed.
void AddDefined(const onnx::GraphProto& g, NameSet* defined) {
  for (const auto& v : g.input()) defined->insert(v.name());
  for (const auto& t : g.initializer()) defined->insert(t.name());
  for (const auto& t : g.sparse_initializer()) {
    defined->insert(t.values().name());
  }
  for (const auto& n : g.node()) {
    for (const auto& o : n.output()) defined->insert(o);
  }
}

// Renames, in a subgraph of a function body (and the subgraphs in it), the
// names it reads from the body.
void RenameOuterReferences(onnx::GraphProto* g, const CallScope& scope,
                           NameSet defined) {
  AddDefined(*g, &defined);
  for (auto& node : *g->mutable_node()) {
    for (auto& input : *node.mutable_input()) {
      if (!input.empty() && !defined.contains(input)) {
        input = scope.Rename(input);
      }
    }
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) RenameOuterReferences(attr.mutable_g(), scope, defined);
      for (auto& sub : *attr.mutable_graphs()) {
        RenameOuterReferences(&sub, scope, defined);
      }
    }
  }
  for (auto& out : *g->mutable_output()) {
    if (!defined.contains(out.name())) out.set_name(scope.Rename(out.name()));
  }
}

// FunctionProto field 11, attribute_proto (IR 9): the defaults of the
// function's attributes. The ONNX 1.12 schema this build compiles has no
// such field, so it is read from the message's unknown fields.
constexpr int kFunctionAttributeProtoField = 11;

absl::flat_hash_map<std::string, onnx::AttributeProto> AttributeDefaults(
    const onnx::FunctionProto& fn) {
  absl::flat_hash_map<std::string, onnx::AttributeProto> defaults;
  const google::protobuf::UnknownFieldSet& unknown =
      fn.GetReflection()->GetUnknownFields(fn);
  for (int i = 0; i < unknown.field_count(); ++i) {
    const google::protobuf::UnknownField& f = unknown.field(i);
    if (f.number() != kFunctionAttributeProtoField ||
        f.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      continue;
    }
    onnx::AttributeProto attr;
    if (attr.ParseFromString(f.length_delimited()) && !attr.name().empty()) {
      defaults[attr.name()] = std::move(attr);
    }
  }
  return defaults;
}

class Inliner {
 public:
  explicit Inliner(const onnx::ModelProto& model) {
    for (const auto& f : model.functions()) {
      functions_.emplace(Key(f.domain(), f.name()), &f);
      auto defaults = AttributeDefaults(f);
      if (!defaults.empty()) defaults_.emplace(&f, std::move(defaults));
    }
  }

  bool empty() const { return functions_.empty(); }

  // Expands the calls among the nodes of `g` and of its subgraphs.
  absl::Status ExpandGraph(onnx::GraphProto* g, int depth) {
    bool any = false;
    for (auto& node : *g->mutable_node()) {
      if (absl::Status s = ExpandSubgraphs(&node, depth); !s.ok()) return s;
      any = any || Find(node) != nullptr;
    }
    if (!any) return absl::OkStatus();
    // The expanded node list, on the graph's arena when it has one (a cheap
    // swap), else owned here.
    onnx::GraphProto owned;
    onnx::GraphProto* scratch =
        g->GetArena() != nullptr
            ? google::protobuf::Arena::CreateMessage<onnx::GraphProto>(
                  g->GetArena())
            : &owned;
    for (auto& node : *g->mutable_node()) {
      if (absl::Status s = Emit(std::move(node), scratch, depth); !s.ok()) {
        return s;
      }
    }
    g->mutable_node()->Swap(scratch->mutable_node());
    return absl::OkStatus();
  }

  InlineResult& result() { return result_; }

 private:
  const onnx::FunctionProto* Find(const onnx::NodeProto& node) const {
    auto it = functions_.find(Key(node.domain(), node.op_type()));
    return it == functions_.end() ? nullptr : it->second;
  }

  absl::Status ExpandSubgraphs(onnx::NodeProto* node, int depth) {
    for (auto& attr : *node->mutable_attribute()) {
      if (attr.has_g()) {
        if (absl::Status s = ExpandGraph(attr.mutable_g(), depth); !s.ok()) {
          return s;
        }
      }
      for (auto& sub : *attr.mutable_graphs()) {
        if (absl::Status s = ExpandGraph(&sub, depth); !s.ok()) return s;
      }
    }
    return absl::OkStatus();
  }

  // Appends `node` to `out`, or the expansion of it when it calls a
  // function.
  absl::Status Emit(onnx::NodeProto node, onnx::GraphProto* out, int depth) {
    const onnx::FunctionProto* fn = Find(node);
    if (fn == nullptr) {
      if (++nodes_ > kMaxInlinedNodes) return TooMany(node);
      out->add_node()->Swap(&node);
      return absl::OkStatus();
    }
    return ExpandCall(node, *fn, out, depth + 1);
  }

  absl::Status TooMany(const onnx::NodeProto& node) const {
    return absl::InvalidArgumentError(fmt::format(
        "expanding the model's local functions passes {} nodes (at '{}' of "
        "op '{}'): the functions call each other too often to analyze",
        kMaxInlinedNodes, node.name(), node.op_type()));
  }

  std::string UniquePrefix(const onnx::NodeProto& call,
                           const onnx::FunctionProto& fn) {
    std::string base = call.name().empty() ? fn.name() : call.name();
    std::string prefix = base;
    while (!prefixes_.insert(prefix).second) {
      prefix = fmt::format("{}#{}", base, ++collisions_);
    }
    return prefix;
  }

  absl::Status ExpandCall(const onnx::NodeProto& call,
                          const onnx::FunctionProto& fn, onnx::GraphProto* out,
                          int depth) {
    if (depth > kMaxFunctionDepth) {
      return absl::InvalidArgumentError(fmt::format(
          "model-local function '{}' ({}) nests calls deeper than {} levels "
          "(a function that calls itself?)",
          fn.name(), fn.domain(), kMaxFunctionDepth));
    }
    if (call.input_size() > fn.input_size() ||
        call.output_size() > fn.output_size()) {
      return absl::InvalidArgumentError(fmt::format(
          "node '{}' calls model-local function '{}' with {} inputs and {} "
          "outputs; the function takes {} and gives {}",
          call.name(), fn.name(), call.input_size(), call.output_size(),
          fn.input_size(), fn.output_size()));
    }
    const std::string prefix = UniquePrefix(call, fn);
    absl::flat_hash_map<std::string, std::string> io;
    for (int i = 0; i < fn.input_size(); ++i) {
      io[fn.input(i)] = i < call.input_size() ? call.input(i) : "";
    }
    for (int i = 0; i < call.output_size(); ++i) {
      if (!call.output(i).empty()) io[fn.output(i)] = call.output(i);
    }
    const CallScope scope(prefix, std::move(io));
    // The call's attributes over the function's declared defaults.
    absl::flat_hash_map<std::string, const onnx::AttributeProto*> given;
    if (auto d = defaults_.find(&fn); d != defaults_.end()) {
      for (const auto& [name, attr] : d->second) given[name] = &attr;
    }
    for (const auto& attr : call.attribute()) given[attr.name()] = &attr;
    if (seen_.insert(Key(fn.domain(), fn.name())).second) ++result_.functions;
    ++result_.calls;

    for (int i = 0; i < fn.node_size(); ++i) {
      const onnx::NodeProto& body = fn.node(i);
      onnx::NodeProto node;
      node.set_op_type(body.op_type());
      node.set_domain(body.domain());
      node.set_name(fmt::format("{}/{}", prefix,
                                body.name().empty()
                                    ? fmt::format("{}_{}", body.op_type(), i)
                                    : body.name()));
      for (const auto& input : body.input()) {
        node.add_input(scope.Rename(input));
      }
      for (const auto& output : body.output()) {
        node.add_output(scope.Rename(output));
      }
      for (const auto& attr : body.attribute()) {
        if (!attr.ref_attr_name().empty()) {
          auto it = given.find(attr.ref_attr_name());
          // Neither given nor declared: the operator's default applies.
          if (it == given.end()) continue;
          onnx::AttributeProto* copy = node.add_attribute();
          *copy = *it->second;
          copy->set_name(attr.name());
          continue;
        }
        onnx::AttributeProto* copy = node.add_attribute();
        *copy = attr;
        if (copy->has_g()) {
          RenameOuterReferences(copy->mutable_g(), scope, {});
        }
        for (auto& sub : *copy->mutable_graphs()) {
          RenameOuterReferences(&sub, scope, {});
        }
      }
      if (absl::Status s = ExpandSubgraphs(&node, depth); !s.ok()) return s;
      if (absl::Status s = Emit(std::move(node), out, depth); !s.ok()) {
        return s;
      }
    }
    return absl::OkStatus();
  }

  absl::flat_hash_map<std::string, const onnx::FunctionProto*> functions_;
  absl::flat_hash_map<const onnx::FunctionProto*,
                      absl::flat_hash_map<std::string, onnx::AttributeProto>>
      defaults_;
  NameSet prefixes_;
  NameSet seen_;
  int64_t collisions_ = 0;
  int64_t nodes_ = 0;
  InlineResult result_;
};

// Opset imports of the functions that the model lacks are added; a version
// that differs from the model's is a warning.
void MergeOpsetImports(onnx::ModelProto* model, InlineResult* result) {
  absl::flat_hash_map<std::string, int64_t> versions;
  for (const auto& op : model->opset_import()) {
    versions[op.domain() == "ai.onnx" ? "" : op.domain()] = op.version();
  }
  for (const auto& fn : model->functions()) {
    for (const auto& op : fn.opset_import()) {
      const std::string domain = op.domain() == "ai.onnx" ? "" : op.domain();
      auto it = versions.find(domain);
      if (it == versions.end()) {
        onnx::OperatorSetIdProto* added = model->add_opset_import();
        added->set_domain(domain);
        added->set_version(op.version());
        versions[domain] = op.version();
      } else if (it->second != op.version()) {
        result->warnings.push_back(fmt::format(
            "model-local function '{}' imports {} opset {}, the model {}: its "
            "nodes are read at the model's opset",
            fn.name(), domain.empty() ? "ai.onnx" : domain, op.version(),
            it->second));
      }
    }
  }
}

}  // namespace

absl::StatusOr<InlineResult> InlineLocalFunctions(onnx::ModelProto* model) {
  Inliner inliner(*model);
  if (inliner.empty()) return InlineResult{};
  if (absl::Status s = inliner.ExpandGraph(model->mutable_graph(), 0);
      !s.ok()) {
    return s;
  }
  InlineResult result = std::move(inliner.result());
  if (result.calls > 0) MergeOpsetImports(model, &result);
  return result;
}

}  // namespace ridgeline::importers
