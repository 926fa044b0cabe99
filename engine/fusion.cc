#include "engine/fusion.h"

#include <algorithm>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_split.h"
#include "engine/fusion/group_builder.h"
#include "engine/fusion/op_sets.h"
#include "engine/fusion/rules.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

std::string NodeLabel(const graph::Graph& graph, int node) {
  const graph::Node& n = graph.node(node);
  if (!n.name.empty()) return n.name;
  return fmt::format("{}#{}", n.op_type, node);
}

// The member a group is named after.
int PickAnchor(const graph::Graph& graph, FusionKind kind,
               const std::vector<int>& members) {
  for (int m : members) {
    const graph::Node& node = graph.node(m);
    switch (kind) {
      case FusionKind::kAttention:
        if (fusion::IsAttentionMatMul(node) ||
            fusion::IsContribAttention(node)) {
          return m;
        }
        break;
      case FusionKind::kEpilogue:
        if (fusion::IsEpilogueAnchor(node)) return m;
        break;
      case FusionKind::kElementwise:
        if (!fusion::IsPureView(node)) return m;
        break;
    }
  }
  return members.front();
}

}  // namespace

absl::StatusOr<FusionKinds> ParseFusionKinds(std::string_view text) {
  FusionKinds kinds;
  bool none = false;
  int words = 0;
  for (absl::string_view piece :
       absl::StrSplit(absl::string_view(text.data(), text.size()), ',')) {
    std::string word(absl::StripAsciiWhitespace(piece));
    absl::AsciiStrToLower(&word);
    ++words;
    if (word == "none") {
      none = true;
    } else if (word == "all") {
      kinds = FusionKinds::All();
    } else if (word == "epilogue") {
      kinds.epilogue = true;
    } else if (word == "elementwise") {
      kinds.elementwise = true;
    } else if (word == "attention") {
      kinds.attention = true;
    } else if (word.empty()) {
      return absl::InvalidArgumentError(fmt::format(
          "--fuse '{}': empty item; expected none, all, or a comma-separated "
          "list of epilogue, elementwise, attention",
          text));
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "--fuse: unknown fusion kind '{}'; expected none, all, or a "
          "comma-separated list of epilogue, elementwise, attention",
          word));
    }
  }
  if (none && words > 1) {
    return absl::InvalidArgumentError(fmt::format(
        "--fuse '{}': 'none' cannot be combined with other kinds", text));
  }
  return kinds;
}

std::string FusionKindsName(const FusionKinds& kinds) {
  if (!kinds.any()) return "none";
  if (kinds.epilogue && kinds.elementwise && kinds.attention) return "all";
  std::vector<std::string> names;
  if (kinds.epilogue) names.push_back("epilogue");
  if (kinds.elementwise) names.push_back("elementwise");
  if (kinds.attention) names.push_back("attention");
  return fmt::format("{}", fmt::join(names, ","));
}

std::string_view FusionKindName(FusionKind kind) {
  switch (kind) {
    case FusionKind::kEpilogue:
      return "epilogue";
    case FusionKind::kElementwise:
      return "elementwise";
    case FusionKind::kAttention:
      return "attention";
  }
  return "?";
}

absl::StatusOr<FusionPlan> PlanFusion(const graph::Graph& graph,
                                      FusionKinds kinds,
                                      std::span<const int> barriers) {
  if (graph.topological_order().size() != graph.nodes().size() ||
      boost::num_vertices(graph.boost_graph()) != graph.nodes().size()) {
    return absl::FailedPreconditionError(
        "PlanFusion needs a finalized graph (Graph::Finalize)");
  }
  for (int t : barriers) {
    if (t < 0 || t >= static_cast<int>(graph.tensors().size())) {
      return absl::InvalidArgumentError(fmt::format(
          "PlanFusion: barrier tensor {} of {}", t, graph.tensors().size()));
    }
  }
  fusion::RuleContext context(graph);
  fusion::GroupBuilder builder(graph, barriers);
  if (kinds.attention) {
    fusion::ApplyAttentionRule(context, builder);
    fusion::DropTrivialGroups(context, FusionKind::kAttention, builder);
  }
  if (kinds.epilogue) {
    fusion::ApplyEpilogueRule(context, builder);
    fusion::DropTrivialGroups(context, FusionKind::kEpilogue, builder);
  }
  if (kinds.elementwise) {
    fusion::ApplyElementwiseRule(context, builder);
    fusion::DropTrivialGroups(context, FusionKind::kElementwise, builder);
  }

  FusionPlan plan;
  plan.kinds = kinds;
  plan.group_of.assign(graph.nodes().size(), -1);
  for (int g : builder.ClaimedGroups()) {
    std::vector<int> members = builder.Members(g);
    std::sort(members.begin(), members.end(), [&](int a, int b) {
      return context.TopoPosition(a) < context.TopoPosition(b);
    });
    FusionGroup group;
    group.kind = *builder.KindOf(members[0]);
    group.anchor = PickAnchor(graph, group.kind, members);
    group.name = fmt::format("{}:{}", FusionKindName(group.kind),
                             NodeLabel(graph, group.anchor));
    group.members = std::move(members);
    plan.groups.push_back(std::move(group));
  }
  std::sort(plan.groups.begin(), plan.groups.end(),
            [&](const FusionGroup& a, const FusionGroup& b) {
              return context.TopoPosition(a.members[0]) <
                     context.TopoPosition(b.members[0]);
            });
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    for (int m : plan.groups[g].members) {
      plan.group_of[m] = static_cast<int>(g);
    }
  }
  return plan;
}

std::vector<int> CollectiveTensors(const graph::Graph& graph,
                                   const Analysis& analysis) {
  std::vector<int> tensors;
  if (!analysis.summary.parallel) return tensors;
  const std::vector<NodeShare>& shares = analysis.summary.parallel->node_shares;
  for (size_t n = 0; n < shares.size() && n < graph.nodes().size(); ++n) {
    if (!shares[n].collective_after) continue;
    for (int out : graph.node(static_cast<int>(n)).outputs) {
      if (out >= 0) tensors.push_back(out);
    }
  }
  return tensors;
}

absl::Status ValidateFusionPlan(const graph::Graph& graph,
                                const FusionPlan& plan) {
  const int num_nodes = static_cast<int>(graph.nodes().size());
  std::vector<int> owner(num_nodes, -1);
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const FusionGroup& group = plan.groups[g];
    if (group.members.empty()) {
      return absl::InvalidArgumentError(
          fmt::format("group '{}' has no members", group.name));
    }
    for (int m : group.members) {
      if (m < 0 || m >= num_nodes) {
        return absl::InvalidArgumentError(fmt::format(
            "group '{}' names node {} of {}", group.name, m, num_nodes));
      }
      if (owner[m] >= 0) {
        return absl::InvalidArgumentError(fmt::format(
            "node '{}' is in groups '{}' and '{}'", NodeLabel(graph, m),
            plan.groups[owner[m]].name, group.name));
      }
      owner[m] = static_cast<int>(g);
    }
  }
  // Connected: flood over tensors between members, direction ignored.
  for (size_t g = 0; g < plan.groups.size(); ++g) {
    const FusionGroup& group = plan.groups[g];
    absl::flat_hash_set<int> reached = {group.members[0]};
    std::vector<int> stack = {group.members[0]};
    while (!stack.empty()) {
      const int n = stack.back();
      stack.pop_back();
      auto reach = [&](int other) {
        if (other >= 0 && owner[other] == static_cast<int>(g) &&
            reached.insert(other).second) {
          stack.push_back(other);
        }
      };
      for (int in : graph.node(n).inputs) {
        if (in >= 0) reach(graph.tensor(in).producer);
      }
      for (int out : graph.node(n).outputs) {
        if (out < 0) continue;
        for (int c : graph.tensor(out).consumers) reach(c);
      }
    }
    if (reached.size() != group.members.size()) {
      return absl::InvalidArgumentError(
          fmt::format("group '{}' is not connected", group.name));
    }
  }
  // Acyclic graph of groups: Kahn's algorithm over the quotient graph, in
  // which every ungrouped node is a vertex of its own.
  std::vector<int> vertex(num_nodes);
  int num_vertices = static_cast<int>(plan.groups.size());
  for (int n = 0; n < num_nodes; ++n) {
    int top = n;
    while (graph.node(top).parent >= 0) top = graph.node(top).parent;
    vertex[n] = owner[top] >= 0 ? owner[top] : -1;
  }
  for (int n = 0; n < num_nodes; ++n) {
    if (vertex[n] < 0 && graph.node(n).parent < 0) vertex[n] = num_vertices++;
  }
  for (int n = 0; n < num_nodes; ++n) {
    if (vertex[n] >= 0) continue;
    int top = n;
    while (graph.node(top).parent >= 0) top = graph.node(top).parent;
    vertex[n] = vertex[top];
  }
  std::vector<absl::flat_hash_set<int>> successors(num_vertices);
  std::vector<int> in_degree(num_vertices, 0);
  const graph::BoostGraph& bg = graph.boost_graph();
  for (auto [it, end] = boost::edges(bg); it != end; ++it) {
    if (fusion::ReadsShapeOnly(graph.node(boost::target(*it, bg)))) continue;
    const int a = vertex[boost::source(*it, bg)];
    const int b = vertex[boost::target(*it, bg)];
    if (a != b && successors[a].insert(b).second) ++in_degree[b];
  }
  std::vector<int> ready;
  for (int v = 0; v < num_vertices; ++v) {
    if (in_degree[v] == 0) ready.push_back(v);
  }
  int sorted = 0;
  while (!ready.empty()) {
    const int v = ready.back();
    ready.pop_back();
    ++sorted;
    for (int s : successors[v]) {
      if (--in_degree[s] == 0) ready.push_back(s);
    }
  }
  if (sorted != num_vertices) {
    for (int v = 0; v < static_cast<int>(plan.groups.size()); ++v) {
      if (in_degree[v] > 0) {
        return absl::InvalidArgumentError(fmt::format(
            "the graph of fusion groups has a cycle through group '{}'",
            plan.groups[v].name));
      }
    }
    return absl::InvalidArgumentError("the graph of fusion groups has a cycle");
  }
  return absl::OkStatus();
}

GroupBoundary ComputeGroupBoundary(const graph::Graph& graph,
                                   const std::vector<int>& members) {
  absl::flat_hash_set<int> in_group(members.begin(), members.end());
  absl::flat_hash_set<int> graph_outputs(graph.outputs().begin(),
                                         graph.outputs().end());
  // Alias root: follow member views up to the tensor they view.
  auto root = [&](int tensor) {
    for (int guard = 0; guard < 1 << 16; ++guard) {
      const int p = graph.tensor(tensor).producer;
      if (p < 0 || !in_group.contains(p) ||
          !fusion::IsPureView(graph.node(p)) || graph.node(p).Input(0) < 0) {
        break;
      }
      tensor = graph.node(p).Input(0);
    }
    return tensor;
  };
  auto produced_inside = [&](int tensor) {
    const int p = graph.tensor(tensor).producer;
    return p >= 0 && in_group.contains(p);
  };
  GroupBoundary boundary;
  absl::flat_hash_map<int, size_t> seen_in;  // tensor -> index in inputs
  absl::flat_hash_set<int> seen_out;
  for (int m : members) {
    const graph::Node& node = graph.node(m);
    if (!fusion::IsPureView(node)) {
      for (int in : node.inputs) {
        if (in < 0) continue;
        const int r = root(in);
        if (produced_inside(r)) continue;
        auto [it, added] = seen_in.try_emplace(r, boundary.inputs.size());
        if (added) {
          boundary.inputs.push_back(r);
          boundary.readers.emplace_back();
        }
        std::vector<int>& readers = boundary.readers[it->second];
        if (readers.empty() || readers.back() != m) readers.push_back(m);
      }
    }
    for (int out : node.outputs) {
      if (out < 0) continue;
      bool escapes = graph_outputs.contains(out);
      for (int c : graph.tensor(out).consumers) {
        if (!in_group.contains(c)) escapes = true;
      }
      if (!escapes) continue;
      const int r = root(out);
      if (produced_inside(r) && seen_out.insert(r).second) {
        boundary.outputs.push_back(r);
      }
    }
  }
  return boundary;
}

}  // namespace ridgeline::engine
