// Elementwise, softmax and reduction counters; expected values computed by
// hand from the cost table (cost_table.h): add/mul/cmp 1, div/sqrt 4,
// transcendental 8.
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using testing::CounterGraph;
using V = std::vector<int64_t>;

TEST(ElementwiseCounterTest, BroadcastAddCountsOutputElements) {
  CounterGraph g;
  int a = g.Input("a", {2, 3, 4});
  int b = g.Weight("b", {4});
  int add = g.Op("Add", {a, b}, {{2, 3, 4}});
  Cost c = g.Count(add);
  EXPECT_DOUBLE_EQ(c.other_flops, 24);           // 24 output elements
  EXPECT_DOUBLE_EQ(c.bytes_read, (24 + 4) * 4);  // b read unbroadcast
  EXPECT_DOUBLE_EQ(c.weight_bytes, 16);
  EXPECT_DOUBLE_EQ(c.bytes_written, 96);
  EXPECT_DOUBLE_EQ(c.macs, 0);
}

TEST(ElementwiseCounterTest, ActivationCosts) {
  CounterGraph g;
  int x = g.Input("x", {10});
  struct Case {
    const char* op;
    double per_element;  // from cost_table.h
  };
  const Case cases[] = {
      {"Relu", 1},      // max
      {"Sigmoid", 13},  // exp 8 + add 1 + div 4
      {"Tanh", 8},      // transcendental
      {"Erf", 8},       // transcendental (onnx-tool: 0)
      {"Exp", 8},        {"Log", 8},         {"Sqrt", 4},
      {"Reciprocal", 4}, {"HardSigmoid", 4},  // mul, add, min, max
      {"HardSwish", 5},                       // hardsigmoid + mul
      {"Clip", 2},                            // min, max
      {"LeakyRelu", 2},                       // cmp, mul
      {"Softplus", 17},                       // exp 8 + add 1 + log 8
      {"Cast", 0},
  };
  std::vector<int> nodes;
  for (const Case& k : cases) nodes.push_back(g.Op(k.op, {x}, {{10}}));
  for (size_t i = 0; i < nodes.size(); ++i) {
    EXPECT_DOUBLE_EQ(g.Count(nodes[i]).other_flops, 10 * cases[i].per_element)
        << cases[i].op;
  }
}

TEST(ElementwiseCounterTest, GeluForms) {
  CounterGraph g;
  int x = g.Input("x", {10});
  int bias = g.Weight("bias", {10});
  int erf = g.Op("Gelu", {x}, {{10}});
  int tanh = g.Op("Gelu", {x}, {{10}}, {{"approximate", std::string("tanh")}});
  int fast = g.Op("FastGelu", {x, bias}, {{10}}, {}, "com.microsoft");
  int bias_gelu = g.Op("BiasGelu", {x, bias}, {{10}}, {}, "com.microsoft");
  int quick = g.Op("QuickGelu", {x}, {{10}}, {}, "com.microsoft");
  // erf form: x/sqrt2 (1) + erf (8) + add 1 + 2 mul = 12 per element.
  EXPECT_DOUBLE_EQ(g.Count(erf).other_flops, 120);
  // tanh form: x^3 (2) + mul + add + mul + tanh 8 + add + 2 mul = 16.
  EXPECT_DOUBLE_EQ(g.Count(tanh).other_flops, 160);
  EXPECT_DOUBLE_EQ(g.Count(fast).other_flops, 170);       // 16 + bias 1
  EXPECT_DOUBLE_EQ(g.Count(bias_gelu).other_flops, 130);  // 1 + 12
  EXPECT_DOUBLE_EQ(g.Count(quick).other_flops, 150);      // 1 + 13 + 1
}

TEST(ElementwiseCounterTest, VariadicAndRepeatedInputs) {
  CounterGraph g;
  int a = g.Input("a", {5});
  int b = g.Input("b", {5});
  int c = g.Input("c", {5});
  int sum = g.Op("Sum", {a, b, c}, {{5}});
  int mean = g.Op("Mean", {a, b, c}, {{5}});
  int square = g.Op("Mul", {a, a}, {{5}});
  EXPECT_DOUBLE_EQ(g.Count(sum).other_flops, 10);    // 2 adds * 5
  EXPECT_DOUBLE_EQ(g.Count(mean).other_flops, 15);   // (2 adds + 1 mul) * 5
  EXPECT_DOUBLE_EQ(g.Count(square).bytes_read, 20);  // a read once
}

TEST(ElementwiseCounterTest, WhereReadsEachInput) {
  CounterGraph g;
  int cond = g.Input("cond", {4}, DType::kBool);
  int a = g.Input("a", {4});
  int b = g.Input("b", {4});
  int where = g.Op("Where", {cond, a, b}, {{4}});
  Cost c = g.Count(where);
  EXPECT_DOUBLE_EQ(c.other_flops, 4);
  EXPECT_DOUBLE_EQ(c.bytes_read, 4 + 16 + 16);
}

TEST(ElementwiseCounterTest, CastMovesBytesOnly) {
  CounterGraph g;
  int x = g.Input("x", {10});
  int cast =
      g.Op("Cast", {x}, {{10}}, {{"to", int64_t{10}}}, "", DType::kFloat16);
  Cost c = g.Count(cast);
  EXPECT_DOUBLE_EQ(c.other_flops, 0);
  EXPECT_DOUBLE_EQ(c.bytes_read, 40);
  EXPECT_DOUBLE_EQ(c.bytes_written, 20);
}

TEST(SoftmaxCounterTest, SoftmaxAndLogSoftmax) {
  CounterGraph g;
  int x = g.Input("x", {2, 3, 10});
  int sm = g.Op("Softmax", {x}, {{2, 3, 10}});
  int lsm = g.Op("LogSoftmax", {x}, {{2, 3, 10}});
  // Softmax: 60 elements * (max 1 + sub 1 + exp 8 + sum 1 + div 4 = 15).
  EXPECT_DOUBLE_EQ(g.Count(sm).other_flops, 900);
  // LogSoftmax: 60 * (1+1+8+1+1 = 12) + 6 rows * log 8 = 720 + 48.
  EXPECT_DOUBLE_EQ(g.Count(lsm).other_flops, 768);
}

TEST(SoftmaxCounterTest, LegacyOpsetFlattensAtAxis) {
  CounterGraph g;
  int x = g.Input("x", {2, 3, 10});
  int lsm = g.Op("LogSoftmax", {x}, {{2, 3, 10}}, {{"axis", int64_t{1}}});
  g.graph().mutable_node(lsm).opset = 11;
  // Opset 11 flattens to [2, 30]: 2 rows. 720 + 2*8 = 736.
  EXPECT_DOUBLE_EQ(g.Count(lsm).other_flops, 736);
}

// com.microsoft BiasSoftmax (its opset 1): softmax(data + bias) over the
// dims from axis 1 on; per element the add 1 + softmax 15.
TEST(SoftmaxCounterTest, BiasSoftmaxAddsTheBias) {
  CounterGraph g;
  int x = g.Input("x", {2, 4, 8, 8});
  int bias = g.Input("bias", {2, 1, 8, 8});
  int y = g.Op("BiasSoftmax", {x, bias}, {{2, 4, 8, 8}}, {}, "com.microsoft");
  EXPECT_DOUBLE_EQ(g.Count(y).other_flops, 512 * 16);
}

// com.microsoft BiasDropout at inference (no training_mode): data + bias
// + residual, 2 adds per element; in training (a training_mode that is not
// a folded false) also the mask compare and the scale, 4.
TEST(ElementwiseCounterTest, BiasDropoutAtInferenceAndInTraining) {
  CounterGraph g;
  int x = g.Input("x", {2, 3, 16});
  int bias = g.Weight("bias", {16});
  int residual = g.Input("residual", {2, 3, 16});
  int infer = g.Op("BiasDropout", {x, bias, residual}, {{2, 3, 16}}, {},
                   "com.microsoft");
  EXPECT_DOUBLE_EQ(g.Count(infer).other_flops, 96 * 2);
  int off = g.IntConstant("off", {0}, /*scalar=*/true, DType::kBool);
  int ratio = g.Weight("ratio", {});
  int folded_off = g.Op("BiasDropout", {x, bias, -1, ratio, off}, {{2, 3, 16}},
                        {}, "com.microsoft");
  EXPECT_DOUBLE_EQ(g.Count(folded_off).other_flops, 96 * 1);
  int on = g.Input("training", {}, DType::kBool);
  int train = g.Op("BiasDropout", {x, bias, residual, ratio, on},
                   {{2, 3, 16}, {2, 3, 16}}, {}, "com.microsoft");
  EXPECT_DOUBLE_EQ(g.Count(train).other_flops, 96 * 4);
}

TEST(ReduceCounterTest, CountsInputElements) {
  CounterGraph g;
  int x = g.Input("x", {4, 6});
  int sum = g.Op("ReduceSum", {x}, {{4, 1}});
  int mean = g.Op("ReduceMean", {x}, {{4, 1}}, {{"axes", V{1}}});
  int l2 = g.Op("ReduceL2", {x}, {{4, 1}}, {{"axes", V{1}}});
  int argmax = g.Op("ArgMax", {x}, {{4, 1}}, {}, "", DType::kInt64);
  EXPECT_DOUBLE_EQ(g.Count(sum).other_flops, 24);
  EXPECT_DOUBLE_EQ(g.Count(mean).other_flops, 24 + 4);  // + 1/n per output
  EXPECT_DOUBLE_EQ(g.Count(l2).other_flops, 24 * 2 + 4 * 4);  // sq+add; sqrt
  EXPECT_DOUBLE_EQ(g.Count(argmax).other_flops, 24);
}

}  // namespace
}  // namespace ridgeline::engine
