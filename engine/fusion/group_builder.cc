#include "engine/fusion/group_builder.h"

#include <algorithm>
#include <limits>

#include "boost/graph/adjacency_list.hpp"
#include "engine/fusion/op_sets.h"

namespace ridgeline::engine::fusion {

GroupBuilder::GroupBuilder(const graph::Graph& graph,
                           std::span<const int> barriers)
    : graph_(graph),
      group_of_(graph.nodes().size()),
      members_(graph.nodes().size()),
      kind_(graph.nodes().size()),
      in_union_(graph.nodes().size(), 0),
      visited_(graph.nodes().size(), 0) {
  outermost_.resize(graph.nodes().size());
  shape_only_.resize(graph.nodes().size());
  for (size_t n = 0; n < graph.nodes().size(); ++n) {
    group_of_[n] = static_cast<int>(n);
    members_[n] = {static_cast<int>(n)};
    int top = static_cast<int>(n);
    while (graph.node(top).parent >= 0) top = graph.node(top).parent;
    outermost_[n] = top;
    shape_only_[n] = ReadsShapeOnly(graph.node(static_cast<int>(n)));
  }
  const std::vector<int>& order = graph.topological_order();
  const bool flat =
      order.size() == graph.nodes().size() &&
      std::none_of(graph.nodes().begin(), graph.nodes().end(),
                   [](const graph::Node& n) { return n.parent >= 0; });
  if (flat) {
    rank_.resize(order.size());
    for (size_t i = 0; i < order.size(); ++i) {
      rank_[order[i]] = static_cast<int>(i);
    }
    reach_.assign(order.size() + 1, -1);
  }
  if (!barriers.empty()) {
    barrier_.assign(graph.tensors().size(), false);
    for (int t : barriers) barrier_[t] = true;
  }
}

void GroupBuilder::NoteRange(int lo, int hi) {
  for (size_t i = static_cast<size_t>(lo) + 1; i < reach_.size();
       i += i & (~i + 1)) {
    reach_[i] = std::max(reach_[i], hi);
  }
}

int GroupBuilder::WalkBound(const std::vector<int>& groups) const {
  if (rank_.empty()) return std::numeric_limits<int>::max();
  int bound = -1;
  for (int g : groups) {
    for (int m : members_[g]) bound = std::max(bound, rank_[m]);
  }
  // A path that leaves the union and passes a node ranked above `bound`
  // can only get back below it through a group with members on both sides
  // (edges go up in rank): raise the bound past every such group.
  for (;;) {
    int reach = -1;
    for (size_t i = static_cast<size_t>(bound) + 1; i > 0; i -= i & (~i + 1)) {
      reach = std::max(reach, reach_[i]);
    }
    if (reach <= bound) return bound;
    bound = reach;
  }
}

bool GroupBuilder::Available(int node, FusionKind kind) const {
  const int g = group_of_[node];
  if (!kind_[g].has_value()) return members_[g].size() == 1;
  return *kind_[g] == kind;
}

int GroupBuilder::Outermost(int node) const { return outermost_[node]; }

template <typename Fn>
void GroupBuilder::ForEachSuccessor(int node, Fn fn) const {
  const graph::BoostGraph& bg = graph_.boost_graph();
  for (auto [it, end] = boost::out_edges(node, bg); it != end; ++it) {
    const int consumer = static_cast<int>(boost::target(*it, bg));
    // Shape / Size read metadata only: no path through them orders kernels
    // (a rotary embedding's Slice bounds computed from its input's Shape).
    if (shape_only_[consumer]) continue;
    const int target = outermost_[consumer];
    if (target != node) fn(target);
  }
}

bool GroupBuilder::CanUnite(const std::vector<int>& nodes) const {
  ++stamp_;
  if (stamp_ == 0) {  // wrapped: clear the marks once
    std::fill(in_union_.begin(), in_union_.end(), 0);
    std::fill(visited_.begin(), visited_.end(), 0);
    stamp_ = 1;
  }
  std::vector<int>& groups = groups_;
  groups.clear();
  for (int n : nodes) {
    const int g = group_of_[n];
    if (in_union_[g] != stamp_) {
      in_union_[g] = stamp_;
      groups.push_back(g);
    }
  }
  auto in_union = [&](int node) {
    return in_union_[group_of_[node]] == stamp_;
  };
  // A barrier tensor produced and consumed inside the union.
  if (!barrier_.empty()) {
    for (int g : groups) {
      for (int m : members_[g]) {
        for (int out : graph_.node(m).outputs) {
          if (out < 0 || !barrier_[out]) continue;
          for (int c : graph_.tensor(out).consumers) {
            if (in_union(Outermost(c))) return false;
          }
        }
      }
    }
  }
  // A walk from every edge that leaves the union; reaching the union again
  // means the merged group would sit on a cycle. On a ranked graph the walk
  // takes the highest-ranked node first: a path back into the union climbs
  // in rank, so it is found along the graph's long edges (a rotary Mul of
  // layer 40 tried with the Cos that layer 0's kernel took reaches itself
  // through the residual stream's skip edges in a few nodes per layer, not
  // through every node of the 39 layers between). Which nodes are reachable,
  // and so the answer, does not depend on the order.
  const int bound = WalkBound(groups);
  std::vector<int>& stack = stack_;
  stack.clear();
  const bool ranked = !rank_.empty();
  auto lower_rank = [this](int a, int b) { return rank_[a] < rank_[b]; };
  auto visit = [&](int node) {
    if (visited_[node] == stamp_) return;
    if (ranked && rank_[node] > bound) return;  // cannot come back
    visited_[node] = stamp_;
    stack.push_back(node);
    if (ranked) std::push_heap(stack.begin(), stack.end(), lower_rank);
  };
  for (int g : groups) {
    for (int m : members_[g]) {
      ForEachSuccessor(m, [&](int s) {
        if (!in_union(s)) visit(s);
      });
    }
  }
  while (!stack.empty()) {
    if (ranked) std::pop_heap(stack.begin(), stack.end(), lower_rank);
    const int n = stack.back();
    stack.pop_back();
    bool reentered = false;
    ForEachSuccessor(n, [&](int s) {
      if (in_union(s)) {
        reentered = true;
      } else {
        visit(s);
      }
    });
    if (reentered) return false;
    // A group is one vertex of the group graph: reaching one member reaches
    // the successors of all of them.
    const std::vector<int>& siblings = members_[group_of_[n]];
    if (siblings.size() > 1) {
      for (int m : siblings) visit(m);
    }
  }
  return true;
}

void GroupBuilder::Unite(const std::vector<int>& nodes, FusionKind kind) {
  if (nodes.empty()) return;
  // Merge into the largest group.
  int target = group_of_[nodes[0]];
  for (int n : nodes) {
    if (members_[group_of_[n]].size() > members_[target].size()) {
      target = group_of_[n];
    }
  }
  for (int n : nodes) {
    const int g = group_of_[n];
    if (g == target) continue;
    for (int m : members_[g]) {
      group_of_[m] = target;
      members_[target].push_back(m);
    }
    members_[g].clear();
    kind_[g].reset();
  }
  kind_[target] = kind;
  if (!rank_.empty()) {
    int lo = rank_[members_[target][0]];
    int hi = lo;
    for (int m : members_[target]) {
      lo = std::min(lo, rank_[m]);
      hi = std::max(hi, rank_[m]);
    }
    NoteRange(lo, hi);
  }
}

void GroupBuilder::Dissolve(int group) {
  std::vector<int> members = std::move(members_[group]);
  members_[group].clear();
  kind_[group].reset();
  // Each member goes back to the group numbered as itself (free, since a
  // group id only ever holds members while it is someone's own number or the
  // target of a merge; reuse the member's own slot).
  for (int m : members) {
    group_of_[m] = m;
    members_[m] = {m};
    kind_[m].reset();
  }
}

void GroupBuilder::Remove(int node) {
  int g = group_of_[node];
  if (members_[g].size() == 1) {
    kind_[g].reset();
    return;
  }
  if (g == node) {
    // The group lives in this node's slot: move it to another member's slot,
    // which is empty while that member belongs to this group.
    int to = members_[g][0] == node ? members_[g][1] : members_[g][0];
    members_[to] = std::move(members_[g]);
    kind_[to] = kind_[g];
    for (int m : members_[to]) group_of_[m] = to;
    g = to;
  }
  std::vector<int>& members = members_[g];
  members.erase(std::find(members.begin(), members.end(), node));
  group_of_[node] = node;
  members_[node] = {node};
  kind_[node].reset();
}

std::vector<int> GroupBuilder::ClaimedGroups() const {
  std::vector<int> groups;
  for (size_t g = 0; g < members_.size(); ++g) {
    if (members_[g].empty()) continue;
    if (members_[g].size() > 1 || kind_[g].has_value()) {
      groups.push_back(static_cast<int>(g));
    }
  }
  return groups;
}

}  // namespace ridgeline::engine::fusion
