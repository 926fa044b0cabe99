#include "importers/shapes/registry.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ridgeline::importers::shapes {

void ShapeRegistry::Add(std::string_view domain, std::string_view op_type,
                        ShapeFn fn) {
  shapes_[std::string(domain)][std::string(op_type)] = fn;
}

void ShapeRegistry::AddFold(std::string_view op_type, FoldFn fn,
                            bool needs_input_values) {
  folds_[std::string(op_type)] = FoldEntry{fn, needs_input_values};
}

ShapeFn ShapeRegistry::Find(const std::string& domain,
                            const std::string& op_type) const {
  auto d = shapes_.find(domain);
  if (d == shapes_.end()) return nullptr;
  auto it = d->second.find(op_type);
  return it == d->second.end() ? nullptr : it->second;
}

std::vector<std::string> ShapeRegistry::Ops(const std::string& domain) const {
  std::vector<std::string> ops;
  auto d = shapes_.find(domain);
  if (d == shapes_.end()) return ops;
  for (const auto& [op, fn] : d->second) ops.push_back(op);
  std::sort(ops.begin(), ops.end());
  return ops;
}

const FoldEntry* ShapeRegistry::FindFold(const std::string& domain,
                                         const std::string& op_type) const {
  if (!domain.empty()) return nullptr;
  auto it = folds_.find(op_type);
  return it == folds_.end() ? nullptr : &it->second;
}

const ShapeRegistry& DefaultShapeRegistry() {
  // Function-local static: built on first use, never destroyed.
  static const ShapeRegistry* const registry = [] {
    auto* r = new ShapeRegistry();
    RegisterElementwiseShapes(r);
    RegisterTensorShapes(r);
    RegisterConvPoolShapes(r);
    RegisterNormalizationShapes(r);
    RegisterReduceShapes(r);
    RegisterMatMulShapes(r);
    RegisterQuantizeShapes(r);
    RegisterSequenceShapes(r);
    RegisterMiscShapes(r);
    RegisterContribShapes(r);
    RegisterMlShapes(r);
    RegisterConstantFolding(r);
    return r;
  }();
  return *registry;
}

}  // namespace ridgeline::importers::shapes
