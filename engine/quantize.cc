#include "engine/quantize.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "engine/counters/common.h"
#include "engine/precision.h"
#include "engine/precision_pricer.h"
#include "fmt/format.h"
#include "graph/dtype.h"
#include "graph/fmt_absl.h"

namespace ridgeline::engine {
namespace {

constexpr std::string_view kWeightChoices[] = {"int8", "int4", "fp8", "fp16",
                                               "bf16"};
constexpr std::string_view kActivationChoices[] = {"int8", "fp8", "fp16",
                                                   "bf16"};

bool IsDefaultDomain(const graph::Node& node) {
  return node.domain.empty() || node.domain == "ai.onnx";
}

bool IsMatrixOp(const graph::Node& node) {
  static const absl::flat_hash_set<std::string>* const kOps =
      new absl::flat_hash_set<std::string>{
          "Conv",   "ConvTranspose", "Gemm",      "MatMul",   "Gather",
          "Einsum", "FusedMatMul",   "FusedConv", "FusedGemm"};
  return kOps->contains(node.op_type);
}

std::string Lower(std::string_view s) {
  std::string out(s);
  absl::AsciiStrToLower(&out);
  return out;
}

bool IsKvName(std::string_view name) {
  const std::string n = Lower(name);
  for (std::string_view prefix :
       {"past_key_values", "past_key", "past_value", "present", "past."}) {
    if (absl::StartsWith(n, absl::string_view(prefix.data(), prefix.size()))) {
      return true;
    }
  }
  for (std::string_view part : {"key_cache", "value_cache", "kv_cache"}) {
    if (absl::StrContains(n, absl::string_view(part.data(), part.size()))) {
      return true;
    }
  }
  return false;
}

// Positions of the past inputs and present outputs of com.microsoft
// attention ops (ONNX Runtime contrib op schemas).
struct KvSlots {
  std::vector<size_t> inputs;
  std::vector<size_t> outputs;
};
std::optional<KvSlots> ContribKvSlots(const graph::Node& node) {
  if (node.domain != "com.microsoft") return std::nullopt;
  if (node.op_type == "Attention") return KvSlots{{4}, {1}};
  if (node.op_type == "QAttention") return KvSlots{{8}, {1}};
  if (node.op_type == "MultiHeadAttention") return KvSlots{{6, 7}, {1, 2}};
  if (node.op_type == "GroupQueryAttention") return KvSlots{{3, 4}, {1, 2}};
  if (node.op_type == "DecoderMaskedMultiHeadAttention") {
    return KvSlots{{5, 6}, {1, 2}};
  }
  if (node.op_type == "DecoderMaskedSelfAttention") return KvSlots{{4}, {1}};
  return std::nullopt;
}

// Ops that carry the KV cache to the attention products unchanged in kind.
bool CarriesKv(const graph::Node& node) {
  static const absl::flat_hash_set<std::string>* const kOps =
      new absl::flat_hash_set<std::string>{
          "Concat",   "Reshape",   "Squeeze", "Unsqueeze", "Flatten",
          "Identity", "Transpose", "Expand",  "Cast",      "Slice"};
  return IsDefaultDomain(node) && kOps->contains(node.op_type);
}

bool OneOf(std::string_view value, std::span<const std::string_view> choices) {
  return std::find(choices.begin(), choices.end(), value) != choices.end();
}

double PrecisionBytes(std::string_view name) {
  const Precision* p = FindPrecision(name);
  return p != nullptr ? p->element_bytes : 0;
}

// Output channels of a weight: the dim that gets one int8 scale each.
double OutputChannels(const graph::Graph& graph, int tensor_index) {
  const graph::Tensor& t = graph.tensor(tensor_index);
  const graph::Dims& d = t.dims;
  if (d.empty()) return 1;
  for (int c : t.consumers) {
    const graph::Node& node = graph.node(c);
    if (!IsDefaultDomain(node) && node.domain != "com.microsoft") continue;
    if (node.op_type == "MatMul" || node.op_type == "FusedMatMul") {
      if (node.Input(1) == tensor_index) return static_cast<double>(d.back());
    } else if (node.op_type == "Gemm" || node.op_type == "FusedGemm") {
      if (node.Input(1) == tensor_index && d.size() == 2) {
        return static_cast<double>(node.GetInt("transB", 0) != 0 ? d[0] : d[1]);
      }
    } else if (node.op_type == "ConvTranspose") {
      if (d.size() >= 2) {
        return static_cast<double>(
            d[1] * std::max<int64_t>(1, node.GetInt("group", 1)));
      }
    }
  }
  return static_cast<double>(d[0]);
}

}  // namespace

std::string QuantizeOptionsName(const QuantizeOptions& options) {
  if (!options.any()) return "as stored";
  std::vector<std::string> parts;
  if (!options.weights.empty()) {
    parts.push_back(
        options.weights == "int4"
            ? fmt::format("weights int4 (g{})", options.int4_group_size)
            : fmt::format("weights {}", options.weights));
  }
  if (!options.activations.empty()) {
    parts.push_back(fmt::format("activations {}", options.activations));
  }
  if (!options.kv_cache.empty()) {
    parts.push_back(fmt::format("kv-cache {}", options.kv_cache));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

bool IsQuantizedModel(const graph::Graph& graph, std::string* why) {
  static const absl::flat_hash_set<std::string>* const kQuantizedOps =
      new absl::flat_hash_set<std::string>{"QLinearConv",
                                           "QLinearMatMul",
                                           "ConvInteger",
                                           "MatMulInteger",
                                           "MatMulNBits",
                                           "MatMulBnb4",
                                           "QGemm",
                                           "QAttention",
                                           "DynamicQuantizeMatMul",
                                           "MatMulIntegerToFloat",
                                           "GatherBlockQuantized",
                                           "QOrderedMatMul"};
  auto found = [&](std::string text) {
    if (why != nullptr) *why = std::move(text);
    return true;
  };
  for (const graph::Node& node : graph.nodes()) {
    if (kQuantizedOps->contains(node.op_type) &&
        (IsDefaultDomain(node) || node.domain == "com.microsoft")) {
      return found(fmt::format("node '{}' is {}", node.name, node.op_type));
    }
    if (node.op_type == "DequantizeLinear" && node.Input(0) >= 0 &&
        counters::IsWeight(graph, graph.tensor(node.Input(0)))) {
      return found(fmt::format(
          "node '{}' dequantizes the stored weight '{}' (QDQ model)", node.name,
          graph.tensor(node.Input(0)).name));
    }
  }
  for (size_t i = 0; i < graph.tensors().size(); ++i) {
    const graph::Tensor& t = graph.tensor(static_cast<int>(i));
    if (!graph.IsWeight(t) || t.dims.size() < 2) continue;
    const bool low_bit_int =
        t.dtype == graph::DType::kInt8 || t.dtype == graph::DType::kUInt8 ||
        t.dtype == graph::DType::kInt4 || t.dtype == graph::DType::kUInt4;
    const bool fp8 = t.dtype == graph::DType::kFloat8E4M3FN ||
                     t.dtype == graph::DType::kFloat8E4M3FNUZ ||
                     t.dtype == graph::DType::kFloat8E5M2 ||
                     t.dtype == graph::DType::kFloat8E5M2FNUZ;
    if (!low_bit_int && !fp8) continue;
    for (int c : t.consumers) {
      if (IsMatrixOp(graph.node(c))) {
        return found(fmt::format("weight '{}' is stored as {} and feeds '{}'",
                                 t.name, graph::DTypeName(t.dtype),
                                 graph.node(c).name));
      }
    }
  }
  return false;
}

absl::Status QuantizedModelError(const graph::Graph& graph) {
  std::string why;
  if (!IsQuantizedModel(graph, &why)) return absl::OkStatus();
  return absl::InvalidArgumentError(fmt::format(
      "--weights: the model is already quantized ({}); it is analyzed with "
      "its stored bit widths, so drop --weights",
      why));
}

absl::Status ValidateQuantizeOptions(const graph::Graph& graph,
                                     const QuantizeOptions& options) {
  if (!options.weights.empty() && !OneOf(options.weights, kWeightChoices)) {
    return absl::InvalidArgumentError(fmt::format(
        "--weights: unknown precision '{}' (expected int8|int4|fp8|fp16|bf16)",
        options.weights));
  }
  if (!options.activations.empty() &&
      !OneOf(options.activations, kActivationChoices)) {
    return absl::InvalidArgumentError(fmt::format(
        "--activations: unknown precision '{}' (expected int8|fp8|fp16|bf16)",
        options.activations));
  }
  if (!options.kv_cache.empty() &&
      !OneOf(options.kv_cache, kActivationChoices)) {
    return absl::InvalidArgumentError(fmt::format(
        "--kv-cache: unknown precision '{}' (expected int8|fp8|fp16|bf16)",
        options.kv_cache));
  }
  if (options.int4_group_size < 1) {
    return absl::InvalidArgumentError(fmt::format(
        "int4 group size must be >= 1 (got {})", options.int4_group_size));
  }
  if (!std::isfinite(options.scale_bytes) || options.scale_bytes < 0) {
    return absl::InvalidArgumentError(fmt::format(
        "scale size must be >= 0 bytes (got {})", options.scale_bytes));
  }
  if (!options.weights.empty()) return QuantizedModelError(graph);
  return absl::OkStatus();
}

std::vector<bool> FindKvCacheTensors(const graph::Graph& graph) {
  std::vector<bool> kv(graph.tensors().size(), false);
  std::vector<int> seeds;
  auto mark = [&](int t) {
    if (t >= 0 && !kv[t] && graph::IsFloating(graph.tensor(t).dtype)) {
      kv[t] = true;
      seeds.push_back(t);
    }
  };
  for (int t : graph.Inputs()) {
    if (IsKvName(graph.tensor(t).name)) mark(t);
  }
  for (int t : graph.outputs()) {
    if (IsKvName(graph.tensor(t).name)) mark(t);
  }
  for (const graph::Node& node : graph.nodes()) {
    if (std::optional<KvSlots> slots = ContribKvSlots(node)) {
      for (size_t i : slots->inputs) mark(node.Input(i));
      for (size_t i : slots->outputs) mark(node.Output(i));
    }
  }
  // From every KV tensor, carry the mark forward through the ops that move
  // it (the Concat that appends the new token, views, Transpose, the GQA
  // Expand) to the attention products.
  for (size_t i = 0; i < seeds.size(); ++i) {
    const graph::Tensor& t = graph.tensor(seeds[i]);
    for (int c : t.consumers) {
      const graph::Node& node = graph.node(c);
      if (!CarriesKv(node)) continue;
      for (int out : node.outputs) mark(out);
    }
  }
  return kv;
}

QuantizedPricer::QuantizedPricer(const graph::Graph& graph,
                                 QuantizeOptions options,
                                 const TensorPricer* base)
    : graph_(graph),
      options_(std::move(options)),
      base_(base),
      roles_(graph.tensors().size(), TensorRole::kOther),
      element_bytes_(graph.tensors().size(), -1) {
  const std::vector<bool> kv = FindKvCacheTensors(graph);
  const std::string& kv_precision =
      options_.kv_cache.empty() ? options_.activations : options_.kv_cache;
  for (size_t i = 0; i < graph.tensors().size(); ++i) {
    const int index = static_cast<int>(i);
    const graph::Tensor& t = graph.tensor(index);
    if (!graph::IsFloating(t.dtype)) continue;
    if (counters::IsWeight(graph, t)) {
      if (t.dims.size() < 2) continue;  // biases, norm scales: as stored
      roles_[i] = TensorRole::kWeight;
      if (options_.weights.empty() || !t.shape_known) continue;
      const double elements = static_cast<double>(t.NumElements());
      if (elements <= 0) {
        element_bytes_[i] = PrecisionBytes(options_.weights);
        continue;
      }
      const double channels = OutputChannels(graph, index);
      const double per_channel = elements / channels;
      if (options_.weights == "int8") {
        element_bytes_[i] = 1 + options_.scale_bytes * channels / elements;
      } else if (options_.weights == "int4") {
        const double groups =
            channels * std::ceil(per_channel /
                                 static_cast<double>(options_.int4_group_size));
        const double per_group =
            options_.scale_bytes + (options_.int4_zero_points ? 0.5 : 0);
        element_bytes_[i] = 0.5 + per_group * groups / elements;
      } else if (options_.weights == "fp8") {
        element_bytes_[i] = 1 + options_.scale_bytes / elements;
      } else {
        element_bytes_[i] = PrecisionBytes(options_.weights);
      }
    } else if (kv[i]) {
      roles_[i] = TensorRole::kKvCache;
      if (!kv_precision.empty()) {
        element_bytes_[i] = PrecisionBytes(kv_precision);
      }
    } else {
      roles_[i] = TensorRole::kActivation;
      if (!options_.activations.empty()) {
        element_bytes_[i] = PrecisionBytes(options_.activations);
      }
    }
  }
}

double QuantizedPricer::ElementBytes(const graph::Graph& graph,
                                     const graph::Tensor& tensor) const {
  if (&graph == &graph_ && !graph.tensors().empty()) {
    const graph::Tensor* first = graph.tensors().data();
    const ptrdiff_t index = &tensor - first;
    if (index >= 0 && index < static_cast<ptrdiff_t>(element_bytes_.size()) &&
        element_bytes_[index] >= 0) {
      return element_bytes_[index];
    }
  }
  return base_pricer().ElementBytes(graph, tensor);
}

std::string MathPrecision(const QuantizeOptions& options,
                          std::string_view model_precision) {
  const std::string act = options.activations.empty()
                              ? std::string(model_precision)
                              : options.activations;
  const std::string w =
      options.weights.empty() ? std::string(model_precision) : options.weights;
  if (act == "int8" && (w == "int8" || w == "int4")) return "int8";
  if (act == "fp8" && (w == "fp8" || w == "int4")) return "fp8";
  // Weight-only int4 is dequantized in registers to the activations' type.
  const std::string w_math = w == "int4" ? act : w;
  if (w_math == act) return act;
  const double act_bytes = PrecisionBytes(act);
  const double w_bytes = PrecisionBytes(w_math);
  if (w_bytes > act_bytes) return w_math;
  if (act_bytes > w_bytes) return act;
  // Same width, different kinds (int8 x fp8): no tensor core mixes them;
  // both are widened to fp16.
  if (act_bytes <= 1) return "fp16";
  return act;
}

absl::StatusOr<QuantizedRun> QuantizedRunOptions(const graph::Graph& graph,
                                                 const Hardware& hardware,
                                                 const AnalyzeOptions& base,
                                                 const QuantizeOptions& options,
                                                 std::string_view peak_before) {
  QuantizedRun run;
  // What the options leave alone is priced as the as-stored run priced it.
  std::optional<FloatRepricer> float_repricer;
  const TensorPricer* base_pricer = base.pricer;
  if (base_pricer == nullptr && !base.precision.empty()) {
    if (const Precision* p = FindPrecision(base.precision)) {
      float_repricer.emplace(*p);
      base_pricer = &*float_repricer;
    }
  }
  // The pricer outlives this call (QuantizedRun::pricer); it must not hold
  // the local FloatRepricer, so it gets its own copy.
  std::shared_ptr<const FloatRepricer> kept_base;
  if (float_repricer.has_value()) {
    kept_base = std::make_shared<const FloatRepricer>(*float_repricer);
    base_pricer = kept_base.get();
  }
  run.pricer = std::shared_ptr<const QuantizedPricer>(
      new QuantizedPricer(graph, options, base_pricer),
      [kept_base](const QuantizedPricer* p) { delete p; });
  run.math_precision = MathPrecision(options, peak_before);

  run.options = base;
  run.options.pricer = run.pricer.get();
  if (run.math_precision != peak_before) {
    run.options.precision = run.math_precision;
    if (absl::StatusOr<double> peak = hardware.PeakFlops(run.math_precision);
        !peak.ok()) {
      return absl::InvalidArgumentError(fmt::format(
          "{} runs its math at {}, which {} lists no peak for",
          QuantizeOptionsName(options), run.math_precision, hardware.name));
    }
  }
  // Weight-only: int8/int4 weights with the math at the activations' type.
  if ((options.weights == "int8" || options.weights == "int4") &&
      run.math_precision != "int8" && run.math_precision != "int4") {
    run.options.weight_only = options.weights;
  }
  return run;
}

absl::StatusOr<QuantizeResult> AnalyzeQuantized(
    const graph::Graph& graph, const Hardware& hardware,
    const AnalyzeOptions& base, const QuantizeOptions& options,
    const ParallelOptions& parallel) {
  if (absl::Status s = ValidateQuantizeOptions(graph, options); !s.ok()) {
    return s;
  }
  const bool sharded = parallel.gpus() > 1;
  if (sharded && !options.activations.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "--activations {} with {}: only weight and KV-cache quantization "
        "are sharded (quantized activations would change the messages of the "
        "all-reduces, pipeline sends and expert all-to-alls, which is not "
        "modelled)",
        options.activations, LayoutFlags(parallel)));
  }
  QuantizeResult result;
  result.options = options;
  absl::StatusOr<Analysis> before =
      AnalyzeSharded(graph, hardware, base, parallel);
  if (!before.ok()) return before.status();
  result.before = *std::move(before);
  result.peak_before = result.before.assumptions.peak_precision;

  absl::StatusOr<QuantizedRun> run =
      QuantizedRunOptions(graph, hardware, base, options, result.peak_before);
  if (!run.ok()) return run.status();
  result.pricer = run->pricer;
  const QuantizedPricer& pricer = *run->pricer;
  result.math_precision = run->math_precision;
  const AnalyzeOptions& after_options = run->options;
  // The same layout: the quantized model keeps the stages of the one it is
  // compared with (a balance by time could cut elsewhere).
  ParallelOptions same_layout = parallel;
  if (result.before.summary.parallel) {
    same_layout.pipeline_cut_nodes =
        result.before.summary.parallel->pipeline_cut_nodes;
  }
  absl::StatusOr<Analysis> after =
      AnalyzeSharded(graph, hardware, after_options, same_layout);
  if (!after.ok()) return after.status();
  result.after = *std::move(after);

  const std::vector<LayerResult>& lb = result.before.layers;
  const std::vector<LayerResult>& la = result.after.layers;
  if (lb.size() != la.size()) {
    return absl::InternalError("the two analyses list different layers");
  }
  // What the options leave alone, priced as the as-stored run priced it.
  const TensorPricer& before_pricer = pricer.base_pricer();
  for (size_t i = 0; i < lb.size(); ++i) {
    const LayerResult& b = lb[i];
    const LayerResult& a = la[i];
    if (b.node != a.node || b.name != a.name) {
      return absl::InternalError("the two analyses list different layers");
    }
    result.weight_traffic_before += b.cost.weight_bytes;
    result.weight_traffic += a.cost.weight_bytes;
    if (b.cost.view || b.skipped) continue;
    result.roof_before_s += std::max(b.t_compute_s, b.t_memory_s);
    result.roof_s += std::max(a.t_compute_s, a.t_memory_s);
    result.taxes_s += b.t_overhead_s;
    absl::flat_hash_set<int> seen;
    // Collective layers of a sharded analysis have no node (no KV tensor).
    for (const graph::IndexList* list :
         b.node >= 0
             ? std::vector<const graph::IndexList*>{&graph.node(b.node).inputs,
                                                    &graph.node(b.node).outputs}
             : std::vector<const graph::IndexList*>{}) {
      for (int t : *list) {
        if (t < 0 || pricer.RoleOf(t) != TensorRole::kKvCache ||
            !seen.insert(t).second) {
          continue;
        }
        result.kv_bytes_before +=
            before_pricer.TensorBytes(graph, graph.tensor(t));
        result.kv_bytes += pricer.TensorBytes(graph, graph.tensor(t));
      }
    }
    QuantizedLayer layer;
    layer.node = b.node;
    layer.name = b.name;
    layer.op_type = b.op_type;
    layer.bytes_before = b.bytes;
    layer.bytes = a.bytes;
    layer.weight_bytes_before = b.cost.weight_bytes;
    layer.weight_bytes = a.cost.weight_bytes;
    layer.latency_before_s = b.latency_s;
    layer.latency_s = a.latency_s;
    layer.saved_s = b.latency_s - a.latency_s;
    layer.bound_before = b.bound;
    layer.bound = a.bound;
    result.layers.push_back(std::move(layer));
  }
  result.taxes_s += result.before.assumptions.dispatch_tax_s;
  result.latency_before_s = result.before.summary.latency_s;
  result.latency_s = result.after.summary.latency_s;
  result.speedup =
      result.latency_s > 0 ? result.latency_before_s / result.latency_s : 1;
  for (const graph::Tensor& t : graph.tensors()) {
    if (!counters::IsWeight(graph, t)) continue;
    result.model_bytes_before += before_pricer.TensorBytes(graph, t);
    result.model_bytes += pricer.TensorBytes(graph, t);
  }
  result.capacity_bytes = hardware.memory_capacity_bytes;
  result.fits_before = result.before.summary.fits_in_memory;
  result.fits = result.after.summary.fits_in_memory;
  if (sharded) {
    // One GPU's cache: 1/tp of the KV heads, 1/pp of the layers, 1/ep of
    // the requests (as --serve's memory divides it).
    result.kv_bytes_before /= parallel.gpus();
    result.kv_bytes /= parallel.gpus();
    const ParallelSummary& pb = *result.before.summary.parallel;
    const ParallelSummary& pa = *result.after.summary.parallel;
    result.gpus = pa.gpus;
    result.weight_bytes_per_gpu_before = pb.weight_bytes_per_gpu;
    result.weight_bytes_per_gpu = pa.weight_bytes_per_gpu;
    result.collective_s = pa.collective_s;
    result.fits_before = pb.fits_in_memory_per_gpu;
    result.fits = pa.fits_in_memory_per_gpu;
  }
  return result;
}

}  // namespace ridgeline::engine
