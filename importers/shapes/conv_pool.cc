// Shape functions of convolutions, pooling, resizing and spatial sampling.
#include <algorithm>
#include <cmath>
#include <string>

#include "fmt/format.h"
#include "importers/shapes/registry.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers::shapes {
namespace {

using graph::Dims;
using graph::DType;

// Window geometry of a Conv/Pool node over `n` spatial dims.
struct Window {
  std::vector<int64_t> kernel, strides, dilations, pads;  // pads: 2n
  std::string auto_pad;
  bool ceil_mode = false;
};

absl::Status ReadWindow(const InferContext& ctx, size_t n,
                        std::vector<int64_t> kernel, Window* w) {
  const graph::Node& node = ctx.node();
  w->kernel = std::move(kernel);
  w->strides = node.GetInts("strides");
  w->dilations = node.GetInts("dilations");
  w->pads = node.GetInts("pads");
  w->auto_pad = node.GetString("auto_pad", "NOTSET");
  w->ceil_mode = node.GetInt("ceil_mode", 0) != 0;
  if (w->strides.empty()) w->strides.assign(n, 1);
  if (w->dilations.empty()) w->dilations.assign(n, 1);
  if (w->pads.empty()) w->pads.assign(2 * n, 0);
  if (w->kernel.size() != n || w->strides.size() != n ||
      w->dilations.size() != n || w->pads.size() != 2 * n) {
    return Unresolved(fmt::format(
        "{} window attributes do not match {} spatial dims", node.op_type, n));
  }
  for (size_t i = 0; i < n; ++i) {
    if (w->strides[i] <= 0 || w->dilations[i] <= 0 || w->kernel[i] <= 0) {
      return Unresolved(
          fmt::format("{} has a non-positive kernel, stride "
                      "or dilation",
                      node.op_type));
    }
  }
  return absl::OkStatus();
}

// Output spatial dims of a convolution or pooling window over `in`.
absl::StatusOr<Dims> WindowOutput(const Dims& in, const Window& w) {
  Dims out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    const int64_t ek = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const int64_t s = w.strides[i];
    if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
      out[i] = CeilDiv(in[i], s);
    } else if (w.auto_pad == "VALID") {
      out[i] = in[i] >= ek ? (in[i] - ek) / s + 1 : 0;
    } else {
      const int64_t span = in[i] + w.pads[i] + w.pads[i + in.size()] - ek;
      if (span < 0) {
        return Unresolved(fmt::format(
            "window of {} (dilated) does not fit input dim {} with pads", ek,
            in[i]));
      }
      if (w.ceil_mode) {
        out[i] = CeilDiv(span, s) + 1;
        // The last window must start inside the input or the left padding.
        if ((out[i] - 1) * s >= in[i] + w.pads[i]) --out[i];
      } else {
        out[i] = span / s + 1;
      }
    }
  }
  return out;
}

// Where a convolution keeps its channels: the ONNX layout (X [N, C, d...],
// W [M, C/group, k...]), channels-last activations with ONNX weights
// (com.microsoft QLinearConv with channels_last = 1: ONNX Runtime's kernel
// reads the kernel dims from W[2:]), or channels-last activations and
// weights (com.microsoft NhwcConv: W [M, k..., C/group], the kernel dims
// W[1:-1] in ONNX Runtime's symbolic shape inference).
enum class ConvLayout { kOnnx, kChannelsLast, kChannelsLastWeights };

absl::Status ConvLike(InferContext& ctx, size_t x_index, size_t w_index,
                      DType dtype, ConvLayout layout = ConvLayout::kOnnx) {
  const Dims& x = ctx.dims(x_index);
  const Dims& wdims = ctx.dims(w_index);
  if (x.size() < 3 || wdims.size() != x.size()) {
    return Unresolved(fmt::format("{} input {} and weight {} ranks differ",
                                  ctx.node().op_type, DimsString(x),
                                  DimsString(wdims)));
  }
  const size_t n = x.size() - 2;
  const bool channels_last = layout != ConvLayout::kOnnx;
  std::vector<int64_t> kernel = ctx.node().GetInts("kernel_shape");
  if (kernel.empty()) {
    if (layout == ConvLayout::kChannelsLastWeights) {
      kernel.assign(wdims.begin() + 1, wdims.end() - 1);
    } else {
      kernel.assign(wdims.begin() + 2, wdims.end());
    }
  }
  Window w;
  if (absl::Status s = ReadWindow(ctx, n, kernel, &w); !s.ok()) return s;
  const Dims in_spatial = channels_last ? Dims(x.begin() + 1, x.end() - 1)
                                        : Dims(x.begin() + 2, x.end());
  absl::StatusOr<Dims> spatial = WindowOutput(in_spatial, w);
  if (!spatial.ok()) return spatial.status();
  Dims out = {x[0]};
  if (!channels_last) out.push_back(wdims[0]);
  out.insert(out.end(), spatial->begin(), spatial->end());
  if (channels_last) out.push_back(wdims[0]);
  ctx.Set(0, dtype, std::move(out));
  return absl::OkStatus();
}

absl::Status ConvShape(InferContext& ctx) {
  return ConvLike(ctx, 0, 1, ctx.dtype(0));
}

absl::Status ConvIntegerShape(InferContext& ctx) {
  return ConvLike(ctx, 0, 1, DType::kInt32);
}

// x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point.
absl::Status QLinearConvShape(InferContext& ctx) {
  return ConvLike(ctx, 0, 3, ctx.has_input(7) ? ctx.dtype(7) : ctx.dtype(0));
}

// com.microsoft QLinearConv: the ONNX inputs, channels last when its
// channels_last attribute is set (ONNX Runtime's NHWC transformer).
absl::Status ContribQLinearConvShape(InferContext& ctx) {
  return ConvLike(ctx, 0, 3, ctx.has_input(7) ? ctx.dtype(7) : ctx.dtype(0),
                  ctx.node().GetInt("channels_last", 0) != 0
                      ? ConvLayout::kChannelsLast
                      : ConvLayout::kOnnx);
}

absl::Status NhwcConvShape(InferContext& ctx) {
  return ConvLike(ctx, 0, 1, ctx.dtype(0), ConvLayout::kChannelsLastWeights);
}

absl::Status ConvTransposeShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  const Dims& wdims = ctx.dims(1);
  if (x.size() < 3 || wdims.size() != x.size()) {
    return Unresolved("ConvTranspose input and weight ranks differ");
  }
  const size_t n = x.size() - 2;
  const graph::Node& node = ctx.node();
  std::vector<int64_t> kernel = node.GetInts("kernel_shape");
  if (kernel.empty()) kernel.assign(wdims.begin() + 2, wdims.end());
  Window w;
  if (absl::Status s = ReadWindow(ctx, n, kernel, &w); !s.ok()) return s;
  std::vector<int64_t> out_pad = node.GetInts("output_padding");
  if (out_pad.empty()) out_pad.assign(n, 0);
  std::vector<int64_t> out_shape = node.GetInts("output_shape");
  if (out_shape.size() == n + 2)
    out_shape.erase(out_shape.begin(), out_shape.begin() + 2);
  const int64_t group = node.GetInt("group", 1);
  Dims out = {x[0], wdims[1] * group};
  for (size_t i = 0; i < n; ++i) {
    if (out_shape.size() == n) {
      out.push_back(out_shape[i]);
      continue;
    }
    const int64_t in = x[i + 2];
    if (w.auto_pad == "SAME_UPPER" || w.auto_pad == "SAME_LOWER") {
      out.push_back(in * w.strides[i]);
      continue;
    }
    const int64_t ek = (w.kernel[i] - 1) * w.dilations[i] + 1;
    const int64_t pads = w.auto_pad == "VALID" ? 0 : w.pads[i] + w.pads[i + n];
    out.push_back(w.strides[i] * (in - 1) + out_pad[i] + ek - pads);
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

// A windowed pool; channels last for com.microsoft NhwcMaxPool and for
// QLinearAveragePool with channels_last = 1.
absl::Status PoolLike(InferContext& ctx, bool channels_last, DType dtype) {
  const Dims& x = ctx.dims(0);
  if (x.size() < 3) return Unresolved("pooling input has rank below 3");
  const size_t n = x.size() - 2;
  Window w;
  if (absl::Status s =
          ReadWindow(ctx, n, ctx.node().GetInts("kernel_shape"), &w);
      !s.ok()) {
    return s;
  }
  const Dims in_spatial = channels_last ? Dims(x.begin() + 1, x.end() - 1)
                                        : Dims(x.begin() + 2, x.end());
  absl::StatusOr<Dims> spatial = WindowOutput(in_spatial, w);
  if (!spatial.ok()) return spatial.status();
  Dims out = {x[0]};
  if (!channels_last) out.push_back(x[1]);
  out.insert(out.end(), spatial->begin(), spatial->end());
  if (channels_last) out.push_back(x.back());
  ctx.Set(0, dtype, out);
  if (ctx.num_outputs() > 1) {
    ctx.Set(1, DType::kInt64, std::move(out));  // MaxPool indices
  }
  return absl::OkStatus();
}

absl::Status PoolShape(InferContext& ctx) {
  return PoolLike(ctx, false, ctx.dtype(0));
}

absl::Status ChannelsLastPoolShape(InferContext& ctx) {
  return PoolLike(ctx, true, ctx.dtype(0));
}

// com.microsoft QLinearAveragePool: X, x_scale, x_zero_point, y_scale,
// y_zero_point; the output has y_zero_point's type (X's when omitted).
absl::Status QLinearAveragePoolShape(InferContext& ctx) {
  return PoolLike(ctx, ctx.node().GetInt("channels_last", 0) != 0,
                  ctx.has_input(4) ? ctx.dtype(4) : ctx.dtype(0));
}

absl::Status GlobalPoolShape(InferContext& ctx) {
  Dims out = ctx.dims(0);
  if (out.size() < 2) return Unresolved("global pooling of rank below 2");
  std::fill(out.begin() + 2, out.end(), 1);
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

// com.microsoft QLinearGlobalAveragePool: X, x_scale, x_zero_point, y_scale,
// y_zero_point; [N, 1..., C] when channels_last.
absl::Status QLinearGlobalAveragePoolShape(InferContext& ctx) {
  Dims out = ctx.dims(0);
  if (out.size() < 3) return Unresolved("global pooling of rank below 3");
  if (ctx.node().GetInt("channels_last", 0) != 0) {
    std::fill(out.begin() + 1, out.end() - 1, 1);
  } else {
    std::fill(out.begin() + 2, out.end(), 1);
  }
  ctx.Set(0, ctx.has_input(4) ? ctx.dtype(4) : ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status MaxUnpoolShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  if (ctx.has_input(2)) {
    const std::vector<int64_t>* shape = nullptr;
    if (absl::Status s = ctx.NeedInts(2, &shape); !s.ok()) return s;
    ctx.Set(0, ctx.dtype(0), *shape);
    return absl::OkStatus();
  }
  if (x.size() < 3) return Unresolved("MaxUnpool input has rank below 3");
  const size_t n = x.size() - 2;
  Window w;
  if (absl::Status s =
          ReadWindow(ctx, n, ctx.node().GetInts("kernel_shape"), &w);
      !s.ok()) {
    return s;
  }
  Dims out = {x[0], x[1]};
  for (size_t i = 0; i < n; ++i) {
    out.push_back((x[i + 2] - 1) * w.strides[i] + w.kernel[i] - w.pads[i] -
                  w.pads[i + n]);
  }
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status RoiAlignShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  const Dims& rois = ctx.dims(1);
  if (x.size() != 4 || rois.size() != 2) {
    return Unresolved("RoiAlign needs NCHW input and [num_rois, 4] rois");
  }
  ctx.Set(0, ctx.dtype(0),
          {rois[0], x[1], ctx.node().GetInt("output_height", 1),
           ctx.node().GetInt("output_width", 1)});
  return absl::OkStatus();
}

absl::Status MaxRoiPoolShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  const Dims& rois = ctx.dims(1);
  std::vector<int64_t> pooled = ctx.node().GetInts("pooled_shape");
  if (x.size() != 4 || rois.size() != 2 || pooled.size() != 2) {
    return Unresolved("MaxRoiPool needs NCHW input, rois and pooled_shape");
  }
  ctx.Set(0, ctx.dtype(0), {rois[0], x[1], pooled[0], pooled[1]});
  return absl::OkStatus();
}

absl::Status GridSampleShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  const Dims& grid = ctx.dims(1);
  if (x.size() < 3 || grid.size() != x.size()) {
    return Unresolved("GridSample input and grid ranks differ");
  }
  Dims out = {x[0], x[1]};
  out.insert(out.end(), grid.begin() + 1, grid.end() - 1);
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

absl::Status AffineGridShape(InferContext& ctx) {
  const std::vector<int64_t>* size = nullptr;
  if (absl::Status s = ctx.NeedInts(1, &size); !s.ok()) return s;
  if (size->size() < 3) return Unresolved("AffineGrid size has rank < 3");
  Dims out = {(*size)[0]};
  out.insert(out.end(), size->begin() + 2, size->end());
  out.push_back(static_cast<int64_t>(size->size()) - 2);
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

// Output dims of a resize from scales (floor(dim * scale)).
absl::StatusOr<Dims> ScaleDims(const Dims& in, const std::vector<double>& sc,
                               const std::vector<int64_t>& axes) {
  Dims out = in;
  if (sc.size() != axes.size()) {
    return Unresolved(
        fmt::format("{} scales for {} axes", sc.size(), axes.size()));
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    const double v = std::floor(static_cast<double>(in[axes[i]]) * sc[i]);
    if (!(v >= 0) || v > static_cast<double>(graph::kMaxDim)) {
      return absl::InvalidArgumentError(fmt::format(
          "resize of dim {} by scale {} gives {}, outside [0, 2^40]",
          in[axes[i]], sc[i], v));
    }
    out[axes[i]] = static_cast<int64_t>(v);
  }
  return out;
}

absl::Status UpsampleShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  std::vector<double> scales;
  if (ctx.node().HasAttribute("scales")) {
    scales = ctx.node().GetFloats("scales");
  } else if (ctx.opset() >= 9 && ctx.has_input(1)) {
    if (!ctx.ValuesAsDouble(1, &scales)) return ctx.DataDependent(1);
  } else if (ctx.node().HasAttribute("height_scale")) {  // opset 1
    scales = {1, 1, ctx.node().GetFloat("height_scale", 1),
              ctx.node().GetFloat("width_scale", 1)};
  }
  std::vector<int64_t> axes(in.size());
  for (size_t i = 0; i < in.size(); ++i) axes[i] = static_cast<int64_t>(i);
  absl::StatusOr<Dims> out = ScaleDims(in, scales, axes);
  if (!out.ok()) return out.status();
  ctx.Set(0, ctx.dtype(0), *std::move(out));
  return absl::OkStatus();
}

// Resize: opset 10 (X, scales); 11+ (X, roi, scales, sizes); 18+ 'axes' and
// 'keep_aspect_ratio_policy'.
absl::Status ResizeShape(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> axes = ctx.node().GetInts("axes");
  if (axes.empty()) {
    for (int64_t i = 0; i < rank; ++i) axes.push_back(i);
  } else {
    absl::StatusOr<std::vector<int64_t>> a = NormalizeAxes(axes, rank);
    if (!a.ok()) return a.status();
    axes = *std::move(a);
  }
  const size_t scales_index = ctx.opset() < 11 ? 1 : 2;
  const size_t sizes_index = 3;
  if (ctx.opset() >= 11 && ctx.has_input(sizes_index) &&
      ctx.numel(sizes_index) > 0) {
    std::vector<int64_t> sizes;
    if (!ValuesAsInt(ctx, sizes_index, &sizes)) {
      return ctx.DataDependent(sizes_index);
    }
    if (sizes.size() != axes.size()) {
      return Unresolved(fmt::format("Resize has {} sizes for {} axes",
                                    sizes.size(), axes.size()));
    }
    Dims out = in;
    const std::string policy =
        ctx.node().GetString("keep_aspect_ratio_policy", "stretch");
    if (policy == "not_larger" || policy == "not_smaller") {
      double scale = policy == "not_larger" ? 1e300 : 0;
      for (size_t i = 0; i < axes.size(); ++i) {
        const double s =
            static_cast<double>(sizes[i]) / static_cast<double>(in[axes[i]]);
        scale =
            policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
      }
      for (int64_t a : axes) {
        out[a] = static_cast<int64_t>(
            std::round(scale * static_cast<double>(in[a])));
      }
    } else {
      for (size_t i = 0; i < axes.size(); ++i) out[axes[i]] = sizes[i];
    }
    ctx.Set(0, ctx.dtype(0), std::move(out));
    return absl::OkStatus();
  }
  if (!ctx.has_input(scales_index) || ctx.numel(scales_index) == 0) {
    return Unresolved("Resize has neither scales nor sizes");
  }
  std::vector<double> scales;
  if (!ctx.ValuesAsDouble(scales_index, &scales)) {
    return ctx.DataDependent(scales_index);
  }
  absl::StatusOr<Dims> out = ScaleDims(in, scales, axes);
  if (!out.ok()) return out.status();
  ctx.Set(0, ctx.dtype(0), *std::move(out));
  return absl::OkStatus();
}

absl::Status Col2ImShape(InferContext& ctx) {
  const Dims& x = ctx.dims(0);
  const std::vector<int64_t>* image = nullptr;
  const std::vector<int64_t>* block = nullptr;
  if (absl::Status s = ctx.NeedInts(1, &image); !s.ok()) return s;
  if (absl::Status s = ctx.NeedInts(2, &block); !s.ok()) return s;
  const int64_t kprod = Product(*block, 0, block->size());
  if (x.size() != 3 || kprod <= 0 || x[1] % kprod != 0) {
    return Unresolved("Col2Im input is not [N, C*prod(block), L]");
  }
  Dims out = {x[0], x[1] / kprod};
  out.insert(out.end(), image->begin(), image->end());
  ctx.Set(0, ctx.dtype(0), std::move(out));
  return absl::OkStatus();
}

}  // namespace

void RegisterConvPoolShapes(ShapeRegistry* registry) {
  registry->Add(kOnnxDomain, "Conv", ConvShape);
  registry->Add(kOnnxDomain, "DeformConv", ConvShape);
  registry->Add(kOnnxDomain, "ConvInteger", ConvIntegerShape);
  registry->Add(kOnnxDomain, "QLinearConv", QLinearConvShape);
  registry->Add(kOnnxDomain, "ConvTranspose", ConvTransposeShape);
  registry->Add(kOnnxDomain, "MaxPool", PoolShape);
  registry->Add(kOnnxDomain, "AveragePool", PoolShape);
  registry->Add(kOnnxDomain, "LpPool", PoolShape);
  registry->Add(kOnnxDomain, "GlobalAveragePool", GlobalPoolShape);
  registry->Add(kOnnxDomain, "GlobalMaxPool", GlobalPoolShape);
  registry->Add(kOnnxDomain, "GlobalLpPool", GlobalPoolShape);
  registry->Add(kOnnxDomain, "MaxUnpool", MaxUnpoolShape);
  registry->Add(kOnnxDomain, "RoiAlign", RoiAlignShape);
  registry->Add(kOnnxDomain, "MaxRoiPool", MaxRoiPoolShape);
  registry->Add(kOnnxDomain, "GridSample", GridSampleShape);
  registry->Add(kOnnxDomain, "AffineGrid", AffineGridShape);
  registry->Add(kOnnxDomain, "Upsample", UpsampleShape);
  registry->Add(kOnnxDomain, "Resize", ResizeShape);
  registry->Add(kOnnxDomain, "Col2Im", Col2ImShape);
  // Contrib versions with the default-domain (NCHW) semantics.
  registry->Add(kMicrosoftDomain, "FusedConv", ConvShape);
  registry->Add(kMicrosoftDomain, "GridSample", GridSampleShape);
  // ONNX Runtime's channels-last and quantized contrib ops (what its NHWC
  // transformer and QOperator quantization write into a saved model).
  registry->Add(kMicrosoftDomain, "NhwcConv", NhwcConvShape);
  registry->Add(kMicrosoftDomain, "QLinearConv", ContribQLinearConvShape);
  registry->Add(kMicrosoftDomain, "NhwcMaxPool", ChannelsLastPoolShape);
  registry->Add(kMicrosoftDomain, "QLinearAveragePool",
                QLinearAveragePoolShape);
  registry->Add(kMicrosoftDomain, "QLinearGlobalAveragePool",
                QLinearGlobalAveragePoolShape);
}

}  // namespace ridgeline::importers::shapes
