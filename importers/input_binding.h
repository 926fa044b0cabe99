// Binds the main graph's inputs (internal to importers/): symbolic dims from
// --dim / --batch / --input, values from --input-value; settles the batch
// binding once (graph::BatchBinding) and checks that every binding matched
// something.
//
//   InputBinder binder(options);
//   absl::StatusOr<graph::Tensor> t = binder.Bind(input_proto, &floats);
//   ...
//   absl::Status s = binder.Finish(&graph);
#ifndef RIDGELINE_IMPORTERS_INPUT_BINDING_H_
#define RIDGELINE_IMPORTERS_INPUT_BINDING_H_

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "graph/graph.h"
#include "importers/onnx_importer.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {

class InputBinder {
 public:
  explicit InputBinder(const ImportOptions& options) : options_(options) {}

  // The tensor of one main-graph input (not an initializer). Floating
  // --input-value values go to *floats (empty otherwise); integer and bool
  // ones to the tensor's int_values.
  absl::StatusOr<graph::Tensor> Bind(const onnx::ValueInfoProto& input,
                                     std::vector<double>* floats);

  // After every input: an error for unbound dims and for --dim, --input and
  // --input-value entries that matched nothing; records graph->batch.
  absl::Status Finish(graph::Graph* graph);

 private:
  // The symbolic dim `name` at `site` (of the batch when `is_batch`,
  // IsBatchDim); returns its value if bound.
  std::optional<int64_t> BindSymbolic(const std::string& name,
                                      const std::string& site, bool is_batch);

  const ImportOptions& options_;
  std::vector<std::string> input_names_;
  // Symbolic dim name -> where it occurs ("input 'x' dim 0").
  std::map<std::string, std::vector<std::string>> symbolic_;
  // Unbound dim name -> inputs that carry it.
  std::map<std::string, std::vector<std::string>> unbound_;
  std::set<std::string> used_dims_;
  graph::BatchBinding batch_;
  std::optional<int64_t> batch_value_;
  std::optional<int64_t> static_batch_;  // dim 0 of the first rank >= 2 input
};

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_INPUT_BINDING_H_
