// Command-line options of `analyze` and their parser. Flags are rows of one
// table in options.cc (name, value, help, how to apply it), so a feature adds
// its flags there and the usage text follows.
//
//   absl::StatusOr<Options> o = ParseArgs({"m.onnx", "--hw", "h100"});
#ifndef RIDGELINE_TOOLS_ANALYZE_OPTIONS_H_
#define RIDGELINE_TOOLS_ANALYZE_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/parallel/sharding.h"
#include "engine/report/report.h"
#include "engine/sweep.h"
#include "importers/onnx_importer.h"

namespace ridgeline::tools::analyze {

// The largest --prompt, --generate and --concurrency (2^24).
inline constexpr int64_t kMaxServeCount = int64_t{1} << 24;

struct Options {
  bool help = false;           // -h, --help
  bool list_hw = false;        // --list-hw
  bool list_runtimes = false;  // --list-runtimes
  // --runtime NAME|FILE.json; empty: the device's default ("compiled" on a
  // GPU, "ort-cpu" on a CPU; "mlsysim" with --mlsysim).
  std::string runtime;
  std::string model_path;  // the positional MODEL.onnx
  // --hw NAME (key, display name or alias; case-insensitive). A list
  // "a,b" is parsed for later multi-device reports; analysis takes one.
  std::vector<std::string> hw;
  std::string hw_file;                                // --hw-file FILE.json
  std::optional<int64_t> batch;                       // --batch N
  std::vector<std::pair<std::string, int64_t>> dims;  // --dim NAME=VALUE...
  // --input NAME=D0xD1x...: every dim of one input.
  absl::flat_hash_map<std::string, std::vector<importers::InputDim>> inputs;
  // --input-value NAME=V[,V...]: values fed to the constant evaluator.
  absl::flat_hash_map<std::string, std::vector<double>> input_values;
  // --precision, --flops-per-mac, --efficiency, --memory-efficiency,
  // --layer-tax-us, --dispatch-tax-us. `analyze.batch` is set at run time.
  engine::AnalyzeOptions analyze;
  engine::report::ReportOptions report;  // --top, --all-layers
  engine::report::Format format = engine::report::Format::kTable;  // --format
  std::string output_path;  // -o FILE; empty = standard output
  // --format html|svg: a picture instead of `format` (which stays kTable).
  enum class Picture { kNone, kHtml, kSvg };
  Picture picture = Picture::kNone;

  // Zoo (zoo_mode.cc).
  bool list_zoo = false;  // --list-zoo
  std::string zoo;        // --zoo NAME: analyze a built-in entry
  // Whole model (whole_model_mode.cc).
  bool whole_model = false;  // --whole-model
  bool mlsysim = false;      // --mlsysim (implies --whole-model)
  // Sweeps (sweep_mode.cc): "batch=LIST" or "hw=A,B".
  std::string sweep;
  // What-ifs (whatif_mode.cc). Empty = not asked.
  std::string fuse;          // --fuse KINDS
  std::string weights;       // --weights P
  std::string activations;   // --activations P
  std::string kv_cache;      // --kv-cache P
  int64_t int4_group = 128;  // --int4-group N: elements per int4 scale
  bool what_if = false;      // --what-if
  // Measured (measured_mode.cc).
  std::string measured_path;  // --measured PROFILE.json
  bool fit = false;           // --fit
  std::string fit_out;        // --fit-out FILE.json
  int64_t skip_runs = 0;      // --skip-runs N: warm-up runs left out
  // Serving (serve_mode.cc). The numbers are kept as typed and checked by
  // the mode, so a bad value is an input error (exit 2) naming the model.
  bool serve = false;  // --serve
  // --serve's counts, each in [1, kMaxServeCount] (checked when parsed).
  std::optional<int64_t> prompt;           // --prompt N
  std::optional<int64_t> generate;         // --generate M
  std::optional<int64_t> concurrency;      // --concurrency B (default 1)
  std::string kv_dim;                      // --kv-dim NAME: the past-length dim
  std::optional<double> usd_per_gpu_hour;  // --usd-per-gpu-hour P (> 0)
  bool search = false;             // --search: tp x concurrency vs targets
  std::optional<double> ttft_max;  // --ttft-max S (seconds > 0)
  std::optional<double> tpot_max;  // --tpot-max S (seconds > 0)
  // Multi-GPU (run.cc, serve_mode.cc): --tp, --pp, --microbatches.
  engine::ParallelOptions parallel;
};

// Parses the arguments after the program name. Errors are usage errors
// (unknown flag, missing or malformed value, no model, no --hw); their
// message names the flag.
absl::StatusOr<Options> ParseArgs(const std::vector<std::string>& args);

// A --sweep value parsed (engine::ParseSweepSpec); its error reads
// "--sweep: invalid value 'V': why".
absl::StatusOr<engine::SweepSpec> ParseSweepFlag(std::string_view value);

// The usage text, generated from the flag table.
std::string UsageText();

}  // namespace ridgeline::tools::analyze

#endif  // RIDGELINE_TOOLS_ANALYZE_OPTIONS_H_
