// Accuracy against published numbers: the MACs of torchvision's classifiers
// (batch 1, 3x224x224) and their parameter counts, on weightless ONNX exports
// made by tests/fixtures/make_torchvision_weightless.py.
//
// Published MACs: torchvision's weights metadata "_ops" (GFLOPS in the docs'
// table, counted as multiply-adds; torchvision/models/*.py, e.g.
// ResNet50_Weights.IMAGENET1K_V1 "_ops": 4.089). The docs' table rounds them
// to two decimals (ShuffleNetV2 x1.0 shows 0.14 for 0.145).
// Published parameters: the same metadata's "num_params".
#include <string>

#include "engine/counter_registry.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"

namespace ridgeline::engine {
namespace {

struct Published {
  const char* model;
  double gmacs;        // "_ops"
  int64_t num_params;  // "num_params"
  // Initializer elements minus num_params, from how the exporter rewrites the
  // model (derivation in the test comments below).
  int64_t export_delta;
};

// BatchNormalization folded into the preceding bias-free Conv: the BN's 2C
// parameters (scale, shift) become a C-element conv bias, so each BN removes
// C elements. Sum of BN channels, by hand from the architectures:
//  - ResNet-50: stem 64 + bottlenecks 6w per block (w, w, 4w) over [3,4,6,3]
//    blocks of w = 64,128,256,512 -> 6*(192+512+1536+1536) = 22656, plus
//    the 4 downsample BNs 4*(64+128+256+512) = 3840: 26560.
//  - MobileNetV2: stem 32; blocks (expand, depthwise, project) 48 + 528 +
//    1152 + 2944 + 3360 + 5472 + 2240; head 1280: 17056.
//  - EfficientNet-B0: stem 32; MBConv stages 48 + 528 + 848 + 2640 + 3984 +
//    9024 + 2624; head 1280: 21008 (the SE convs have biases, no BN).
//  - ShuffleNetV2 x1.0: conv1 24; stages (first unit inp + 4*bf, others 3*bf
//    with bf = out/2) 778 + 3016 + 3248; conv5 1024: 8090.
// Swin-T: constant folding gathers each block's relative_position_bias_table
// [169, heads] into a [heads, 49, 49] bias, +2232*heads elements per block;
// heads over the 12 blocks: 2*3 + 2*6 + 6*12 + 2*24 = 138 -> +308016.
// ViT-B/16 and ConvNeXt-Tiny have no BatchNorm: exact.
constexpr Published kModels[] = {
    {"resnet50", 4.089, 25557032, -26560},
    {"mobilenet_v2", 0.301, 3504872, -17056},
    {"vit_b_16", 17.564, 86567656, 0},
    {"convnext_tiny", 4.456, 28589128, 0},
    {"swin_t", 4.491, 28288354, 308016},
    {"efficientnet_b0", 0.386, 5288548, -21008},
    {"shufflenet_v2_x1_0", 0.145, 2278604, -8090},
};

// The tolerance on Conv+Gemm+MatMul(+Einsum) MACs.
constexpr double kMacTolerance = 0.005;

class TorchvisionTest : public ::testing::TestWithParam<Published> {};

TEST_P(TorchvisionTest, MacsAndParametersMatchPublished) {
  const Published& p = GetParam();
  const std::string path = std::string(RIDGELINE_SOURCE_DIR) +
                           "/tests/fixtures/torchvision/" + p.model + ".onnx";
  importers::ImportOptions options;
  options.batch = 1;
  absl::StatusOr<graph::Graph> g = importers::ImportOnnxFile(path, options);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_TRUE(g->unresolved.empty())
      << g->unresolved.size() << " unresolved tensors, first '"
      << g->unresolved.front().tensor << "': " << g->unresolved.front().reason;

  double macs = 0;
  const TensorPricer pricer;
  for (int n : g->topological_order()) {
    absl::StatusOr<Cost> c = CounterRegistry::Default().Count(*g, n, pricer);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_FALSE(c->unknown) << g->node(n).op_type;
    const std::string& op = g->node(n).op_type;
    if (c->macs > 0) {
      EXPECT_TRUE(op == "Conv" || op == "Gemm" || op == "MatMul" ||
                  op == "Einsum")
          << op;
    }
    macs += c->macs;
  }
  const double published = p.gmacs * 1e9;
  EXPECT_NEAR(macs / published, 1.0, kMacTolerance)
      << p.model << ": counted " << macs / 1e9 << " GMACs, published "
      << p.gmacs;
  EXPECT_EQ(g->ParameterCount(), p.num_params + p.export_delta) << p.model;
}

INSTANTIATE_TEST_SUITE_P(Published, TorchvisionTest,
                         ::testing::ValuesIn(kModels),
                         [](const ::testing::TestParamInfo<Published>& info) {
                           return std::string(info.param.model);
                         });

}  // namespace
}  // namespace ridgeline::engine
