// Recurrent-layer counters; expected values computed by hand in the comments.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using testing::CounterGraph;

TEST(RnnCounterTest, LstmWithBias) {
  CounterGraph g;
  // T=5 steps, B=2, I=10, H=8, one direction.
  int x = g.Input("x", {5, 2, 10});
  int w = g.Weight("w", {1, 32, 10});
  int r = g.Weight("r", {1, 32, 8});
  int b = g.Weight("b", {1, 64});
  int lstm = g.Op("LSTM", {x, w, r, b}, {{5, 1, 2, 8}, {1, 2, 8}, {1, 2, 8}},
                  {{"hidden_size", int64_t{8}}});
  Cost c = g.Count(lstm);
  // D*T*B = 10 rows, G*H = 32 gate units, I+H = 18: 10*32*18 = 5760.
  EXPECT_DOUBLE_EQ(c.macs, 5760);
  // Per hidden unit per step: 4 adds of Wx+Rh, 8 bias adds, activations
  // 3*Sigmoid(13) + Tanh 8 + Tanh 8 = 55, cell update 4 -> 71.
  // Units*steps = D*T*B*H = 80: 5680.
  EXPECT_DOUBLE_EQ(c.other_flops, 5680);
  // Weights read once: (320 + 256 + 64) * 4.
  EXPECT_DOUBLE_EQ(c.weight_bytes, 640 * 4);
}

TEST(RnnCounterTest, BidirectionalGruWithoutBias) {
  CounterGraph g;
  // T=4, B=1, I=6, H=5, two directions.
  int x = g.Input("x", {4, 1, 6});
  int w = g.Weight("w", {2, 15, 6});
  int r = g.Weight("r", {2, 15, 5});
  int gru = g.Op("GRU", {x, w, r}, {{4, 2, 1, 5}},
                 {{"hidden_size", int64_t{5}},
                  {"direction", std::string("bidirectional")}});
  Cost c = g.Count(gru);
  // D*T*B = 8, G*H = 15, I+H = 11: 8*15*11 = 1320.
  EXPECT_DOUBLE_EQ(c.macs, 1320);
  // Per unit: 3 adds + 2*Sigmoid(13) + Tanh 8 + update 5 = 42; 40 units.
  EXPECT_DOUBLE_EQ(c.other_flops, 1680);
}

TEST(RnnCounterTest, RnnWithReluActivation) {
  CounterGraph g;
  int x = g.Input("x", {3, 2, 4});
  int w = g.Weight("w", {1, 6, 4});
  int r = g.Weight("r", {1, 6, 6});
  int b = g.Weight("b", {1, 12});
  int rnn = g.Op("RNN", {x, w, r, b}, {{3, 1, 2, 6}},
                 {{"hidden_size", int64_t{6}},
                  {"activations", std::vector<std::string>{"Relu"}}});
  Cost c = g.Count(rnn);
  EXPECT_DOUBLE_EQ(c.macs, 3 * 2 * 6 * (4 + 6));  // 360
  // Per unit: 1 add + 2 bias + Relu 1 = 4; 36 units.
  EXPECT_DOUBLE_EQ(c.other_flops, 144);
}

}  // namespace
}  // namespace ridgeline::engine
