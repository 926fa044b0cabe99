// The KV cache of a decoder graph (FindKvCache) and the rebinding of its
// past-length dim (PastRebinder), declared in engine/serve.h.
#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "engine/serve.h"
#include "fmt/format.h"

namespace ridgeline::engine {
namespace {

bool NamedLike(const std::string& name, std::initializer_list<const char*> ws) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (const char* w : ws) {
    if (absl::StrContains(lower, w)) return true;
  }
  return false;
}

// The importer folds at most this many values of a tensor
// (importers/shapes/context.h kMaxFoldedElements).
constexpr int64_t kMaxFoldedElements = 4096;

// {start, step} when `v` (>= 2 values) is an arithmetic progression.
std::optional<std::pair<int64_t, int64_t>> Progression(
    const std::vector<int64_t>& v) {
  if (v.size() < 2) return std::nullopt;
  const int64_t step = v[1] - v[0];
  for (size_t k = 2; k < v.size(); ++k) {
    if (v[k] - v[k - 1] != step) return std::nullopt;
  }
  return std::make_pair(v[0], step);
}

}  // namespace

bool IsKvCacheTensor(const graph::Tensor& t) {
  return t.shape_known && t.dims.size() >= 3 && graph::IsFloating(t.dtype) &&
         NamedLike(t.name, {"past", "present", "cache"});
}

absl::StatusOr<KvCache> FindKvCache(const graph::Graph& decode,
                                    int64_t past_length,
                                    const TensorPricer& pricer,
                                    const graph::Graph* decode_next) {
  KvCache kv;
  for (int i : decode.Inputs()) {
    const graph::Tensor& t = decode.tensor(i);
    if (!IsKvCacheTensor(t)) continue;
    const bool fixed = decode_next != nullptr &&
                       i < static_cast<int>(decode_next->tensors().size()) &&
                       decode_next->tensor(i).dims == t.dims;
    (fixed ? kv.fixed_inputs : kv.past_inputs).push_back(i);
  }
  if (kv.past_inputs.empty()) {
    return absl::NotFoundError(
        kv.fixed_inputs.empty()
            ? "no KV cache: no floating graph input of rank >= 3 named like "
              "past_key_values / past / cache (is this a decoder exported "
              "with use_cache?)"
            : "no KV cache: no KV input grows with the past length");
  }
  const graph::Tensor& first = decode.tensor(kv.past_inputs.front());
  // The past axis: the one bound to past_length, preferring rank - 2
  // ([batch, heads, past, head_dim]).
  std::vector<int> axes;
  for (int a = 1; a < static_cast<int>(first.dims.size()); ++a) {
    if (first.dims[a] == past_length) axes.push_back(a);
  }
  if (axes.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("KV input '{}' has no dim equal to the past length {}",
                    first.name, past_length));
  }
  const int preferred = static_cast<int>(first.dims.size()) - 2;
  kv.past_axis = std::find(axes.begin(), axes.end(), preferred) != axes.end()
                     ? preferred
                     : axes.front();
  for (int i : kv.past_inputs) {
    const graph::Tensor& t = decode.tensor(i);
    if (static_cast<int>(t.dims.size()) <= kv.past_axis ||
        t.dims[kv.past_axis] != past_length) {
      return absl::InvalidArgumentError(
          fmt::format("KV input '{}': dim {} is not the past length {}", t.name,
                      kv.past_axis, past_length));
    }
    double per_token = pricer.ElementBytes(decode, t);
    for (int a = 1; a < static_cast<int>(t.dims.size()); ++a) {
      if (a != kv.past_axis) per_token *= static_cast<double>(t.dims[a]);
    }
    kv.bytes_per_token += per_token;
  }
  for (int i : kv.fixed_inputs) {
    const graph::Tensor& t = decode.tensor(i);
    double bytes = pricer.ElementBytes(decode, t);
    for (size_t a = 1; a < t.dims.size(); ++a) {
      bytes *= static_cast<double>(t.dims[a]);
    }
    kv.fixed_bytes_per_sequence += bytes;
  }
  for (int o : decode.outputs()) {
    if (IsKvCacheTensor(decode.tensor(o))) kv.present_outputs.push_back(o);
  }
  kv.layers = static_cast<int64_t>(kv.past_inputs.size()) / 2;
  return kv;
}

EncoderSide FindEncoderSide(const graph::Graph& prefill,
                            const graph::Graph& decode, const KvCache& kv) {
  EncoderSide side;
  for (int i : decode.Inputs()) {
    const graph::Tensor& t = decode.tensor(i);
    if (graph::IsFloating(t.dtype) && t.dims.size() >= 3 &&
        !IsKvCacheTensor(t) && NamedLike(t.name, {"encoder"})) {
      side.state_inputs.push_back(t.name);
    }
  }
  for (int i : kv.fixed_inputs) {
    const std::string& name = decode.tensor(i).name;
    side.cross_kv_inputs.push_back(name);
    const std::optional<int> in_prefill = prefill.FindTensor(name);
    if (!in_prefill) continue;
    for (int node : prefill.tensor(*in_prefill).consumers) {
      if (!prefill.node(node).not_run) side.prefill_reads_cross_kv = true;
    }
  }
  return side;
}

absl::StatusOr<PastRebinder> PastRebinder::Create(
    const graph::Graph& at_p0, const graph::Graph& at_p0_plus_1, int64_t p0) {
  if (at_p0.tensors().size() != at_p0_plus_1.tensors().size()) {
    return absl::InvalidArgumentError(
        "the decoder's structure changes with the past length");
  }
  PastRebinder r;
  r.p0_ = p0;
  for (size_t i = 0; i < at_p0.tensors().size(); ++i) {
    const graph::Tensor& a = at_p0.tensor(static_cast<int>(i));
    const graph::Tensor& b = at_p0_plus_1.tensor(static_cast<int>(i));
    if (a.shape_known != b.shape_known || a.dims.size() != b.dims.size() ||
        a.int_values.has_value() != b.int_values.has_value()) {
      return absl::InvalidArgumentError(fmt::format(
          "tensor '{}' changes rank or shape knowledge with the past length",
          a.name));
    }
    Moving m{static_cast<int>(i), {}, {}};
    bool moves = false;
    for (size_t d = 0; d < a.dims.size(); ++d) {
      m.dims_slope.push_back(b.dims[d] - a.dims[d]);
      moves = moves || m.dims_slope.back() != 0;
    }
    if (a.int_values && a.int_values->size() != b.int_values->size()) {
      std::optional<std::pair<int64_t, int64_t>> pa =
          Progression(*a.int_values);
      if (!pa || pa != Progression(*b.int_values)) {
        return absl::InvalidArgumentError(fmt::format(
            "tensor '{}': its folded values change count with the past "
            "length and are not a progression",
            a.name));
      }
      m.progression = true;
      m.start = pa->first;
      m.step = pa->second;
      moves = true;
    } else if (a.int_values) {
      for (size_t v = 0; v < a.int_values->size(); ++v) {
        m.values_slope.push_back((*b.int_values)[v] - (*a.int_values)[v]);
        moves = moves || m.values_slope.back() != 0;
      }
    }
    if (moves) r.moving_.push_back(std::move(m));
  }
  r.base_ = at_p0;
  return r;
}

absl::StatusOr<graph::Graph> PastRebinder::At(int64_t p) const {
  graph::Graph g = base_;
  const int64_t dp = p - p0_;
  for (const Moving& m : moving_) {
    graph::Tensor& t = g.mutable_tensor(m.tensor);
    for (size_t d = 0; d < m.dims_slope.size(); ++d) {
      t.dims[d] += m.dims_slope[d] * dp;
      if (t.dims[d] < 0 || t.dims[d] > graph::kMaxDim) {
        return absl::InvalidArgumentError(fmt::format(
            "tensor '{}' has dim {} at past length {}", t.name, t.dims[d], p));
      }
    }
    for (size_t v = 0; v < m.values_slope.size(); ++v) {
      (*t.int_values)[v] += m.values_slope[v] * dp;
    }
    if (m.progression) {
      const int64_t n = t.NumElements();
      t.int_values.reset();
      if (n <= kMaxFoldedElements) {
        t.int_values.emplace(n);
        for (int64_t k = 0; k < n; ++k) {
          (*t.int_values)[k] = m.start + k * m.step;
        }
      }
    }
  }
  return g;
}

absl::Status PastRebinder::Verify(const graph::Graph& imported,
                                  int64_t p) const {
  absl::StatusOr<graph::Graph> g = At(p);
  if (!g.ok()) return g.status();
  if (g->tensors().size() != imported.tensors().size()) {
    return absl::InvalidArgumentError("tensor count differs");
  }
  for (size_t i = 0; i < imported.tensors().size(); ++i) {
    const graph::Tensor& a = g->tensor(static_cast<int>(i));
    const graph::Tensor& b = imported.tensor(static_cast<int>(i));
    if (a.dims != b.dims || a.int_values != b.int_values) {
      return absl::InvalidArgumentError(fmt::format(
          "tensor '{}' is not affine in the past length (rebound at {} it "
          "differs from the import)",
          a.name, p));
    }
  }
  return absl::OkStatus();
}

}  // namespace ridgeline::engine
