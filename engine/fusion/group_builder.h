// Partition of a graph's nodes into fusion groups, grown one merge at a time
// with a cycle check (internal to engine/fusion).
//
// Every node starts in a group of its own. Unite() merges groups; CanUnite()
// first checks that the merged group keeps the graph of groups acyclic: no
// path may leave the union and re-enter it. The check walks the graph of
// groups (a group reached through any member is left through all of its
// members), so it also catches cycles that run through other groups, which a
// per-group convexity test on the node graph would miss.
//
// The walk stops at nodes past the union in topological order: a path can
// only come back to the union through a group with members on both sides of
// the bound, so the bound is first raised past every such group (a prefix
// maximum over the groups' rank ranges). Without it every check walked all
// of the graph downstream of the union: quadratic on long chains.
#ifndef RIDGELINE_ENGINE_FUSION_GROUP_BUILDER_H_
#define RIDGELINE_ENGINE_FUSION_GROUP_BUILDER_H_

#include <optional>
#include <span>
#include <vector>

#include "engine/fusion.h"
#include "graph/graph.h"

namespace ridgeline::engine::fusion {

class GroupBuilder {
 public:
  // No group may hold both the producer and a consumer of a tensor in
  // `barriers` (a collective sits on it).
  explicit GroupBuilder(const graph::Graph& graph,
                        std::span<const int> barriers = {});

  int GroupOf(int node) const { return group_of_[node]; }
  const std::vector<int>& Members(int group) const { return members_[group]; }
  // The rule that formed the node's group; nullopt for an unclaimed single
  // node.
  std::optional<FusionKind> KindOf(int node) const {
    return kind_[group_of_[node]];
  }
  // True when the node is alone and unclaimed, or in a group of `kind`.
  bool Available(int node, FusionKind kind) const;

  // True when one group holding every group of `nodes` keeps the graph of
  // groups acyclic and spans no barrier.
  bool CanUnite(const std::vector<int>& nodes) const;
  // Merges the groups of `nodes` into one group of `kind`. Call CanUnite
  // first.
  void Unite(const std::vector<int>& nodes, FusionKind kind);
  // Sends every member of the group back to a group of its own.
  void Dissolve(int group);
  // Takes one node out of its group, back into a group of its own. Removing a
  // node never puts the graph of groups on a cycle, but the caller must keep
  // the rest of the group connected.
  void Remove(int node);

  // Current groups (ids) of more than one member, or claimed by a rule.
  std::vector<int> ClaimedGroups() const;

 private:
  // Successor nodes of `node` in the group graph's underlying node graph;
  // an edge into a node of an If/Loop body counts as an edge into the
  // control-flow node that holds it.
  template <typename Fn>
  void ForEachSuccessor(int node, Fn fn) const;
  int Outermost(int node) const;

  // The rank bound of a check on `nodes`' groups (INT_MAX: no bound).
  int WalkBound(const std::vector<int>& groups) const;
  // Records that a group spans topological ranks [lo, hi].
  void NoteRange(int lo, int hi);

  const graph::Graph& graph_;
  // Position of each node in the topological order; empty when a node sits
  // in a subgraph (an edge into a body does not follow that order, so no
  // bound is used).
  std::vector<int> rank_;
  // Fenwick tree of prefix maxima: reach_ over ranks <= r is the highest
  // rank of any group that ever held a member at rank <= r. Groups only
  // shrink after they are recorded, so it over-approximates (safe).
  std::vector<int> reach_;
  std::vector<int> group_of_;
  std::vector<std::vector<int>> members_;
  std::vector<std::optional<FusionKind>> kind_;
  std::vector<bool> barrier_;  // per tensor; empty when there is none
  // Per node: the outermost node holding it (itself outside If/Loop
  // bodies), and whether it reads only its inputs' shapes (ReadsShapeOnly).
  std::vector<int> outermost_;
  std::vector<bool> shape_only_;
  // Scratch marks for CanUnite, compared against a stamp so they need no
  // clearing.
  mutable std::vector<unsigned> in_union_;
  mutable std::vector<unsigned> visited_;
  mutable unsigned stamp_ = 0;
  // CanUnite's scratch lists (the union's groups, the walk's stack).
  mutable std::vector<int> groups_;
  mutable std::vector<int> stack_;
};

}  // namespace ridgeline::engine::fusion

#endif  // RIDGELINE_ENGINE_FUSION_GROUP_BUILDER_H_
