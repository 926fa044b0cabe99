#include "importers/input_binding.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_join.h"
#include "fmt/format.h"
#include "graph/list_some.h"

namespace ridgeline::importers {
namespace {

// Where a dim sits, as messages name it (and as anonymous dims are named).
std::string Site(const std::string& input, int dim) {
  return fmt::format("input '{}' dim {}", input, dim);
}

}  // namespace

bool IsBatchDim(std::string_view name, size_t axis, size_t rank) {
  return (axis == 0 && rank >= 2) ||
         absl::AsciiStrToLower(std::string(name)).find("batch") !=
             std::string::npos;
}

std::optional<int64_t> InputBinder::BindSymbolic(const std::string& name,
                                                 const std::string& site,
                                                 bool is_batch) {
  symbolic_[name].push_back(site);
  if (is_batch) {
    if (std::find(batch_.dim_names.begin(), batch_.dim_names.end(), name) ==
        batch_.dim_names.end()) {
      batch_.dim_names.push_back(name);
    }
    batch_.sites.push_back(site);
  }
  std::optional<int64_t> value;
  if (auto it = options_.dims.find(name); it != options_.dims.end()) {
    used_dims_.insert(name);
    value = it->second;
  } else if (is_batch && options_.batch.has_value()) {
    value = *options_.batch;
  }
  if (is_batch && value.has_value() && !batch_value_.has_value()) {
    batch_value_ = value;
  }
  return value;
}

absl::StatusOr<graph::Tensor> InputBinder::Bind(
    const onnx::ValueInfoProto& input, std::vector<double>* floats) {
  floats->clear();
  const std::string& name = input.name();
  input_names_.push_back(name);
  graph::Tensor t;
  t.name = name;
  t.kind = graph::TensorKind::kGraphInput;
  const auto spec = options_.inputs.find(name);
  const auto values = options_.input_values.find(name);
  if (!input.type().has_tensor_type()) {
    if (spec != options_.inputs.end() ||
        values != options_.input_values.end()) {
      return absl::InvalidArgumentError(fmt::format(
          "input '{}' is not a tensor; --input and --input-value bind tensors",
          name));
    }
    return t;
  }
  const auto& tt = input.type().tensor_type();
  std::optional<graph::DType> dtype = graph::DTypeFromOnnx(tt.elem_type());
  if (!dtype.has_value()) {
    return absl::InvalidArgumentError(fmt::format(
        "input '{}' has unknown data type {}", name, tt.elem_type()));
  }
  t.dtype = *dtype;
  // (name, position) of this input's unbound dims.
  std::vector<std::pair<std::string, int>> unbound;
  if (tt.has_shape()) {
    t.shape_known = true;
    const int rank = tt.shape().dim_size();
    if (spec != options_.inputs.end() &&
        static_cast<int>(spec->second.size()) != rank) {
      return absl::InvalidArgumentError(
          fmt::format("--input {}: gives {} dims, the input has rank {}", name,
                      spec->second.size(), rank));
    }
    for (int i = 0; i < rank; ++i) {
      const auto& dim = tt.shape().dim(i);
      const InputDim* given =
          spec != options_.inputs.end() ? &spec->second[i] : nullptr;
      if (dim.has_dim_value() && dim.dim_value() < 0) {
        return absl::InvalidArgumentError(fmt::format(
            "input '{}' has a negative dim ({})", name, dim.dim_value()));
      }
      if (given != nullptr && std::holds_alternative<int64_t>(*given)) {
        const int64_t v = std::get<int64_t>(*given);
        if (dim.has_dim_value() && dim.dim_value() != v) {
          return absl::InvalidArgumentError(
              fmt::format("--input {}: dim {} is {} in the model, not {}", name,
                          i, dim.dim_value(), v));
        }
        t.dims.push_back(v);
        continue;
      }
      if (dim.has_dim_value()) {
        t.dims.push_back(dim.dim_value());
        continue;
      }
      std::string dim_name = dim.dim_param();
      if (given != nullptr && std::get<std::string>(*given) != "?") {
        dim_name = std::get<std::string>(*given);
      }
      const bool is_batch = IsBatchDim(dim_name, static_cast<size_t>(i),
                                       static_cast<size_t>(rank));
      if (dim_name.empty()) dim_name = Site(name, i);
      std::optional<int64_t> v =
          BindSymbolic(dim_name, Site(name, i), is_batch);
      if (!v.has_value()) unbound.push_back({dim_name, i});
      t.dims.push_back(v.value_or(0));
    }
  }
  if (values != options_.input_values.end()) {
    const std::vector<double>& v = values->second;
    const int64_t n = static_cast<int64_t>(v.size());
    if (!t.shape_known) {
      t.shape_known = true;
      if (n != 1) t.dims = {n};
    } else if (unbound.size() == 1 && t.dims.size() == 1) {
      t.dims[0] = n;  // a list's length binds its one symbolic dim
      unbound.clear();
    }
    int64_t count = 1;
    for (int64_t d : t.dims) count *= d;
    if (unbound.empty() && count != n) {
      return absl::InvalidArgumentError(
          fmt::format("--input-value {}: gives {} value{}, the input holds {}",
                      name, n, n == 1 ? "" : "s", count));
    }
    if (graph::IsFloating(t.dtype)) {
      *floats = v;
    } else if (t.dtype == graph::DType::kString ||
               t.dtype == graph::DType::kUndefined) {
      return absl::InvalidArgumentError(
          fmt::format("--input-value {}: the input is not numeric", name));
    } else {
      std::vector<int64_t> ints;
      for (double x : v) {
        if (x != std::floor(x) || std::abs(x) > 9.0e15) {
          return absl::InvalidArgumentError(fmt::format(
              "--input-value {}: {} is not an integer (the input is {})", name,
              x, graph::DTypeName(t.dtype)));
        }
        ints.push_back(static_cast<int64_t>(x));
      }
      t.int_values = std::move(ints);
    }
  }
  for (const auto& [dim, i] : unbound) unbound_[dim].push_back(name);
  if (!static_batch_.has_value() && t.shape_known && t.dims.size() >= 2 &&
      unbound.empty()) {
    static_batch_ = t.dims[0];
  }
  return t;
}

// How many inputs, and how many places of a dim, a message names before it
// counts the rest (a decoder with a KV cache has 2 inputs per layer).
constexpr size_t kListed = 4;

absl::Status InputBinder::Finish(graph::Graph* graph) {
  const std::string inputs = graph::ListSome(input_names_, kListed);
  for (const auto& [name, unused] : options_.inputs) {
    if (std::find(input_names_.begin(), input_names_.end(), name) ==
        input_names_.end()) {
      return absl::InvalidArgumentError(fmt::format(
          "--input {}: the model has no input '{}' (its inputs: {})", name,
          name, inputs));
    }
  }
  for (const auto& [name, unused] : options_.input_values) {
    if (std::find(input_names_.begin(), input_names_.end(), name) ==
        input_names_.end()) {
      return absl::InvalidArgumentError(fmt::format(
          "--input-value {}: the model has no input '{}' (its inputs: {})",
          name, name, inputs));
    }
  }
  for (const auto& [name, value] : options_.dims) {
    if (used_dims_.contains(name)) continue;
    std::vector<std::string> known;
    for (const auto& [dim, sites] : symbolic_) {
      known.push_back(
          dim.rfind("input '", 0) == 0
              ? dim
              : fmt::format("'{}' ({})", dim, graph::ListSome(sites, kListed)));
    }
    return absl::InvalidArgumentError(fmt::format(
        "--dim {}={} matches no symbolic input dim; {}", name, value,
        known.empty() ? std::string("the model has no symbolic input dims")
                      : fmt::format("the model's symbolic dims: {}",
                                    absl::StrJoin(known, "; "))));
  }
  if (!unbound_.empty()) {
    std::vector<std::string> parts;
    for (const auto& [dim, carriers] : unbound_) {
      parts.push_back(dim.rfind("input '", 0) == 0
                          ? dim
                          : fmt::format("'{}' (input{}{})", dim,
                                        carriers.size() > 1 ? "s " : " ",
                                        graph::ListSome(carriers, kListed)));
    }
    return absl::InvalidArgumentError(fmt::format(
        "unbound symbolic dim{}{}; bind with --dim NAME=VALUE or --input "
        "NAME=D0xD1x... (--batch N binds the batch dims)",
        parts.size() > 1 ? "s " : " ", absl::StrJoin(parts, ", ")));
  }
  graph::BatchBinding batch = batch_;
  if (batch_value_.has_value()) {
    batch.value = *batch_value_;
  } else {
    batch.dim_names.clear();
    batch.sites.clear();
    batch.value = static_batch_.value_or(1);
  }
  if (batch.value <= 0) batch.value = 1;
  graph->batch = std::move(batch);
  return absl::OkStatus();
}

}  // namespace ridgeline::importers
