#include "graph/graph.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string_view>
#include <utility>

#include "absl/strings/str_join.h"
#include "absl/strings/string_view.h"
#include "fmt/format.h"

namespace ridgeline::graph {

absl::StatusOr<int64_t> CheckedNumElements(const Dims& dims,
                                           std::string_view what) {
  int64_t product = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return absl::InvalidArgumentError(
          fmt::format("tensor '{}' has a negative dim ({})", what, d));
    }
    if (d > kMaxDim) {
      return absl::InvalidArgumentError(fmt::format(
          "tensor '{}' has a dim of {}, above the limit 2^40", what, d));
    }
    if (d != 0 && product > INT64_MAX / d) {
      return absl::InvalidArgumentError(fmt::format(
          "tensor '{}' has more elements than int64 can count (dims [{}])",
          what, absl::StrJoin(dims, ",")));
    }
    product *= d;
  }
  if (product > kMaxElements) {
    return absl::InvalidArgumentError(fmt::format(
        "tensor '{}' has {} elements (dims [{}]), above the limit 2^59 (its "
        "size in bytes must fit in int64)",
        what, product, absl::StrJoin(dims, ",")));
  }
  return product;
}

int64_t Tensor::NumElements() const {
  int64_t product = 1;
  for (int64_t d : dims) product *= d;
  return product;
}

double Tensor::Bytes() const {
  return static_cast<double>(NumElements()) * ElementBytes(dtype);
}

std::string ShapeString(const Tensor& tensor) {
  if (!tensor.shape_known) return "?";
  return fmt::format("[{}]", absl::StrJoin(tensor.dims, ","));
}

bool Node::HasAttribute(std::string_view key) const {
  return attributes.contains(std::string(key));
}

int64_t Node::GetInt(std::string_view key, int64_t default_value) const {
  auto it = attributes.find(std::string(key));
  if (it == attributes.end()) return default_value;
  if (const auto* v = std::get_if<int64_t>(&it->second)) return *v;
  if (const auto* v = std::get_if<double>(&it->second)) {
    return static_cast<int64_t>(*v);
  }
  return default_value;
}

double Node::GetFloat(std::string_view key, double default_value) const {
  auto it = attributes.find(std::string(key));
  if (it == attributes.end()) return default_value;
  if (const auto* v = std::get_if<double>(&it->second)) return *v;
  if (const auto* v = std::get_if<int64_t>(&it->second)) {
    return static_cast<double>(*v);
  }
  return default_value;
}

std::string Node::GetString(std::string_view key,
                            std::string_view default_value) const {
  auto it = attributes.find(std::string(key));
  if (it == attributes.end()) return std::string(default_value);
  if (const auto* v = std::get_if<std::string>(&it->second)) return *v;
  return std::string(default_value);
}

std::vector<int64_t> Node::GetInts(std::string_view key) const {
  auto it = attributes.find(std::string(key));
  if (it == attributes.end()) return {};
  if (const auto* v = std::get_if<std::vector<int64_t>>(&it->second)) {
    return *v;
  }
  if (const auto* v = std::get_if<int64_t>(&it->second)) return {*v};
  return {};
}

std::vector<double> Node::GetFloats(std::string_view key) const {
  auto it = attributes.find(std::string(key));
  if (it == attributes.end()) return {};
  if (const auto* v = std::get_if<std::vector<double>>(&it->second)) {
    return *v;
  }
  if (const auto* v = std::get_if<double>(&it->second)) return {*v};
  return {};
}

int Node::NumPresentInputs() const {
  int n = 0;
  for (int t : inputs) n += (t >= 0);
  return n;
}

void Graph::Reserve(size_t nodes, size_t tensors) {
  nodes_.reserve(nodes);
  node_index_.reserve(nodes);
  tensors_.reserve(tensors);
  tensor_index_.reserve(tensors);
}

absl::StatusOr<int> Graph::AddTensor(Tensor tensor) {
  auto [it, inserted] =
      tensor_index_.try_emplace(tensor.name, static_cast<int>(tensors_.size()));
  if (!inserted) {
    return absl::InvalidArgumentError(
        fmt::format("duplicate tensor name '{}'", tensor.name));
  }
  tensors_.push_back(std::move(tensor));
  return it->second;
}

absl::StatusOr<int> Graph::AddNode(Node node) {
  const int index = static_cast<int>(nodes_.size());
  for (int out : node.outputs) {
    if (out < 0) continue;
    Tensor& t = tensors_[out];
    if (t.producer >= 0 || t.kind != TensorKind::kActivation) {
      return absl::InvalidArgumentError(fmt::format(
          "output '{}' of node '{}' is already produced by {}", t.name,
          node.name,
          t.producer >= 0 ? fmt::format("node '{}'", nodes_[t.producer].name)
                          : std::string("a graph input or initializer")));
    }
    t.producer = index;
  }
  if (!node.name.empty()) node_index_.try_emplace(node.name, index);
  nodes_.push_back(std::move(node));
  return index;
}

std::optional<int> Graph::FindTensor(std::string_view name) const {
  auto it = tensor_index_.find(absl::string_view(name.data(), name.size()));
  if (it == tensor_index_.end()) return std::nullopt;
  return it->second;
}

std::optional<int> Graph::FindNode(std::string_view name) const {
  auto it = node_index_.find(absl::string_view(name.data(), name.size()));
  if (it == node_index_.end()) return std::nullopt;
  return it->second;
}

std::vector<int> Graph::Inputs() const {
  std::vector<int> inputs;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    if (tensors_[i].kind == TensorKind::kGraphInput) {
      inputs.push_back(static_cast<int>(i));
    }
  }
  return inputs;
}

namespace {

bool ParameterDType(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
    case DType::kUInt8:
    case DType::kInt4:
    case DType::kUInt4:
      return true;
    default:
      return IsFloating(dtype);
  }
}

}  // namespace

bool Graph::IsConstantParameter(const Tensor& tensor) const {
  if (tensor.producer < 0 ||
      tensor.producer >= static_cast<int>(nodes_.size())) {
    return false;
  }
  const Node& producer = nodes_[tensor.producer];
  return producer.op_type == "Constant" && producer.domain.empty() &&
         tensor.shape_known && tensor.NumElements() > 1 &&
         ParameterDType(tensor.dtype);
}

namespace {

// Inputs of the quantized operators by role, as bit masks over input
// positions: `metadata` the scales and zero points, `int_values` the
// quantized values stored at integer widths other than 8/4 bits (int32
// biases). ai.onnx and com.microsoft spell these ops alike.
struct QuantizedInputs {
  std::string_view op;
  uint32_t metadata;
  uint32_t int_values;
};

constexpr QuantizedInputs kQuantizedInputs[] = {
    // x, y_scale, y_zero_point
    {"QuantizeLinear", 0b110, 0},
    // x (int32 biases in QDQ models), x_scale, x_zero_point
    {"DequantizeLinear", 0b110, 0b1},
    // x, w, x_zero_point, w_zero_point
    {"ConvInteger", 0b1100, 0},
    // a, b, a_zero_point, b_zero_point
    {"MatMulInteger", 0b1100, 0},
    // x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B (int32)
    {"QLinearConv", 0b011110110, 1u << 8},
    // a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp
    {"QLinearMatMul", 0b11110110, 0},
    // com.microsoft: A, B, a_scale, b_scale, a_zp, b_zp, bias
    {"MatMulIntegerToFloat", 0b0111100, 0},
    // com.microsoft: A, B, b_scale, b_zero_point, bias
    {"DynamicQuantizeMatMul", 0b01100, 0},
    // com.microsoft: A, a_scale, a_zp, B, B_scale, B_zp, C (int32),
    // y_scale, y_zp
    {"QGemm", 0b110110110, 1u << 6},
};

const QuantizedInputs* FindQuantizedInputs(const Node& node) {
  if (!node.domain.empty() && node.domain != "com.microsoft") return nullptr;
  for (const QuantizedInputs& q : kQuantizedInputs) {
    if (node.op_type == q.op) return &q;
  }
  return nullptr;
}

}  // namespace

bool Graph::IsQuantizationParameter(const Tensor& tensor) const {
  if (tensor.consumers.empty()) return false;
  for (int c : tensor.consumers) {
    if (c < 0 || c >= static_cast<int>(nodes_.size())) return false;
    const Node& n = nodes_[c];
    const QuantizedInputs* q = FindQuantizedInputs(n);
    if (q == nullptr) return false;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const int in = n.inputs[i];
      if (in < 0 || in >= static_cast<int>(tensors_.size()) ||
          tensors_[in].name != tensor.name) {
        continue;
      }
      if (i >= 32 || ((q->metadata >> i) & 1u) == 0) return false;
    }
  }
  return true;
}

bool Graph::IsQuantizedIntegerValue(const Tensor& tensor) const {
  for (int c : tensor.consumers) {
    if (c < 0 || c >= static_cast<int>(nodes_.size())) continue;
    const Node& n = nodes_[c];
    const QuantizedInputs* q = FindQuantizedInputs(n);
    if (q == nullptr) continue;
    for (size_t i = 0; i < n.inputs.size() && i < 32; ++i) {
      const int in = n.inputs[i];
      if (in >= 0 && in < static_cast<int>(tensors_.size()) &&
          tensors_[in].name == tensor.name &&
          ((q->int_values >> i) & 1u) != 0) {
        return true;
      }
    }
  }
  return false;
}

bool Graph::IsWeight(const Tensor& tensor) const {
  if (tensor.is_weight()) {
    // Integer initializers of other widths are shape operands (Reshape
    // shapes, Slice starts, Resize sizes) unless a quantized op reads them
    // as values (int32 biases).
    return (ParameterDType(tensor.dtype) || IsQuantizedIntegerValue(tensor)) &&
           !IsQuantizationParameter(tensor);
  }
  if (!IsConstantParameter(tensor) || IsQuantizationParameter(tensor)) {
    return false;
  }
  if (!constants_hold_weights_.has_value()) {
    // Shapes are bounded by Finalize: these sums stay far below 2^63
    // in double.
    double in_constants = 0, in_initializers = 0;
    for (const Tensor& t : tensors_) {
      if (IsQuantizationParameter(t)) continue;
      if (t.is_weight() && t.shape_known && ParameterDType(t.dtype)) {
        in_initializers += static_cast<double>(t.NumElements());
      } else if (IsConstantParameter(t)) {
        in_constants += static_cast<double>(t.NumElements());
      }
    }
    constants_hold_weights_ = in_constants > in_initializers;
  }
  return *constants_hold_weights_;
}

int64_t Graph::ParameterCount() const {
  int64_t total = 0;
  for (const Tensor& t : tensors_) {
    // Saturates: Finalize bounds the initializers' sum, not Constants'.
    if (IsWeight(t) && t.shape_known &&
        __builtin_add_overflow(total, t.NumElements(), &total)) {
      return INT64_MAX;
    }
  }
  return total;
}

const BoostGraph& Graph::boost_graph() const {
  static const BoostGraph* const kEmpty = new BoostGraph();
  return boost_graph_ != nullptr ? *boost_graph_ : *kEmpty;
}

absl::Status Graph::Finalize() {
  constants_hold_weights_.reset();
  int64_t weight_elements = 0;
  for (Tensor& t : tensors_) {
    t.consumers.clear();
    if (t.shape_known) {
      absl::StatusOr<int64_t> n = CheckedNumElements(t.dims, t.name);
      if (!n.ok()) return n.status();
      // ParameterCount() sums the weights in int64.
      if (t.is_weight() &&
          __builtin_add_overflow(weight_elements, *n, &weight_elements)) {
        return absl::InvalidArgumentError(fmt::format(
            "the weights hold more elements than int64 can count (at "
            "tensor '{}')",
            t.name));
      }
    }
  }
  auto built = std::make_shared<BoostGraph>(nodes_.size());
  boost_graph_ = built;
  BoostGraph& bg = *built;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    bg[n].node = static_cast<int>(n);
    for (int in : nodes_[n].inputs) {
      if (in < 0) continue;
      Tensor& t = tensors_[in];
      if (t.kind == TensorKind::kActivation && t.producer < 0) {
        return absl::InvalidArgumentError(fmt::format(
            "input '{}' of node '{}' is produced by no node, graph input or "
            "initializer",
            t.name, nodes_[n].name));
      }
      if (t.consumers.empty() || t.consumers.back() != static_cast<int>(n)) {
        t.consumers.push_back(static_cast<int>(n));
      }
      if (t.producer >= 0) {
        auto [edge, added] = boost::add_edge(t.producer, n, bg);
        bg[edge].tensor = in;
      }
    }
  }
  // Kahn's algorithm; among ready nodes the one earliest in the file goes
  // first, so the order is stable and matches the file where the file is
  // already sorted. Iterative, so deep chains cannot overflow the stack.
  std::vector<int> in_degree(nodes_.size(), 0);
  for (size_t n = 0; n < nodes_.size(); ++n) {
    in_degree[n] = static_cast<int>(boost::in_degree(n, bg));
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    if (in_degree[n] == 0) ready.push(static_cast<int>(n));
  }
  topo_order_.clear();
  topo_order_.reserve(nodes_.size());
  while (!ready.empty()) {
    int n = ready.top();
    ready.pop();
    topo_order_.push_back(n);
    for (auto [it, end] = boost::out_edges(n, bg); it != end; ++it) {
      int m = static_cast<int>(boost::target(*it, bg));
      if (--in_degree[m] == 0) ready.push(m);
    }
  }
  if (topo_order_.size() != nodes_.size()) {
    for (size_t n = 0; n < nodes_.size(); ++n) {
      if (in_degree[n] > 0) {
        return absl::InvalidArgumentError(
            fmt::format("the graph has a cycle through node '{}' ({})",
                        nodes_[n].name, nodes_[n].op_type));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace ridgeline::graph
