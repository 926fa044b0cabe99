// Quantized-op counters; expected values computed by hand in the comments.
#include <vector>

#include "gtest/gtest.h"
#include "tests/counters_test_util.h"

namespace ridgeline::engine {
namespace {

using graph::DType;
using testing::CounterGraph;

TEST(QuantizedCounterTest, MatMulNBits4BitBlock32) {
  CounterGraph g;
  // M = 5 tokens, K = 128, N = 64, 4 bits, block 32 -> 4 blocks per row,
  // blob 32*4/8 = 16 bytes.
  int a = g.Input("a", {1, 5, 128}, DType::kFloat16);
  int b = g.Weight("b", {64, 4, 16}, DType::kUInt8);
  int scales = g.Weight("scales", {256}, DType::kFloat16);  // N * 4 blocks
  // 4-bit zero points packed 2 per byte: ceil(4*4/8) = 2 bytes per row.
  int zp = g.Weight("zp", {128}, DType::kUInt8);
  int mm = g.Op("MatMulNBits", {a, b, scales, zp}, {{1, 5, 64}},
                {{"K", int64_t{128}},
                 {"N", int64_t{64}},
                 {"bits", int64_t{4}},
                 {"block_size", int64_t{32}}},
                "com.microsoft", DType::kFloat16);
  Cost c = g.Count(mm);
  EXPECT_DOUBLE_EQ(c.macs, 5 * 64 * 128);  // M*N*K = 40960
  // Dequantize each weight once: 2 * N*K = 16384.
  EXPECT_DOUBLE_EQ(c.other_flops, 16384);
  // Packed weight N*K*bits/8 = 64*128*4/8 = 4096 bytes; scales 256*2 = 512;
  // zero points 128 -> weights 4736. A 640 fp16 = 1280 bytes.
  EXPECT_DOUBLE_EQ(c.weight_bytes, 4096 + 512 + 128);
  EXPECT_DOUBLE_EQ(c.bytes_read, 1280 + 4736);
  EXPECT_DOUBLE_EQ(c.bytes_written, 5 * 64 * 2);  // 640
}

// bitsandbytes 4-bit (com.microsoft MatMulBnb4): A [.., K], B packed
// [(N * K + 1) / 2] uint8, absmax per block; counted as MatMulNBits.
TEST(QuantizedCounterTest, MatMulBnb4AsMatMulNBits) {
  CounterGraph g;
  int a = g.Input("a", {1, 5, 128}, DType::kFloat16);
  int b = g.Weight("b", {4096}, DType::kUInt8);             // 64 * 128 / 2
  int absmax = g.Weight("absmax", {128}, DType::kFloat16);  // blocks of 64
  int mm = g.Op("MatMulBnb4", {a, b, absmax}, {{1, 5, 64}},
                {{"K", int64_t{128}},
                 {"N", int64_t{64}},
                 {"block_size", int64_t{64}},
                 {"quant_type", int64_t{1}}},
                "com.microsoft", DType::kFloat16);
  Cost c = g.Count(mm);
  EXPECT_DOUBLE_EQ(c.macs, 5 * 64 * 128);         // 40960
  EXPECT_DOUBLE_EQ(c.other_flops, 2 * 64 * 128);  // 16384
  EXPECT_DOUBLE_EQ(c.weight_bytes, 4096 + 256);
}

TEST(QuantizedCounterTest, MatMulIntegerZeroPointIsNotAnExtraOp) {
  CounterGraph g;
  int a = g.Input("a", {4, 16}, DType::kUInt8);
  int b = g.Weight("b", {16, 8}, DType::kInt8);
  int azp = g.Weight("azp", {}, DType::kUInt8);
  int mm = g.Op("MatMulInteger", {a, b, azp}, {{4, 8}}, {}, "", DType::kInt32);
  Cost c = g.Count(mm);
  EXPECT_DOUBLE_EQ(c.macs, 4 * 8 * 16);  // 512 (onnx-tool: 512 + 32)
  EXPECT_DOUBLE_EQ(c.other_flops, 0);
  // a 64 + b 128 + zero point 1 byte; y 32 int32 = 128 bytes.
  EXPECT_DOUBLE_EQ(c.bytes_read, 64 + 128 + 1);
  EXPECT_DOUBLE_EQ(c.bytes_written, 128);
}

TEST(QuantizedCounterTest, QLinearConvWithBias) {
  CounterGraph g;
  int x = g.Input("x", {1, 8, 10, 10}, DType::kUInt8);
  int xs = g.Weight("xs", {});
  int xz = g.Weight("xz", {}, DType::kUInt8);
  int w = g.Weight("w", {16, 8, 3, 3}, DType::kInt8);
  int ws = g.Weight("ws", {16});
  int wz = g.Weight("wz", {16}, DType::kInt8);
  int ys = g.Weight("ys", {});
  int yz = g.Weight("yz", {}, DType::kUInt8);
  int bias = g.Weight("bias", {16}, DType::kInt32);
  int conv = g.Op("QLinearConv", {x, xs, xz, w, ws, wz, ys, yz, bias},
                  {{1, 16, 8, 8}}, {}, "", DType::kUInt8);
  Cost c = g.Count(conv);
  // 1*16*8*8*8*9 = 73728.
  EXPECT_DOUBLE_EQ(c.macs, 73728);
  // Requantize 2 + bias 1 per output element: 3 * 1024 = 3072.
  EXPECT_DOUBLE_EQ(c.other_flops, 3072);
  EXPECT_DOUBLE_EQ(c.bytes_written, 1024);  // uint8 output
}

TEST(QuantizedCounterTest, QLinearMatMul) {
  CounterGraph g;
  int a = g.Input("a", {3, 16}, DType::kUInt8);
  int s = g.Weight("s", {});
  int z = g.Weight("z", {}, DType::kUInt8);
  int b = g.Weight("b", {16, 4}, DType::kUInt8);
  int mm = g.Op("QLinearMatMul", {a, s, z, b, s, z, s, z}, {{3, 4}}, {}, "",
                DType::kUInt8);
  Cost c = g.Count(mm);
  EXPECT_DOUBLE_EQ(c.macs, 3 * 4 * 16);        // 192
  EXPECT_DOUBLE_EQ(c.other_flops, 2 * 3 * 4);  // requantize: 24
  // Repeated inputs are read once: a 48 + s 4 + z 1 + b 64 = 117.
  EXPECT_DOUBLE_EQ(c.bytes_read, 117);
}

TEST(QuantizedCounterTest, QuantizeAndDequantizeAreTwoPerElement) {
  CounterGraph g;
  int x = g.Input("x", {100}, DType::kInt8);
  int s = g.Weight("s", {});
  int dq = g.Op("DequantizeLinear", {x, s}, {{100}});
  int q = g.Op("QuantizeLinear", {g.Out(dq), s}, {{100}}, {}, "", DType::kInt8);
  Cost cd = g.Count(dq);
  EXPECT_DOUBLE_EQ(cd.other_flops, 200);
  EXPECT_DOUBLE_EQ(cd.bytes_read, 100 + 4);
  EXPECT_DOUBLE_EQ(cd.bytes_written, 400);
  EXPECT_DOUBLE_EQ(g.Count(q).other_flops, 200);
}

TEST(QuantizedCounterTest, GatherBlockQuantizedReadsTheGatheredRowsOnly) {
  CounterGraph g;
  // A 4-bit embedding table of 16 rows of K = 64 (32 packed bytes a row),
  // fp16 scales per block of 32 (2 a row), 6 token ids.
  int data = g.Weight("data", {16, 32}, DType::kUInt8);
  int ids = g.Input("ids", {2, 3}, DType::kInt64);
  int scales = g.Weight("scales", {16, 2}, DType::kFloat16);
  int gbq = g.Op("GatherBlockQuantized", {data, ids, scales}, {{2, 3, 64}},
                 {{"bits", int64_t{4}}, {"block_size", int64_t{32}}},
                 "com.microsoft", DType::kFloat16);
  Cost c = g.Count(gbq);
  // 384 output elements, each dequantized: 2 x 384 = 768.
  EXPECT_DOUBLE_EQ(c.other_flops, 768);
  // Data: 384 / 2 values a byte = 192 bytes of the 512; scales 384 / 32 =
  // 12 of 32, 2 bytes each = 24; ids 6 x 8 = 48.
  EXPECT_DOUBLE_EQ(c.weight_bytes, 192 + 24);
  EXPECT_DOUBLE_EQ(c.bytes_read, 192 + 24 + 48);
  EXPECT_DOUBLE_EQ(c.bytes_written, 384 * 2);
}

TEST(QuantizedCounterTest, GemmFastGeluIsAMatMulWithATanhGeluEpilogue) {
  CounterGraph g;
  int x = g.Input("x", {4, 8});
  int w = g.Weight("w", {8, 16});
  int bias = g.Weight("bias", {16});
  int op = g.Op("GemmFastGelu", {x, w, bias}, {{4, 16}}, {}, "com.microsoft");
  Cost c = g.Count(op);
  EXPECT_DOUBLE_EQ(c.macs, 4 * 16 * 8);  // 512
  // 64 outputs x (bias add 1 + tanh GELU 16: x^3 2, mul, add, mul, tanh 8,
  // add, 2 mul) = 64 x 17 = 1088.
  EXPECT_DOUBLE_EQ(c.other_flops, 1088);
}

TEST(QuantizedCounterTest, BiasSplitGeluPerOutputElement) {
  CounterGraph g;
  int x = g.Input("x", {1, 4, 8});
  int bias = g.Weight("bias", {8});
  int op = g.Op("BiasSplitGelu", {x, bias}, {{1, 4, 4}}, {}, "com.microsoft");
  // 16 outputs x (2 bias adds + erf GELU 12 + mul) = 240.
  EXPECT_DOUBLE_EQ(g.Count(op).other_flops, 240);
}

}  // namespace
}  // namespace ridgeline::engine
