// A pre-pass over the ONNX protobuf wire format that leaves the weights in
// the file (internal to importers/).
//
// The analysis needs the graph, the dims and the dtypes, never the weight
// bytes. CompactModelBytes walks the serialized ModelProto (graph, nodes,
// attributes, subgraphs, functions) without a protobuf parse and builds a
// compact copy in which every TensorProto holding more than
// kMaxKeptElements elements has its payload (raw_data and the typed data
// arrays) removed: the payload is skipped by its length, never read, so its
// pages of a mapped file are never touched. Such a tensor is marked
// data_location EXTERNAL with one external_data entry of key
// kSkippedPayloadKey (value "OFFSET:LENGTH" of the payload in the input), so
// the importer treats it like a weight whose values are unknown; it is not
// external data (no file is named or checked).
//
// Small tensors keep their data: the constant evaluator folds tensors of up
// to kMaxFoldedElements values (shape arithmetic, Resize scales).
//
// CompactModelFile does the same on an open file without mapping it: it reads
// the message structure with pread through a small reused window and seeks
// past the payloads, so neither the payloads nor the page-cache pages around
// them enter the process (a mapped file's read faults map whole page-cache
// folios, megabytes each, around a tensor header).
//
// The input is untrusted: every varint, length and nesting level is bounds
// checked; what the pre-pass cannot navigate is an error, what it does not
// need (unknown fields, groups, other messages) is copied as is and left to
// the protobuf parse.
#ifndef RIDGELINE_IMPORTERS_ONNX_WIRE_H_
#define RIDGELINE_IMPORTERS_ONNX_WIRE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {

// Tensors with more elements than this keep their payload in the file; it
// equals the constant evaluator's limit (importers/shapes/context.h).
inline constexpr int64_t kMaxKeptElements = 4096;

// Deepest message nesting the pre-pass follows (the protobuf parse's limit).
inline constexpr int kMaxWireDepth = 512;

// external_data key of a tensor whose payload was left in the file.
inline constexpr std::string_view kSkippedPayloadKey =
    "ridgeline.payload_in_model_file";

struct CompactModel {
  // The compact ModelProto; from CompactModelBytes empty when no payload
  // was skipped (then the input itself is to be parsed).
  std::string bytes;
  int64_t skipped_tensors = 0;
  int64_t skipped_bytes = 0;
  // Bytes CompactModelFile read from the file (the structure once to walk
  // it and once to copy it; the payloads not at all).
  int64_t read_bytes = 0;
};

// Builds the compact copy of a serialized ModelProto. Errors (malformed
// varints, lengths past the end, nesting deeper than kMaxWireDepth, bad wire
// types) say what is wrong and at which byte offset.
absl::StatusOr<CompactModel> CompactModelBytes(std::string_view bytes);

// How CompactModelFile reads.
struct WireReadOptions {
  // Files up to this size are read whole, in one read (no window).
  size_t whole_file_limit = size_t{64} << 10;
  // The window read where the walk lands after a skip, and its largest size
  // while the walk reads on.
  size_t min_window = size_t{4} << 10;
  size_t max_window = size_t{256} << 10;
};

// CompactModelBytes of the `size` bytes of the open file `fd`, read with
// pread (the file offset is not used). Unlike CompactModelBytes, `bytes` is
// always filled: it is the model to parse, compacted or not. A read error
// is a DataLossError naming the byte.
absl::StatusOr<CompactModel> CompactModelFile(
    int fd, size_t size, const WireReadOptions& options = WireReadOptions());

// True for a TensorProto whose payload CompactModelBytes left in the file.
bool HasSkippedPayload(const onnx::TensorProto& proto);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_ONNX_WIRE_H_
