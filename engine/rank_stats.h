// Order statistics used to compare predicted and measured layer times:
// average ranks, Spearman's rank correlation, and quantiles.
#ifndef RIDGELINE_ENGINE_RANK_STATS_H_
#define RIDGELINE_ENGINE_RANK_STATS_H_

#include <optional>
#include <vector>

namespace ridgeline::engine {

// 1-based ranks of `values` in ascending order; tied values all get the mean
// of the ranks they span ({10, 20, 20, 30} -> {1, 2.5, 2.5, 4}).
std::vector<double> AverageRanks(const std::vector<double>& values);

// Spearman's rank correlation: the Pearson correlation of the average ranks
// of x and y (the tie-corrected form). nullopt when the sizes differ, fewer
// than 2 pairs are given, or either side has all values tied (no variance).
std::optional<double> SpearmanCorrelation(const std::vector<double>& x,
                                          const std::vector<double>& y);

// The q-quantile (0 <= q <= 1) with linear interpolation between the closest
// order statistics (Hyndman & Fan type 7, NumPy's default): position
// h = (n - 1) * q in the sorted values. nullopt for an empty input.
std::optional<double> Quantile(std::vector<double> values, double q);

}  // namespace ridgeline::engine

#endif  // RIDGELINE_ENGINE_RANK_STATS_H_
