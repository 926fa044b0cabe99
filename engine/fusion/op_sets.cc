#include "engine/fusion/op_sets.h"

#include <string>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "engine/counters/common.h"

namespace ridgeline::engine::fusion {
namespace {

using OpSet = absl::flat_hash_set<std::string>;

constexpr std::string_view kMicrosoft = "com.microsoft";

bool IsDefaultDomain(const graph::Node& node) {
  return node.domain.empty() || node.domain == "ai.onnx";
}

bool IsMicrosoft(const graph::Node& node) { return node.domain == kMicrosoft; }

bool In(const OpSet& set, const graph::Node& node) {
  return set.contains(node.op_type);
}

// Unary activations and math, default domain.
const OpSet& UnaryOps() {
  static const OpSet* const kOps =
      new OpSet{"Abs",         "Neg",       "Exp",
                "Log",         "Sqrt",      "Reciprocal",
                "Relu",        "LeakyRelu", "Elu",
                "Selu",        "Celu",      "Sigmoid",
                "HardSigmoid", "HardSwish", "Tanh",
                "Erf",         "Gelu",      "Softplus",
                "Softsign",    "Mish",      "Clip",
                "Floor",       "Ceil",      "Round",
                "Sign",        "Sin",       "Cos",
                "Not",         "Cast",      "CastLike",
                "IsNaN",       "IsInf",     "ThresholdedRelu",
                "Shrink",      "Swish"};
  return *kOps;
}

// Binary / variadic / ternary elementwise ops with broadcasting.
const OpSet& BroadcastOps() {
  static const OpSet* const kOps =
      new OpSet{"Add",       "Sub",         "Mul",       "Div",
                "Pow",       "Max",         "Min",       "Sum",
                "Mean",      "Mod",         "PRelu",     "Equal",
                "Less",      "LessOrEqual", "Greater",   "GreaterOrEqual",
                "And",       "Or",          "Xor",       "Where",
                "BitShift",  "BitwiseAnd",  "BitwiseOr", "BitwiseXor",
                "BitwiseNot"};
  return *kOps;
}

// com.microsoft elementwise activations.
const OpSet& ContribElementwiseOps() {
  static const OpSet* const kOps =
      new OpSet{"FastGelu", "BiasGelu", "QuickGelu", "Gelu", "BiasAdd"};
  return *kOps;
}

const OpSet& NormOps() {
  static const OpSet* const kOps =
      new OpSet{"BatchNormalization", "LayerNormalization",
                "RMSNormalization",   "InstanceNormalization",
                "GroupNormalization", "Softmax",
                "LogSoftmax"};
  return *kOps;
}

const OpSet& ContribNormOps() {
  static const OpSet* const kOps = new OpSet{"SimplifiedLayerNormalization",
                                             "SkipLayerNormalization",
                                             "SkipSimplifiedLayerNormalization",
                                             "LayerNormalization",
                                             "GroupNorm",
                                             "SkipGroupNorm"};
  return *kOps;
}

const OpSet& ReduceOps() {
  static const OpSet* const kOps =
      new OpSet{"ReduceMean", "ReduceSum",       "ReduceMax",
                "ReduceMin",  "ReduceSumSquare", "ReduceL2",
                "ReduceL1",   "ReduceLogSumExp", "ReduceProd"};
  return *kOps;
}

const OpSet& QdqOps() {
  static const OpSet* const kOps =
      new OpSet{"QuantizeLinear", "DequantizeLinear"};
  return *kOps;
}

}  // namespace

bool IsPureView(const graph::Node& node) {
  static const OpSet* const kOps =
      new OpSet{"Reshape", "Squeeze", "Unsqueeze", "Flatten", "Identity"};
  return IsDefaultDomain(node) && In(*kOps, node);
}

bool ReadsShapeOnly(const graph::Node& node) {
  return IsDefaultDomain(node) &&
         (node.op_type == "Shape" || node.op_type == "Size");
}

bool IsEpilogueAnchor(const graph::Node& node) {
  static const OpSet* const kDefault =
      new OpSet{"Conv",        "ConvTranspose", "Gemm",        "MatMul",
                "QLinearConv", "QLinearMatMul", "ConvInteger", "MatMulInteger"};
  static const OpSet* const kContrib =
      new OpSet{"FusedMatMul", "MatMulNBits",          "QLinearConv",
                "FusedConv",   "MatMulIntegerToFloat", "DynamicQuantizeMatMul",
                "FusedGemm"};
  if (IsDefaultDomain(node)) return In(*kDefault, node);
  return IsMicrosoft(node) && In(*kContrib, node);
}

bool IsEpilogueOp(const graph::Node& node) {
  static const OpSet* const kOps = new OpSet{"Add",
                                             "Sub",
                                             "Mul",
                                             "Div",
                                             "BatchNormalization",
                                             "Relu",
                                             "LeakyRelu",
                                             "PRelu",
                                             "Elu",
                                             "Selu",
                                             "Celu",
                                             "Clip",
                                             "Sigmoid",
                                             "HardSigmoid",
                                             "HardSwish",
                                             "Tanh",
                                             "Gelu",
                                             "Erf",
                                             "Softplus",
                                             "Mish",
                                             "Swish",
                                             "Cast",
                                             "QuantizeLinear",
                                             "DequantizeLinear"};
  if (IsPureView(node)) return true;
  if (IsDefaultDomain(node)) return In(*kOps, node);
  return IsMicrosoft(node) &&
         (In(ContribElementwiseOps(), node) || In(QdqOps(), node));
}

bool IsElementwiseGroupOp(const graph::Node& node) {
  if (IsPureView(node)) return true;
  if (IsDefaultDomain(node)) {
    if (In(UnaryOps(), node) || In(BroadcastOps(), node) ||
        In(NormOps(), node) || In(QdqOps(), node) || node.op_type == "Expand" ||
        node.op_type == "Slice" || node.op_type == "Concat" ||
        node.op_type == "Transpose") {
      return true;
    }
    if (In(ReduceOps(), node)) return node.GetInt("keepdims", 1) != 0;
    return false;
  }
  return IsMicrosoft(node) &&
         (In(ContribElementwiseOps(), node) || In(ContribNormOps(), node) ||
          In(QdqOps(), node));
}

bool IsScoreOp(const graph::Node& node) {
  static const OpSet* const kOps =
      new OpSet{"Mul", "Div", "Add", "Sub", "Where", "Cast", "Tanh"};
  return IsDefaultDomain(node) && In(*kOps, node);
}

bool IsAttentionMatMul(const graph::Node& node) {
  if (IsDefaultDomain(node)) {
    // A two-operand Einsum ("bhid,bhjd->bhij", MaxViT's and many research
    // exports' attention) is a product too; the attention kernel takes its
    // GEMM shape from the counter, and none when it is not a batched GEMM.
    return node.op_type == "MatMul" ||
           (node.op_type == "Einsum" && node.inputs.size() == 2);
  }
  return IsMicrosoft(node) && node.op_type == "FusedMatMul";
}

bool IsContribAttention(const graph::Node& node) {
  static const OpSet* const kOps = new OpSet{"Attention",
                                             "QAttention",
                                             "MultiHeadAttention",
                                             "GroupQueryAttention",
                                             "PackedAttention",
                                             "PackedMultiHeadAttention",
                                             "DecoderMaskedMultiHeadAttention",
                                             "DecoderMaskedSelfAttention",
                                             "SparseAttention"};
  return IsMicrosoft(node) && In(*kOps, node);
}

bool IsDequantize(const graph::Node& node) {
  return (IsDefaultDomain(node) || IsMicrosoft(node)) &&
         node.op_type == "DequantizeLinear";
}

bool IsInferenceIdentity(const graph::Graph& graph, const graph::Node& node) {
  if (!IsDefaultDomain(node)) return false;
  if (node.op_type == "Identity") return true;
  return node.op_type == "Dropout" && counters::DropoutIsIdentity(graph, node);
}

bool IsAttentionLayoutOp(const graph::Node& node) {
  if (IsPureView(node)) return true;
  return IsDefaultDomain(node) &&
         (node.op_type == "Transpose" || node.op_type == "Expand" ||
          node.op_type == "Cast");
}

}  // namespace ridgeline::engine::fusion
