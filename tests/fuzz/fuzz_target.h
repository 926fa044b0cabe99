// The body of the fuzz target, shared by the libFuzzer program
// (tests/fuzz/import_fuzzer.cc) and the replay of stored crashes
// (tests/fuzz_regressions_test.cc), so that a stored input replays exactly the
// path that crashed. Header-only: the replay test links only project libs.
#ifndef RIDGELINE_TESTS_FUZZ_FUZZ_TARGET_H_
#define RIDGELINE_TESTS_FUZZ_FUZZ_TARGET_H_

#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"
#include "importers/onnx_wire.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::fuzz {

// Value bound to every symbolic dim of the graph inputs.
inline constexpr int64_t kSymbolicDimValue = 3;

// An H100-like device built in code (no zoo data needed).
inline const engine::Hardware& FuzzHardware() {
  static const auto* hw = [] {
    auto* h = new engine::Hardware();
    h->key = "fuzz-device";
    h->name = "fuzz device";
    h->peak_flops_per_s = {
        {"fp32", 60e12},  {"tf32", 400e12},  {"fp16", 900e12}, {"bf16", 900e12},
        {"fp8", 1800e12}, {"int8", 1800e12}, {"int4", 3600e12}};
    h->memory_bandwidth_bytes_per_s = 3e12;
    h->memory_capacity_bytes = 80e9;
    h->tdp_w = 700;
    h->dispatch_tax_s = 5e-6;
    // An L2, so that the default (size-aware) runtime runs the L2 residency
    // pass (engine/l2.h) on every fuzzed graph.
    h->l2_cache_bytes = 50.0 * 1024 * 1024;
    h->l2_partitions = 2;
    h->source = "built in code by tests/fuzz/fuzz_target.h";
    return h;
  }();
  return *hw;
}

// Binds every symbolic dim of the main graph's inputs (and the batch), so
// that models with dynamic axes reach shape resolution and analysis instead
// of stopping at "unbound symbolic dim".
inline importers::ImportOptions OptionsFor(std::string_view bytes) {
  importers::ImportOptions options;
  options.batch = 1;
  onnx::ModelProto model;
  if (bytes.size() <= static_cast<size_t>(INT_MAX) &&
      model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    for (const auto& input : model.graph().input()) {
      if (!input.type().has_tensor_type()) continue;
      for (const auto& dim : input.type().tensor_type().shape().dim()) {
        if (dim.has_dim_param()) {
          options.dims[dim.dim_param()] = kSymbolicDimValue;
        }
      }
    }
  }
  return options;
}

// The outcome of one input.
struct FuzzResult {
  bool imported = false;
  // Set when the import failed and its message does not start with the
  // display name (every error must name the file).
  bool unnamed_error = false;
  std::string error;  // the import error, if any
  // Set when reading the input as a file, through windows of a few bytes
  // (importers::CompactModelFile), gives another result than the pre-pass
  // over the bytes in memory (importers::CompactModelBytes).
  bool file_reader_differs = false;
};

// Whether CompactModelFile over `bytes` in an in-memory file agrees with
// CompactModelBytes: both fail, or both give the same model to parse.
inline bool FileReaderAgrees(std::string_view bytes) {
  const int fd = memfd_create("fuzz-input", MFD_CLOEXEC);
  if (fd < 0) return true;  // nothing to compare
  bool agrees = true;
  if (pwrite(fd, bytes.data(), bytes.size(), 0) ==
      static_cast<ssize_t>(bytes.size())) {
    absl::StatusOr<importers::CompactModel> memory =
        importers::CompactModelBytes(bytes);
    importers::WireReadOptions options;
    options.whole_file_limit = 0;
    options.min_window = 1;
    options.max_window = 1 + bytes.size() % 61;
    absl::StatusOr<importers::CompactModel> file =
        importers::CompactModelFile(fd, bytes.size(), options);
    if (memory.ok() != file.ok()) {
      agrees = false;
    } else if (memory.ok()) {
      agrees =
          file->bytes ==
          (memory->bytes.empty() ? bytes : std::string_view(memory->bytes));
    }
  }
  close(fd);
  return agrees;
}

// Imports `bytes` under `display_name` and, if that works, analyzes it at a
// precision picked from the input's size (so re-pricing paths run too).
inline FuzzResult RunFuzzTarget(std::string_view bytes,
                                std::string_view display_name) {
  FuzzResult result;
  result.file_reader_differs = !FileReaderAgrees(bytes);
  absl::StatusOr<graph::Graph> graph = importers::ImportOnnxBytes(
      bytes, display_name, "/nonexistent-fuzz-dir", OptionsFor(bytes));
  if (!graph.ok()) {
    result.error = std::string(MessageOf(graph.status()));
    result.unnamed_error =
        std::string_view(result.error).substr(0, display_name.size()) !=
        display_name;
    return result;
  }
  result.imported = true;
  static constexpr const char* kPrecisions[] = {"", "fp16", "int4", "fp8"};
  engine::AnalyzeOptions options;
  options.precision = kPrecisions[bytes.size() % 4];
  absl::StatusOr<engine::Analysis> analysis =
      engine::Analyze(*graph, FuzzHardware(), options);
  if (analysis.ok()) {
    volatile double sink = analysis->summary.latency_s;
    (void)sink;
  }
  return result;
}

}  // namespace ridgeline::fuzz

#endif  // RIDGELINE_TESTS_FUZZ_FUZZ_TARGET_H_
