#include "importers/shapes/context.h"

#include <algorithm>
#include <utility>

#include "fmt/format.h"
#include "importers/tensor_proto.h"

namespace ridgeline::importers::shapes {

absl::Status Unresolved(std::string reason) {
  return absl::UnavailableError(std::move(reason));
}

bool IsUnresolved(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable;
}

namespace {

// Element count of known dims, or -1 when above the fold limit.
int64_t SmallCount(const graph::Tensor& t) {
  if (!t.shape_known) return -1;
  int64_t n = 1;
  for (int64_t d : t.dims) {
    if (d < 0 || d > kMaxFoldedElements) return -1;
    n *= d;
    if (n > kMaxFoldedElements) return -1;
  }
  return n;
}

// Folded values are only handed out while they match the tensor's current
// shape: a Loop body re-resolves its tensors with new dims each iteration, and
// an initializer's data may disagree with its declared dims. Every folder
// indexes values through the dims, so a mismatch would read out of bounds.
template <typename T>
const std::vector<T>* IfCountMatches(const graph::Tensor& t,
                                     const std::vector<T>* values) {
  if (values == nullptr) return nullptr;
  return SmallCount(t) == static_cast<int64_t>(values->size()) ? values
                                                               : nullptr;
}

}  // namespace

const std::vector<int64_t>* InferContext::ints(size_t i) const {
  if (!has_input(i)) return nullptr;
  const graph::Tensor& t = input(i);
  return IfCountMatches(t, t.int_values.has_value() ? &*t.int_values : nullptr);
}

const std::vector<double>* InferContext::floats(size_t i) const {
  if (!has_input(i)) return nullptr;
  const int t = node_.inputs[i];
  const graph::Tensor& tensor = input(i);
  auto it = state_.floats.find(t);
  if (it != state_.floats.end()) return IfCountMatches(tensor, &it->second);
  auto lazy = state_.lazy_floats.find(t);
  if (lazy == state_.lazy_floats.end()) return nullptr;
  std::optional<std::vector<double>> values =
      TensorProtoFloats(*lazy->second, kMaxFoldedElements);
  state_.lazy_floats.erase(lazy);
  if (!values.has_value()) return nullptr;
  return IfCountMatches(tensor, &(state_.floats[t] = *std::move(values)));
}

bool InferContext::ValuesAsDouble(size_t i, std::vector<double>* out) const {
  if (const std::vector<double>* f = floats(i)) {
    *out = *f;
    return true;
  }
  if (const std::vector<int64_t>* v = ints(i)) {
    out->assign(v->begin(), v->end());
    return true;
  }
  return false;
}

bool InferContext::HasValues(int tensor) const {
  return graph_.tensor(tensor).int_values.has_value() ||
         state_.floats.contains(tensor) || state_.lazy_floats.contains(tensor);
}

std::string InferContext::ValueSource(int tensor) const {
  int t = tensor;
  for (int step = 0; step < 64; ++step) {
    const graph::Tensor& cur = graph_.tensor(t);
    if (cur.kind == graph::TensorKind::kGraphInput) {
      return fmt::format("graph input '{}'", cur.name);
    }
    if (cur.kind == graph::TensorKind::kInitializer || cur.producer < 0) {
      return fmt::format("'{}', whose values are not stored in the model",
                         cur.name);
    }
    const graph::Node& p = graph_.node(cur.producer);
    if (std::find(p.outputs.begin(), p.outputs.end(), t) == p.outputs.end()) {
      return fmt::format(
          "'{}', an input of the {} '{}' body, which changes every iteration",
          cur.name, p.op_type, p.name);
    }
    int next = -1;
    for (int in : p.inputs) {
      if (in >= 0 && !HasValues(in)) {
        next = in;
        break;
      }
    }
    if (next < 0) {
      return fmt::format("{} '{}', whose output values are not computed",
                         p.op_type, p.name);
    }
    t = next;
  }
  return "a long chain of computations";
}

absl::Status InferContext::DataDependent(size_t i) const {
  if (!has_input(i)) {
    return Unresolved(fmt::format("needs input {}, which is omitted", i));
  }
  const graph::Tensor& t = input(i);
  const std::string source =
      t.kind == graph::TensorKind::kGraphInput
          ? std::string("a graph input")
          : fmt::format("computed from {}", ValueSource(node_.inputs[i]));
  return Unresolved(fmt::format(
      "data-dependent: the output shape depends on the values of '{}' ({}), "
      "which are not known before running",
      t.name, source));
}

absl::Status InferContext::NeedInts(size_t i,
                                    const std::vector<int64_t>** out) const {
  *out = ints(i);
  if (*out != nullptr) return absl::OkStatus();
  return DataDependent(i);
}

const graph::Tensor& InferContext::AbsentTensor() {
  static const graph::Tensor* const absent = new graph::Tensor();
  return *absent;
}

const SequenceInfo* InferContext::sequence(size_t i) const {
  if (!has_input(i)) return nullptr;
  auto it = state_.sequences.find(node_.inputs[i]);
  return it == state_.sequences.end() ? nullptr : &it->second;
}

void InferContext::SetSequence(size_t i, SequenceInfo info) {
  if (!has_output(i)) return;
  graph_.mutable_tensor(node_.outputs[i]).dtype = info.dtype;
  state_.sequences[node_.outputs[i]] = std::move(info);
}

void InferContext::Set(size_t i, graph::DType dtype, graph::Dims dims) {
  if (!has_output(i)) return;
  graph::Tensor& t = graph_.mutable_tensor(node_.outputs[i]);
  t.dtype = dtype;
  t.dims = std::move(dims);
  t.shape_known = true;
}

void InferContext::SetUpperBound(size_t i, graph::DType dtype,
                                 graph::Dims dims) {
  if (!has_output(i)) return;
  Set(i, dtype, std::move(dims));
  graph_.mutable_tensor(node_.outputs[i]).upper_bound = true;
}

void InferContext::SetDType(size_t i, graph::DType dtype) {
  if (!has_output(i)) return;
  graph_.mutable_tensor(node_.outputs[i]).dtype = dtype;
}

void InferContext::SetInts(size_t i, std::vector<int64_t> values) {
  if (!has_output(i)) return;
  graph::Tensor& t = graph_.mutable_tensor(node_.outputs[i]);
  if (SmallCount(t) != static_cast<int64_t>(values.size())) return;
  t.int_values = std::move(values);
}

void InferContext::SetFloats(size_t i, std::vector<double> values) {
  if (!has_output(i)) return;
  const graph::Tensor& t = graph_.tensor(node_.outputs[i]);
  if (SmallCount(t) != static_cast<int64_t>(values.size())) return;
  state_.floats[node_.outputs[i]] = std::move(values);
}

}  // namespace ridgeline::importers::shapes
