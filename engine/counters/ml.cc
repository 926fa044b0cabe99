// Classic machine-learning ops (ai.onnx.ml: what skl2onnx and onnxmltools
// write). Per element, per row (a row of X [N, F] is one example):
//  - Scaler: (x - offset) * scale, 2 per element. Binarizer: 1 compare.
//    Imputer: a compare with the value to replace and a select, 2.
//  - LabelEncoder, CategoryMapper, OneHotEncoder: a table lookup, 1 per
//    input element. DictVectorizer, CastMap (a map in, a tensor out): 1 per
//    output element. ArrayFeatureExtractor reads what it gathers (as
//    Gather), FeatureVectorizer copies its inputs (as Concat).
//  - Normalizer: MAX 1 (compare), L1 2 (abs, add), L2 2 (square, add) per
//    element to find the norm, + 1 division (4) per element; L2 + a square
//    root (4) per row.
//  - LinearRegressor / LinearClassifier: X times the coefficients,
//    N x F x C MACs (C = coefficients / F), the intercept 1 per score, the
//    post_transform per score (below); a classifier + C compares per row
//    (the argmax for the label).
//  - SVMRegressor / SVMClassifier: one kernel value per (row, support
//    vector), F MACs each (a dot product, or RBF's squared distance: F MACs
//    and F subtractions), + per value POLY 10 (gamma, coef0, pow 8), RBF 9
//    (gamma, exp 8), SIGMOID 10 (gamma, coef0, tanh 8); then the decision
//    sums, n_sv x max(1, C - 1) MACs per row for a classifier (one-vs-one
//    votes over the class pairs), n_sv for a regressor; without support
//    vectors (a linear SVM) N x F x C MACs as a linear model; a classifier
//    + C compares per row.
//  - TreeEnsembleRegressor / TreeEnsembleClassifier / TreeEnsemble: each row
//    walks each tree from its root to a leaf, 1 compare per branch node on
//    the way; the path depends on the data, so the count takes every
//    tree's deepest path (an upper bound, said in the layer's note); + 1
//    add per tree and output column (the leaf's weight), + per output the
//    aggregate (AVERAGE a division 4, else 1), the base value 1 and the
//    post_transform. Bytes: X read, outputs written, and the ensemble's
//    node arrays read once at their ONNX element sizes (int64 8 B, float
//    4 B, a node mode 1 B), as weights.
// post_transform per score: NONE 0, LOGISTIC 13 (sigmoid), SOFTMAX 15,
// SOFTMAX_ZERO 16 (a compare more), PROBIT 10 (an inverse erf 8 and 2
// multiplies).
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "engine/counters/common.h"
#include "engine/counters/cost_table.h"
#include "engine/counters/families.h"
#include "fmt/format.h"

namespace ridgeline::engine::counters {
namespace {

double PostTransformFlops(const graph::Node& node) {
  const std::string t = node.GetString("post_transform", "NONE");
  if (t == "LOGISTIC") return cost::kSigmoid;
  if (t == "SOFTMAX") return cost::kSoftmax;
  if (t == "SOFTMAX_ZERO") return cost::kSoftmax + cost::kCmp;
  if (t == "PROBIT") return cost::kTranscendental + 2 * cost::kMul;
  return 0;
}

// Rows and features of X [N, F] (a vector is one row).
struct RowsFeatures {
  double rows = 1;
  double features = 1;
};
absl::StatusOr<RowsFeatures> RowsAndFeatures(const CountContext& ctx) {
  absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
  if (!x.ok()) return x.status();
  const graph::Dims& d = (*x)->dims;
  RowsFeatures r;
  if (d.empty()) return r;
  r.features = static_cast<double>(d.back());
  r.rows = d.size() >= 2 ? Elements(**x) / std::max(1.0, r.features) : 1;
  return r;
}

// Elements of an attribute list (0 when absent).
double ListSize(const graph::Node& node, std::string_view key) {
  auto it = node.attributes.find(std::string(key));
  if (it == node.attributes.end()) return 0;
  if (const auto* v = std::get_if<std::vector<int64_t>>(&it->second)) {
    return static_cast<double>(v->size());
  }
  if (const auto* v = std::get_if<std::vector<double>>(&it->second)) {
    return static_cast<double>(v->size());
  }
  if (const auto* v = std::get_if<std::vector<std::string>>(&it->second)) {
    return static_cast<double>(v->size());
  }
  return 1;
}

// Columns of the scores output ([N, C]); 1 when it has no second dim.
double ScoreColumns(const CountContext& ctx, size_t output) {
  const graph::Tensor* y = ctx.output(output);
  if (y == nullptr || y->dims.size() < 2) return 1;
  return static_cast<double>(y->dims.back());
}

CounterFn PerElement(double flops) {
  return [=](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<const graph::Tensor*> x = RequireInput(ctx, 0);
    if (!x.ok()) return x.status();
    Cost cost = DefaultTraffic(ctx);
    cost.other_flops = Elements(**x) * flops;
    return cost;
  };
}

absl::StatusOr<Cost> CountNormalizer(const CountContext& ctx) {
  absl::StatusOr<RowsFeatures> x = RowsAndFeatures(ctx);
  if (!x.ok()) return x.status();
  const std::string norm = ctx.node.GetString("norm", "MAX");
  const double per_element =
      (norm == "MAX" ? cost::kCmp : 2 * cost::kAdd) + cost::kDiv;
  Cost cost = DefaultTraffic(ctx);
  cost.other_flops = x->rows * x->features * per_element +
                     (norm == "L2" ? x->rows * cost::kSqrt : 0);
  return cost;
}

// LinearRegressor (scores at output 0) and LinearClassifier (label at 0,
// scores at 1).
CounterFn LinearModel(bool classifier) {
  return [=](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<RowsFeatures> x = RowsAndFeatures(ctx);
    if (!x.ok()) return x.status();
    const double columns =
        ListSize(ctx.node, "coefficients") / std::max(1.0, x->features);
    const double scores = ScoreColumns(ctx, classifier ? 1 : 0);
    Cost cost = DefaultTraffic(ctx);
    cost.macs = x->rows * x->features * columns;
    cost.other_flops =
        x->rows * scores *
        ((ListSize(ctx.node, "intercepts") > 0 ? cost::kAdd : 0) +
         PostTransformFlops(ctx.node));
    if (classifier) cost.other_flops += x->rows * scores * cost::kCmp;
    return cost;
  };
}

double SvmKernelFlops(const std::string& kernel) {
  if (kernel == "POLY") return 2 * cost::kAdd + cost::kTranscendental;
  if (kernel == "RBF") return cost::kMul + cost::kTranscendental;
  if (kernel == "SIGMOID") return 2 * cost::kAdd + cost::kTanh;
  return 0;  // LINEAR
}

CounterFn SvmModel(bool classifier) {
  return [=](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<RowsFeatures> x = RowsAndFeatures(ctx);
    if (!x.ok()) return x.status();
    const double f = std::max(1.0, x->features);
    const double scores = ScoreColumns(ctx, classifier ? 1 : 0);
    const double support = ListSize(ctx.node, "support_vectors") / f;
    Cost cost = DefaultTraffic(ctx);
    if (support > 0) {
      const std::string kernel = ctx.node.GetString("kernel_type", "LINEAR");
      cost.macs = x->rows * support * f;
      if (kernel == "RBF") cost.other_flops += x->rows * support * f;
      cost.other_flops += x->rows * support * SvmKernelFlops(kernel);
      cost.macs +=
          x->rows * support * (classifier ? std::max(1.0, scores - 1) : 1);
    } else {
      cost.macs =
          x->rows * x->features * (ListSize(ctx.node, "coefficients") / f);
    }
    cost.other_flops += x->rows * scores * PostTransformFlops(ctx.node);
    if (classifier) cost.other_flops += x->rows * scores * cost::kCmp;
    return cost;
  };
}

// The deepest root-to-leaf path of each tree, in branch nodes, and the
// number of nodes. Node ids come from a model file: a child missing from
// its tree ends the path, and a cycle is cut (a path never revisits a
// node), so a hostile ensemble cannot loop.
struct Forest {
  double trees = 0;
  double nodes = 0;
  double deepest_paths = 0;  // sum over the trees
};

// Longest path of branch nodes from `root` over children(node), where
// is_leaf(node) ends a path; `depth` (one entry per node, -1 when not yet
// known) memoizes subtrees across calls. Iterative, each node expanded
// once; a node met again while on the path (a cycle) counts 0.
template <typename Children, typename IsLeaf>
double LongestPath(int64_t root, Children children, IsLeaf is_leaf,
                   std::vector<int64_t>& depth) {
  const int64_t count = static_cast<int64_t>(depth.size());
  constexpr int64_t kOnPath = -2;
  std::vector<std::pair<int64_t, bool>> stack = {{root, false}};
  while (!stack.empty()) {
    const int64_t node = stack.back().first;
    const bool expanded = stack.back().second;
    if (node < 0 || node >= count) {
      stack.pop_back();
      continue;
    }
    if (!expanded) {
      if (depth[node] != -1) {  // known, or on the path (a cycle)
        stack.pop_back();
        continue;
      }
      depth[node] = kOnPath;
      stack.back().second = true;
      if (!is_leaf(node)) {
        const auto [a, b] = children(node);
        stack.push_back({a, false});
        stack.push_back({b, false});
      }
      continue;
    }
    int64_t best = 0;
    if (!is_leaf(node)) {
      const auto [a, b] = children(node);
      for (const int64_t c : {a, b}) {
        if (c >= 0 && c < count && depth[c] >= 0) {
          best = std::max(best, depth[c]);
        }
      }
      best += 1;
    }
    depth[node] = best;
    stack.pop_back();
  }
  return root >= 0 && root < count && depth[root] > 0
             ? static_cast<double>(depth[root])
             : 0;
}

// ai.onnx.ml opset 1-3 ensembles: nodes keyed by (treeid, nodeid), modes
// "LEAF" or a branch, children by node id within the tree.
Forest ForestOfNodeIds(const graph::Node& node) {
  const std::vector<int64_t> tree_ids = node.GetInts("nodes_treeids");
  const std::vector<int64_t> node_ids = node.GetInts("nodes_nodeids");
  const std::vector<int64_t> true_ids = node.GetInts("nodes_truenodeids");
  const std::vector<int64_t> false_ids = node.GetInts("nodes_falsenodeids");
  static const std::vector<std::string> kNone;
  auto modes_it = node.attributes.find("nodes_modes");
  const std::vector<std::string>* modes_list =
      modes_it == node.attributes.end()
          ? nullptr
          : std::get_if<std::vector<std::string>>(&modes_it->second);
  const std::vector<std::string>& modes =
      modes_list == nullptr ? kNone : *modes_list;
  Forest forest;
  const size_t n = tree_ids.size();
  forest.nodes = static_cast<double>(n);
  if (node_ids.size() != n || true_ids.size() != n || false_ids.size() != n ||
      modes.size() != n) {
    return forest;
  }
  // Each tree's nodes by node id; its root is node id 0 when present, else
  // its first node.
  absl::flat_hash_map<int64_t, std::vector<size_t>> by_tree;
  for (size_t i = 0; i < n; ++i) by_tree[tree_ids[i]].push_back(i);
  for (const auto& entry : by_tree) {
    const std::vector<size_t>& members = entry.second;
    absl::flat_hash_map<int64_t, int64_t> local;  // node id -> local index
    for (size_t j = 0; j < members.size(); ++j) {
      local.emplace(node_ids[members[j]], static_cast<int64_t>(j));
    }
    auto find = [&](int64_t id) {
      auto it = local.find(id);
      return it == local.end() ? int64_t{-1} : it->second;
    };
    auto children = [&](int64_t j) {
      const size_t i = members[static_cast<size_t>(j)];
      return std::pair<int64_t, int64_t>{find(true_ids[i]), find(false_ids[i])};
    };
    auto is_leaf = [&](int64_t j) {
      return modes[members[static_cast<size_t>(j)]] == "LEAF";
    };
    const int64_t root = local.contains(0) ? find(0) : 0;
    std::vector<int64_t> depth(members.size(), -1);
    forest.deepest_paths += LongestPath(root, children, is_leaf, depth);
    forest.trees += 1;
  }
  return forest;
}

// ai.onnx.ml opset 5 TreeEnsemble: tree_roots index the node arrays; a
// child is a leaf when its nodes_trueleafs / nodes_falseleafs flag is set.
Forest ForestOfRoots(const graph::Node& node) {
  const std::vector<int64_t> roots = node.GetInts("tree_roots");
  const std::vector<int64_t> true_ids = node.GetInts("nodes_truenodeids");
  const std::vector<int64_t> false_ids = node.GetInts("nodes_falsenodeids");
  const std::vector<int64_t> true_leaf = node.GetInts("nodes_trueleafs");
  const std::vector<int64_t> false_leaf = node.GetInts("nodes_falseleafs");
  Forest forest;
  const size_t n = true_ids.size();
  forest.nodes = static_cast<double>(n);
  if (false_ids.size() != n || true_leaf.size() != n ||
      false_leaf.size() != n) {
    return forest;
  }
  // Node n stands for "a leaf": a path ends there.
  const int64_t leaf = static_cast<int64_t>(n);
  auto children = [&](int64_t i) {
    const size_t k = static_cast<size_t>(i);
    return std::pair<int64_t, int64_t>{
        true_leaf[k] != 0 ? leaf : true_ids[k],
        false_leaf[k] != 0 ? leaf : false_ids[k]};
  };
  auto is_leaf = [&](int64_t i) { return i == leaf; };
  // Trees share no nodes; one memo serves them all.
  std::vector<int64_t> depth(n + 1, -1);
  for (int64_t root : roots) {
    forest.deepest_paths += LongestPath(root, children, is_leaf, depth);
    forest.trees += 1;
  }
  return forest;
}

// Bytes of the ensemble's node and leaf arrays at their ONNX element sizes.
double EnsembleBytes(const graph::Node& node) {
  double bytes = 0;
  for (const auto& [key, value] : node.attributes) {
    if (!key.starts_with("nodes_") && !key.starts_with("class_") &&
        !key.starts_with("target_") && !key.starts_with("leaf_") &&
        key != "tree_roots") {
      continue;
    }
    if (const auto* v = std::get_if<std::vector<int64_t>>(&value)) {
      bytes += 8.0 * static_cast<double>(v->size());
    } else if (const auto* v = std::get_if<std::vector<double>>(&value)) {
      bytes += 4.0 * static_cast<double>(v->size());
    } else if (const auto* v = std::get_if<std::vector<std::string>>(&value)) {
      bytes += static_cast<double>(v->size());  // a mode: 1 B in memory
    }
  }
  return bytes;
}

// TreeEnsembleRegressor (output 0), TreeEnsembleClassifier (scores at
// output 1), TreeEnsemble (opset 5, output 0).
CounterFn TreeModel(size_t scores_output, bool opset5) {
  return [=](const CountContext& ctx) -> absl::StatusOr<Cost> {
    absl::StatusOr<RowsFeatures> x = RowsAndFeatures(ctx);
    if (!x.ok()) return x.status();
    const Forest forest =
        opset5 ? ForestOfRoots(ctx.node) : ForestOfNodeIds(ctx.node);
    const double columns = ScoreColumns(ctx, scores_output);
    const std::string aggregate =
        ctx.node.GetString("aggregate_function", "SUM");
    Cost cost = DefaultTraffic(ctx);
    cost.other_flops = x->rows * (forest.deepest_paths * cost::kCmp +
                                  forest.trees * columns * cost::kAdd) +
                       x->rows * columns *
                           ((aggregate == "AVERAGE" ? cost::kDiv : cost::kAdd) +
                            cost::kAdd + PostTransformFlops(ctx.node) +
                            (scores_output == 1 ? cost::kCmp : 0));
    const double ensemble = EnsembleBytes(ctx.node);
    cost.bytes_read += ensemble;
    cost.weight_bytes += ensemble;
    cost.note = fmt::format(
        "{:.0f} trees, {:.0f} nodes: every row counted down each tree's "
        "deepest path ({:.0f} branch nodes in all), an upper bound of the "
        "data-dependent walk",
        forest.trees, forest.nodes, forest.deepest_paths);
    return cost;
  };
}

}  // namespace

void RegisterMlCounters(CounterRegistry& registry) {
  constexpr std::string_view kMl = "ai.onnx.ml";
  registry.Register(kMl, "Scaler", PerElement(cost::kAdd + cost::kMul));
  registry.Register(kMl, "Binarizer", PerElement(cost::kCmp));
  registry.Register(kMl, "Imputer", PerElement(2 * cost::kCmp));
  registry.Register(kMl, "Normalizer", CountNormalizer);
  for (const char* op : {"LabelEncoder", "CategoryMapper", "OneHotEncoder"}) {
    registry.Register(kMl, op, PerElement(cost::kCmp));
  }
  for (const char* op : {"DictVectorizer", "CastMap"}) {
    registry.Register(kMl, op, PerOutputElement(cost::kCmp));
  }
  registry.Register(kMl, "LinearRegressor", LinearModel(false));
  registry.Register(kMl, "LinearClassifier", LinearModel(true));
  registry.Register(kMl, "SVMRegressor", SvmModel(false));
  registry.Register(kMl, "SVMClassifier", SvmModel(true));
  registry.Register(kMl, "TreeEnsembleRegressor", TreeModel(0, false));
  registry.Register(kMl, "TreeEnsembleClassifier", TreeModel(1, false));
  registry.Register(kMl, "TreeEnsemble", TreeModel(0, true));
}

}  // namespace ridgeline::engine::counters
