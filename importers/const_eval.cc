// Constant folding over small tensors. Each fold function reads the folded
// values of its inputs (InferContext::ints / floats) and writes those of its
// outputs, whose dims the shape function already set. Integer and bool
// tensors are evaluated in int64, floating ones in double. The fold
// functions register themselves with the shape registry.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>
#include <vector>

#include "importers/shapes/registry.h"
#include "importers/shapes/slice.h"
#include "importers/shapes/util.h"

namespace ridgeline::importers {

namespace shapes {
namespace {

using graph::Dims;
using graph::DType;

// Row-major strides of dims.
std::vector<int64_t> Strides(const Dims& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

// For each element of `out`, the flat index of the element of `in` (which
// broadcasts to `out`) that it reads.
std::vector<int64_t> BroadcastIndex(const Dims& in, const Dims& out) {
  const int64_t n = Product(out, 0, out.size());
  std::vector<int64_t> index(n, 0);
  const std::vector<int64_t> in_strides = Strides(in);
  const size_t offset = out.size() - in.size();
  std::vector<int64_t> pos(out.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t flat = 0;
    for (size_t d = 0; d < in.size(); ++d) {
      if (in[d] != 1) flat += pos[d + offset] * in_strides[d];
    }
    index[k] = flat;
    for (size_t d = out.size(); d-- > 0;) {
      if (++pos[d] < out[d]) break;
      pos[d] = 0;
    }
  }
  return index;
}

// One input's folded values, read through a broadcast index.
struct Operand {
  const std::vector<int64_t>* ints = nullptr;
  const std::vector<double>* floats = nullptr;
  std::vector<int64_t> index;

  double D(size_t k) const {
    const int64_t j = index[k];
    return floats != nullptr ? (*floats)[j] : static_cast<double>((*ints)[j]);
  }
  int64_t I(size_t k) const {
    const int64_t j = index[k];
    return floats != nullptr ? static_cast<int64_t>((*floats)[j]) : (*ints)[j];
  }
};

bool LoadOperand(const InferContext& ctx, size_t i, const Dims& out,
                 Operand* op) {
  op->ints = ctx.ints(i);
  op->floats = ctx.floats(i);
  if (op->ints == nullptr && op->floats == nullptr) return false;
  // The operand must broadcast to the output (BroadcastIndex reads through
  // that): its dims broadcast with the output's give the output's dims.
  const Dims& in = ctx.dims(i);
  absl::StatusOr<Dims> b = Broadcast(in, out);
  if (!b.ok() || *b != out) return false;
  op->index = BroadcastIndex(in, out);
  return true;
}

const Dims& OutDims(const InferContext& ctx, size_t i = 0) {
  return ctx.output(i).dims;
}

bool IsFloatOut(const InferContext& ctx, size_t i = 0) {
  return graph::IsFloating(ctx.output(i).dtype);
}

// Elementwise n-ary folding with per-op scalar functions, which read
// operands 0 .. arity-1 (arity 0: any number, at least one). A node with
// another input count (possible at opsets newer than libonnx's schemas, which
// the schema check cannot judge) is not folded.
template <typename IntFn, typename FloatFn>
bool FoldElementwise(InferContext& ctx, size_t arity, IntFn int_fn,
                     FloatFn float_fn) {
  const Dims& out = OutDims(ctx);
  if (ctx.num_inputs() == 0 || (arity != 0 && ctx.num_inputs() != arity)) {
    return false;
  }
  std::vector<Operand> ops(ctx.num_inputs());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ctx.has_input(i) || !LoadOperand(ctx, i, out, &ops[i])) return false;
  }
  const size_t n = static_cast<size_t>(Product(out, 0, out.size()));
  bool any_float_in = false;
  for (const Operand& op : ops) any_float_in |= op.floats != nullptr;
  if (IsFloatOut(ctx) || any_float_in) {
    std::vector<double> v(n);
    for (size_t k = 0; k < n; ++k) {
      if (!float_fn(ops, k, &v[k])) return false;
    }
    if (IsFloatOut(ctx)) {
      ctx.SetFloats(0, std::move(v));
    } else {
      std::vector<int64_t> iv(n);
      for (size_t k = 0; k < n; ++k) iv[k] = static_cast<int64_t>(v[k]);
      ctx.SetInts(0, std::move(iv));
    }
    return true;
  }
  std::vector<int64_t> v(n);
  for (size_t k = 0; k < n; ++k) {
    if (!int_fn(ops, k, &v[k])) return false;
  }
  ctx.SetInts(0, std::move(v));
  return true;
}

// Scalar kernels of the elementwise folds, chosen once per node (the table
// below), never per element. An integer kernel returns false when the
// result is not an int64 (overflow, division by zero); a floating one
// returns the value, which the fold keeps only when finite. nullptr: the op
// has no such form, and a node that needs it is not folded.
using IntUnary = bool (*)(int64_t a, int64_t* r);
using FloatUnary = double (*)(double a);
using IntBinary = bool (*)(int64_t a, int64_t b, int64_t* r);
using FloatBinary = double (*)(double a, double b);
using IntPredicate = bool (*)(int64_t a, int64_t b);
using FloatPredicate = bool (*)(double a, double b);

bool FoldUnaryWith(InferContext& ctx, IntUnary int_op, FloatUnary float_op) {
  auto int_fn = [int_op](const std::vector<Operand>& o, size_t k, int64_t* r) {
    return int_op != nullptr && int_op(o[0].I(k), r);
  };
  auto float_fn = [float_op](const std::vector<Operand>& o, size_t k,
                             double* r) {
    if (float_op == nullptr) return false;
    *r = float_op(o[0].D(k));
    return std::isfinite(*r);
  };
  return FoldElementwise(ctx, 1, int_fn, float_fn);
}

bool FoldBinaryWith(InferContext& ctx, IntBinary int_op, FloatBinary float_op) {
  auto int_fn = [int_op](const std::vector<Operand>& o, size_t k, int64_t* r) {
    return int_op != nullptr && int_op(o[0].I(k), o[1].I(k), r);
  };
  auto float_fn = [float_op](const std::vector<Operand>& o, size_t k,
                             double* r) {
    if (float_op == nullptr) return false;
    *r = float_op(o[0].D(k), o[1].D(k));
    return std::isfinite(*r);
  };
  return FoldElementwise(ctx, 2, int_fn, float_fn);
}

// Max, Min, Sum, Mean over any number of inputs: the binary kernel folds the
// inputs left to right; Mean then divides by their count.
bool FoldVariadicWith(InferContext& ctx, IntBinary int_op, FloatBinary float_op,
                      bool mean) {
  auto int_fn = [int_op, mean](const std::vector<Operand>& o, size_t k,
                               int64_t* r) {
    int64_t acc = o[0].I(k);
    for (size_t i = 1; i < o.size(); ++i) {
      if (!int_op(acc, o[i].I(k), &acc)) return false;
    }
    if (mean) acc /= static_cast<int64_t>(o.size());
    *r = acc;
    return true;
  };
  auto float_fn = [float_op, mean](const std::vector<Operand>& o, size_t k,
                                   double* r) {
    double acc = o[0].D(k);
    for (size_t i = 1; i < o.size(); ++i) acc = float_op(acc, o[i].D(k));
    if (mean) acc /= static_cast<double>(o.size());
    *r = acc;
    return true;
  };
  return FoldElementwise(ctx, 0, int_fn, float_fn);
}

// Comparisons and logic ops: a bool (int64 0/1) output; floating operands
// are compared as doubles (the logic ops have no floating form).
bool FoldCompareWith(InferContext& ctx, IntPredicate int_op,
                     FloatPredicate float_op) {
  const Dims& out = OutDims(ctx);
  Operand a, b;
  if (!LoadOperand(ctx, 0, out, &a) || !LoadOperand(ctx, 1, out, &b)) {
    return false;
  }
  const bool use_float = a.floats != nullptr || b.floats != nullptr;
  if (use_float && float_op == nullptr) return false;
  const size_t n = static_cast<size_t>(Product(out, 0, out.size()));
  std::vector<int64_t> v(n);
  for (size_t k = 0; k < n; ++k) {
    v[k] = use_float ? float_op(a.D(k), b.D(k)) : int_op(a.I(k), b.I(k));
  }
  ctx.SetInts(0, std::move(v));
  return true;
}

// The kernels.
bool NegI(int64_t a, int64_t* r) { return !__builtin_sub_overflow(0, a, r); }
bool AbsI(int64_t a, int64_t* r) {
  if (a >= 0) {
    *r = a;
    return true;
  }
  return !__builtin_sub_overflow(0, a, r);
}
bool NotI(int64_t a, int64_t* r) {
  *r = a == 0;
  return true;
}
bool SignI(int64_t a, int64_t* r) {
  *r = (a > 0) - (a < 0);
  return true;
}
bool ReluI(int64_t a, int64_t* r) {
  *r = std::max<int64_t>(a, 0);
  return true;
}
bool BitwiseNotI(int64_t a, int64_t* r) {
  *r = ~a;
  return true;
}
bool IdentityI(int64_t a, int64_t* r) {
  *r = a;
  return true;
}  // Floor, ...
double NegF(double a) { return -a; }
double AbsF(double a) { return std::fabs(a); }
double NotF(double a) { return a == 0; }
double SignF(double a) { return (a > 0) - (a < 0); }
double ReluF(double a) { return std::max(a, 0.0); }
double FloorF(double a) { return std::floor(a); }
double CeilF(double a) { return std::ceil(a); }
double RoundF(double a) { return std::nearbyint(a); }  // half to even
double SqrtF(double a) { return std::sqrt(a); }
double ReciprocalF(double a) { return 1.0 / a; }
double ExpF(double a) { return std::exp(a); }
double LogF(double a) { return std::log(a); }

bool AddI(int64_t a, int64_t b, int64_t* r) {
  return !__builtin_add_overflow(a, b, r);
}
bool SubI(int64_t a, int64_t b, int64_t* r) {
  return !__builtin_sub_overflow(a, b, r);
}
bool MulI(int64_t a, int64_t b, int64_t* r) {
  return !__builtin_mul_overflow(a, b, r);
}
bool DividesI(int64_t a, int64_t b) {
  return b != 0 && !(a == INT64_MIN && b == -1);
}
bool DivI(int64_t a, int64_t b, int64_t* r) {
  if (!DividesI(a, b)) return false;
  *r = a / b;
  return true;
}
// Mod with fmod = 0 takes the divisor's sign (Python's %); fmod = 1 the
// dividend's (C's fmod).
bool ModI(int64_t a, int64_t b, int64_t* r) {
  if (!DividesI(a, b)) return false;
  int64_t m = a % b;
  if (m != 0 && ((m < 0) != (b < 0))) m += b;
  *r = m;
  return true;
}
bool FModI(int64_t a, int64_t b, int64_t* r) {
  if (!DividesI(a, b)) return false;
  *r = a % b;
  return true;
}
// Exponentiation by squaring: at most 2 x 63 multiplications whatever b is
// (a loop of b multiplications would spin on Pow(1, 10^18)).
bool PowI(int64_t a, int64_t b, int64_t* r) {
  if (b < 0) return false;
  int64_t result = 1;
  int64_t base = a;
  while (b > 0) {
    if ((b & 1) != 0 && __builtin_mul_overflow(result, base, &result)) {
      return false;
    }
    b >>= 1;
    // Another bit remains, so base^2 is a factor of the result: if it
    // overflows, so does the result.
    if (b > 0 && __builtin_mul_overflow(base, base, &base)) return false;
  }
  *r = result;
  return true;
}
bool ShiftLeftI(int64_t a, int64_t b, int64_t* r) {
  if (b < 0 || b > 63) return false;
  *r = static_cast<int64_t>(static_cast<uint64_t>(a) << b);
  return true;
}
bool ShiftRightI(int64_t a, int64_t b, int64_t* r) {
  if (b < 0 || b > 63) return false;
  *r = static_cast<int64_t>(static_cast<uint64_t>(a) >> b);
  return true;
}
bool AndI(int64_t a, int64_t b, int64_t* r) {
  *r = a & b;
  return true;
}
bool OrI(int64_t a, int64_t b, int64_t* r) {
  *r = a | b;
  return true;
}
bool XorI(int64_t a, int64_t b, int64_t* r) {
  *r = a ^ b;
  return true;
}
bool MaxI(int64_t a, int64_t b, int64_t* r) {
  *r = std::max(a, b);
  return true;
}
bool MinI(int64_t a, int64_t b, int64_t* r) {
  *r = std::min(a, b);
  return true;
}
double AddF(double a, double b) { return a + b; }
double SubF(double a, double b) { return a - b; }
double MulF(double a, double b) { return a * b; }
double DivF(double a, double b) { return a / b; }
double ModF(double a, double b) { return a - b * std::floor(a / b); }
double FModF(double a, double b) { return std::fmod(a, b); }
double PowF(double a, double b) { return std::pow(a, b); }
double MaxF(double a, double b) { return std::max(a, b); }
double MinF(double a, double b) { return std::min(a, b); }

bool EqualI(int64_t a, int64_t b) { return a == b; }
bool LessI(int64_t a, int64_t b) { return a < b; }
bool LessOrEqualI(int64_t a, int64_t b) { return a <= b; }
bool GreaterI(int64_t a, int64_t b) { return a > b; }
bool GreaterOrEqualI(int64_t a, int64_t b) { return a >= b; }
bool AndP(int64_t a, int64_t b) { return (a != 0) && (b != 0); }
bool OrP(int64_t a, int64_t b) { return (a != 0) || (b != 0); }
bool XorP(int64_t a, int64_t b) { return (a != 0) != (b != 0); }
bool EqualF(double a, double b) { return a == b; }
bool LessF(double a, double b) { return a < b; }
bool LessOrEqualF(double a, double b) { return a <= b; }
bool GreaterF(double a, double b) { return a > b; }
bool GreaterOrEqualF(double a, double b) { return a >= b; }

// One fold function per op, its kernels bound at compile time.
template <IntUnary I, FloatUnary F>
bool FoldUnary(InferContext& ctx) {
  return FoldUnaryWith(ctx, I, F);
}
template <IntBinary I, FloatBinary F>
bool FoldBinary(InferContext& ctx) {
  return FoldBinaryWith(ctx, I, F);
}
template <IntBinary I, FloatBinary F, bool kMean>
bool FoldVariadic(InferContext& ctx) {
  return FoldVariadicWith(ctx, I, F, kMean);
}
template <IntPredicate I, FloatPredicate F>
bool FoldCompare(InferContext& ctx) {
  return FoldCompareWith(ctx, I, F);
}
// Mod and BitShift choose their kernel by an attribute.
bool FoldMod(InferContext& ctx) {
  return ctx.node().GetInt("fmod", 0) != 0 ? FoldBinaryWith(ctx, FModI, FModF)
                                           : FoldBinaryWith(ctx, ModI, ModF);
}
bool FoldBitShift(InferContext& ctx) {
  return ctx.node().GetString("direction", "LEFT") == "LEFT"
             ? FoldBinaryWith(ctx, ShiftLeftI, nullptr)
             : FoldBinaryWith(ctx, ShiftRightI, nullptr);
}

bool FoldWhere(InferContext& ctx) {
  auto int_fn = [](const std::vector<Operand>& o, size_t k, int64_t* r) {
    *r = o[0].I(k) != 0 ? o[1].I(k) : o[2].I(k);
    return true;
  };
  auto float_fn = [](const std::vector<Operand>& o, size_t k, double* r) {
    *r = o[0].I(k) != 0 ? o[1].D(k) : o[2].D(k);
    return true;
  };
  return FoldElementwise(ctx, 3, int_fn, float_fn);
}

// Clip(x, min, max) with optional bounds (attributes before opset 11).
bool FoldClip(InferContext& ctx) {
  std::vector<double> x, lo, hi;
  if (!ctx.ValuesAsDouble(0, &x)) return false;
  double min = ctx.node().GetFloat("min", -INFINITY);
  double max = ctx.node().GetFloat("max", INFINITY);
  if (ctx.has_input(1)) {
    if (!ctx.ValuesAsDouble(1, &lo) || lo.size() != 1) return false;
    min = lo[0];
  }
  if (ctx.has_input(2)) {
    if (!ctx.ValuesAsDouble(2, &hi) || hi.size() != 1) return false;
    max = hi[0];
  }
  for (double& v : x) v = std::min(std::max(v, min), max);
  if (IsFloatOut(ctx)) {
    ctx.SetFloats(0, std::move(x));
  } else {
    ctx.SetInts(0, std::vector<int64_t>(x.begin(), x.end()));
  }
  return true;
}

// Ops whose output holds the input's values unchanged (Identity, Reshape,
// Flatten, Squeeze, Unsqueeze, Dropout, Cast, CastLike).
bool FoldCopy(InferContext& ctx) {
  const bool float_out = IsFloatOut(ctx);
  const DType to = ctx.output(0).dtype;
  if (const std::vector<int64_t>* v = ctx.ints(0)) {
    if (float_out) {
      ctx.SetFloats(0, std::vector<double>(v->begin(), v->end()));
    } else if (to == DType::kBool) {
      std::vector<int64_t> b(v->size());
      for (size_t i = 0; i < v->size(); ++i) b[i] = (*v)[i] != 0;
      ctx.SetInts(0, std::move(b));
    } else {
      ctx.SetInts(0, *v);
    }
    return true;
  }
  if (const std::vector<double>* f = ctx.floats(0)) {
    if (float_out) {
      ctx.SetFloats(0, *f);
    } else {
      std::vector<int64_t> iv(f->size());
      for (size_t i = 0; i < f->size(); ++i) {
        if (!std::isfinite((*f)[i])) return false;
        iv[i] =
            to == DType::kBool ? (*f)[i] != 0 : static_cast<int64_t>((*f)[i]);
      }
      ctx.SetInts(0, std::move(iv));
    }
    return true;
  }
  return false;
}

// Gathers input 0's values at the given flat indices into output `out`.
bool EmitGathered(InferContext& ctx, size_t out,
                  const std::vector<int64_t>& flat) {
  if (const std::vector<int64_t>* v = ctx.ints(0)) {
    std::vector<int64_t> r(flat.size());
    for (size_t i = 0; i < flat.size(); ++i) r[i] = (*v)[flat[i]];
    ctx.SetInts(out, std::move(r));
    return true;
  }
  if (const std::vector<double>* f = ctx.floats(0)) {
    std::vector<double> r(flat.size());
    for (size_t i = 0; i < flat.size(); ++i) r[i] = (*f)[flat[i]];
    ctx.SetFloats(out, std::move(r));
    return true;
  }
  return false;
}

// Calls fn(pos) for each multi-index of dims in row-major order.
template <typename Fn>
void ForEachIndex(const Dims& dims, Fn fn) {
  const int64_t n = Product(dims, 0, dims.size());
  std::vector<int64_t> pos(dims.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    fn(pos);
    for (size_t d = dims.size(); d-- > 0;) {
      if (++pos[d] < dims[d]) break;
      pos[d] = 0;
    }
  }
}

bool FoldGather(InferContext& ctx) {
  const std::vector<int64_t>* indices = ctx.ints(1);
  if (indices == nullptr) return false;
  const Dims& data = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(
      ctx.node().GetInt("axis", 0), static_cast<int64_t>(data.size()));
  if (!axis.ok()) return false;
  const int64_t outer = Product(data, 0, *axis);
  const int64_t dim = data[*axis];
  const int64_t inner = Product(data, *axis + 1, data.size());
  std::vector<int64_t> flat;
  flat.reserve(outer * indices->size() * inner);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t idx : *indices) {
      if (idx < 0) idx += dim;
      if (idx < 0 || idx >= dim) return false;
      for (int64_t i = 0; i < inner; ++i) {
        flat.push_back((o * dim + idx) * inner + i);
      }
    }
  }
  return EmitGathered(ctx, 0, flat);
}

bool FoldConcat(InferContext& ctx) {
  const Dims& out = OutDims(ctx);
  absl::StatusOr<int64_t> axis = NormalizeAxis(
      ctx.node().GetInt("axis", 0), static_cast<int64_t>(out.size()));
  if (!axis.ok()) return false;
  const int64_t outer = Product(out, 0, *axis);
  const bool float_out = IsFloatOut(ctx);
  std::vector<int64_t> iv;
  std::vector<double> fv;
  for (int64_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) continue;
      const Dims& d = ctx.dims(i);
      const int64_t chunk = Product(d, *axis, d.size());
      const std::vector<int64_t>* v = ctx.ints(i);
      const std::vector<double>* f = ctx.floats(i);
      if (v == nullptr && f == nullptr) return false;
      for (int64_t k = o * chunk; k < (o + 1) * chunk; ++k) {
        if (float_out) {
          fv.push_back(f != nullptr ? (*f)[k] : static_cast<double>((*v)[k]));
        } else {
          iv.push_back(v != nullptr ? (*v)[k] : static_cast<int64_t>((*f)[k]));
        }
      }
    }
  }
  if (float_out) {
    ctx.SetFloats(0, std::move(fv));
  } else {
    ctx.SetInts(0, std::move(iv));
  }
  return true;
}

bool FoldSlice(InferContext& ctx) {
  SliceSpec spec;
  if (!ComputeSlice(ctx, &spec).ok()) return false;
  const std::vector<int64_t> strides = Strides(ctx.dims(0));
  std::vector<int64_t> flat;
  ForEachIndex(spec.out_dims, [&](const std::vector<int64_t>& pos) {
    int64_t f = 0;
    for (size_t d = 0; d < pos.size(); ++d) {
      f += (spec.start[d] + pos[d] * spec.step[d]) * strides[d];
    }
    flat.push_back(f);
  });
  return EmitGathered(ctx, 0, flat);
}

bool FoldTranspose(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  std::vector<int64_t> perm = ctx.node().GetInts("perm");
  if (perm.empty()) {
    for (size_t i = in.size(); i-- > 0;) perm.push_back(i);
  }
  absl::StatusOr<std::vector<int64_t>> p =
      NormalizeAxes(perm, static_cast<int64_t>(in.size()));
  if (!p.ok() || p->size() != in.size()) return false;
  const std::vector<int64_t> strides = Strides(in);
  std::vector<int64_t> flat;
  ForEachIndex(OutDims(ctx), [&](const std::vector<int64_t>& pos) {
    int64_t f = 0;
    for (size_t d = 0; d < pos.size(); ++d) f += pos[d] * strides[(*p)[d]];
    flat.push_back(f);
  });
  return EmitGathered(ctx, 0, flat);
}

// Expand: broadcast the input to the output dims.
bool FoldExpand(InferContext& ctx) {
  if (ctx.dims(0).size() > OutDims(ctx).size()) return false;
  return EmitGathered(ctx, 0, BroadcastIndex(ctx.dims(0), OutDims(ctx)));
}

bool FoldTile(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  const std::vector<int64_t> strides = Strides(in);
  std::vector<int64_t> flat;
  ForEachIndex(OutDims(ctx), [&](const std::vector<int64_t>& pos) {
    int64_t f = 0;
    for (size_t d = 0; d < pos.size(); ++d) {
      f += (pos[d] % in[d]) * strides[d];
    }
    flat.push_back(f);
  });
  return EmitGathered(ctx, 0, flat);
}

bool FoldSplit(InferContext& ctx) {
  const Dims& in = ctx.dims(0);
  absl::StatusOr<int64_t> axis = NormalizeAxis(ctx.node().GetInt("axis", 0),
                                               static_cast<int64_t>(in.size()));
  if (!axis.ok()) return false;
  const std::vector<int64_t> strides = Strides(in);
  int64_t offset = 0;
  for (size_t o = 0; o < ctx.num_outputs(); ++o) {
    if (!ctx.has_output(o)) continue;
    const Dims& out = OutDims(ctx, o);
    std::vector<int64_t> flat;
    ForEachIndex(out, [&](const std::vector<int64_t>& pos) {
      int64_t f = 0;
      for (size_t d = 0; d < pos.size(); ++d) {
        f += (pos[d] + (static_cast<int64_t>(d) == *axis ? offset : 0)) *
             strides[d];
      }
      flat.push_back(f);
    });
    if (!EmitGathered(ctx, o, flat)) return false;
    offset += out[*axis];
  }
  return true;
}

bool FoldRange(InferContext& ctx) {
  std::vector<double> start, delta;
  if (!ctx.ValuesAsDouble(0, &start) || !ctx.ValuesAsDouble(2, &delta)) {
    return false;
  }
  const int64_t n = OutDims(ctx)[0];
  if (IsFloatOut(ctx)) {
    std::vector<double> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = start[0] + i * delta[0];
    ctx.SetFloats(0, std::move(v));
  } else {
    const int64_t s = static_cast<int64_t>(start[0]);
    const int64_t d = static_cast<int64_t>(delta[0]);
    std::vector<int64_t> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = s + i * d;
    ctx.SetInts(0, std::move(v));
  }
  return true;
}

bool FoldReduce(InferContext& ctx) {
  const std::string& op = ctx.node().op_type;
  std::vector<double> x;
  if (!ctx.ValuesAsDouble(0, &x)) return false;
  const Dims& in = ctx.dims(0);
  const Dims& out = OutDims(ctx);
  const int64_t since = op == "ReduceSum" ? 13 : 18;
  std::vector<int64_t> axes;
  bool present = false;
  if (!AxesFromAttrOrInput(ctx, "axes", 1, since, &axes, &present).ok()) {
    return false;
  }
  if (axes.empty()) {
    if (ctx.node().GetInt("noop_with_empty_axes", 0) != 0) {
      return FoldCopy(ctx);
    }
    for (size_t i = 0; i < in.size(); ++i) axes.push_back(i);
  }
  absl::StatusOr<std::vector<int64_t>> a =
      NormalizeAxes(axes, static_cast<int64_t>(in.size()));
  if (!a.ok()) return false;
  std::vector<bool> reduced(in.size(), false);
  for (int64_t i : *a) reduced[i] = true;
  // Output index of each input element: drop or zero the reduced axes.
  Dims kept;
  for (size_t d = 0; d < in.size(); ++d) kept.push_back(reduced[d] ? 1 : in[d]);
  const std::vector<int64_t> kept_strides = Strides(kept);
  const int64_t n_out = Product(out, 0, out.size());
  std::vector<double> acc(n_out, op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<int64_t> count(n_out, 0);
  int64_t k = 0;
  ForEachIndex(in, [&](const std::vector<int64_t>& pos) {
    int64_t o = 0;
    for (size_t d = 0; d < pos.size(); ++d) {
      if (!reduced[d]) o += pos[d] * kept_strides[d];
    }
    const double v = x[k++];
    if (op == "ReduceProd")
      acc[o] *= v;
    else if (op == "ReduceMax")
      acc[o] = count[o] ? std::max(acc[o], v) : v;
    else if (op == "ReduceMin")
      acc[o] = count[o] ? std::min(acc[o], v) : v;
    else
      acc[o] += v;  // ReduceSum, ReduceMean
    ++count[o];
  });
  if (op == "ReduceMean") {
    for (int64_t i = 0; i < n_out; ++i) {
      if (count[i] > 0) acc[i] /= static_cast<double>(count[i]);
    }
  }
  if (IsFloatOut(ctx)) {
    ctx.SetFloats(0, std::move(acc));
  } else {
    std::vector<int64_t> iv(n_out);
    for (int64_t i = 0; i < n_out; ++i) {
      if (std::fabs(acc[i]) > 9.2e18) return false;
      iv[i] = static_cast<int64_t>(acc[i]);
    }
    ctx.SetInts(0, std::move(iv));
  }
  return true;
}

struct NamedFold {
  std::string_view op;
  FoldFn fn;
};
constexpr NamedFold kElementwiseFolds[] = {
    {"Neg", FoldUnary<NegI, NegF>},
    {"Abs", FoldUnary<AbsI, AbsF>},
    {"Not", FoldUnary<NotI, NotF>},
    {"Sign", FoldUnary<SignI, SignF>},
    {"Relu", FoldUnary<ReluI, ReluF>},
    {"BitwiseNot", FoldUnary<BitwiseNotI, nullptr>},
    {"Floor", FoldUnary<IdentityI, FloorF>},
    {"Ceil", FoldUnary<IdentityI, CeilF>},
    {"Round", FoldUnary<IdentityI, RoundF>},
    {"Sqrt", FoldUnary<nullptr, SqrtF>},
    {"Reciprocal", FoldUnary<nullptr, ReciprocalF>},
    {"Exp", FoldUnary<nullptr, ExpF>},
    {"Log", FoldUnary<nullptr, LogF>},
    {"Add", FoldBinary<AddI, AddF>},
    {"Sub", FoldBinary<SubI, SubF>},
    {"Mul", FoldBinary<MulI, MulF>},
    {"Div", FoldBinary<DivI, DivF>},
    {"Pow", FoldBinary<PowI, PowF>},
    {"BitwiseAnd", FoldBinary<AndI, nullptr>},
    {"BitwiseOr", FoldBinary<OrI, nullptr>},
    {"BitwiseXor", FoldBinary<XorI, nullptr>},
    {"Mod", FoldMod},
    {"BitShift", FoldBitShift},
    {"Max", FoldVariadic<MaxI, MaxF, false>},
    {"Min", FoldVariadic<MinI, MinF, false>},
    {"Sum", FoldVariadic<AddI, AddF, false>},
    {"Mean", FoldVariadic<AddI, AddF, true>},
    {"Equal", FoldCompare<EqualI, EqualF>},
    {"Less", FoldCompare<LessI, LessF>},
    {"LessOrEqual", FoldCompare<LessOrEqualI, LessOrEqualF>},
    {"Greater", FoldCompare<GreaterI, GreaterF>},
    {"GreaterOrEqual", FoldCompare<GreaterOrEqualI, GreaterOrEqualF>},
    {"And", FoldCompare<AndP, nullptr>},
    {"Or", FoldCompare<OrP, nullptr>},
    {"Xor", FoldCompare<XorP, nullptr>},
};
constexpr std::string_view kCopyOps[] = {"Identity", "Reshape",   "Flatten",
                                         "Squeeze",  "Unsqueeze", "Dropout",
                                         "Cast",     "CastLike"};
constexpr std::string_view kReduceOps[] = {
    "ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean"};

}  // namespace

void RegisterConstantFolding(ShapeRegistry* registry) {
  for (const NamedFold& f : kElementwiseFolds) registry->AddFold(f.op, f.fn);
  for (std::string_view op : kCopyOps) registry->AddFold(op, FoldCopy);
  for (std::string_view op : kReduceOps) registry->AddFold(op, FoldReduce);
  registry->AddFold("Where", FoldWhere);
  registry->AddFold("Clip", FoldClip);
  registry->AddFold("Gather", FoldGather);
  registry->AddFold("Concat", FoldConcat);
  registry->AddFold("Slice", FoldSlice);
  registry->AddFold("Transpose", FoldTranspose);
  registry->AddFold("Expand", FoldExpand);
  registry->AddFold("Tile", FoldTile);
  registry->AddFold("Split", FoldSplit);
  registry->AddFold("Range", FoldRange);
}

}  // namespace shapes
}  // namespace ridgeline::importers
