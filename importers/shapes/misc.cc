// Shape functions of recurrent ops (RNN, GRU, LSTM), Det, DFT, window
// generators, NonMaxSuppression and StringNormalizer.
#include <algorithm>
#include <string>

#include "fmt/format.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

// X [seq, batch, input] (layout 0) or [batch, seq, input] (layout 1).
// Y [seq, dirs, batch, hidden] or [batch, seq, dirs, hidden]; Y_h and Y_c
// [dirs, batch, hidden] or [batch, dirs, hidden].
absl::Status RecurrentShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  if (x.size() != 3) return Unresolved("recurrent input is not 3-D");
  const bool batch_first = ctx.node().GetInt("layout", 0) != 0;
  const int64_t seq = batch_first ? x[1] : x[0];
  const int64_t batch = batch_first ? x[0] : x[1];
  const int64_t dirs =
      ctx.node().GetString("direction", "forward") == "bidirectional" ? 2 : 1;
  int64_t hidden = ctx.node().GetInt("hidden_size", -1);
  if (hidden < 0) {
    // R is [dirs, gates * hidden, hidden].
    if (ctx.rank(2) != 3) return Unresolved("recurrent op has no hidden_size");
    hidden = ctx.dims(2)[2];
  }
  const DType dtype = ctx.dtype(0);
  ctx.Set(0, dtype,
          batch_first ? Dims{batch, seq, dirs, hidden}
                      : Dims{seq, dirs, batch, hidden});
  const Dims state =
      batch_first ? Dims{batch, dirs, hidden} : Dims{dirs, batch, hidden};
  ctx.Set(1, dtype, state);
  ctx.Set(2, dtype, state);
  return absl::OkStatus();
}

absl::Status DetShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  if (x.size() < 2) return Unresolved("Det input has rank below 2");
  ctx.Set(0, ctx.dtype(0), Dims(x.begin(), x.end() - 2));
  return absl::OkStatus();
}

// DFT: opset 17 has 'axis' as attribute (default 1), opset 20 as input 2
// (default -2); dft_length is input 1. The last dim becomes 2 (complex).
absl::Status DftShape(InferContext& ctx) {
  Dims out = ctx.dims(0);
  const int64_t rank = static_cast<int64_t>(out.size());
  int64_t axis = 1;
  if (ctx.opset() >= 20) {
    axis = -2;
    if (ctx.has_input(2)) {
      std::vector<int64_t> v;
      if (!ValuesAsInt(ctx, 2, &v) || v.size() != 1) {
        return ctx.DataDependent(2);
      }
      axis = v[0];
    }
  } else {
    axis = ctx.node().GetInt("axis", 1);
  }
  absl::StatusOr<int64_t> a = NormalizeAxis(axis, rank);
  if (!a.ok()) return a.status();
  if (*a == rank - 1) return Unresolved("DFT axis is the complex axis");
  int64_t length = out[*a];
  if (ctx.has_input(1)) {
    std::vector<int64_t> v;
    if (!ValuesAsInt(ctx, 1, &v) || v.size() != 1) return ctx.DataDependent(1);
    length = v[0];
  }
  const bool inverse = ctx.node().GetInt("inverse", 0) != 0;
  const bool onesided = ctx.node().GetInt("onesided", 0) != 0;
  out[*a] = onesided && !inverse ? length / 2 + 1 : length;
  out.back() = 2;
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

// HannWindow, HammingWindow, BlackmanWindow: [size] in output_datatype.
absl::Status WindowShape(InferContext& ctx) {
  const DType dtype = DTypeFromAttr(ctx.node().GetInt("output_datatype", 1));
  ctx.SetDType(0, dtype);
  std::vector<int64_t> size;
  if (!ValuesAsInt(ctx, 0, &size) || size.size() != 1) {
    return ctx.DataDependent(0);
  }
  ctx.Set(0, dtype, {size[0]});
  return absl::OkStatus();
}

// STFT (opset 17): signal [batch, length, 1|2], frame_step, window,
// frame_length. Output [batch, frames, bins, 2] with frames =
// floor((length - frame_length) / frame_step) + 1 and bins = frame_length / 2
// + 1 when onesided (the default), else frame_length.
absl::Status StftShape(InferContext& ctx) {
  const Dims& signal = ctx.dims(0);
  if (signal.size() != 3) return Unresolved("STFT signal is not 3-D");
  std::vector<int64_t> step, length;
  if (!ValuesAsInt(ctx, 1, &step) || step.size() != 1) {
    return ctx.DataDependent(1);
  }
  int64_t frame_length = -1;
  if (ctx.has_input(3)) {
    if (!ValuesAsInt(ctx, 3, &length) || length.size() != 1) {
      return ctx.DataDependent(3);
    }
    frame_length = length[0];
  } else if (ctx.has_input(2) && ctx.rank(2) == 1) {
    frame_length = ctx.dims(2)[0];
  } else {
    return Unresolved("STFT has neither window nor frame_length");
  }
  if (step[0] <= 0 || frame_length <= 0 || frame_length > signal[1]) {
    return Unresolved("STFT frame_step or frame_length out of range");
  }
  const int64_t frames = (signal[1] - frame_length) / step[0] + 1;
  const int64_t bins = ctx.node().GetInt("onesided", 1) != 0
                           ? frame_length / 2 + 1
                           : frame_length;
  ctx.Set(0, ctx.dtype(0), {signal[0], frames, bins, 2});
  return absl::OkStatus();
}

// MelWeightMatrix: [floor(dft_length / 2) + 1, num_mel_bins] in
// output_datatype (float32 by default).
absl::Status MelWeightMatrixShape(InferContext& ctx) {
  const DType dtype = DTypeFromAttr(ctx.node().GetInt("output_datatype", 1));
  ctx.SetDType(0, dtype);
  std::vector<int64_t> bins, dft;
  if (!ValuesAsInt(ctx, 0, &bins) || bins.size() != 1) {
    return ctx.DataDependent(0);
  }
  if (!ValuesAsInt(ctx, 1, &dft) || dft.size() != 1) {
    return ctx.DataDependent(1);
  }
  ctx.Set(0, dtype, {dft[0] / 2 + 1, bins[0]});
  return absl::OkStatus();
}

// Data-dependent: [selected, 3] (batch, class, box) with at most
// min(max_output_boxes_per_class, boxes) selected per batch and class.
absl::Status NonMaxSuppressionShape(InferContext& ctx) {
  ctx.SetDType(0, DType::kInt64);
  const Dims& boxes = ctx.dims(0);
  const Dims& scores = ctx.dims(1);
  if (boxes.size() != 3 || scores.size() != 3) {
    return Unresolved(
        "NonMaxSuppression needs boxes [batch, boxes, 4] and scores [batch, "
        "classes, boxes]");
  }
  int64_t per_class = boxes[1];
  if (ctx.has_input(2)) {
    if (const std::vector<int64_t>* max = ctx.ints(2);
        max != nullptr && max->size() == 1) {
      per_class = std::clamp<int64_t>((*max)[0], 0, per_class);
    }
  } else {
    per_class = 0;  // max_output_boxes_per_class defaults to 0: none kept
  }
  absl::StatusOr<int64_t> selected = graph::CheckedNumElements(
      {scores[0], scores[1], per_class}, "NonMaxSuppression's selection");
  if (!selected.ok())
    return Unresolved(std::string(selected.status().message()));
  ctx.SetUpperBound(0, DType::kInt64, {*selected, 3});
  return absl::OkStatus();
}

absl::Status StringNormalizerShape(InferContext& ctx) {
  ctx.SetDType(0, DType::kString);
  auto it = ctx.node().attributes.find("stopwords");
  const auto* stopwords =
      it == ctx.node().attributes.end()
          ? nullptr
          : std::get_if<std::vector<std::string>>(&it->second);
  if (stopwords == nullptr || stopwords->empty()) return SameAsInput(ctx);
  return Unresolved(
      "data-dependent: removing stop words changes the element count");
}

// Multinomial: [batch, sample_size] in 'dtype' (int32 by default).
absl::Status MultinomialShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  if (x.size() != 2) return Unresolved("Multinomial input is not 2-D");
  ctx.Set(0, DTypeFromAttr(ctx.node().GetInt("dtype", 6)),
          {x[0], ctx.node().GetInt("sample_size", 1)});
  return absl::OkStatus();
}

}  // namespace

void RegisterMiscShapes(ShapeRegistry* registry) {
  registry->Add(kOnnxDomain, "RNN", RecurrentShape);
  registry->Add(kOnnxDomain, "GRU", RecurrentShape);
  registry->Add(kOnnxDomain, "LSTM", RecurrentShape);
  registry->Add(kOnnxDomain, "Det", DetShape);
  registry->Add(kOnnxDomain, "DFT", DftShape);
  registry->Add(kOnnxDomain, "HannWindow", WindowShape);
  registry->Add(kOnnxDomain, "HammingWindow", WindowShape);
  registry->Add(kOnnxDomain, "BlackmanWindow", WindowShape);
  registry->Add(kOnnxDomain, "STFT", StftShape);
  registry->Add(kOnnxDomain, "MelWeightMatrix", MelWeightMatrixShape);
  registry->Add(kOnnxDomain, "NonMaxSuppression", NonMaxSuppressionShape);
  registry->Add(kOnnxDomain, "StringNormalizer", StringNormalizerShape);
  registry->Add(kOnnxDomain, "Multinomial", MultinomialShape);
}

}  // namespace ridgeline::importers::shapes
