// Recurrent layers (LSTM, GRU, RNN) with G gates (4, 3, 1), hidden size H,
// input size I, T time steps, batch B and D directions:
//   MACs  = D * T * B * G*H * (I + H)      (W x_t and R h_{t-1} every step)
//   FLOPs = D * T * B * H * (G adds of the two products + 2G bias adds when
//           B is given + the gate activations + the cell update
//           (+ 3 peephole multiply-adds for LSTM with P, + 2G clip compares))
// The activations are read from the node's "activations" attribute (defaults
// Sigmoid/Tanh/Tanh). Bytes: X, W, R, B, the initial states and P read once
// (weights are assumed to stay on chip across time steps), outputs written
// once.
#include <string>
#include <vector>

#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

enum class Cell { kLstm, kGru, kRnn };

int Gates(Cell cell) {
  switch (cell) {
    case Cell::kLstm:
      return 4;
    case Cell::kGru:
      return 3;
    case Cell::kRnn:
      return 1;
  }
  return 1;
}

// The per-hidden-unit activation cost of one step, from the node's
// activations (first direction) or the defaults.
absl::StatusOr<double> ActivationFlops(const CountContext& ctx, Cell cell) {
  std::vector<std::string> names;
  auto it = ctx.node.attributes.find("activations");
  if (it != ctx.node.attributes.end()) {
    if (const auto* v = std::get_if<std::vector<std::string>>(&it->second)) {
      names = *v;
    }
  }
  const std::vector<std::string> defaults =
      cell == Cell::kLstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : cell == Cell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                           : std::vector<std::string>{"Tanh"};
  if (names.size() < defaults.size()) names = defaults;
  std::vector<double> c;
  for (size_t i = 0; i < defaults.size(); ++i) {
    const double v = cost::ActivationCost(names[i]);
    if (v < 0) {
      return NodeError(ctx, fmt::format("unknown activation '{}'", names[i]));
    }
    c.push_back(v);
  }
  switch (cell) {
    case Cell::kLstm:  // f for i, f, o gates; g for the cell input; h on c
      return 3 * c[0] + c[1] + c[2] + cost::kLstmCellUpdate;
    case Cell::kGru:  // f for z and r; g for the candidate
      return 2 * c[0] + c[1] + cost::kGruCellUpdate;
    case Cell::kRnn:
      return c[0];
  }
  return 0.0;
}

absl::StatusOr<Cost> CountRecurrent(const CountContext& ctx, Cell cell) {
  absl::StatusOr<const graph::Tensor*> x = RequireInputRank(ctx, 0, 3);
  if (!x.ok()) return x.status();
  absl::StatusOr<const graph::Tensor*> w = RequireInputRank(ctx, 1, 3);
  if (!w.ok()) return w.status();
  absl::StatusOr<const graph::Tensor*> r = RequireInputRank(ctx, 2, 3);
  if (!r.ok()) return r.status();
  const bool batch_first = ctx.node.GetInt("layout", 0) != 0;
  const graph::Dims& xd = (*x)->dims;
  const double steps = static_cast<double>(batch_first ? xd[1] : xd[0]);
  const double batch = static_cast<double>(batch_first ? xd[0] : xd[1]);
  const double input = static_cast<double>(xd[2]);
  const double dirs = static_cast<double>((*w)->dims[0]);
  const double hidden = static_cast<double>((*r)->dims[2]);
  const double gates = Gates(cell);
  if (static_cast<double>((*w)->dims[1]) != gates * hidden) {
    return NodeError(ctx, fmt::format("W {} does not have {} * hidden rows",
                                      graph::ShapeString(**w), gates));
  }
  absl::StatusOr<double> activations = ActivationFlops(ctx, cell);
  if (!activations.ok()) return activations.status();
  double per_unit = gates * cost::kAdd + *activations;
  if (ctx.input(3) != nullptr) per_unit += 2 * gates * cost::kAdd;
  if (cell == Cell::kLstm && ctx.input(7) != nullptr) {
    per_unit += 3 * (cost::kMul + cost::kAdd);
  }
  if (ctx.node.HasAttribute("clip")) per_unit += 2 * gates * cost::kCmp;
  const double unit_steps = dirs * steps * batch * hidden;
  Cost cost = DefaultTraffic(ctx);
  cost.macs = unit_steps * gates * (input + hidden);
  cost.other_flops = unit_steps * per_unit;
  return cost;
}

}  // namespace

void RegisterRnnCounters(CounterRegistry& registry) {
  registry.Register("", "LSTM", [](const CountContext& ctx) {
    return CountRecurrent(ctx, Cell::kLstm);
  });
  registry.Register("", "GRU", [](const CountContext& ctx) {
    return CountRecurrent(ctx, Cell::kGru);
  });
  registry.Register("", "RNN", [](const CountContext& ctx) {
    return CountRecurrent(ctx, Cell::kRnn);
  });
}

}  // namespace ridgeline::engine::counters
