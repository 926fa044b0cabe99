#include "engine/runtime.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <initializer_list>

#include "engine/entry_names.h"
#include "engine/json_fields.h"
#include "fmt/format.h"
#include "fmt/ranges.h"
#include "nlohmann/json.hpp"

namespace ridgeline::engine {
namespace {

using Json = nlohmann::json;

absl::StatusOr<double> Number(const Json& v, std::string_view origin,
                              std::string_view field, double max) {
  absl::StatusOr<double> x = JsonNumber(v, origin, field);
  if (!x.ok()) return x.status();
  if (!std::isfinite(*x) || *x < 0 || *x > max) {
    return FieldError(origin, field,
                      fmt::format("must be in [0, {}] (got {})", max, *x));
  }
  return *x;
}

absl::StatusOr<bool> Bool(const Json& v, std::string_view origin,
                          std::string_view field) {
  if (!v.is_boolean()) return FieldError(origin, field, "must be true/false");
  return v.get<bool>();
}

// A string naming one of two settings: true for `yes`, false for `no`.
absl::StatusOr<bool> Choice(const Json& v, std::string_view origin,
                            std::string_view field, std::string_view yes,
                            std::string_view no) {
  if (v.is_string() && v.get<std::string>() == yes) return true;
  if (v.is_string() && v.get<std::string>() == no) return false;
  return FieldError(origin, field,
                    fmt::format("must be \"{}\" or \"{}\"", yes, no));
}

// An object of numbers in [0, max] (or (0, max] when `positive`).
absl::Status NumberMap(const Json& v, std::string_view origin,
                       std::string_view field, double max, bool positive,
                       absl::flat_hash_map<std::string, double>* out) {
  if (!v.is_object()) return FieldError(origin, field, "must be an object");
  for (const auto& [k, x] : v.items()) {
    absl::StatusOr<double> f =
        Number(x, origin, fmt::format("{}.{}", field, k), max);
    if (!f.ok()) return f.status();
    if (positive && *f <= 0) {
      return FieldError(origin, fmt::format("{}.{}", field, k),
                        fmt::format("must be in (0, {}]", max));
    }
    (*out)[k] = *f;
  }
  return absl::OkStatus();
}

absl::Status FractionMap(const Json& v, std::string_view origin,
                         std::string_view field,
                         absl::flat_hash_map<std::string, double>* out) {
  return NumberMap(v, origin, field, 1, /*positive=*/true, out);
}

// The first key of a parsed map that is not `known`: "unknown weight
// precision (known: int8, int4)".
absl::Status KnownKeys(const absl::flat_hash_map<std::string, double>& map,
                       std::string_view origin, std::string_view field,
                       std::string_view what,
                       std::initializer_list<std::string_view> known) {
  for (const auto& [k, x] : map) {
    (void)x;
    if (std::find(known.begin(), known.end(), k) == known.end()) {
      return FieldError(
          origin, fmt::format("{}.{}", field, k),
          fmt::format("unknown {} (known: {})", what, fmt::join(known, ", ")));
    }
  }
  return absl::OkStatus();
}

constexpr double kMaxSeconds = 1.0;  // no per-kernel cost is a second
// Passes over an operand a host GEMM makes to stage it (pack, im2col).
constexpr double kMaxPasses = 16;

// One named number of an object-valued field, with its upper bound.
struct NumberField {
  const char* name;
  double* target;
  double max;
};

// Reads every field of `fields` (all required) from the object `v`; any
// other member is an error.
absl::Status ParseNumberObject(const Json& v, std::string_view origin,
                               std::string_view field,
                               std::initializer_list<NumberField> fields) {
  if (!v.is_object()) {
    return FieldError(origin, field, "must be an object");
  }
  for (const NumberField& f : fields) {
    const std::string path = fmt::format("{}.{}", field, f.name);
    if (!v.contains(f.name)) return FieldError(origin, path, "missing");
    absl::StatusOr<double> x = Number(v.at(f.name), origin, path, f.max);
    if (!x.ok()) return x.status();
    *f.target = *x;
  }
  for (const auto& item : v.items()) {
    const bool known =
        std::any_of(fields.begin(), fields.end(),
                    [&](const NumberField& f) { return item.key() == f.name; });
    if (!known) {
      return FieldError(origin, fmt::format("{}.{}", field, item.key()),
                        "unknown field");
    }
  }
  return absl::OkStatus();
}

absl::Status ParseHostGemm(const Json& v, std::string_view origin,
                           std::string_view field,
                           std::optional<HostGemmModel>* out) {
  HostGemmModel m;
  absl::Status s =
      ParseNumberObject(v, origin, field,
                        {{"matrix_efficiency", &m.matrix_efficiency, 1},
                         {"pack_passes", &m.pack_passes, kMaxPasses},
                         {"expansion_passes", &m.expansion_passes, kMaxPasses},
                         {"call_s", &m.call_s, kMaxSeconds},
                         {"row_call_s", &m.row_call_s, kMaxSeconds}});
  if (!s.ok()) return s;
  if (!(m.matrix_efficiency > 0) || m.matrix_efficiency > 1) {
    return FieldError(origin, fmt::format("{}.matrix_efficiency", field),
                      "must be in (0, 1]");
  }
  *out = m;
  return absl::OkStatus();
}

// No message a custom all-reduce takes is larger (1 TiB).
constexpr double kMaxMessageBytes = 1099511627776.0;

absl::Status ParseCustomAllReduce(const Json& v, std::string_view origin,
                                  std::string_view field,
                                  std::optional<CustomAllReduce>* out) {
  CustomAllReduce c;
  absl::Status s = ParseNumberObject(
      v, origin, field,
      {{"one_shot_max_bytes", &c.one_shot_max_bytes, kMaxMessageBytes},
       {"two_shot_max_bytes", &c.two_shot_max_bytes, kMaxMessageBytes},
       {"latency_s", &c.latency_s, kMaxSeconds}});
  if (!s.ok()) return s;
  *out = c;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Runtime> ParseRuntimeJson(std::string_view json,
                                         std::string_view origin) {
  absl::StatusOr<Json> parsed =
      ParseJsonObject(json, origin, "a runtime profile");
  if (!parsed.ok()) return parsed.status();
  const Json& j = *parsed;
  Runtime r;
  bool has_key = false, has_name = false;
  for (const auto& item : j.items()) {
    // Named copies: lambdas below cannot capture structured bindings in C++20
    // as clang 14 implements it.
    const std::string field = item.key();
    const Json& v = item.value();
    absl::Status s = absl::OkStatus();
    auto set_number = [&](double* out, double max) {
      absl::StatusOr<double> x = Number(v, origin, field, max);
      if (!x.ok()) return x.status();
      *out = *x;
      return absl::OkStatus();
    };
    auto set_bool = [&](bool* out) {
      absl::StatusOr<bool> x = Bool(v, origin, field);
      if (!x.ok()) return x.status();
      *out = *x;
      return absl::OkStatus();
    };
    auto set_choice = [&](std::string_view yes, std::string_view no,
                          bool* out) {
      absl::StatusOr<bool> x = Choice(v, origin, field, yes, no);
      if (!x.ok()) return x.status();
      *out = *x;
      return absl::OkStatus();
    };
    auto set_string = [&](std::string* out) {
      if (!v.is_string() || v.get<std::string>().empty()) {
        return FieldError(origin, field, "must be a non-empty string");
      }
      *out = v.get<std::string>();
      return absl::OkStatus();
    };
    if (field == "key") {
      s = set_string(&r.key);
      r.key = LowerAscii(r.key);
      has_key = true;
    } else if (field == "name") {
      s = set_string(&r.name);
      has_name = true;
    } else if (field == "summary") {
      s = set_string(&r.summary);
    } else if (field == "device") {
      s = set_string(&r.device);
      if (s.ok() && r.device != "gpu" && r.device != "cpu" &&
          r.device != "any") {
        s = FieldError(origin, field, "must be gpu, cpu or any");
      }
    } else if (field == "aliases") {
      if (!v.is_array()) {
        s = FieldError(origin, field, "must be an array of strings");
      } else {
        for (const Json& a : v) {
          if (!a.is_string() || a.get<std::string>().empty()) {
            s = FieldError(origin, field, "must be an array of strings");
            break;
          }
          r.aliases.push_back(LowerAscii(a.get<std::string>()));
        }
      }
    } else if (field == "fusion") {
      if (!v.is_array()) {
        s = FieldError(origin, field, "must be an array of fusion kinds");
      } else {
        std::string list;
        for (const Json& k : v) {
          if (!k.is_string()) {
            s = FieldError(origin, field, "must be an array of strings");
            break;
          }
          if (!list.empty()) list += ",";
          list += k.get<std::string>();
        }
        if (s.ok()) {
          absl::StatusOr<FusionKinds> kinds =
              ParseFusionKinds(list.empty() ? "none" : list);
          if (!kinds.ok()) {
            s = FieldError(origin, field,
                           "expected epilogue, elementwise, attention");
          } else {
            r.fusion = *kinds;
          }
        }
      }
    } else if (field == "fuse_sibling_gemms") {
      s = set_bool(&r.fuse_sibling_gemms);
    } else if (field == "kv_append_in_place") {
      s = set_bool(&r.kv_append_in_place);
    } else if (field == "attention_prologue_fused") {
      s = set_bool(&r.attention_prologue_fused);
    } else if (field == "host_shape_ops") {
      s = set_bool(&r.host_shape_ops);
    } else if (field == "strided_views") {
      s = set_bool(&r.strided_views);
    } else if (field == "tp_replicates_lm_head") {
      s = set_bool(&r.tp_replicates_lm_head);
    } else if (field == "dynamic_activation_quantization") {
      s = set_bool(&r.dynamic_activation_quantization);
    } else if (field == "efficiency_model") {
      s = set_choice("size-aware", "flat", &r.size_aware);
    } else if (field == "flat_compute_efficiency") {
      s = set_number(&r.flat_compute_efficiency, 1);
    } else if (field == "flat_memory_efficiency") {
      s = set_number(&r.flat_memory_efficiency, 1);
    } else if (field == "per_node_tax_s") {
      s = set_number(&r.per_node_tax_s, kMaxSeconds);
    } else if (field == "kernel_launch_s") {
      s = set_number(&r.kernel_launch_s, kMaxSeconds);
    } else if (field == "cuda_graphs") {
      s = set_bool(&r.cuda_graphs);
    } else if (field == "kernel_gap_s") {
      s = set_number(&r.kernel_gap_s, kMaxSeconds);
    } else if (field == "per_inference_s") {
      double x = 0;
      s = set_number(&x, kMaxSeconds);
      r.per_inference_s = x;
    } else if (field == "memory_efficiency_by_class") {
      s = FractionMap(v, origin, field, &r.memory_efficiency_by_class);
      if (s.ok()) {
        s = KnownKeys(r.memory_efficiency_by_class, origin, field, "class",
                      {"elementwise", "reduction", "movement"});
      }
    } else if (field == "weight_only_bandwidth") {
      s = FractionMap(v, origin, field, &r.weight_only_bandwidth);
      if (s.ok()) {
        s = KnownKeys(r.weight_only_bandwidth, origin, field,
                      "weight precision", {"int8", "int4"});
      }
    } else if (field == "weight_only_kernel_fixed_s") {
      s = NumberMap(v, origin, field, kMaxSeconds, /*positive=*/false,
                    &r.weight_only_kernel_fixed_s);
      if (s.ok()) {
        s = KnownKeys(r.weight_only_kernel_fixed_s, origin, field,
                      "weight precision", {"int8", "int4"});
      }
    } else if (field == "host_gemm") {
      s = ParseHostGemm(v, origin, field, &r.host_gemm);
    } else if (field == "prefill_chunk_tokens") {
      double x = 0;
      s = set_number(&x, 1e9);
      if (s.ok()) {
        absl::StatusOr<int64_t> tokens =
            WholeNumberField(x, 1, 1000000000, origin, field, "tokens");
        s = tokens.status();
        if (tokens.ok()) r.prefill_chunk_tokens = *tokens;
      }
    } else if (field == "kv_cache_free_memory_fraction") {
      s = set_number(&r.kv_cache_free_memory_fraction, 1);
      if (s.ok() && !(r.kv_cache_free_memory_fraction > 0)) {
        s = FieldError(origin, field, "must be in (0, 1]");
      }
    } else if (field == "prefill_logits") {
      s = set_choice("last", "all", &r.prefill_last_position_logits);
    } else if (field == "per_request_s") {
      s = set_number(&r.per_request_s, kMaxSeconds);
    } else if (field == "custom_all_reduce") {
      s = ParseCustomAllReduce(v, origin, field, &r.custom_all_reduce);
    } else if (field == "sources") {
      if (!v.is_object()) {
        s = FieldError(origin, field, "must be an object field -> citation");
      } else {
        for (const auto& [k, c] : v.items()) {
          if (!c.is_string()) {
            s = FieldError(origin, fmt::format("sources.{}", k),
                           "must be a string");
            break;
          }
          r.sources.emplace_back(k, c.get<std::string>());
        }
      }
    } else {
      s = FieldError(origin, field, "unknown field");
    }
    if (!s.ok()) return s;
  }
  if (!has_key) return FieldError(origin, "key", "missing");
  if (!has_name) return FieldError(origin, "name", "missing");
  if (r.device.empty()) r.device = "any";
  return r;
}

absl::StatusOr<Runtime> LoadRuntimeFile(const std::string& path) {
  absl::StatusOr<std::string> text = ReadDataFile(path, "runtime file");
  if (!text.ok()) return text.status();
  return ParseRuntimeJson(*text, path);
}

absl::StatusOr<Runtime> FindRuntime(const std::vector<Runtime>& catalog,
                                    std::string_view name) {
  std::vector<EntryNames> names;
  names.reserve(catalog.size());
  for (const Runtime& r : catalog) names.push_back({r.key, r.name, r.aliases});
  absl::StatusOr<size_t> i = MatchRuntimeName(names, name);
  if (!i.ok()) return i.status();
  return catalog[*i];
}

Runtime FlatRuntime(double compute_efficiency, double memory_efficiency,
                    double per_node_tax_s) {
  Runtime r;
  r.key = "flat";
  r.name = "flat roofline (mlsysim's per-layer formula)";
  r.device = "any";
  r.size_aware = false;
  r.host_shape_ops = false;
  r.flat_compute_efficiency = compute_efficiency;
  r.flat_memory_efficiency = memory_efficiency;
  r.per_node_tax_s = per_node_tax_s;
  return r;
}

}  // namespace ridgeline::engine
