#include "engine/rank_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ridgeline::engine {

std::vector<double> AverageRanks(const std::vector<double>& values) {
  const size_t n = values.size();
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(n, 0.0);
  size_t i = 0;
  while (i < n) {
    size_t j = i;
    while (j + 1 < n && values[order[j + 1]] == values[order[i]]) ++j;
    // Positions i..j (0-based) hold equal values: ranks i+1 .. j+1.
    double rank = (static_cast<double>(i + 1) + static_cast<double>(j + 1)) / 2;
    for (size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

std::optional<double> SpearmanCorrelation(const std::vector<double>& x,
                                          const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return std::nullopt;
  std::vector<double> rx = AverageRanks(x);
  std::vector<double> ry = AverageRanks(y);
  const double n = static_cast<double>(x.size());
  const double mean = (n + 1) / 2;  // the mean of ranks 1..n, ties included
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  if (sxx == 0 || syy == 0) return std::nullopt;
  return sxy / std::sqrt(sxx * syy);
}

std::optional<double> Quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  q = std::clamp(q, 0.0, 1.0);
  double h = static_cast<double>(values.size() - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  size_t hi = std::min(lo + 1, values.size() - 1);
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

}  // namespace ridgeline::engine
