// Quantization what-ifs (--weights, --activations, --kv-cache): re-price
// every layer as if the model's weights, activations and KV cache were stored
// at other precisions, and run the math at the precision the kernels would
// use.
//
//   engine::QuantizeOptions q;
//   q.weights = "int4";                                   // --weights int4
//   absl::StatusOr<engine::QuantizeResult> r =
//       engine::AnalyzeQuantized(graph, hw, analyze_options, q);
//
// Conventions (printed with every result):
// - Weights are floating-point initializers (and Constant outputs) of rank
//   >= 2 (matrices, conv kernels, embedding tables); biases and norm
//   parameters (rank < 2) keep their stored type.
//     int8  1 byte + one scale per output channel (per-channel symmetric);
//     int4  0.5 byte + one scale per group of `int4_group_size` elements
//           along the reduction axis (default 128, as MatMulNBits / AWQ /
//           GPTQ use), plus a 4-bit zero point per group when
//           `int4_zero_points`;
//     fp8   1 byte + one per-tensor scale;
//     fp16  2 bytes.
//   Scales cost `scale_bytes` each (default 2: fp16).
// - Activations are the other floating-point tensors (graph inputs and node
//   outputs), at 1 byte for int8/fp8 and 2 for fp16; per-tensor scales are
//   negligible and not counted.
// - The KV cache is the past/present key and value tensors: graph inputs and
//   outputs named past_key_values*, past_key*, past_value*, present*, the
//   past/present operands of com.microsoft attention ops, the Concat outputs
//   that append to them, and the views / Transpose / Expand / Concat / Cast
//   chains that carry them to the attention products. Priced at --kv-cache,
//   or at --activations when --kv-cache is not given (as LLM-Viewer does).
// - Math precision (the compute peak used): int8 tensor cores when both
//   activations and weights are <= 8-bit integers (W8A8, W4A8); fp8 when
//   activations are fp8 and weights fp8 or int4; otherwise the activations'
//   precision (weight-only quantization dequantizes in registers), or the
//   wider of the two when they differ in width.
// - A model that is already quantized (DequantizeLinear of an initializer,
//   QLinear* / *Integer ops, MatMulNBits, integer weights feeding a matrix
//   op) is read as it is: its stored bit widths are its cost. Asking for
//   --weights on it is an error.
#ifndef RIDGELINE_ENGINE_QUANTIZE_H_
#define RIDGELINE_ENGINE_QUANTIZE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/counter_registry.h"
#include "engine/hardware.h"
#include "engine/parallel/sharding.h"
#include "graph/graph.h"

namespace ridgeline::engine {

struct QuantizeOptions {
  std::string weights;            // "" (as stored) or int8|int4|fp8|fp16
  std::string activations;        // "" (as stored) or int8|fp8|fp16
  std::string kv_cache;           // "" (follows activations) or int8|fp8|fp16
  int64_t int4_group_size = 128;  // elements per int4 scale
  bool int4_zero_points = false;  // asymmetric int4: a 4-bit zero per group
  double scale_bytes = 2;         // bytes of one scale (fp16)

  bool any() const {
    return !weights.empty() || !activations.empty() || !kv_cache.empty();
  }
};

// "weights int4 (g128), activations fp16, kv-cache int8", or "as stored".
std::string QuantizeOptionsName(const QuantizeOptions& options);

// Checks the precision names and sizes, and that --weights is not asked of a
// model that is already quantized.
absl::Status ValidateQuantizeOptions(const graph::Graph& graph,
                                     const QuantizeOptions& options);

// True if the model is already quantized (see the header comment). `why`,
// when given, receives the first piece of evidence ("node 'x' is
// MatMulNBits").
bool IsQuantizedModel(const graph::Graph& graph, std::string* why = nullptr);

// The error for --weights on an already-quantized model.
absl::Status QuantizedModelError(const graph::Graph& graph);

// What a tensor is, for pricing.
enum class TensorRole { kWeight, kActivation, kKvCache, kOther };

// Tensors that hold the KV cache (see the header comment), by index.
std::vector<bool> FindKvCacheTensors(const graph::Graph& graph);

// Prices tensors at the precisions of a QuantizeOptions; tensors it leaves
// alone (integer tensors, biases, options not given) are priced by `base`
// (the model's dtypes when null).
class QuantizedPricer : public TensorPricer {
 public:
  QuantizedPricer(const graph::Graph& graph, QuantizeOptions options,
                  const TensorPricer* base = nullptr);

  double ElementBytes(const graph::Graph& graph,
                      const graph::Tensor& tensor) const override;

  TensorRole RoleOf(int tensor) const { return roles_[tensor]; }
  // What prices the tensors the options leave alone.
  const TensorPricer& base_pricer() const {
    return base_ != nullptr ? *base_ : dtype_pricer_;
  }
  const QuantizeOptions& options() const { return options_; }

 private:
  const graph::Graph& graph_;
  QuantizeOptions options_;
  const TensorPricer* base_;
  TensorPricer dtype_pricer_;
  std::vector<TensorRole> roles_;
  // Per tensor: bytes per element at the new precision including scales, or
  // a negative value to defer to `base`.
  std::vector<double> element_bytes_;
};

// The precision key whose peak the quantized math runs at (see the header
// comment). `model_precision` is the peak key of the unquantized analysis
// ("fp16", "fp32", ...), used for options that are not given.
std::string MathPrecision(const QuantizeOptions& options,
                          std::string_view model_precision);

// The options of the quantized run AnalyzeQuantized makes (and the serving
// search's weight-only rows, engine/serve.h): `base` re-pointed at a
// QuantizedPricer of `graph` (what `options` leave alone priced as `base`
// prices it: its pricer, else its --precision's re-pricing, else the model's
// dtypes), the math at MathPrecision(options, peak_before), and weight-only
// int8/int4 weights streamed at the runtime's weight_only factor.
// `peak_before` is the peak key of the as-stored analysis
// (assumptions.peak_precision). Error: the device has no peak for the math
// precision.
struct QuantizedRun {
  AnalyzeOptions options;  // points at `pricer`: keep it alive while used
  std::shared_ptr<const QuantizedPricer> pricer;
  std::string math_precision;
};
absl::StatusOr<QuantizedRun> QuantizedRunOptions(const graph::Graph& graph,
                                                 const Hardware& hardware,
                                                 const AnalyzeOptions& base,
                                                 const QuantizeOptions& options,
                                                 std::string_view peak_before);

// One layer before and after quantization (seconds, bytes).
struct QuantizedLayer {
  int node = -1;
  std::string name;
  std::string op_type;
  double bytes_before = 0;
  double bytes = 0;
  double weight_bytes_before = 0;
  double weight_bytes = 0;
  double latency_before_s = 0;
  double latency_s = 0;
  double saved_s = 0;
  Bound bound_before = Bound::kNone;
  Bound bound = Bound::kNone;
};

struct QuantizeResult {
  QuantizeOptions options;
  std::string math_precision;  // the peak key used after
  std::string peak_before;     // the peak key used before
  Analysis before;             // the model as stored (with the base options)
  Analysis after;              // re-priced; render it like any analysis
  // The pricer `after` was priced with (pass it to ApplyFusion).
  std::shared_ptr<const QuantizedPricer> pricer;
  std::vector<QuantizedLayer> layers;  // topological order, views left out
  double latency_before_s = 0;  // summary latencies (dispatch tax included)
  double latency_s = 0;
  double speedup = 1;
  // The latency split: roofline time (sum over layers of max(T_compute,
  // T_memory)) before and after, and the taxes (per-layer taxes + dispatch
  // tax), which quantization does not change. latency = roof + taxes.
  double roof_before_s = 0;
  double roof_s = 0;
  double taxes_s = 0;
  // Stored size of all weights (initializers and Constant outputs).
  double model_bytes_before = 0;
  double model_bytes = 0;
  // Weight bytes read by the layers, summed (a decode step streams them all);
  // one GPU's when sharded.
  double weight_traffic_before = 0;
  double weight_traffic = 0;
  // Bytes of KV-cache tensors read or written by the layers (approximated as
  // the sizes of KV tensors the layers touch); one GPU's when sharded: / (tp
  // x pp x ep), as --serve divides the cache (tp splits the KV heads, pp the
  // layers, ep the requests of the data-parallel attention).
  double kv_bytes_before = 0;
  double kv_bytes = 0;
  double capacity_bytes = 0;
  // weights + peak activations <= capacity (per GPU when sharded)
  bool fits_before = true;
  bool fits = true;
  // Sharded (--tp/--pp/--ep): GPUs, and one GPU's weights (on the most
  // loaded pipeline stage) before and after; `before`
  // and `after` are then sharded analyses, `layers` lists their collective
  // layers too (node -1, unchanged) and the latencies are one inference of
  // the sharded model.
  int gpus = 1;
  double weight_bytes_per_gpu_before = 0;
  double weight_bytes_per_gpu = 0;
  double collective_s = 0;  // the collectives' time, the same before/after
};

// Analyzes the graph as stored and quantized. `base` are the analyze options
// of the as-stored run (its `pricer` and `precision` are the starting point:
// the quantized run keeps `base.precision`'s re-pricing for what the options
// leave alone). Errors: invalid options, --weights on a quantized model, a
// device with no peak for the math precision. With `parallel` over more
// than one GPU, both analyses are sharded the same way (AnalyzeSharded):
// each GPU's share of the weights is re-priced, the collectives (all-reduces,
// pipeline sends, expert all-to-alls) keep their messages (activations as
// stored); --activations is then an error (it would change the precision of
// those messages, which is not modelled).
absl::StatusOr<QuantizeResult> AnalyzeQuantized(
    const graph::Graph& graph, const Hardware& hardware,
    const AnalyzeOptions& base, const QuantizeOptions& options,
    const ParallelOptions& parallel = {});

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_QUANTIZE_H_
