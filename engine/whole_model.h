// The whole-model (lumped) estimate: one roofline over the whole model, the
// way teaching tools such as mlsysim's Engine.solve price a model, printed
// next to ridgeline's layer-level result. Derivation: engine/WHOLE_MODEL.md.
//
//   engine::WholeModelOptions o;                 // lumped, over our counts
//   o.method = engine::WholeModelMethod::kMlsysim;
//   o.model_class = engine::ModelClass::kCnn;
//   o.layers = 50;                               // mlsysim's layer count
//   absl::StatusOr<engine::WholeModelResult> r = engine::WholeModel(a, o);
#ifndef RIDGELINE_ENGINE_WHOLE_MODEL_H_
#define RIDGELINE_ENGINE_WHOLE_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/report/text_table.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {

enum class WholeModelMethod {
  // ridgeline's lumped roofline: total FLOPs (at --flops-per-mac) over total
  // counted bytes, with the layer-level overhead model (dispatch tax + the
  // per-layer tax for every non-view layer).
  kLumped,
  // mlsysim 0.1.x Engine.solve (its "V3" inference formula): ops from the
  // model class's rule, bytes = W * (1 + 0.1 * batch) with W = params *
  // bytes per element, overhead = dispatch tax + L * per-layer tax.
  kMlsysim,
};
std::string_view WholeModelMethodName(WholeModelMethod method);  // "lumped"

// How mlsysim counts a model's operations (its registry conventions).
enum class ModelClass {
  // CNNs: mlsysim's CNN "FLOPs" are multiply-accumulate counts, so ops =
  // MACs (1 FLOP per MAC), whatever --flops-per-mac says.
  kCnn,
  // Transformers / language models: ops = 2 * params per token (mlsysim's
  // `inference_flops or 2 * parameters` rule), times tokens per sample.
  kTransformer,
};
std::string_view ModelClassName(ModelClass model_class);  // "cnn"
// "cnn" or "transformer" (case-insensitive); InvalidArgument otherwise.
absl::StatusOr<ModelClass> ParseModelClass(std::string_view name);

struct WholeModelOptions {
  WholeModelMethod method = WholeModelMethod::kLumped;
  // mlsysim only: which op rule applies.
  ModelClass model_class = ModelClass::kCnn;
  // mlsysim only: its layer count L for the per-layer tax (zoo metadata:
  // ResNet-50 50, Llama-3.1-8B 32, ...). When unset, the number of layers
  // that do multiply-accumulates (Conv, Gemm, MatMul, ...) is used.
  std::optional<int64_t> layers;
  // mlsysim only, transformers: new tokens per sample (the "sequence" dim;
  // 1 when decoding one token). ops = 2 * params * tokens * batch.
  int64_t tokens_per_sample = 1;
  // mlsysim only: activation traffic per sample as a fraction of the weight
  // bytes (the literal 0.1 in mlsysim's engine).
  double activation_fraction = 0.1;
};

// One whole-model estimate. Times in seconds, ops in FLOPs under the
// method's convention (see `flops_per_mac`), bytes in bytes.
struct WholeModelResult {
  WholeModelMethod method = WholeModelMethod::kLumped;
  // FLOPs per MAC behind `ops`: the --flops-per-mac value for kLumped, 1 for
  // mlsysim CNNs, 2 for mlsysim transformers (2 * params per token).
  double flops_per_mac = 0;
  double ops = 0;
  double bytes = 0;
  int64_t batch = 1;
  int64_t layers_taxed = 0;     // layers paying the per-layer tax
  double t_compute_s = 0;       // ops / (compute_efficiency * peak)
  double t_memory_s = 0;        // bytes / (memory_efficiency * bandwidth)
  double t_overhead_s = 0;      // dispatch tax + layers_taxed * per-layer tax
  double latency_s = 0;         // max(t_compute, t_memory) + t_overhead
  double throughput_per_s = 0;  // batch / latency
  double mfu = 0;               // (ops / latency) / un-derated peak, in [0, 1]
  double intensity = 0;         // ops / bytes (FLOP/byte); 0 when ops == 0
  // kMemory iff t_memory > t_compute (strict: a tie is compute, as in
  // mlsysim); never kOverhead: the overhead share is in t_overhead_s.
  Bound bound = Bound::kNone;
};

// The whole-model estimate of an analysis: uses its layer costs, batch and
// assumptions (peak, bandwidth, efficiencies, taxes). InvalidArgument if the
// analysis has no peak or bandwidth, or options are out of range.
absl::StatusOr<WholeModelResult> WholeModel(const Analysis& analysis,
                                            const WholeModelOptions& options);

// Device-independent totals of an analysis that the estimate needs; lets
// the sweep re-price without an Analysis per point.
struct WholeModelTotals {
  double macs = 0;
  double flops = 0;  // at the analysis' flops_per_mac
  double bytes = 0;  // counted bytes, all layers
  int64_t params = 0;
  int64_t layers = 0;      // non-view layers (the layer-level tax count)
  int64_t mac_layers = 0;  // layers with MACs > 0
  int64_t batch = 1;
};
WholeModelTotals TotalsOf(const Analysis& analysis);

// The estimate from totals and assumptions (what WholeModel() calls).
absl::StatusOr<WholeModelResult> WholeModelFromTotals(
    const WholeModelTotals& totals, const Assumptions& assumptions,
    const WholeModelOptions& options);

// {"bound","bytes","flops","flops_per_mac","intensity","latency_s","method",
//  "mfu","t_compute_s","t_memory_s","t_overhead_s","throughput_per_s"}
// (method, flops_per_mac, flops and bytes state the convention): the
// `"whole_model"` object of `--format json`, keys in alphabetical order.
nlohmann::ordered_json WholeModelJson(const WholeModelResult& result);

// The text comparison printed by --whole-model: latency, throughput, bound,
// intensity and MFU of the layer-level result and of each estimate, one
// column each, then the one-line explanation of the difference.
// Its table at most `max_width` columns wide (report::TextTable).
std::string FormatWholeModelComparison(
    const Analysis& analysis, const std::vector<WholeModelResult>& estimates,
    size_t max_width = report::kMaxTableWidth);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_WHOLE_MODEL_H_
