#include "engine/cost.h"

#include <algorithm>
#include <cmath>

namespace ridgeline::engine {
namespace {

// Query and key positions of a flash attention kernel's tiles (cost.h).
constexpr double kCausalTilePositions = 128;

}  // namespace

double CausalScoreShare(double m, double n) {
  if (!(m > 1) || !(n >= m)) return 1;
  const double tile = kCausalTilePositions;
  const double past = n - m;
  const double key_tiles = std::ceil(n / tile);
  const double query_tiles = std::ceil(m / tile);
  double computed = 0;
  for (double i = 0; i < query_tiles; ++i) {
    computed += std::ceil(std::min(n, past + (i + 1) * tile) / tile);
  }
  return computed / (query_tiles * key_tiles);
}

}  // namespace ridgeline::engine
