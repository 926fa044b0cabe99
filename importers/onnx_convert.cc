#include "importers/onnx_convert.h"

#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "importers/function_inliner.h"
#include "importers/input_binding.h"
#include "importers/onnx_wire.h"

namespace ridgeline::importers {
namespace {

using graph::DType;
using graph::Tensor;
using graph::TensorKind;

// Name -> tensor index for one graph scope, chained to the enclosing scope.
// Keys view the ModelProto's own strings, which outlive the conversion, so no
// name is copied into the map.
struct Scope {
  const Scope* parent = nullptr;
  absl::flat_hash_map<std::string_view, int> names;

  std::optional<int> Lookup(std::string_view name) const {
    for (const Scope* s = this; s != nullptr; s = s->parent) {
      auto it = s->names.find(name);
      if (it != s->names.end()) return it->second;
    }
    return std::nullopt;
  }
};

class Converter {
 public:
  Converter(const onnx::ModelProto& model, const std::string& base_dir,
            const ImportOptions& options)
      : model_(model), base_dir_(base_dir), options_(options) {}

  absl::StatusOr<graph::Graph> Run() {
    for (const auto& opset : model_.opset_import()) {
      std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
      opsets_[domain] = opset.version();
    }
    graph_.name = model_.graph().name();
    // Weightless graphs (the zoo's, traced by tools/trace_zoo.py) mark their
    // initializers external on purpose; a missing data file is expected.
    for (const auto& prop : model_.metadata_props()) {
      if (prop.key() == "ridgeline.weightless" && prop.value() == "1") {
        weightless_ = true;
      }
    }
    Scope root;
    if (absl::Status s = AddGraphInputs(model_.graph(), &root); !s.ok()) {
      return s;
    }
    // Main-graph counts (subgraphs, rare and small, may still grow them).
    const onnx::GraphProto& main = model_.graph();
    size_t tensors = static_cast<size_t>(main.input_size()) +
                     static_cast<size_t>(main.initializer_size());
    for (const auto& node : main.node()) {
      tensors += static_cast<size_t>(node.output_size());
    }
    graph_.Reserve(static_cast<size_t>(main.node_size()), tensors);
    root.names.reserve(tensors);
    protos_.reserve(static_cast<size_t>(main.node_size()));
    if (absl::Status s = ConvertGraph(model_.graph(), -1, "", &root); !s.ok()) {
      return s;
    }
    for (const auto& out : model_.graph().output()) {
      std::optional<int> t = root.Lookup(out.name());
      if (!t.has_value()) {
        return absl::InvalidArgumentError(fmt::format(
            "graph output '{}' is produced by no node", out.name()));
      }
      graph_.MarkOutput(*t);
    }
    if (absl::Status s = graph_.Finalize(); !s.ok()) return s;
    // Shape resolution changes no edge and validates every dim it sets, so
    // the graph stays finalized.
    if (absl::Status s = ResolveShapes(protos_, model_, input_floats_, &graph_);
        !s.ok()) {
      return s;
    }
    return std::move(graph_);
  }

 private:
  // Graph inputs of the main graph that are not initializers, bound by
  // input_binding.h.
  absl::Status AddGraphInputs(const onnx::GraphProto& g, Scope* scope) {
    std::set<std::string> initializer_names;
    for (const auto& init : g.initializer()) {
      initializer_names.insert(init.name());
    }
    InputBinder binder(options_);
    for (const auto& input : g.input()) {
      if (initializer_names.contains(input.name())) continue;
      std::vector<double> floats;
      absl::StatusOr<graph::Tensor> t = binder.Bind(input, &floats);
      if (!t.ok()) return t.status();
      absl::StatusOr<int> id = graph_.AddTensor(*std::move(t));
      if (!id.ok()) return id.status();
      scope->names[input.name()] = *id;
      if (!floats.empty()) input_floats_[*id] = std::move(floats);
    }
    return binder.Finish(&graph_);
  }

  absl::Status AddInitializer(const onnx::TensorProto& init, Scope* scope) {
    Tensor t;
    t.name = UniqueName(init.name(), scope);
    t.kind = TensorKind::kInitializer;
    if (absl::Status s = TensorProtoInfo(init, &t.dtype, &t.dims); !s.ok()) {
      return s;
    }
    t.shape_known = true;
    if (init.data_location() == onnx::TensorProto::EXTERNAL) {
      // A payload the wire pre-pass left in the model file is no external
      // data: only its values are unknown.
      t.external_data = !HasSkippedPayload(init);
      for (const auto& entry : init.external_data()) {
        if (entry.key() != "location") continue;
        if (!weightless_) CheckExternalFile(entry.value());
      }
    } else {
      t.int_values = TensorProtoInts(init, 4096);
    }
    absl::StatusOr<int> id = graph_.AddTensor(std::move(t));
    if (!id.ok()) return id.status();
    scope->names[init.name()] = *id;
    return absl::OkStatus();
  }

  // Warns once about a missing external data file: one stat() per file, not
  // per tensor stored in it.
  void CheckExternalFile(const std::string& location) {
    if (!checked_external_.insert(location).second) return;
    std::error_code ec;
    if (!std::filesystem::exists(std::filesystem::path(base_dir_) / location,
                                 ec)) {
      graph_.warnings.push_back(
          fmt::format("external data file '{}' is missing; weights are "
                      "analyzed from their shapes only",
                      location));
    }
  }

  // Names in subgraphs may shadow outer names; the graph needs unique names,
  // so a shadowing name gets its scope's prefix.
  std::string UniqueName(const std::string& name, const Scope* scope) {
    // While the main graph is converted, its scope holds every tensor added
    // so far (subgraphs come after all main-graph names), so one lookup
    // there suffices.
    if (scope->parent == nullptr) {
      if (!scope->names.contains(name)) return name;
    } else if (!graph_.FindTensor(name).has_value()) {
      return name;
    }
    std::string base = scope_prefix_.empty() ? name : scope_prefix_ + name;
    std::string candidate = base;
    for (int i = 2; graph_.FindTensor(candidate).has_value(); ++i) {
      candidate = fmt::format("{}#{}", base, i);
    }
    return candidate;
  }

  std::string UniqueNodeName(const onnx::NodeProto& node) {
    std::string base = node.name().empty()
                           ? fmt::format("{}_{}", node.op_type(), node_counter_)
                           : node.name();
    ++node_counter_;
    // Every name handed out so far is in the graph's node index (AddNode
    // follows at once), so that index is the set of names in use.
    if (!graph_.FindNode(base).has_value()) return base;
    std::string candidate;
    for (int i = 2;; ++i) {
      candidate = fmt::format("{}#{}", base, i);
      if (!graph_.FindNode(candidate).has_value()) return candidate;
    }
  }

  absl::Status ConvertGraph(const onnx::GraphProto& g, int parent,
                            const std::string& parent_attribute, Scope* scope) {
    for (const auto& init : g.initializer()) {
      if (absl::Status s = AddInitializer(init, scope); !s.ok()) return s;
    }
    // Output tensors first, so nodes listed out of order still link.
    std::vector<graph::IndexList> outputs(g.node_size());
    for (int n = 0; n < g.node_size(); ++n) {
      for (const std::string& out : g.node(n).output()) {
        if (out.empty()) {
          outputs[n].push_back(-1);
          continue;
        }
        auto [slot, inserted] = scope->names.try_emplace(out, -1);
        if (!inserted) {
          return absl::InvalidArgumentError(
              fmt::format("tensor '{}{}{}' writes it again", out,
                          "' is the output of more than one node (or "
                          "also a graph input or initializer); node '",
                          g.node(n).name()));
        }
        Tensor t;
        // The main graph's scope holds every name added so far, so a name
        // new to it is unique; a body's name may shadow an outer one.
        t.name = scope->parent == nullptr ? out : UniqueName(out, scope);
        absl::StatusOr<int> id = graph_.AddTensor(std::move(t));
        if (!id.ok()) return id.status();
        slot->second = *id;
        outputs[n].push_back(*id);
      }
    }
    for (int n = 0; n < g.node_size(); ++n) {
      const onnx::NodeProto& proto = g.node(n);
      graph::Node node;
      node.name = UniqueNodeName(proto);
      node.op_type = proto.op_type();
      node.domain = proto.domain() == "ai.onnx" ? "" : proto.domain();
      auto opset = opsets_.find(node.domain);
      node.opset = opset == opsets_.end() ? 0 : opset->second;
      node.parent = parent;
      node.parent_attribute = parent_attribute;
      for (const std::string& in : proto.input()) {
        if (in.empty()) {
          node.inputs.push_back(-1);
          continue;
        }
        std::optional<int> t = scope->Lookup(in);
        if (!t.has_value()) {
          return absl::InvalidArgumentError(
              fmt::format("input '{}' of node '{}' ({}) is produced by no "
                          "node, graph input or initializer",
                          in, node.name, node.op_type));
        }
        node.inputs.push_back(*t);
      }
      node.outputs = outputs[n];
      ConvertAttributes(proto, &node);
      absl::StatusOr<int> index = graph_.AddNode(std::move(node));
      if (!index.ok()) return index.status();
      protos_.push_back(&proto);
      for (const auto& attr : proto.attribute()) {
        if (attr.type() == onnx::AttributeProto::GRAPH) {
          if (absl::Status s =
                  ConvertSubgraph(attr.g(), *index, attr.name(), scope);
              !s.ok()) {
            return s;
          }
        } else if (attr.type() == onnx::AttributeProto::GRAPHS) {
          for (const auto& sub : attr.graphs()) {
            if (absl::Status s =
                    ConvertSubgraph(sub, *index, attr.name(), scope);
                !s.ok()) {
              return s;
            }
          }
        }
      }
    }
    return absl::OkStatus();
  }

  // A body's inputs are fed by its parent node, so they are activations whose
  // producer is the parent.
  absl::Status ConvertSubgraph(const onnx::GraphProto& g, int parent,
                               const std::string& attribute, Scope* outer) {
    Scope scope;
    scope.parent = outer;
    std::string saved_prefix = scope_prefix_;
    scope_prefix_ = fmt::format("{}/{}/", graph_.node(parent).name, attribute);
    for (const auto& input : g.input()) {
      Tensor t;
      t.name = UniqueName(input.name(), &scope);
      t.producer = parent;
      if (input.type().has_tensor_type()) {
        std::optional<DType> dtype =
            graph::DTypeFromOnnx(input.type().tensor_type().elem_type());
        if (dtype.has_value()) t.dtype = *dtype;
      }
      absl::StatusOr<int> id = graph_.AddTensor(std::move(t));
      if (!id.ok()) return id.status();
      scope.names[input.name()] = *id;
      subgraph_inputs_.push_back({*id, &input});
    }
    absl::Status s = ConvertGraph(g, parent, attribute, &scope);
    scope_prefix_ = saved_prefix;
    return s;
  }

  static void ConvertAttributes(const onnx::NodeProto& proto,
                                graph::Node* node) {
    for (const auto& attr : proto.attribute()) {
      switch (attr.type()) {
        case onnx::AttributeProto::INT:
          node->attributes[attr.name()] = static_cast<int64_t>(attr.i());
          break;
        case onnx::AttributeProto::FLOAT:
          node->attributes[attr.name()] = static_cast<double>(attr.f());
          break;
        case onnx::AttributeProto::STRING:
          node->attributes[attr.name()] = attr.s();
          break;
        case onnx::AttributeProto::INTS:
          node->attributes[attr.name()] =
              std::vector<int64_t>(attr.ints().begin(), attr.ints().end());
          break;
        case onnx::AttributeProto::FLOATS:
          node->attributes[attr.name()] =
              std::vector<double>(attr.floats().begin(), attr.floats().end());
          break;
        case onnx::AttributeProto::STRINGS:
          node->attributes[attr.name()] = std::vector<std::string>(
              attr.strings().begin(), attr.strings().end());
          break;
        default:
          break;  // tensors and graphs are read from the proto when needed
      }
    }
  }

  const onnx::ModelProto& model_;
  const std::string& base_dir_;
  const ImportOptions& options_;
  // --input-value values of floating graph inputs, by tensor index.
  absl::flat_hash_map<int, std::vector<double>> input_floats_;
  graph::Graph graph_;
  std::vector<const onnx::NodeProto*> protos_;
  std::vector<std::pair<int, const onnx::ValueInfoProto*>> subgraph_inputs_;
  absl::flat_hash_map<std::string, int64_t> opsets_;
  absl::flat_hash_set<std::string> checked_external_;
  std::string scope_prefix_;
  int node_counter_ = 0;
  bool weightless_ = false;
};

}  // namespace

absl::StatusOr<graph::Graph> ConvertModel(onnx::ModelProto* model,
                                          const std::string& base_dir,
                                          const ImportOptions& options) {
  absl::StatusOr<InlineResult> inlined = InlineLocalFunctions(model);
  if (!inlined.ok()) return inlined.status();
  absl::StatusOr<graph::Graph> graph =
      Converter(*model, base_dir, options).Run();
  if (!graph.ok()) return graph;
  for (std::string& w : inlined->warnings) {
    graph->warnings.push_back(std::move(w));
  }
  return graph;
}

}  // namespace ridgeline::importers
