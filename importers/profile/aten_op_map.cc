#include "importers/profile/aten_op_map.h"

#include <string>

#include "absl/container/flat_hash_map.h"

namespace ridgeline::importers {
namespace {

// aten name (without "aten::" and without a trailing "_") -> ONNX op type.
const absl::flat_hash_map<std::string, std::string_view>& AtenTable() {
  static const auto* table =
      new absl::flat_hash_map<std::string, std::string_view>{
          // Convolutions and matrix products.
          {"conv1d", "Conv"},
          {"conv2d", "Conv"},
          {"conv3d", "Conv"},
          {"convolution", "Conv"},
          {"_convolution", "Conv"},
          {"mkldnn_convolution", "Conv"},
          {"cudnn_convolution", "Conv"},
          {"conv_transpose1d", "ConvTranspose"},
          {"conv_transpose2d", "ConvTranspose"},
          {"conv_transpose3d", "ConvTranspose"},
          {"linear", "Gemm"},
          {"addmm", "Gemm"},
          {"matmul", "MatMul"},
          {"mm", "MatMul"},
          {"bmm", "MatMul"},
          // Activations and elementwise math.
          {"relu", "Relu"},
          {"gelu", "Gelu"},
          {"sigmoid", "Sigmoid"},
          {"tanh", "Tanh"},
          {"hardswish", "HardSwish"},
          {"hardsigmoid", "HardSigmoid"},
          {"leaky_relu", "LeakyRelu"},
          {"elu", "Elu"},
          {"softplus", "Softplus"},
          {"clamp", "Clip"},
          {"hardtanh", "Clip"},
          {"erf", "Erf"},
          {"exp", "Exp"},
          {"log", "Log"},
          {"sqrt", "Sqrt"},
          {"neg", "Neg"},
          {"abs", "Abs"},
          {"pow", "Pow"},
          {"add", "Add"},
          {"sub", "Sub"},
          {"mul", "Mul"},
          {"div", "Div"},
          {"where", "Where"},
          // Pooling, normalization, softmax.
          {"max_pool1d", "MaxPool"},
          {"max_pool2d", "MaxPool"},
          {"max_pool3d", "MaxPool"},
          {"max_pool2d_with_indices", "MaxPool"},
          {"avg_pool1d", "AveragePool"},
          {"avg_pool2d", "AveragePool"},
          {"avg_pool3d", "AveragePool"},
          {"adaptive_avg_pool2d", "GlobalAveragePool"},
          {"adaptive_max_pool2d", "GlobalMaxPool"},
          {"batch_norm", "BatchNormalization"},
          {"native_batch_norm", "BatchNormalization"},
          {"layer_norm", "LayerNormalization"},
          {"group_norm", "GroupNormalization"},
          {"instance_norm", "InstanceNormalization"},
          {"softmax", "Softmax"},
          {"_softmax", "Softmax"},
          {"log_softmax", "LogSoftmax"},
          {"mean", "ReduceMean"},
          {"sum", "ReduceSum"},
          // Data movement and views.
          {"flatten", "Flatten"},
          {"reshape", "Reshape"},
          {"view", "Reshape"},
          {"squeeze", "Squeeze"},
          {"unsqueeze", "Unsqueeze"},
          {"transpose", "Transpose"},
          {"permute", "Transpose"},
          {"cat", "Concat"},
          {"concat", "Concat"},
          {"split", "Split"},
          {"slice", "Slice"},
          {"expand", "Expand"},
          {"embedding", "Gather"},
          {"index_select", "Gather"},
          {"constant_pad_nd", "Pad"},
          {"pad", "Pad"},
          {"upsample_nearest2d", "Resize"},
          {"upsample_bilinear2d", "Resize"},
      };
  return *table;
}

constexpr std::string_view kAtenPrefix = "aten::";

}  // namespace

std::optional<std::string_view> OnnxOpForAten(std::string_view aten_name) {
  if (aten_name.substr(0, kAtenPrefix.size()) != kAtenPrefix) {
    return std::nullopt;
  }
  std::string_view op = aten_name.substr(kAtenPrefix.size());
  // In-place variants ("relu_", "add_"), but not "_softmax" / "_convolution".
  if (op.size() > 1 && op.back() == '_') op.remove_suffix(1);
  const auto& table = AtenTable();
  auto it = table.find(std::string(op));
  if (it == table.end()) return std::nullopt;
  return it->second;
}

}  // namespace ridgeline::importers
