// A device description, loaded from JSON data (zoo/hardware/*.json or a
// user's --hw-file). No device numbers live in code.
#ifndef RIDGELINE_ENGINE_HARDWARE_H_
#define RIDGELINE_ENGINE_HARDWARE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"

namespace ridgeline::engine {

struct Hardware {
  std::string key;   // canonical lower-case key, e.g. "h100-sxm"
  std::string name;  // display name, e.g. "NVIDIA H100 SXM5 80GB"
  std::vector<std::string> aliases;  // lower-case, e.g. {"h100"}
  // Dense peak FLOP/s (or OP/s for integer types) per precision key:
  // "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "int8", "int4".
  absl::flat_hash_map<std::string, double> peak_flops_per_s;
  double memory_bandwidth_bytes_per_s = 0;
  double memory_capacity_bytes = 0;
  double tdp_w = 0;
  // Once-per-inference launch/dispatch cost.
  double dispatch_tax_s = 0;
  // Where the numbers came from (datasheet title and URL or document).
  std::string source;
  // Optional per-op-type efficiencies (fitted by `analyze --fit`); when an op
  // type is present they replace the global efficiencies for that op.
  absl::flat_hash_map<std::string, double> compute_efficiency_by_op;
  absl::flat_hash_map<std::string, double> memory_efficiency_by_op;

  // Peak for `precision`; NotFound if the device does not list it.
  absl::StatusOr<double> PeakFlops(std::string_view precision) const;
};

// Parses one device from JSON text. `origin` (a file name) is used in errors.
absl::StatusOr<Hardware> ParseHardwareJson(std::string_view json,
                                           std::string_view origin);
// Reads and parses a --hw-file.
absl::StatusOr<Hardware> LoadHardwareFile(const std::string& path);
// Serializes in the same format ParseHardwareJson reads.
std::string HardwareToJson(const Hardware& hw);

// Finds a device by key, display name or alias, case-insensitively.
absl::StatusOr<Hardware> FindHardware(const std::vector<Hardware>& catalog,
                                      std::string_view name);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_HARDWARE_H_
