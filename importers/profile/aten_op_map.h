// Maps PyTorch aten operator names to the ONNX op type that torch.onnx.export
// usually produces for them, so that PyTorch traces can be matched to ONNX
// graphs by op type (see importers/profile/pytorch_trace.h).
#ifndef RIDGELINE_IMPORTERS_PROFILE_ATEN_OP_MAP_H_
#define RIDGELINE_IMPORTERS_PROFILE_ATEN_OP_MAP_H_

#include <optional>
#include <string_view>

namespace ridgeline::importers {

// "aten::conv2d" -> "Conv", "aten::relu_" -> "Relu" (a trailing "_" of the
// in-place variants is ignored). nullopt for ops with no single ONNX
// counterpart (aten::silu, aten::empty, ...). The mapping is approximate:
// torch.onnx may export one aten op as several ONNX nodes (nn.Linear on 3-D
// input becomes MatMul + Add), or fold it away (BatchNorm into Conv).
std::optional<std::string_view> OnnxOpForAten(std::string_view aten_name);

}  // namespace ridgeline::importers

#endif  // RIDGELINE_IMPORTERS_PROFILE_ATEN_OP_MAP_H_
