#include "engine/measured.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "engine/rank_stats.h"
#include "engine/timing.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::string_view kFusedPrefix = "Fused";
constexpr std::string_view kTokenSuffix = "_token_";
constexpr std::string_view kNchwcSuffix = "_nchwc";
// Unmatched node names quoted in a warning.
constexpr size_t kNamesInWarning = 5;

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

// Removes one ORT renaming step from `name`; false when none applies.
bool StripOneRenaming(std::string* name) {
  // "<name>_token_<digits>" (ORT's unique-name generator).
  size_t token = name->rfind(kTokenSuffix);
  if (token != std::string::npos && token > 0 &&
      token + kTokenSuffix.size() < name->size()) {
    bool digits = true;
    for (size_t i = token + kTokenSuffix.size(); i < name->size(); ++i) {
      digits &= std::isdigit(static_cast<unsigned char>((*name)[i])) != 0;
    }
    if (digits) {
      name->resize(token);
      return true;
    }
  }
  if (EndsWith(*name, kNchwcSuffix) && name->size() > kNchwcSuffix.size()) {
    name->resize(name->size() - kNchwcSuffix.size());
    return true;
  }
  // "<node>/<FusionName>": the node a fusion started from.
  size_t slash = name->rfind('/');
  if (slash != std::string::npos && slash > 0) {
    name->resize(slash);
    return true;
  }
  return false;
}

// Builds the units; all indices are Analysis layer indices.
class Matcher {
 public:
  Matcher(const graph::Graph& graph, const Analysis& analysis)
      : graph_(graph), analysis_(analysis) {
    unit_of_layer_.assign(analysis.layers.size(), -1);
    layer_of_node_.assign(graph.nodes().size(), -1);
    for (size_t l = 0; l < analysis.layers.size(); ++l) {
      int node = analysis.layers[l].node;
      layer_of_node_[static_cast<size_t>(node)] = static_cast<int>(l);
      const std::string& name = analysis.layers[l].name;
      if (!name.empty()) layer_by_name_.try_emplace(name, static_cast<int>(l));
    }
  }

  // Step 1 and 2: by name, then through ORT's renaming. Returns false when
  // the node matches nothing.
  bool MatchByName(const graph::MeasuredNode& node) {
    auto it = layer_by_name_.find(node.name);
    if (it != layer_by_name_.end()) {
      std::vector<int> group = FusedGroup(it->second, node.op_type);
      AddToUnit(group, group.front(), node, MatchKind::kName);
      return true;
    }
    std::string candidate = node.name;
    // The name itself may be a tensor name; then each stripped form.
    for (int step = 0; step < 8; ++step) {
      std::optional<int> layer = step == 0 ? LayerOfTensor(candidate)
                                           : LayerNamedOrProducing(candidate);
      if (layer) {
        std::vector<int> group = FusedGroup(*layer, node.op_type);
        AddToUnit(group, group.front(), node, MatchKind::kRenamed);
        return true;
      }
      if (!StripOneRenaming(&candidate)) break;
    }
    return false;
  }

  // Step 3: pairs `nodes` (one op type, trace order) with the same op type's
  // unmatched layers in topological order when equally many. Returns the
  // nodes left unmatched.
  std::vector<const graph::MeasuredNode*> MatchByOrder(
      const std::string& op_type,
      const std::vector<const graph::MeasuredNode*>& nodes,
      std::vector<std::string>* warnings) {
    std::vector<int> layers;
    for (size_t l = 0; l < analysis_.layers.size(); ++l) {
      if (unit_of_layer_[l] < 0 && analysis_.layers[l].op_type == op_type) {
        layers.push_back(static_cast<int>(l));
      }
    }
    if (layers.empty()) return nodes;
    if (layers.size() != nodes.size()) {
      warnings->push_back(fmt::format(
          "{} unmatched measured {} node(s) vs {} unmatched {} layer(s): not "
          "paired by order",
          nodes.size(), op_type, layers.size(), op_type));
      return nodes;
    }
    for (size_t i = 0; i < nodes.size(); ++i) {
      AddToUnit({layers[i]}, layers[i], *nodes[i], MatchKind::kOrder);
    }
    return {};
  }

  // Step 4: fusion inference, to a fixed point. An unmeasured layer with a
  // non-zero prediction joins a unit when
  // - (downstream) one of its inputs comes from the unit through a tensor
  //   that it alone consumes (Conv -> Add -> Relu fused into the Conv), or
  // - (upstream) every consumer of its outputs is in that one unit (the
  //   ReduceMean/Sub/Pow/... of a LayerNormalization fused into one kernel).
  void InferFusions() {
    absl::flat_hash_set<int> graph_outputs(graph_.outputs().begin(),
                                           graph_.outputs().end());
    bool changed = true;
    while (changed) {
      changed = false;
      for (size_t l = 0; l < analysis_.layers.size(); ++l) {
        if (!Absorbable(l)) continue;
        int unit = DownstreamUnit(l, graph_outputs);
        if (unit < 0) unit = UpstreamUnit(l, graph_outputs);
        if (unit < 0) continue;
        MeasuredUnit& u = units_[static_cast<size_t>(unit)];
        u.layers.push_back(static_cast<int>(l));
        u.absorbed_layers.push_back(static_cast<int>(l));
        unit_of_layer_[l] = unit;
        changed = true;
      }
    }
  }

  // The live units, sorted, with unit_of_layer renumbered.
  std::vector<MeasuredUnit> TakeUnits(std::vector<int>* unit_of_layer) {
    std::vector<MeasuredUnit> live;
    for (MeasuredUnit& unit : units_) {
      if (unit.layers.empty()) continue;
      std::sort(unit.layers.begin(), unit.layers.end());
      std::sort(unit.absorbed_layers.begin(), unit.absorbed_layers.end());
      live.push_back(std::move(unit));
    }
    std::sort(live.begin(), live.end(),
              [](const MeasuredUnit& a, const MeasuredUnit& b) {
                return a.layers.front() < b.layers.front();
              });
    unit_of_layer->assign(analysis_.layers.size(), -1);
    for (size_t u = 0; u < live.size(); ++u) {
      for (int l : live[u].layers) {
        (*unit_of_layer)[static_cast<size_t>(l)] = static_cast<int>(u);
      }
    }
    return live;
  }

 private:
  bool Absorbable(size_t l) const {
    const LayerResult& layer = analysis_.layers[l];
    return unit_of_layer_[l] < 0 && !layer.cost.view && layer.latency_s > 0;
  }

  int UnitOfNode(int node) const {
    if (node < 0) return -1;
    int layer = layer_of_node_[static_cast<size_t>(node)];
    return layer < 0 ? -1 : unit_of_layer_[static_cast<size_t>(layer)];
  }

  int DownstreamUnit(size_t l, const absl::flat_hash_set<int>& outputs) const {
    const graph::Node& node = graph_.node(analysis_.layers[l].node);
    for (int t : node.inputs) {
      if (t < 0 || outputs.contains(t)) continue;
      const graph::Tensor& tensor = graph_.tensor(t);
      if (tensor.consumers.size() != 1) continue;
      int unit = UnitOfNode(tensor.producer);
      if (unit >= 0) return unit;
    }
    return -1;
  }

  int UpstreamUnit(size_t l, const absl::flat_hash_set<int>& outputs) const {
    const graph::Node& node = graph_.node(analysis_.layers[l].node);
    int unit = -1;
    for (int t : node.outputs) {
      if (t < 0) continue;
      if (outputs.contains(t)) return -1;
      for (int consumer : graph_.tensor(t).consumers) {
        int u = UnitOfNode(consumer);
        if (u < 0 || (unit >= 0 && u != unit)) return -1;
        unit = u;
      }
    }
    return unit;
  }

  std::optional<int> LayerOfTensor(const std::string& name) const {
    std::optional<int> t = graph_.FindTensor(name);
    if (!t) return std::nullopt;
    int producer = graph_.tensor(*t).producer;
    if (producer < 0) return std::nullopt;
    int layer = layer_of_node_[static_cast<size_t>(producer)];
    if (layer < 0) return std::nullopt;
    return layer;
  }

  std::optional<int> LayerNamedOrProducing(const std::string& name) const {
    auto it = layer_by_name_.find(name);
    if (it != layer_by_name_.end()) return it->second;
    return LayerOfTensor(name);
  }

  // The layers of a fused kernel of `op_type` named after layer `named`:
  // {named} when the op types agree or no layer of op_type is found upstream
  // through single-consumer tensors; otherwise the chain from that layer down
  // to `named`, the found layer first.
  std::vector<int> FusedGroup(int named, const std::string& measured_op) const {
    std::string op_type = NormalizeMeasuredOpType(measured_op);
    const LayerResult& start = analysis_.layers[static_cast<size_t>(named)];
    if (start.op_type == op_type) return {named};
    // Breadth-first up the graph, remembering each layer's successor.
    absl::flat_hash_map<int, int> next;  // layer -> the layer it feeds
    std::vector<int> frontier = {named};
    for (int depth = 0; depth < kMaxFusionDepth && !frontier.empty(); ++depth) {
      std::vector<int> upper;
      for (int l : frontier) {
        const graph::Node& node =
            graph_.node(analysis_.layers[static_cast<size_t>(l)].node);
        for (int t : node.inputs) {
          if (t < 0) continue;
          const graph::Tensor& tensor = graph_.tensor(t);
          if (tensor.producer < 0 || tensor.consumers.size() != 1) continue;
          int p = layer_of_node_[static_cast<size_t>(tensor.producer)];
          if (p < 0 || next.contains(p) || p == named) continue;
          next[p] = l;
          if (analysis_.layers[static_cast<size_t>(p)].op_type == op_type) {
            std::vector<int> chain;
            for (int c = p; c != named; c = next[c]) chain.push_back(c);
            chain.push_back(named);
            return chain;
          }
          upper.push_back(p);
        }
      }
      frontier = std::move(upper);
    }
    return {named};
  }

  void AddToUnit(const std::vector<int>& group, int anchor,
                 const graph::MeasuredNode& node, MatchKind kind) {
    std::set<int> existing;
    for (int l : group) {
      int u = unit_of_layer_[static_cast<size_t>(l)];
      if (u >= 0) existing.insert(u);
    }
    int target;
    if (existing.empty()) {
      target = static_cast<int>(units_.size());
      MeasuredUnit unit;
      unit.anchor = anchor;
      unit.kind = kind;
      units_.push_back(std::move(unit));
    } else {
      target = *existing.begin();
      // Merge the other units touched by this group into `target`.
      for (auto it = std::next(existing.begin()); it != existing.end(); ++it) {
        MeasuredUnit& other = units_[static_cast<size_t>(*it)];
        MeasuredUnit& into = units_[static_cast<size_t>(target)];
        for (int l : other.layers) {
          into.layers.push_back(l);
          unit_of_layer_[static_cast<size_t>(l)] = target;
        }
        into.measured_nodes.insert(into.measured_nodes.end(),
                                   other.measured_nodes.begin(),
                                   other.measured_nodes.end());
        into.measured_s += other.measured_s;
        other.layers.clear();
      }
    }
    MeasuredUnit& unit = units_[static_cast<size_t>(target)];
    for (int l : group) {
      if (unit_of_layer_[static_cast<size_t>(l)] != target) {
        unit.layers.push_back(l);
        unit_of_layer_[static_cast<size_t>(l)] = target;
      }
    }
    unit.measured_nodes.push_back(node.name);
    unit.measured_s += node.seconds;
  }

  const graph::Graph& graph_;
  const Analysis& analysis_;
  std::vector<int> layer_of_node_;
  absl::flat_hash_map<std::string, int> layer_by_name_;
  std::vector<int> unit_of_layer_;
  std::vector<MeasuredUnit> units_;
};

double LayerRoofSeconds(const LayerResult& layer, const Assumptions& a) {
  return BareRoofline(layer.flops, layer.bytes, a.peak_flops_per_s,
                      a.memory_bandwidth_bytes_per_s)
      .latency_s;
}

std::string QuotedList(const std::vector<std::string>& names, size_t total) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ", ";
    out += fmt::format("\"{}\"", names[i]);
  }
  if (total > names.size())
    out += fmt::format(", ... ({} more)", total - names.size());
  return out;
}

}  // namespace

std::string_view MatchKindName(MatchKind kind) {
  switch (kind) {
    case MatchKind::kName:
      return "name";
    case MatchKind::kRenamed:
      return "renamed";
    case MatchKind::kOrder:
      return "order";
  }
  return "?";
}

std::string NormalizeMeasuredOpType(std::string_view op_type) {
  if (op_type.size() > kFusedPrefix.size() &&
      op_type.substr(0, kFusedPrefix.size()) == kFusedPrefix) {
    op_type.remove_prefix(kFusedPrefix.size());
  }
  return std::string(op_type);
}

absl::StatusOr<Comparison> CompareWithProfile(
    const graph::Graph& graph, const Analysis& analysis,
    const graph::MeasuredProfile& profile, const MatchOptions& options) {
  for (size_t l = 0; l < analysis.layers.size(); ++l) {
    int node = analysis.layers[l].node;
    if (node < 0 || static_cast<size_t>(node) >= graph.nodes().size()) {
      return absl::InvalidArgumentError(fmt::format(
          "layer {} (\"{}\") refers to node {}, but the graph has {} nodes: "
          "the analysis was not computed on this graph",
          l, analysis.layers[l].name, node, graph.nodes().size()));
    }
  }
  Comparison c;
  c.profile_path = profile.path;
  c.profile_format = profile.source_format;
  c.runs_used = profile.runs_used;

  // 1-2: names.
  Matcher matcher(graph, analysis);
  std::vector<const graph::MeasuredNode*> unmatched;
  for (const graph::MeasuredNode& node : profile.nodes) {
    if (!matcher.MatchByName(node)) unmatched.push_back(&node);
  }
  // 3: order, per op type (in order of first appearance).
  if (options.match_by_order && !unmatched.empty()) {
    std::vector<std::string> op_order;
    absl::flat_hash_map<std::string, std::vector<const graph::MeasuredNode*>>
        by_op;
    for (const graph::MeasuredNode* node : unmatched) {
      std::string op = NormalizeMeasuredOpType(node->op_type);
      auto [it, inserted] = by_op.try_emplace(op);
      if (inserted) op_order.push_back(op);
      it->second.push_back(node);
    }
    std::vector<const graph::MeasuredNode*> still;
    for (const std::string& op : op_order) {
      std::vector<const graph::MeasuredNode*> left =
          matcher.MatchByOrder(op, by_op[op], &c.warnings);
      still.insert(still.end(), left.begin(), left.end());
    }
    unmatched = std::move(still);
  }
  // 4: fusion inference.
  if (options.infer_fusions) matcher.InferFusions();
  c.units = matcher.TakeUnits(&c.unit_of_layer);

  // Per-unit numbers.
  const Assumptions& a = analysis.assumptions;
  for (MeasuredUnit& unit : c.units) {
    if (std::find(unit.layers.begin(), unit.layers.end(), unit.anchor) ==
        unit.layers.end()) {
      unit.anchor = unit.layers.front();  // the anchor was merged away
    }
    const LayerResult& anchor =
        analysis.layers[static_cast<size_t>(unit.anchor)];
    unit.name = anchor.name;
    unit.op_type = anchor.op_type;
    unit.predicted_s = 0;
    unit.roof_s = 0;
    for (int l : unit.layers) {
      const LayerResult& layer = analysis.layers[static_cast<size_t>(l)];
      unit.predicted_s += layer.latency_s;
      unit.roof_s += LayerRoofSeconds(layer, a);
    }
    unit.ratio =
        unit.predicted_s > 0 ? unit.measured_s / unit.predicted_s : kNaN;
    unit.roof_fraction =
        unit.measured_s > 0 ? unit.roof_s / unit.measured_s : kNaN;
    c.matched_predicted_s += unit.predicted_s;
    c.matched_measured_s += unit.measured_s;
  }

  // Unmatched on both sides.
  for (const graph::MeasuredNode* node : unmatched) {
    c.unmatched_nodes.push_back(*node);
    c.unmatched_measured_s += node->seconds;
  }
  std::stable_sort(
      c.unmatched_nodes.begin(), c.unmatched_nodes.end(),
      [](const graph::MeasuredNode& x, const graph::MeasuredNode& y) {
        return x.seconds > y.seconds;
      });
  for (size_t l = 0; l < analysis.layers.size(); ++l) {
    const LayerResult& layer = analysis.layers[l];
    if (c.unit_of_layer[l] >= 0 || layer.cost.view || layer.latency_s <= 0) {
      continue;
    }
    c.unmatched_layers.push_back(static_cast<int>(l));
    c.unmatched_predicted_s += layer.latency_s;
  }

  // Totals.
  c.predicted_total_s = analysis.summary.latency_s;
  c.measured_node_s = profile.NodeSeconds();
  c.measured_total_is_whole_run = profile.run_seconds.has_value();
  c.measured_total_s = profile.run_seconds.value_or(c.measured_node_s);

  // Ratios per op type.
  absl::flat_hash_map<std::string, size_t> op_index;
  std::vector<std::vector<double>> ratios;
  for (const MeasuredUnit& unit : c.units) {
    auto [it, inserted] =
        op_index.try_emplace(unit.op_type, c.by_op_type.size());
    if (inserted) {
      c.by_op_type.push_back({.op_type = unit.op_type});
      ratios.emplace_back();
    }
    OpTypeRatios& op = c.by_op_type[it->second];
    op.units += 1;
    op.predicted_s += unit.predicted_s;
    op.measured_s += unit.measured_s;
    if (std::isfinite(unit.ratio)) ratios[it->second].push_back(unit.ratio);
  }
  for (size_t i = 0; i < c.by_op_type.size(); ++i) {
    OpTypeRatios& op = c.by_op_type[i];
    const std::vector<double>& r = ratios[i];
    op.median = Quantile(r, 0.5).value_or(kNaN);
    op.p25 = Quantile(r, 0.25).value_or(kNaN);
    op.p75 = Quantile(r, 0.75).value_or(kNaN);
    op.min = Quantile(r, 0.0).value_or(kNaN);
    op.max = Quantile(r, 1.0).value_or(kNaN);
  }
  std::stable_sort(c.by_op_type.begin(), c.by_op_type.end(),
                   [](const OpTypeRatios& x, const OpTypeRatios& y) {
                     return x.measured_s > y.measured_s;
                   });

  // Optimization targets.
  std::vector<int> order(c.units.size());
  std::iota(order.begin(), order.end(), 0);
  order.erase(
      std::remove_if(order.begin(), order.end(),
                     [&](int u) {
                       return !std::isfinite(
                           c.units[static_cast<size_t>(u)].roof_fraction);
                     }),
      order.end());
  std::stable_sort(order.begin(), order.end(), [&](int x, int y) {
    const MeasuredUnit& ux = c.units[static_cast<size_t>(x)];
    const MeasuredUnit& uy = c.units[static_cast<size_t>(y)];
    return ux.measured_s - ux.roof_s > uy.measured_s - uy.roof_s;
  });
  if (options.targets >= 0 &&
      order.size() > static_cast<size_t>(options.targets)) {
    order.resize(static_cast<size_t>(options.targets));
  }
  c.targets = std::move(order);

  // Rank correlation.
  std::vector<double> predicted, measured;
  for (const MeasuredUnit& unit : c.units) {
    predicted.push_back(unit.predicted_s);
    measured.push_back(unit.measured_s);
  }
  c.spearman = SpearmanCorrelation(predicted, measured);

  // Warnings.
  if (c.units.empty()) {
    c.warnings.push_back(fmt::format(
        "{}: no measured node matches a layer of this model; was the profile "
        "recorded for another model?",
        profile.path));
  }
  if (!c.unmatched_nodes.empty()) {
    std::vector<std::string> names;
    for (size_t i = 0; i < c.unmatched_nodes.size() && i < kNamesInWarning;
         ++i) {
      names.push_back(c.unmatched_nodes[i].name);
    }
    double share = c.measured_node_s > 0
                       ? 100 * c.unmatched_measured_s / c.measured_node_s
                       : 0;
    c.warnings.push_back(fmt::format(
        "{} of {} measured node(s) ({:.1f}% of measured node time) match no "
        "layer: {}",
        c.unmatched_nodes.size(), profile.nodes.size(), share,
        QuotedList(names, c.unmatched_nodes.size())));
  }
  return c;
}

}  // namespace ridgeline::engine
