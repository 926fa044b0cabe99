// Rank statistics used by the predicted-vs-measured report, on examples
// computed by hand.
#include <cmath>
#include <vector>

#include "engine/rank_stats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ridgeline::engine {
namespace {

using ::testing::ElementsAre;

TEST(AverageRanksTest, DistinctValuesGetTheirPositions) {
  // Sorted: 1 (index 2), 5 (index 0), 9 (index 1).
  EXPECT_THAT(AverageRanks({5, 9, 1}), ElementsAre(2, 3, 1));
}

TEST(AverageRanksTest, TiesShareTheMeanRank) {
  // {10, 20, 20, 30}: the two 20s span ranks 2 and 3 -> 2.5 each.
  EXPECT_THAT(AverageRanks({10, 20, 20, 30}), ElementsAre(1, 2.5, 2.5, 4));
  // Three equal values span ranks 1..3 -> 2 each.
  EXPECT_THAT(AverageRanks({7, 7, 7}), ElementsAre(2, 2, 2));
}

TEST(SpearmanTest, MonotoneIsOneAndReversedIsMinusOne) {
  // Any strictly increasing relation has identical ranks: rho = 1.
  EXPECT_DOUBLE_EQ(*SpearmanCorrelation({1, 2, 3, 4}, {10, 100, 1000, 1e4}),
                   1.0);
  EXPECT_DOUBLE_EQ(*SpearmanCorrelation({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
}

TEST(SpearmanTest, ClassicFormulaWithoutTies) {
  // x ranks 1..5, y = {2, 1, 4, 3, 5} as ranks. d = {-1, 1, -1, 1, 0},
  // sum d^2 = 4; rho = 1 - 6 * 4 / (5 * (25 - 1)) = 1 - 24/120 = 0.8.
  EXPECT_NEAR(*SpearmanCorrelation({1, 2, 3, 4, 5}, {20, 10, 40, 30, 50}), 0.8,
              1e-12);
}

TEST(SpearmanTest, TiesUsePearsonOnAverageRanks) {
  // x = {1, 2, 3, 4} -> ranks {1, 2, 3, 4}, centered {-1.5, -0.5, 0.5, 1.5}.
  // y = {1, 2, 2, 3} -> ranks {1, 2.5, 2.5, 4}, centered {-1.5, 0, 0, 1.5}.
  // sxy = 2.25 + 0 + 0 + 2.25 = 4.5; sxx = 5; syy = 4.5.
  // rho = 4.5 / sqrt(5 * 4.5) = 4.5 / sqrt(22.5) = 0.948683...
  EXPECT_NEAR(*SpearmanCorrelation({1, 2, 3, 4}, {1, 2, 2, 3}),
              4.5 / std::sqrt(22.5), 1e-12);
}

TEST(SpearmanTest, UndefinedCases) {
  EXPECT_FALSE(SpearmanCorrelation({1}, {2}).has_value());           // n < 2
  EXPECT_FALSE(SpearmanCorrelation({1, 2}, {1, 2, 3}).has_value());  // sizes
  EXPECT_FALSE(
      SpearmanCorrelation({1, 2, 3}, {5, 5, 5}).has_value());  // no variance
}

TEST(QuantileTest, LinearInterpolationType7) {
  // Sorted {1, 2, 3, 4}: h = 3q. q = 0.5 -> h = 1.5 -> 2 + 0.5 * (3 - 2) = 2.5.
  // q = 0.25 -> h = 0.75 -> 1 + 0.75 * 1 = 1.75; q = 0.75 -> h = 2.25 -> 3.25.
  std::vector<double> v = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(*Quantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(*Quantile(v, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(*Quantile(v, 0.75), 3.25);
  EXPECT_DOUBLE_EQ(*Quantile(v, 0.0), 1);
  EXPECT_DOUBLE_EQ(*Quantile(v, 1.0), 4);
  EXPECT_DOUBLE_EQ(*Quantile({7}, 0.3), 7);
  EXPECT_FALSE(Quantile({}, 0.5).has_value());
}

}  // namespace
}  // namespace ridgeline::engine
