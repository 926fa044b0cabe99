#include "engine/hardware.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/algorithm/container.h"
#include "engine/entry_names.h"
#include "engine/json_fields.h"
#include "engine/precision.h"
#include "engine/report/hardware_list.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {
namespace {

using Json = nlohmann::json;

constexpr std::string_view kKnownFields[] = {
    "key",
    "name",
    "aliases",
    "peak_flops_per_s",
    "memory_bandwidth_bytes_per_s",
    "memory_capacity_bytes",
    "tdp_w",
    "dispatch_tax_s",
    "l2_cache_bytes",
    "l2_partitions",
    "source",
    "compute_efficiency_by_op",
    "memory_efficiency_by_op",
    "kernel_model",
    "interconnect",
};

absl::StatusOr<std::string> RequiredString(const Json& j,
                                           std::string_view origin,
                                           std::string_view field) {
  auto it = j.find(std::string(field));
  if (it == j.end()) return FieldError(origin, field, "missing");
  if (!it->is_string() || it->get<std::string>().empty()) {
    return FieldError(origin, field, "must be a non-empty string");
  }
  return it->get<std::string>();
}

// A number that must be finite and > 0 (or >= 0 when `allow_zero`).
absl::StatusOr<double> NumberValue(const Json& v, std::string_view origin,
                                   std::string_view field, bool allow_zero) {
  absl::StatusOr<double> x = JsonNumber(v, origin, field);
  if (!x.ok()) return x.status();
  if (!std::isfinite(*x) || *x < 0 || (!allow_zero && *x == 0)) {
    return FieldError(
        origin, field,
        fmt::format("must be a {} finite number (got {})",
                    allow_zero ? "non-negative" : "positive", JsonForError(v)));
  }
  return *x;
}

absl::StatusOr<double> RequiredNumber(const Json& j, std::string_view origin,
                                      std::string_view field) {
  auto it = j.find(std::string(field));
  if (it == j.end()) return FieldError(origin, field, "missing");
  return NumberValue(*it, origin, field, /*allow_zero=*/false);
}

absl::Status ParseEfficiencyMap(const Json& j, std::string_view origin,
                                std::string_view field,
                                absl::flat_hash_map<std::string, double>* out) {
  auto it = j.find(std::string(field));
  if (it == j.end()) return absl::OkStatus();
  if (!it->is_object()) {
    return FieldError(origin, field,
                      "must be an object mapping op types to efficiencies");
  }
  for (const auto& [op, value] : it->items()) {
    absl::StatusOr<double> e =
        NumberValue(value, origin, fmt::format("{}.{}", field, op), false);
    if (!e.ok()) return e.status();
    (*out)[op] = *e;
  }
  return absl::OkStatus();
}

std::string KnownPeakKeys();

// kernel_model.matrix_by_precision: {"fp8": {"matrix_efficiency": 0.5,
// "kernel_fixed_s": 1.3e-05}, ...}.
absl::Status ParseMatrixByPrecision(
    const Json& j, std::string_view origin,
    absl::flat_hash_map<std::string, MatrixPrecisionConstants>* out) {
  constexpr std::string_view kField = "kernel_model.matrix_by_precision";
  if (!j.is_object()) {
    return FieldError(origin, kField,
                      "must be an object mapping precisions to constants");
  }
  for (const auto& [precision, entry] : j.items()) {
    const std::string field = fmt::format("{}.{}", kField, precision);
    if (FindPrecision(precision) == nullptr) {
      return FieldError(
          origin, field,
          fmt::format("unknown precision (known: {})", KnownPeakKeys()));
    }
    if (!entry.is_object()) {
      return FieldError(origin, field,
                        "must be an object (matrix_efficiency, "
                        "kernel_fixed_s, wave_quantization)");
    }
    MatrixPrecisionConstants c;
    for (const auto& [name, value] : entry.items()) {
      const std::string sub = fmt::format("{}.{}", field, name);
      const bool efficiency = name == "matrix_efficiency";
      const bool waves = name == "wave_quantization";
      if (!efficiency && !waves && name != "kernel_fixed_s") {
        return FieldError(origin, sub,
                          "unknown field (known: matrix_efficiency, "
                          "kernel_fixed_s, wave_quantization)");
      }
      absl::StatusOr<double> v =
          NumberValue(value, origin, sub, /*allow_zero=*/!efficiency);
      if (!v.ok()) return v.status();
      if (efficiency) {
        if (*v > 1) return FieldError(origin, sub, "must be in (0, 1]");
        c.matrix_efficiency = *v;
      } else if (waves) {
        if (*v > 1) return FieldError(origin, sub, "must be in [0, 1]");
        c.wave_quantization = *v;
      } else {
        c.kernel_fixed_s = *v;
      }
    }
    (*out)[precision] = c;
  }
  return absl::OkStatus();
}

// kernel_model.held: the base constants a fit keeps (a list of the names
// of the four it fits).
absl::Status ParseHeld(const Json& j, std::string_view origin,
                       std::vector<std::string>* out) {
  constexpr std::string_view kField = "kernel_model.held";
  std::vector<std::string_view> names;
  for (const KernelModel::FittedConstant& c : KernelModel::FittedConstants()) {
    names.push_back(c.name);
  }
  const std::string known = fmt::format("{}", fmt::join(names, ", "));
  if (!j.is_array()) {
    return FieldError(origin, kField,
                      fmt::format("must be a list of names ({})", known));
  }
  for (const Json& v : j) {
    const std::string name = v.is_string() ? v.get<std::string>() : "";
    if (!absl::c_linear_search(names, name)) {
      return FieldError(origin, kField,
                        fmt::format("unknown constant (known: {})", known));
    }
    out->push_back(name);
  }
  return absl::OkStatus();
}

absl::Status ParseKernelModel(const Json& j, std::string_view origin,
                              KernelModel* out) {
  auto it = j.find("kernel_model");
  if (it == j.end()) return absl::OkStatus();
  if (!it->is_object()) {
    return FieldError(origin, "kernel_model", "must be an object");
  }
  // Every value is a non-negative number; a fraction is in (0, 1], a unit
  // value (an exponent) in [0, 1].
  enum class Range { kAny, kFraction, kUnit };
  struct Field {
    const char* name;
    double* value;
    Range range;
  };
  double units = 0;
  double attention_memory_efficiency = 0;  // 0: not given
  double attention_kernel_fixed_s = -1;    // < 0: not given
  double attention_block_s = -1;           // < 0: not given
  const Field fields[] = {
      {"compute_units", &units, Range::kAny},
      {"matrix_efficiency", &out->matrix_efficiency, Range::kFraction},
      {"memory_efficiency", &out->memory_efficiency, Range::kFraction},
      {"kernel_fixed_s", &out->kernel_fixed_s, Range::kAny},
      {"memory_kernel_fixed_s", &out->memory_kernel_fixed_s, Range::kAny},
      {"matrix_overlap", &out->matrix_overlap, Range::kFraction},
      {"attention_efficiency", &out->attention_efficiency, Range::kFraction},
      {"attention_kv_overhead", &out->attention_kv_overhead, Range::kAny},
      {"attention_exp_per_s", &out->attention_exp_per_s, Range::kAny},
      {"attention_exp_overlap", &out->attention_exp_overlap, Range::kUnit},
      {"attention_memory_efficiency", &attention_memory_efficiency,
       Range::kFraction},
      {"attention_kernel_fixed_s", &attention_kernel_fixed_s, Range::kAny},
      {"attention_block_s", &attention_block_s, Range::kAny},
      {"wave_quantization", &out->wave_quantization, Range::kUnit},
      {"matrix_k_overhead", &out->matrix_k_overhead, Range::kAny},
      {"sustained_matrix_fraction", &out->sustained_matrix_fraction,
       Range::kFraction},
      {"vector_flops_per_s", &out->vector_flops_per_s, Range::kAny},
  };
  for (const auto& [name, value] : it->items()) {
    const std::string field = fmt::format("kernel_model.{}", name);
    if (name == "matrix_by_precision") {
      if (absl::Status st =
              ParseMatrixByPrecision(value, origin, &out->matrix_by_precision);
          !st.ok()) {
        return st;
      }
      continue;
    }
    if (name == "source") {
      if (!value.is_string()) return FieldError(origin, field, "not a string");
      out->source = value.get<std::string>();
      continue;
    }
    if (name == "held") {
      if (absl::Status st = ParseHeld(value, origin, &out->held); !st.ok()) {
        return st;
      }
      continue;
    }
    const Field* f = nullptr;
    for (const Field& candidate : fields) {
      if (name == candidate.name) f = &candidate;
    }
    if (f == nullptr) {
      std::vector<std::string_view> known;
      for (const Field& candidate : fields) known.push_back(candidate.name);
      for (std::string_view other : {"matrix_by_precision", "held", "source"}) {
        known.push_back(other);
      }
      return FieldError(
          origin, field,
          fmt::format("unknown field (known: {})", fmt::join(known, ", ")));
    }
    absl::StatusOr<double> v =
        NumberValue(value, origin, field, /*allow_zero=*/true);
    if (!v.ok()) return v.status();
    if (f->range == Range::kFraction && !(*v > 0 && *v <= 1)) {
      return FieldError(origin, field, "must be in (0, 1]");
    }
    if (f->range == Range::kUnit && !(*v <= 1)) {
      return FieldError(origin, field, "must be in [0, 1]");
    }
    *f->value = *v;
  }
  absl::StatusOr<int64_t> whole_units = WholeNumberField(
      units, 0, 1000000, origin, "kernel_model.compute_units", "compute units");
  if (!whole_units.ok()) return whole_units.status();
  out->compute_units = static_cast<int>(*whole_units);
  if (attention_memory_efficiency > 0) {
    out->attention_memory_efficiency = attention_memory_efficiency;
  }
  if (attention_kernel_fixed_s >= 0) {
    out->attention_kernel_fixed_s = attention_kernel_fixed_s;
  }
  if (attention_block_s >= 0) out->attention_block_s = attention_block_s;
  out->fitted = true;
  return absl::OkStatus();
}

// A list of positive finite numbers, strictly ascending when `ascending`.
absl::StatusOr<std::vector<double>> NumberList(const Json& v,
                                               std::string_view origin,
                                               std::string_view field,
                                               bool ascending) {
  if (!v.is_array() || v.empty()) {
    return FieldError(origin, field, "must be a non-empty list of numbers");
  }
  std::vector<double> out;
  for (const Json& x : v) {
    absl::StatusOr<double> n =
        NumberValue(x, origin, field, /*allow_zero=*/false);
    if (!n.ok()) return n.status();
    if (ascending && !out.empty() && !(*n > out.back())) {
      return FieldError(origin, field, "must be strictly ascending");
    }
    out.push_back(*n);
  }
  return out;
}

// interconnect.measured_collectives: {"source": "...", "tables": [{"op":
// "all_reduce", "gpus": n, "bytes": [...], "seconds": [...]}, ...]}.
absl::Status ParseMeasuredCollectives(const Json& v, std::string_view origin,
                                      Interconnect* out) {
  constexpr std::string_view kField = "interconnect.measured_collectives";
  if (!v.is_object()) return FieldError(origin, kField, "must be an object");
  for (const auto& [name, value] : v.items()) {
    if (name != "source" && name != "tables") {
      return FieldError(origin, fmt::format("{}.{}", kField, name),
                        "unknown field (known: source, tables)");
    }
  }
  auto source = v.find("source");
  if (source == v.end() || !source->is_string() ||
      source->get<std::string>().empty()) {
    return FieldError(origin, fmt::format("{}.source", kField),
                      "missing (measured times need a source)");
  }
  out->measured_collectives_source = source->get<std::string>();
  auto tables = v.find("tables");
  if (tables == v.end() || !tables->is_array() || tables->empty()) {
    return FieldError(origin, fmt::format("{}.tables", kField),
                      "must be a non-empty list");
  }
  for (size_t i = 0; i < tables->size(); ++i) {
    const Json& t = (*tables)[i];
    const std::string field = fmt::format("{}.tables[{}]", kField, i);
    if (!t.is_object()) return FieldError(origin, field, "must be an object");
    for (const auto& [name, value] : t.items()) {
      if (name != "op" && name != "gpus" && name != "bytes" &&
          name != "seconds") {
        return FieldError(origin, fmt::format("{}.{}", field, name),
                          "unknown field (known: op, gpus, bytes, seconds)");
      }
    }
    MeasuredCollective m;
    auto op = t.find("op");
    if (op == t.end() || !op->is_string() ||
        std::find(std::begin(kMeasuredCollectiveOps),
                  std::end(kMeasuredCollectiveOps),
                  op->get<std::string>()) == std::end(kMeasuredCollectiveOps)) {
      return FieldError(origin, field + ".op",
                        fmt::format("must be one of {}",
                                    fmt::join(kMeasuredCollectiveOps, ", ")));
    }
    m.op = op->get<std::string>();
    auto gpus = t.find("gpus");
    if (gpus == t.end()) return FieldError(origin, field + ".gpus", "missing");
    absl::StatusOr<double> g =
        NumberValue(*gpus, origin, field + ".gpus", /*allow_zero=*/false);
    if (!g.ok()) return g.status();
    absl::StatusOr<int64_t> whole =
        WholeNumberField(*g, 2, 1000000, origin, field + ".gpus", "GPUs");
    if (!whole.ok()) return whole.status();
    m.gpus = static_cast<int>(*whole);
    if (out->MeasuredFor(m.op, m.gpus) != nullptr) {
      return FieldError(
          origin, field + ".gpus",
          fmt::format("{} on {} GPUs listed twice", m.op, m.gpus));
    }
    auto bytes = t.find("bytes");
    auto seconds = t.find("seconds");
    if (bytes == t.end() || seconds == t.end()) {
      return FieldError(origin, field, "needs both 'bytes' and 'seconds'");
    }
    absl::StatusOr<std::vector<double>> b =
        NumberList(*bytes, origin, field + ".bytes", /*ascending=*/true);
    if (!b.ok()) return b.status();
    absl::StatusOr<std::vector<double>> s =
        NumberList(*seconds, origin, field + ".seconds", /*ascending=*/false);
    if (!s.ok()) return s.status();
    if (b->size() != s->size()) {
      return FieldError(
          origin, field,
          fmt::format("lists {} sizes but {} times", b->size(), s->size()));
    }
    m.bytes = *std::move(b);
    m.seconds = *std::move(s);
    out->measured_collectives.push_back(std::move(m));
  }
  return absl::OkStatus();
}

absl::Status ParseInterconnect(const Json& j, std::string_view origin,
                               Interconnect* out) {
  auto it = j.find("interconnect");
  if (it == j.end()) return absl::OkStatus();
  if (!it->is_object()) {
    return FieldError(origin, "interconnect", "must be an object");
  }
  struct Field {
    const char* name;
    double* value;
  };
  double gpus = 1;
  const Field numbers[] = {
      {"intra_node_bandwidth_bytes_per_s",
       &out->intra_node_bandwidth_bytes_per_s},
      {"gpus_per_node", &gpus},
      {"intra_node_latency_s", &out->intra_node_latency_s},
      {"inter_node_bandwidth_bytes_per_s",
       &out->inter_node_bandwidth_bytes_per_s},
      {"inter_node_latency_s", &out->inter_node_latency_s},
      {"collective_launch_s", &out->collective_launch_s},
  };
  const std::pair<const char*, std::string*> strings[] = {
      {"intra_node", &out->intra_node},
      {"inter_node", &out->inter_node},
      {"source", &out->source},
  };
  for (const auto& [name, value] : it->items()) {
    const std::string field = fmt::format("interconnect.{}", name);
    if (name == "measured_collectives") {
      if (absl::Status s = ParseMeasuredCollectives(value, origin, out);
          !s.ok()) {
        return s;
      }
      continue;
    }
    bool done = false;
    for (const auto& [key, target] : strings) {
      if (name != key) continue;
      if (!value.is_string()) return FieldError(origin, field, "not a string");
      *target = value.get<std::string>();
      done = true;
    }
    for (const Field& f : numbers) {
      if (name != f.name) continue;
      absl::StatusOr<double> v =
          NumberValue(value, origin, field, /*allow_zero=*/true);
      if (!v.ok()) return v.status();
      *f.value = *v;
      done = true;
    }
    if (!done) {
      return FieldError(
          origin, field,
          "unknown field (known: intra_node, "
          "intra_node_bandwidth_bytes_per_s, gpus_per_node, "
          "intra_node_latency_s, inter_node, "
          "inter_node_bandwidth_bytes_per_s, inter_node_latency_s, "
          "collective_launch_s, measured_collectives, source)");
    }
  }
  absl::StatusOr<int64_t> whole_gpus = WholeNumberField(
      gpus, 1, 1000000, origin, "interconnect.gpus_per_node", "GPUs");
  if (!whole_gpus.ok()) return whole_gpus.status();
  out->gpus_per_node = static_cast<int>(*whole_gpus);
  for (const MeasuredCollective& m : out->measured_collectives) {
    if (m.gpus > out->gpus_per_node) {
      return FieldError(
          origin, "interconnect.measured_collectives",
          fmt::format("a table for {} GPUs, more than the {} GPUs of a node "
                      "(the tables are of one node)",
                      m.gpus, out->gpus_per_node));
    }
  }
  if (!(out->intra_node_bandwidth_bytes_per_s > 0) &&
      !(out->inter_node_bandwidth_bytes_per_s > 0)) {
    return FieldError(origin, "interconnect",
                      "gives neither intra_node_bandwidth_bytes_per_s nor "
                      "inter_node_bandwidth_bytes_per_s");
  }
  if (out->source.empty()) {
    return FieldError(origin, "interconnect.source",
                      "missing (every interconnect number needs a source)");
  }
  return absl::OkStatus();
}

std::string KnownPeakKeys() {
  std::string out;
  for (const Precision& p : kPrecisions) {
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out;
}

// The device's peak keys in kPrecisions order: "fp32, tf32, fp16".
std::string ListedPeaks(const Hardware& hw) {
  std::string out;
  for (const Precision& p : kPrecisions) {
    if (!hw.peak_flops_per_s.contains(std::string(p.name))) continue;
    if (!out.empty()) out += ", ";
    out += p.name;
  }
  return out.empty() ? "none" : out;
}

}  // namespace

std::span<const KernelModel::FittedConstant> KernelModel::FittedConstants() {
  static constexpr FittedConstant kConstants[] = {
      {"matrix_efficiency", &KernelModel::matrix_efficiency, 0.3, 1.0},
      {"memory_efficiency", &KernelModel::memory_efficiency, 0.3, 1.0},
      {"kernel_fixed_s", &KernelModel::kernel_fixed_s, 0.0, 20e-6},
      {"matrix_overlap", &KernelModel::matrix_overlap, 0.0, 1.0}};
  return kConstants;
}

KernelModel KernelModel::ForPrecision(std::string_view peak_precision) const {
  KernelModel m = *this;
  auto it = matrix_by_precision.find(std::string(peak_precision));
  if (it == matrix_by_precision.end()) return m;
  if (it->second.matrix_efficiency) {
    m.matrix_efficiency = *it->second.matrix_efficiency;
  }
  if (it->second.kernel_fixed_s) {
    m.matrix_kernel_fixed_s = *it->second.kernel_fixed_s;
  }
  if (it->second.wave_quantization) {
    m.wave_quantization = *it->second.wave_quantization;
  }
  return m;
}

const MeasuredCollective* Interconnect::MeasuredFor(std::string_view op,
                                                    int gpus) const {
  for (const MeasuredCollective& m : measured_collectives) {
    if (m.op == op && m.gpus == gpus) return &m;
  }
  return nullptr;
}

absl::StatusOr<double> Hardware::PeakFlops(std::string_view precision) const {
  auto it = peak_flops_per_s.find(std::string(precision));
  if (it == peak_flops_per_s.end()) {
    return absl::NotFoundError(
        fmt::format("hardware '{}' ({}) lists no {} peak (it lists: {})", name,
                    key, precision, ListedPeaks(*this)));
  }
  return it->second;
}

absl::StatusOr<Hardware> ParseHardwareJson(std::string_view json,
                                           std::string_view origin) {
  absl::StatusOr<Json> parsed =
      ParseJsonObject(json, origin, "a hardware entry");
  if (!parsed.ok()) return parsed.status();
  const Json& j = *parsed;
  for (const auto& [field, value] : j.items()) {
    (void)value;
    if (std::find(std::begin(kKnownFields), std::end(kKnownFields), field) ==
        std::end(kKnownFields)) {
      return FieldError(origin, field,
                        "unknown field (known: key, name, aliases, "
                        "peak_flops_per_s, memory_bandwidth_bytes_per_s, "
                        "memory_capacity_bytes, tdp_w, dispatch_tax_s, "
                        "l2_cache_bytes, l2_partitions, source, "
                        "compute_efficiency_by_op, memory_efficiency_by_op, "
                        "kernel_model, interconnect)");
    }
  }

  Hardware hw;
  absl::StatusOr<std::string> key = RequiredString(j, origin, "key");
  if (!key.ok()) return key.status();
  hw.key = LowerAscii(*key);
  absl::StatusOr<std::string> name = RequiredString(j, origin, "name");
  if (!name.ok()) return name.status();
  hw.name = *name;

  if (auto it = j.find("aliases"); it != j.end()) {
    if (!it->is_array()) {
      return FieldError(origin, "aliases", "must be an array of strings");
    }
    for (const Json& a : *it) {
      if (!a.is_string() || a.get<std::string>().empty()) {
        return FieldError(origin, "aliases",
                          "must be an array of non-empty strings");
      }
      hw.aliases.push_back(LowerAscii(a.get<std::string>()));
    }
  }

  auto peaks = j.find("peak_flops_per_s");
  if (peaks == j.end())
    return FieldError(origin, "peak_flops_per_s", "missing");
  if (!peaks->is_object() || peaks->empty()) {
    return FieldError(origin, "peak_flops_per_s",
                      "must be a non-empty object of precision -> FLOP/s");
  }
  for (const auto& [precision, value] : peaks->items()) {
    const std::string field = fmt::format("peak_flops_per_s.{}", precision);
    if (FindPrecision(precision) == nullptr) {
      return FieldError(origin, field,
                        fmt::format("unknown precision (known: {}); list "
                                    "dense peaks only, no sparsity figures",
                                    KnownPeakKeys()));
    }
    absl::StatusOr<double> v = NumberValue(value, origin, field, false);
    if (!v.ok()) return v.status();
    hw.peak_flops_per_s[precision] = *v;
  }

  absl::StatusOr<double> bw =
      RequiredNumber(j, origin, "memory_bandwidth_bytes_per_s");
  if (!bw.ok()) return bw.status();
  hw.memory_bandwidth_bytes_per_s = *bw;
  absl::StatusOr<double> cap =
      RequiredNumber(j, origin, "memory_capacity_bytes");
  if (!cap.ok()) return cap.status();
  hw.memory_capacity_bytes = *cap;

  // Optional non-negative numbers (tdp_w > 0 when given).
  for (const auto& [field, out, allow_zero] :
       {std::tuple<const char*, double*, bool>{"tdp_w", &hw.tdp_w, false},
        {"dispatch_tax_s", &hw.dispatch_tax_s, true},
        {"l2_cache_bytes", &hw.l2_cache_bytes, true}}) {
    auto it = j.find(field);
    if (it == j.end()) continue;
    absl::StatusOr<double> v = NumberValue(*it, origin, field, allow_zero);
    if (!v.ok()) return v.status();
    *out = *v;
  }
  if (auto it = j.find("l2_partitions"); it != j.end()) {
    absl::StatusOr<double> v =
        NumberValue(*it, origin, "l2_partitions", /*allow_zero=*/false);
    if (!v.ok()) return v.status();
    absl::StatusOr<int64_t> whole =
        WholeNumberField(*v, 1, 64, origin, "l2_partitions", "L2 partitions");
    if (!whole.ok()) return whole.status();
    hw.l2_partitions = static_cast<int>(*whole);
  }
  if (auto it = j.find("source"); it != j.end()) {
    if (!it->is_string())
      return FieldError(origin, "source", "must be a string");
    hw.source = it->get<std::string>();
  }
  if (absl::Status s = ParseEfficiencyMap(j, origin, "compute_efficiency_by_op",
                                          &hw.compute_efficiency_by_op);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseEfficiencyMap(j, origin, "memory_efficiency_by_op",
                                          &hw.memory_efficiency_by_op);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseKernelModel(j, origin, &hw.kernel_model); !s.ok()) {
    return s;
  }
  if (absl::Status s = ParseInterconnect(j, origin, &hw.interconnect);
      !s.ok()) {
    return s;
  }
  return hw;
}

absl::StatusOr<Hardware> LoadHardwareFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadDataFile(path, "hardware file");
  if (!text.ok()) return text.status();
  return ParseHardwareJson(*text, path);
}

std::string HardwareToJson(const Hardware& hw) {
  return report::HardwareJson(hw).dump(
             2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

absl::StatusOr<Hardware> FindHardware(const std::vector<Hardware>& catalog,
                                      std::string_view name) {
  std::vector<EntryNames> names;
  names.reserve(catalog.size());
  for (const Hardware& hw : catalog) {
    names.push_back({hw.key, hw.name, hw.aliases});
  }
  absl::StatusOr<size_t> i = MatchHardwareName(names, name);
  if (!i.ok()) return i.status();
  return catalog[*i];
}

}  // namespace ridgeline::engine
