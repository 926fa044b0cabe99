// Shape functions of easy ai.onnx.ml ops whose ONNX schema has no inference
// function (ONNX 1.12): Scaler, Normalizer, Binarizer, Imputer, regressors,
// classifiers, TreeEnsemble, ArrayFeatureExtractor, OneHotEncoder,
// FeatureVectorizer. The other ml ops go to ONNX's schema inference.
#include <string>
#include <variant>

#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

// Rows of a [N, C] or [C] input (1 for a vector).
int64_t Rows(const Dims& x) { return x.size() >= 2 ? x[0] : 1; }

absl::Status FloatLikeInputShape(InferContext& ctx) {
  ctx.Set(0, DType::kFloat32, ctx.dims(0));
  return absl::OkStatus();
}

absl::Status SameShape(InferContext& ctx) { return SameAsInput(ctx); }

// [N, targets] float; targets from 'targets' (LinearRegressor) or
// 'n_targets' (TreeEnsembleRegressor), 1 for SVMRegressor.
absl::Status RegressorShape(InferContext& ctx) {
  const int64_t targets = ctx.node().HasAttribute("n_targets")
                              ? ctx.node().GetInt("n_targets", 1)
                              : ctx.node().GetInt("targets", 1);
  ctx.Set(0, DType::kFloat32, {Rows(ctx.dims(0)), targets});
  return absl::OkStatus();
}

// ArrayFeatureExtractor: X [..., C] and indices [k] -> [..., k] ([1, k] for a
// vector X).
absl::Status ArrayFeatureExtractorShape(InferContext& ctx) {
  Dims out = ctx.dims(0);
  const int64_t k = ctx.numel(1);
  if (out.size() <= 1) {
    out = {1, k};
  } else {
    out.back() = k;
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

size_t ListSize(const graph::Node& node, const std::string& key) {
  auto it = node.attributes.find(key);
  if (it == node.attributes.end()) return 0;
  if (const auto* v = std::get_if<std::vector<int64_t>>(&it->second)) {
    return v->size();
  }
  if (const auto* v = std::get_if<std::vector<std::string>>(&it->second)) {
    return v->size();
  }
  if (const auto* v = std::get_if<std::vector<double>>(&it->second)) {
    return v->size();
  }
  return 1;
}

// OneHotEncoder: input dims plus the category count, float.
absl::Status OneHotEncoderShape(InferContext& ctx) {
  const size_t n = ListSize(ctx.node(), "cats_int64s") +
                   ListSize(ctx.node(), "cats_strings");
  Dims out = ctx.dims(0);
  out.push_back(static_cast<int64_t>(n));
  ctx.Set(0, DType::kFloat32, std::move(out));
  return absl::OkStatus();
}

// FeatureVectorizer: [N, sum(inputdimensions)] float.
absl::Status FeatureVectorizerShape(InferContext& ctx) {
  int64_t total = 0;
  for (int64_t d : ctx.node().GetInts("inputdimensions")) total += d;
  ctx.Set(0, DType::kFloat32, {Rows(ctx.dims(0)), total});
  return absl::OkStatus();
}

// LinearClassifier, SVMClassifier, TreeEnsembleClassifier: the label [N]
// (int64 with integer class labels, else string) and the scores [N, C], one
// per class label.
absl::Status ClassifierShape(InferContext& ctx) {
  const graph::Node& node = ctx.node();
  const size_t ints =
      ListSize(node, "classlabels_ints") + ListSize(node, "classlabels_int64s");
  const size_t strings = ListSize(node, "classlabels_strings");
  const int64_t rows = Rows(ctx.dims(0));
  ctx.Set(0, ints > 0 ? DType::kInt64 : DType::kString, {rows});
  ctx.Set(1, DType::kFloat32, {rows, static_cast<int64_t>(ints + strings)});
  return absl::OkStatus();
}

// TreeEnsemble (ai.onnx.ml opset 5): X [N, F] -> [N, n_targets], X's type.
absl::Status TreeEnsembleShape(InferContext& ctx) {
  ctx.Set(0, ctx.dtype(0),
          {Rows(ctx.dims(0)), ctx.node().GetInt("n_targets", 1)});
  return absl::OkStatus();
}

}  // namespace

void RegisterMlShapes(ShapeRegistry* registry) {
  registry->Add(kMlDomain, "Scaler", FloatLikeInputShape);
  registry->Add(kMlDomain, "Normalizer", FloatLikeInputShape);
  registry->Add(kMlDomain, "Binarizer", SameShape);
  registry->Add(kMlDomain, "Imputer", SameShape);
  registry->Add(kMlDomain, "LinearRegressor", RegressorShape);
  registry->Add(kMlDomain, "SVMRegressor", RegressorShape);
  registry->Add(kMlDomain, "TreeEnsembleRegressor", RegressorShape);
  registry->Add(kMlDomain, "TreeEnsemble", TreeEnsembleShape);
  registry->Add(kMlDomain, "LinearClassifier", ClassifierShape);
  registry->Add(kMlDomain, "SVMClassifier", ClassifierShape);
  registry->Add(kMlDomain, "TreeEnsembleClassifier", ClassifierShape);
  registry->Add(kMlDomain, "ArrayFeatureExtractor", ArrayFeatureExtractorShape);
  registry->Add(kMlDomain, "OneHotEncoder", OneHotEncoderShape);
  registry->Add(kMlDomain, "FeatureVectorizer", FeatureVectorizerShape);
}

}  // namespace ridgeline::importers::shapes
