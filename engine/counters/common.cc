#include "engine/counters/common.h"

#include <algorithm>
#include <vector>

#include "fmt/format.h"

namespace ridgeline::engine::counters {

double Elements(const graph::Tensor& tensor) {
  // A sequence or optional value has no elements of its own.
  if (tensor.non_tensor) return 0;
  return static_cast<double>(tensor.NumElements());
}

bool IsWeight(const graph::Graph& graph, const graph::Tensor& tensor) {
  return graph.IsWeight(tensor);
}

void AddRead(const CountContext& ctx, const graph::Tensor& tensor,
             double elements, Cost* cost) {
  const double bytes = elements * ctx.pricer.ElementBytes(ctx.graph, tensor);
  cost->bytes_read += bytes;
  if (IsWeight(ctx.graph, tensor)) cost->weight_bytes += bytes;
}

void AddReadAll(const CountContext& ctx, const graph::Tensor& tensor,
                Cost* cost) {
  AddRead(ctx, tensor, Elements(tensor), cost);
}

void AddWritten(const CountContext& ctx, const graph::Tensor& tensor,
                Cost* cost) {
  cost->bytes_written += ctx.pricer.TensorBytes(ctx.graph, tensor);
}

namespace {

void AddAllOutputs(const CountContext& ctx, Cost* cost) {
  std::vector<int> seen;
  for (int t : ctx.node.outputs) {
    if (t < 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) {
      continue;
    }
    seen.push_back(t);
    AddWritten(ctx, ctx.graph.tensor(t), cost);
  }
}

}  // namespace

Cost DefaultTraffic(const CountContext& ctx) {
  Cost cost;
  std::vector<int> seen;
  for (int t : ctx.node.inputs) {
    if (t < 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) {
      continue;
    }
    seen.push_back(t);
    AddReadAll(ctx, ctx.graph.tensor(t), &cost);
  }
  AddAllOutputs(ctx, &cost);
  return cost;
}

CounterFn PerOutputElement(double flops) {
  return [flops](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<const graph::Tensor*> y = RequireOutput(ctx, 0);
    if (!y.ok()) return y.status();
    Cost cost = DefaultTraffic(ctx);
    cost.other_flops = Elements(**y) * flops;
    return cost;
  };
}

Cost TrafficOf(const CountContext& ctx, std::initializer_list<size_t> inputs) {
  Cost cost;
  std::vector<int> seen;
  for (size_t i : inputs) {
    const int t = ctx.node.Input(i);
    if (t < 0 || std::find(seen.begin(), seen.end(), t) != seen.end()) {
      continue;
    }
    seen.push_back(t);
    AddReadAll(ctx, ctx.graph.tensor(t), &cost);
  }
  AddAllOutputs(ctx, &cost);
  return cost;
}

absl::Status NodeError(const CountContext& ctx, std::string_view what) {
  const std::string op =
      ctx.node.domain.empty()
          ? ctx.node.op_type
          : fmt::format("{}:{}", ctx.node.domain, ctx.node.op_type);
  return absl::InvalidArgumentError(
      fmt::format("node '{}' ({}): {}", ctx.node.name, op, what));
}

absl::StatusOr<const graph::Tensor*> RequireInput(const CountContext& ctx,
                                                  size_t i) {
  const graph::Tensor* t = ctx.input(i);
  if (t == nullptr) {
    return NodeError(ctx, fmt::format("required input {} is missing", i));
  }
  return t;
}

absl::StatusOr<const graph::Tensor*> RequireOutput(const CountContext& ctx,
                                                   size_t i) {
  const graph::Tensor* t = ctx.output(i);
  if (t == nullptr) {
    return NodeError(ctx, fmt::format("required output {} is missing", i));
  }
  return t;
}

absl::StatusOr<const graph::Tensor*> RequireInputRank(const CountContext& ctx,
                                                      size_t i,
                                                      size_t min_rank) {
  absl::StatusOr<const graph::Tensor*> t = RequireInput(ctx, i);
  if (!t.ok()) return t;
  if ((*t)->dims.size() < min_rank) {
    return NodeError(ctx,
                     fmt::format("input {} '{}' has rank {}, expected at "
                                 "least {}",
                                 i, (*t)->name, (*t)->dims.size(), min_rank));
  }
  return t;
}

absl::StatusOr<size_t> NormalizeAxis(const CountContext& ctx, int64_t axis,
                                     size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r) {
    return NodeError(
        ctx, fmt::format("axis {} is out of range for rank {}", axis, rank));
  }
  return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

double DimProduct(const graph::Dims& dims, size_t begin, size_t end) {
  double p = 1;
  for (size_t i = begin; i < end && i < dims.size(); ++i) {
    p *= static_cast<double>(dims[i]);
  }
  return p;
}

std::optional<int64_t> FoldedScalar(const graph::Tensor* tensor) {
  if (tensor == nullptr || !tensor->int_values.has_value() ||
      tensor->int_values->size() != 1) {
    return std::nullopt;
  }
  return (*tensor->int_values)[0];
}

std::optional<double> FoldedFloatScalar(const graph::Tensor* tensor) {
  if (tensor == nullptr || !tensor->float_values.has_value() ||
      tensor->float_values->size() != 1) {
    return std::nullopt;
  }
  return (*tensor->float_values)[0];
}

bool DropoutIsIdentity(const graph::Graph& graph, const graph::Node& node) {
  auto input = [&](size_t i) -> const graph::Tensor* {
    const int t = node.Input(i);
    return t >= 0 ? &graph.tensor(t) : nullptr;
  };
  const std::optional<int64_t> mode = FoldedScalar(input(2));
  if (!mode.has_value() || *mode == 0) return true;
  const std::optional<double> ratio = FoldedFloatScalar(input(1));
  return ratio.has_value() && *ratio == 0;
}

void ScaleCost(double factor, Cost* cost) {
  cost->macs *= factor;
  cost->other_flops *= factor;
  cost->bytes_read *= factor;
  cost->bytes_written *= factor;
  cost->weight_bytes *= factor;
}

}  // namespace ridgeline::engine::counters
