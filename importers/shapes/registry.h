// Shape functions and constant-folding functions keyed by (domain, op type)
// (internal to importers/). Each op family registers its functions with an
// explicit Register*Shapes(registry) call; DefaultShapeRegistry() makes those
// calls once.
#ifndef RIDGELINE_IMPORTERS_SHAPES_REGISTRY_H_
#define RIDGELINE_IMPORTERS_SHAPES_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "importers/shapes/context.h"

namespace ridgeline::importers::shapes {

// Sets dtype and dims of the node's outputs, or returns Unresolved(reason).
using ShapeFn = absl::Status (*)(InferContext& ctx);
// Computes the folded values of the node's outputs from folded inputs (dims
// are already set). Returns false when it cannot (nothing is recorded then).
using FoldFn = bool (*)(InferContext& ctx);

struct FoldEntry {
  FoldFn fn = nullptr;
  // False for ops that fold from input shapes alone (Shape, Size).
  bool needs_input_values = true;
};

inline constexpr std::string_view kOnnxDomain = "";
inline constexpr std::string_view kMicrosoftDomain = "com.microsoft";
inline constexpr std::string_view kMlDomain = "ai.onnx.ml";

class ShapeRegistry {
 public:
  void Add(std::string_view domain, std::string_view op_type, ShapeFn fn);
  void AddFold(std::string_view op_type, FoldFn fn,
               bool needs_input_values = true);

  // nullptr when the op has no function.
  ShapeFn Find(const std::string& domain, const std::string& op_type) const;
  // The ops of `domain` that have a function, sorted.
  std::vector<std::string> Ops(const std::string& domain) const;
  const FoldEntry* FindFold(const std::string& domain,
                            const std::string& op_type) const;

 private:
  absl::flat_hash_map<std::string, absl::flat_hash_map<std::string, ShapeFn>>
      shapes_;
  absl::flat_hash_map<std::string, FoldEntry> folds_;  // default domain
};

// Registration calls, one per op family (each in its own .cc file).
void RegisterElementwiseShapes(ShapeRegistry* registry);
void RegisterTensorShapes(ShapeRegistry* registry);
void RegisterConvPoolShapes(ShapeRegistry* registry);
void RegisterNormalizationShapes(ShapeRegistry* registry);
void RegisterReduceShapes(ShapeRegistry* registry);
void RegisterMatMulShapes(ShapeRegistry* registry);
void RegisterQuantizeShapes(ShapeRegistry* registry);
void RegisterSequenceShapes(ShapeRegistry* registry);
void RegisterMiscShapes(ShapeRegistry* registry);
void RegisterContribShapes(ShapeRegistry* registry);
void RegisterMlShapes(ShapeRegistry* registry);
// Constant folding over small integer/float tensors (const_eval.cc).
void RegisterConstantFolding(ShapeRegistry* registry);

// The registry with every family registered; built on first use.
const ShapeRegistry& DefaultShapeRegistry();

}  // namespace ridgeline::importers::shapes

#endif  // RIDGELINE_IMPORTERS_SHAPES_REGISTRY_H_
