// libFuzzer target over the whole model path: ImportOnnxBytes (protobuf parse,
// conversion, shape resolution, Graph::Finalize) and engine::Analyze on a
// device built in code (tests/fuzz/fuzz_target.h). Built only with
// -DRIDGELINE_FUZZ=ON and clang (tools/fuzz.sh), with ASan and UBSan, so any
// crash, memory error, leak or undefined behaviour (signed overflow in dim
// arithmetic, ...) stops the run and leaves the input in the artifacts dir.
//
// Besides "no crash", it checks one property of every import error: the
// message starts with the display name, so users learn which file is bad;
// and that reading the input as a file (importers::CompactModelFile, through
// windows of a few bytes) gives what the pre-pass over the bytes gives.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr std::string_view kDisplayName = "fuzz-input.onnx";
  const ridgeline::fuzz::FuzzResult result = ridgeline::fuzz::RunFuzzTarget(
      std::string_view(reinterpret_cast<const char*>(data), size),
      kDisplayName);
  if (result.unnamed_error) {
    std::fprintf(stderr, "import error does not name the file: %s\n",
                 result.error.c_str());
    std::abort();
  }
  if (result.file_reader_differs) {
    std::fprintf(stderr, "the file reader and the in-memory pre-pass differ\n");
    std::abort();
  }
  return 0;
}
