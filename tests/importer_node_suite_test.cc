// Imports every model of ONNX's backend node test suite (Debian package
// libonnx-testdata) and checks the shapes the importer resolves.
//
// Each model is imported with its value_info and declared output shapes
// removed, so that the shapes come from our own inference, not from hints:
//
//  1. As shipped: no crash; a model with unbound symbolic dims fails with the
//     "unbound symbolic dim" error; otherwise every unresolved tensor of a
//     model whose graph inputs are all concrete tensors is explained as
//     data-dependent (its shape depends on input values) or as a non-tensor
//     value (sequence, optional).
//  2. With the integer and bool graph inputs, and the small (<= 8 values)
//     floating-point ones such as Resize scales or Range bounds, turned into
//     initializers holding the values of test_data_set_0 (as a model
//     computing them from constants would have): nothing may stay unresolved
//     except outputs of the ops in DataDependentOps(), values that change with
//     each iteration of a loop body, and sequence/optional values; and every
//     graph output's dims must equal those of the expected output stored in
//     test_data_set_0/output_N.pb (the suite's published results).
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "importers/tensor_proto.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {
namespace {

namespace fs = std::filesystem;

constexpr char kNodeSuiteDir[] = "/usr/share/libonnx-testdata/data/node";

// Ops whose output shape depends on the values of a large float or string
// input, which stays unknown with the shape-like inputs bound. Kept short on
// purpose.
const std::set<std::string>& DataDependentOps() {
  static const auto* ops = new std::set<std::string>{
      "Unique",             // count of distinct values of a float tensor
      "NonMaxSuppression",  // count of boxes whose scores pass a threshold
      "StringNormalizer",   // count of strings left after stop-word removal
  };
  return *ops;
}

// Reason of a tensor whose shape depends on values that change with each
// iteration of a Loop/Scan body (test_loop11 slices by the iteration number).
constexpr char kPerIteration[] = "changes every iteration";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Removes value_info and output shapes everywhere, so only inference counts.
void StripHints(onnx::GraphProto* g) {
  g->clear_value_info();
  for (auto& out : *g->mutable_output()) {
    if (out.type().has_tensor_type()) {
      out.mutable_type()->mutable_tensor_type()->clear_shape();
    }
  }
  for (auto& node : *g->mutable_node()) {
    for (auto& attr : *node.mutable_attribute()) {
      if (attr.has_g()) StripHints(attr.mutable_g());
      for (auto& sub : *attr.mutable_graphs()) StripHints(&sub);
    }
  }
}

bool IsIntegerType(int32_t t) {
  switch (t) {
    case onnx::TensorProto::INT64:
    case onnx::TensorProto::INT32:
    case onnx::TensorProto::INT16:
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT64:
    case onnx::TensorProto::UINT32:
    case onnx::TensorProto::UINT16:
    case onnx::TensorProto::UINT8:
    case onnx::TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

// True when every graph input (not an initializer) is a tensor with only
// concrete dims.
bool AllInputsConcrete(const onnx::ModelProto& model) {
  std::set<std::string> inits;
  for (const auto& i : model.graph().initializer()) inits.insert(i.name());
  for (const auto& in : model.graph().input()) {
    if (inits.contains(in.name())) continue;
    if (!in.type().has_tensor_type() || !in.type().tensor_type().has_shape()) {
      return false;
    }
    for (const auto& d : in.type().tensor_type().shape().dim()) {
      if (!d.has_dim_value()) return false;
    }
  }
  return true;
}

struct Totals {
  int models = 0;
  int symbolic = 0;
  int concrete = 0;
  int tensors = 0;
  int unresolved_as_shipped = 0;
  int unresolved_bound = 0;
  int outputs_checked = 0;
  int upper_bounds = 0;    // outputs checked as data-dependent upper bounds
  int values_checked = 0;  // outputs whose folded values were compared
};

TEST(ImporterNodeSuiteTest, ImportsEveryModel) {
  if (!fs::is_directory(kNodeSuiteDir)) {
    GTEST_SKIP() << kNodeSuiteDir << " is missing (apt install "
                 << "libonnx-testdata)";
  }
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(kNodeSuiteDir)) {
    if (fs::exists(entry.path() / "model.onnx")) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  ASSERT_GT(dirs.size(), 900u);
  Totals totals;
  std::map<std::string, int> bound_unresolved_ops;
  for (const fs::path& dir : dirs) {
    const std::string name = dir.filename().string();
    SCOPED_TRACE(name);
    onnx::ModelProto model;
    ASSERT_TRUE(model.ParseFromString(ReadFile(dir / "model.onnx")));
    StripHints(model.mutable_graph());
    ++totals.models;
    const bool concrete = AllInputsConcrete(model);

    // 1. As shipped.
    std::string bytes = model.SerializeAsString();
    absl::StatusOr<graph::Graph> g =
        ImportOnnxBytes(bytes, name, dir.string(), ImportOptions());
    if (!g.ok()) {
      EXPECT_NE(MessageOf(g.status()).find("unbound symbolic dim"),
                std::string::npos)
          << MessageOf(g.status());
      ++totals.symbolic;
      continue;
    }
    totals.tensors += static_cast<int>(g->tensors().size());
    totals.unresolved_as_shipped += static_cast<int>(g->unresolved.size());
    if (concrete) {
      ++totals.concrete;
      for (const auto& u : g->unresolved) {
        EXPECT_TRUE(u.reason.find("data-dependent") != std::string::npos ||
                    u.reason.find("not a tensor") != std::string::npos)
            << u.tensor << " of node '" << u.node << "': " << u.reason;
      }
    }

    // 2. Integer inputs bound to the test data's values.
    std::set<std::string> inits;
    for (const auto& i : model.graph().initializer()) inits.insert(i.name());
    int input_index = 0;
    for (const auto& in : model.graph().input()) {
      if (inits.contains(in.name())) continue;
      const fs::path pb =
          dir / "test_data_set_0" / fmt::format("input_{}.pb", input_index++);
      if (!in.type().has_tensor_type() || !fs::exists(pb)) continue;
      onnx::TensorProto value;
      if (!value.ParseFromString(ReadFile(pb))) continue;
      int64_t count = 1;
      for (int64_t d : value.dims()) count *= d;
      if (!IsIntegerType(value.data_type()) && count > 8) continue;
      value.set_name(in.name());
      *model.mutable_graph()->add_initializer() = value;
    }
    bytes = model.SerializeAsString();
    g = ImportOnnxBytes(bytes, name, dir.string(), ImportOptions());
    ASSERT_TRUE(g.ok()) << MessageOf(g.status());
    totals.unresolved_bound += static_cast<int>(g->unresolved.size());
    if (!concrete) continue;
    for (const auto& u : g->unresolved) {
      std::optional<int> n = g->FindNode(u.node);
      const std::string op = n.has_value() ? g->node(*n).op_type : "";
      ++bound_unresolved_ops[op.empty() ? "(graph input)" : op];
      const bool data_dependent =
          u.reason.find("data-dependent") != std::string::npos;
      const bool allowed =
          u.reason.find("not a tensor") != std::string::npos ||
          (data_dependent &&
           (DataDependentOps().contains(op) ||
            u.reason.find(kPerIteration) != std::string::npos));
      EXPECT_TRUE(allowed) << u.tensor << " of node '" << u.node << "' (" << op
                           << "): " << u.reason;
    }
    // Output dims against the suite's expected outputs.
    for (int i = 0; i < model.graph().output_size(); ++i) {
      const fs::path pb =
          dir / "test_data_set_0" / fmt::format("output_{}.pb", i);
      const auto& out = model.graph().output(i);
      if (!out.type().has_tensor_type() || !fs::exists(pb)) continue;
      onnx::TensorProto expected;
      if (!expected.ParseFromString(ReadFile(pb))) continue;
      std::optional<int> t = g->FindTensor(out.name());
      ASSERT_TRUE(t.has_value()) << out.name();
      const graph::Tensor& tensor = g->tensor(*t);
      if (!tensor.shape_known) continue;  // reported above if not allowed
      ++totals.outputs_checked;
      const graph::Dims want(expected.dims().begin(), expected.dims().end());
      if (tensor.upper_bound) {
        // A data-dependent size taken at its upper bound (NonZero,
        // NonMaxSuppression, Unique, Compress): never below the run's.
        ++totals.upper_bounds;
        ASSERT_EQ(tensor.dims.size(), want.size()) << "output " << out.name();
        for (size_t d = 0; d < want.size(); ++d) {
          EXPECT_GE(tensor.dims[d], want[d])
              << "output " << out.name() << " dim " << d;
        }
      } else {
        EXPECT_EQ(tensor.dims, want) << "output " << out.name();
      }
      // ONNX 1.12 stores bfloat16 results as uint16 (numpy has no bfloat16).
      if (tensor.dtype == graph::DType::kBFloat16 &&
          expected.data_type() == onnx::TensorProto::UINT16) {
        continue;
      }
      EXPECT_EQ(static_cast<int32_t>(tensor.dtype), expected.data_type())
          << "output " << out.name();
      // Values the constant evaluator folded against the published ones.
      if (tensor.int_values.has_value() && !tensor.upper_bound) {
        std::optional<std::vector<int64_t>> want_values =
            TensorProtoInts(expected, 1 << 20);
        if (want_values.has_value()) {
          ++totals.values_checked;
          EXPECT_EQ(*tensor.int_values, *want_values)
              << name << ": folded values of output " << out.name();
        }
      }
    }
  }
  fmt::print(
      "node suite: {} models ({} with unbound symbolic dims, {} with only "
      "concrete inputs), {} tensors; unresolved: {} as shipped, {} with "
      "integer inputs bound; {} graph outputs matched the expected dims ({} "
      "of them as data-dependent upper bounds), {} the expected folded "
      "integer values\n",
      totals.models, totals.symbolic, totals.concrete, totals.tensors,
      totals.unresolved_as_shipped, totals.unresolved_bound,
      totals.outputs_checked, totals.upper_bounds, totals.values_checked);
  for (const auto& [op, count] : bound_unresolved_ops) {
    fmt::print("  unresolved with inputs bound: {} x {}\n", count, op);
  }
}

}  // namespace
}  // namespace ridgeline::importers
