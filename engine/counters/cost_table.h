// The one table of per-element FLOP costs used by every counter.
//
// Convention: the "normalized floating-point operations" of Hennessy &
// Patterson (Computer Architecture: A Quantitative Approach, after McMahon's
// Livermore Loops): add, subtract, multiply, compare, min/max, abs, negate,
// round and select cost 1; divide and square root cost 4; a transcendental
// function (exp, log, tanh, erf, sin, pow, ...) costs 8. Composite operators
// are costed by their textbook formula written with those primitives; the
// formula is next to each constant and in engine/counters/COUNTING.md.
//
// Why not onnx-tool's constants (exp 32, log 43, sqrt 24, div 4, tanh 38,
// Erf 0): those are x86 instruction-latency proxies. They make an
// elementwise exp cost 32x a ReLU, inflate the FLOPs of memory-bound layers
// by ~4x, and charge nothing for Erf (so Erf-GELU is under-costed). A
// documented, device-neutral convention is easier to check and to compare.
//
// Integer and boolean ops (comparisons, And, BitShift, ...) are counted with
// the same weights: they are ALU operations, reported with the FLOPs.
#ifndef RIDGELINE_ENGINE_COUNTERS_COST_TABLE_H_
#define RIDGELINE_ENGINE_COUNTERS_COST_TABLE_H_

#include <cmath>
#include <cstdint>
#include <string_view>

namespace ridgeline::engine::counters::cost {

// --- Primitives (FLOPs per operation) ---
inline constexpr double kAdd = 1;  // also sub, accumulate
inline constexpr double kMul = 1;
inline constexpr double kCmp = 1;  // compare, min, max, select
inline constexpr double kDiv = 4;
inline constexpr double kSqrt = 4;
inline constexpr double kTranscendental = 8;  // exp, log, tanh, erf, pow, sin

// --- Activations (per output element) ---
inline constexpr double kRelu = kCmp;              // max(x, 0)
inline constexpr double kLeakyRelu = kCmp + kMul;  // x<0 ? a*x : x
inline constexpr double kSigmoid = kTranscendental + kAdd + kDiv;  // 1/(1+e^-x)
inline constexpr double kTanh = kTranscendental;
inline constexpr double kErf = kTranscendental;
// x/2 * (1 + erf(x/sqrt2)): mul, erf, add, mul, mul.
inline constexpr double kGeluErf = kMul + kErf + kAdd + 2 * kMul;
// x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))): x^3 (2 mul), mul, add,
// mul, tanh, add, 2 mul.
inline constexpr double kGeluTanh =
    2 * kMul + kMul + kAdd + kMul + kTanh + kAdd + 2 * kMul;
inline constexpr double kQuickGelu = kMul + kSigmoid + kMul;  // x*sigmoid(a*x)
inline constexpr double kSilu = kSigmoid + kMul;              // x*sigmoid(x)
inline constexpr double kHardSigmoid = kMul + kAdd + 2 * kCmp;  // clamp(ax+b)
inline constexpr double kHardSwish = kHardSigmoid + kMul;
inline constexpr double kElu = kCmp + kTranscendental + kAdd + kMul;
inline constexpr double kSelu = kElu + kMul;
// max(0,x) + min(0, a*(exp(x/a)-1))
inline constexpr double kCelu =
    kCmp + kDiv + kTranscendental + kAdd + kMul + kCmp + kAdd;
inline constexpr double kSoftplus = kTranscendental + kAdd + kTranscendental;
inline constexpr double kSoftsign = kCmp + kAdd + kDiv;  // x/(1+|x|)
inline constexpr double kMish = kSoftplus + kTanh + kMul;
inline constexpr double kShrink = 2 * kCmp + kAdd;
inline constexpr double kClip = 2 * kCmp;
inline constexpr double kAffine = kMul + kAdd;              // RNN "Affine"
inline constexpr double kScaledTanh = kMul + kTanh + kMul;  // RNN

// --- Arithmetic (per output element) ---
inline constexpr double kMod = kDiv + kMul + kAdd;  // x - trunc(x/y)*y
inline constexpr double kQuantize = kMul + kAdd;  // x/scale (as *1/scale) + zp
inline constexpr double kDequantize = kAdd + kMul;  // (x - zp) * scale
// DynamicQuantizeLinear: running min and max (2) + quantize.
inline constexpr double kDynamicQuantize = 2 * kCmp + kQuantize;
// Quantized elementwise (QLinearAdd, ...): dequantize both inputs, op,
// requantize.
inline constexpr double kRequantize = kMul + kAdd;  // acc*scale + zp

// --- Softmax (per element of the input) ---
// max, sub, exp, sum, div.
inline constexpr double kSoftmax = kCmp + kAdd + kTranscendental + kAdd + kDiv;
// max, sub, exp, sum, sub; plus one log per row.
inline constexpr double kLogSoftmax =
    kCmp + kAdd + kTranscendental + kAdd + kAdd;
inline constexpr double kLogSoftmaxPerRow = kTranscendental;

// --- Normalizations (per element, plus per normalized row) ---
// BatchNormalization in inference: y = x*s + t with s = gamma/sqrt(var+eps)
// and t = beta - mean*s folded once per channel (the per-channel folding is
// not counted).
inline constexpr double kBatchNorm = kMul + kAdd;
// LayerNorm-style (mean and variance computed): per element sum for the mean,
// subtract mean, square, sum for the variance, multiply by 1/std, scale,
// shift (the shift only with a bias). Per row: mean and variance divides as
// multiplies by 1/n (2), add epsilon, sqrt, reciprocal.
inline constexpr double kMeanVarNormNoAffine = 5 * kAdd;  // sum,sub,sq,sum,mul
inline constexpr double kLayerNormScale = kMul;
inline constexpr double kLayerNormShift = kAdd;
inline constexpr double kMeanVarNormPerRow = 2 * kMul + kAdd + kSqrt + kDiv;
// RMS norms: per element square, sum, multiply by 1/rms, scale. Per row:
// multiply by 1/n, add epsilon, sqrt, reciprocal.
inline constexpr double kRmsNorm = 4 * kAdd;
inline constexpr double kRmsNormPerRow = kMul + kAdd + kSqrt + kDiv;
// LpNormalization: p=2 square+sum per element and a sqrt per row; p=1
// abs+sum; then a divide per element.
inline constexpr double kLpNorm = 2 * kAdd + kDiv;
inline constexpr double kLpNormPerRow = kSqrt;
// LRN per element: size squares and size adds, then (bias + a/size*sum)^beta
// (mul, add, pow) and a divide.
inline constexpr double kLrnBase = kMul + kAdd + kTranscendental + kDiv;

// --- Pooling and reductions ---
// Max/average pooling: one compare or add per kernel element per output;
// average adds one multiply by the precomputed 1/count per output.
inline constexpr double kPoolPerKernelElement = 1;
inline constexpr double kAveragePoolPerOutput = kMul;
// LpPool per kernel element |x|^p and add; per output the p-th root.
inline constexpr double kLpPoolPerKernelElement = kCmp + kTranscendental + kAdd;
inline constexpr double kLpPoolPerOutput = kTranscendental;
// Reductions, per input element.
inline constexpr double kReducePerInput = 1;          // Sum/Max/Min/Prod/Mean
inline constexpr double kReduceMeanPerOutput = kMul;  // * 1/n
inline constexpr double kReduceSquarePerInput = kMul + kAdd;  // L2, SumSquare
inline constexpr double kReduceL1PerInput = kCmp + kAdd;      // |x| + sum
inline constexpr double kReduceLogSumExpPerInput = kTranscendental + kAdd;
inline constexpr double kReduceLogPerOutput = kTranscendental;  // LogSum(Exp)
inline constexpr double kReduceL2PerOutput = kSqrt;

// --- Resize (per output element; k = number of axes actually resized) ---
// nearest: 0 (an index computation, no arithmetic on data).
// linear: separable, (2^k - 1) one-dimensional lerps a + w*(b-a) of 3 FLOPs.
inline constexpr double kLerp = kAdd + kMul + kAdd;
// cubic: separable 4-tap filters, (4^k - 1)/3 of them, 4 mul + 3 add each.
inline constexpr double kCubicTap4 = 4 * kMul + 3 * kAdd;
// Coefficients depend only on the output coordinate per axis and are not
// counted.
// Per output element over k interpolated axes (Resize, GridSample):
inline double LinearInterpolationFlops(int k) {
  return (std::pow(2.0, k) - 1) * kLerp;
}
inline double CubicInterpolationFlops(int k) {
  return (std::pow(4.0, k) - 1) / 3 * kCubicTap4;
}

// --- Sampling at computed coordinates (GridSample, RoiAlign) ---
// The interpolation per output element is Resize's (kLerp, kCubicTap4). Per
// sampled location and axis (shared by the channels), the coordinate: the
// ONNX GridSample unnormalization x = ((g + 1) * size - 1) / 2 (add, mul,
// sub, the halving folded into the constants) or, with align_corners,
// (g + 1) * (size - 1) / 2 (add, mul);
inline constexpr double kUnnormalize = kAdd + kMul + kAdd;
inline constexpr double kUnnormalizeAlignedCorners = kAdd + kMul;
// padding_mode border: clamp into [0, size - 1] (max, min); reflection:
// shift to the range's start, fold by the period (kMod), mirror the upper
// half (compare, sub), then clamp (PyTorch's reflect_coordinates followed by
// clip_coordinates);
inline constexpr double kClampCoordinate = 2 * kCmp;
inline constexpr double kReflectCoordinate =
    kAdd + kMod + kCmp + kAdd + kClampCoordinate;
// linear and cubic: the fraction t = x - floor(x) (floor, sub); cubic adds
// Keys' four weights (A = -0.75): w0 = ((A u - 5A) u + 8A) u - 4A with
// u = t + 1 (1 add, 3 mul, 3 add), w1 = ((A + 2) t - (A + 3)) t t + 1
// (3 mul, 2 add), w2 the same at 1 - t (1 more add), w3 = 1 - w0 - w1 - w2
// (3 adds): 21.
inline constexpr double kFraction = kCmp + kAdd;
inline constexpr double kCubicWeights = (kAdd + 3 * kMul + 3 * kAdd) +
                                        (3 * kMul + 2 * kAdd) +
                                        (kAdd + 3 * kMul + 2 * kAdd) + 3 * kAdd;
// RoiAlign, per box: scale its 4 corners (4 mul), the half-pixel shift
// (4 add), width and height (2 sub), at least 1 (2 max), the bin sizes
// (2 div).
inline constexpr double kRoiPerBox =
    4 * kMul + 4 * kAdd + 2 * kAdd + 2 * kCmp + 2 * kDiv;
// Per sample position of a bin (shared by the channels): per axis its
// coordinate start + (i + 0.5) * bin / s (mul, add), fraction (floor, sub)
// and 1 - t (sub); then the 4 tap weights (4 mul, hy * hx ...).
inline constexpr double kRoiSamplePosition =
    2 * (kMul + kAdd + kFraction + kAdd) + 4 * kMul;
// Per sample and channel: w1 v1 + w2 v2 + w3 v3 + w4 v4 (4 mul, 3 add).
inline constexpr double kBilinearWeightedSum = 4 * kMul + 3 * kAdd;
// sampling_ratio 0 lets each box choose ceil(box size / bins) samples per
// axis at run time; the count assumes 2, torchvision's MultiScaleRoIAlign
// default (torchvision/ops/poolers.py, sampling_ratio=2), and says so in the
// layer's note.
inline constexpr int64_t kRoiAdaptiveSamplingRatio = 2;

// --- Signal processing ---
// An N-point transform costs k N log2 N FLOPs, the convention of FFTW's
// benchmarks (benchFFT, www.fftw.org/speed/method.html): k = 5 for complex
// data (radix-2 Cooley-Tukey's count) and 2.5 for real data.
inline constexpr double kFftComplex = 5;
inline constexpr double kFftReal = 2.5;
// Hann and Hamming windows: a0 - a1 cos(2 pi n / N): the angle (mul), cos,
// mul, sub. Blackman: a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N).
inline constexpr double kCosineWindow = kMul + kTranscendental + kMul + kAdd;
inline constexpr double kBlackmanWindow =
    2 * (kMul + kTranscendental + kMul) + 2 * kAdd;
// MelWeightMatrix, per output element: the rising or falling edge of a
// triangle, (f - lower) / (center - lower) (sub, div), clamped at 0 and
// chosen (2 compares); per edge of the num_mel_bins + 2: its mel
// (lower + i * step: mul, add), back to hertz 700 (10^(m / 2595) - 1)
// (div, pow, sub, mul) and to a bin (mul by dft_length, div by the sample
// rate, floor); per node the mels of the lower and upper edges
// 2595 log10(1 + f / 700) (div, add, log, mul).
inline constexpr double kMelTriangle = kAdd + kDiv + 2 * kCmp;
inline constexpr double kMelEdge = (kMul + kAdd) +
                                   (kDiv + kTranscendental + kAdd + kMul) +
                                   (kMul + kDiv + kCmp);
inline constexpr double kHzToMel = kDiv + kAdd + kTranscendental + kMul;

// --- Random generators (per output element) ---
// The bit generator's integer work (Philox or another counter-based
// generator) is not counted; what is counted is the arithmetic on its
// uniform draws u: RandomUniform low + (high - low) u (mul, add); Bernoulli
// a compare of u with p; RandomNormal by Box-Muller, two normals from two
// draws: sqrt(-2 ln u1) (log, mul, sqrt) times cos and sin of 2 pi u2 (mul,
// cos, sin, 2 mul), halved per element, then mean + scale x (mul, add).
inline constexpr double kRandomUniform = kMul + kAdd;
inline constexpr double kBernoulli = kCmp;
inline constexpr double kRandomNormal =
    (kTranscendental + kMul + kSqrt + kMul + 2 * kTranscendental + 2 * kMul) /
        2 +
    kMul + kAdd;

// --- Attention (per score = one query-key pair of one head) ---
inline constexpr double kAttentionScale = kMul;  // * 1/sqrt(head_dim)
inline constexpr double kAttentionMask = kAdd;   // additive mask or bias
inline constexpr double kSoftcap = kDiv + kTanh + kMul;  // c*tanh(s/c)
// Rotary embedding per rotated element: x*cos + rot(x)*sin.
inline constexpr double kRotary = 2 * kMul + kAdd;

// --- Recurrent cells (per hidden unit per time step, besides the MACs) ---
// The gate activations are taken from the node (defaults: Sigmoid, Tanh,
// Tanh). LSTM cell: c = f*c + i*g (3), h = o*h(c) (1). GRU: r*(R h) (1),
// h = (1-z)*h~ + z*h (4).
inline constexpr double kLstmCellUpdate = 4;
inline constexpr double kGruCellUpdate = 5;

// --- Elementwise ops: FLOPs per output element, by (domain, op type) ---
struct ElementwiseCost {
  std::string_view domain;  // "" = ai.onnx
  std::string_view op;
  double flops;
};

// Ops whose whole cost is `flops` per output element (binary ops broadcast;
// the output element count is what is charged). Variadic Sum/Mean/Max/Min are
// counted separately: (inputs - 1) per output element, Mean + 1.
inline constexpr ElementwiseCost kElementwiseCosts[] = {
    // Unary arithmetic.
    {"", "Abs", kCmp},
    {"", "Neg", kAdd},
    {"", "Sign", kCmp},
    {"", "Floor", kCmp},
    {"", "Ceil", kCmp},
    {"", "Round", kCmp},
    {"", "Reciprocal", kDiv},
    {"", "Sqrt", kSqrt},
    {"", "Exp", kTranscendental},
    {"", "Log", kTranscendental},
    {"", "Sin", kTranscendental},
    {"", "Cos", kTranscendental},
    {"", "Tan", kTranscendental},
    {"", "Asin", kTranscendental},
    {"", "Acos", kTranscendental},
    {"", "Atan", kTranscendental},
    {"", "Sinh", kTranscendental},
    {"", "Cosh", kTranscendental},
    {"", "Asinh", kTranscendental},
    {"", "Acosh", kTranscendental},
    {"", "Atanh", kTranscendental},
    {"", "Erf", kErf},
    {"", "IsNaN", kCmp},
    {"", "IsInf", kCmp},
    // Binary arithmetic.
    {"", "Add", kAdd},
    {"", "Sub", kAdd},
    {"", "Mul", kMul},
    {"", "Div", kDiv},
    {"", "Pow", kTranscendental},
    {"", "Mod", kMod},
    {"", "BitShift", kCmp},
    {"", "BitwiseAnd", kCmp},
    {"", "BitwiseOr", kCmp},
    {"", "BitwiseXor", kCmp},
    {"", "BitwiseNot", kCmp},
    // Comparisons and logic.
    {"", "Equal", kCmp},
    {"", "Less", kCmp},
    {"", "LessOrEqual", kCmp},
    {"", "Greater", kCmp},
    {"", "GreaterOrEqual", kCmp},
    {"", "And", kCmp},
    {"", "Or", kCmp},
    {"", "Xor", kCmp},
    {"", "Not", kCmp},
    {"", "Where", kCmp},
    {"", "Clip", kClip},
    {"", "Trilu", kCmp},
    {"com.microsoft", "Trilu", kCmp},  // the contrib op before opset 14
    // Activations.
    {"", "Relu", kRelu},
    {"", "LeakyRelu", kLeakyRelu},
    {"", "PRelu", kLeakyRelu},
    {"", "ThresholdedRelu", kCmp},
    {"", "Sigmoid", kSigmoid},
    {"", "HardSigmoid", kHardSigmoid},
    {"", "HardSwish", kHardSwish},
    {"", "Swish", kQuickGelu},  // opset 24: x * sigmoid(alpha * x)
    {"", "Tanh", kTanh},
    {"", "Elu", kElu},
    {"", "Selu", kSelu},
    {"", "Celu", kCelu},
    {"", "Softplus", kSoftplus},
    {"", "Softsign", kSoftsign},
    {"", "Mish", kMish},
    {"", "Shrink", kShrink},
    // ONNX Gelu's approximate="tanh" form costs kGeluTanh (see elementwise.cc).
    {"", "Gelu", kGeluErf},
    // Conversions: no arithmetic, only bytes.
    {"", "Cast", 0},
    {"", "CastLike", 0},
    // Quantization (per element of the quantized/dequantized tensor).
    {"", "QuantizeLinear", kQuantize},
    {"", "DequantizeLinear", kDequantize},
    {"", "DynamicQuantizeLinear", kDynamicQuantize},
    // com.microsoft fused activations.
    {"com.microsoft", "Gelu", kGeluErf},
    {"com.microsoft", "BiasGelu", kAdd + kGeluErf},
    {"com.microsoft", "FastGelu", kGeluTanh},  // + 1 when the bias is given
    {"com.microsoft", "QuickGelu", kQuickGelu},
    // [.., 2D] + bias, split in halves: left * Gelu(right), erf GELU (2 bias
    // adds, GELU, mul) per output element.
    {"com.microsoft", "BiasSplitGelu", 2 * kAdd + kGeluErf + kMul},
    {"com.microsoft", "BiasAdd", 2 * kAdd},  // x + bias + skip
    {"com.microsoft", "QuantizeLinear", kQuantize},
    {"com.microsoft", "DequantizeLinear", kDequantize},
    {"com.microsoft", "QLinearAdd", 2 * kDequantize + kAdd + kRequantize},
    {"com.microsoft", "QLinearMul", 2 * kDequantize + kMul + kRequantize},
    {"com.microsoft", "QLinearSigmoid", kDequantize + kSigmoid + kRequantize},
    {"com.microsoft", "QLinearLeakyRelu",
     kDequantize + kLeakyRelu + kRequantize},
};

// The per-element cost of an activation named in an attribute (RNN
// "activations", FusedConv/FusedGemm "activation"); -1 when unknown.
// Matching is exact on the ONNX op name (e.g. "Tanh", "Sigmoid").
double ActivationCost(std::string_view name);

}  // namespace ridgeline::engine::counters::cost

#endif  // RIDGELINE_ENGINE_COUNTERS_COST_TABLE_H_
