// Keeps the documented cost table (engine/counters/COUNTING.md) and the code's
// table (cost_table.h) in step, and checks the table's invariants.
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include "engine/counter_registry.h"
#include "engine/counters/cost_table.h"
#include "fmt/format.h"
#include "gtest/gtest.h"

namespace ridgeline::engine::counters {
namespace {

std::string ReadCountingMd() {
  std::ifstream in(std::string(RIDGELINE_SOURCE_DIR) +
                   "/engine/counters/COUNTING.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string Row(const cost::ElementwiseCost& e) {
  return fmt::format("| {} | {} | {:g} |", e.op,
                     e.domain.empty() ? "ai.onnx" : e.domain, e.flops);
}

TEST(CostTableTest, EveryCodeEntryIsDocumented) {
  const std::string md = ReadCountingMd();
  ASSERT_FALSE(md.empty()) << "engine/counters/COUNTING.md not found";
  for (const cost::ElementwiseCost& e : cost::kElementwiseCosts) {
    EXPECT_NE(md.find(fmt::format("\n{} ", Row(e))), std::string::npos)
        << "COUNTING.md lacks the row " << Row(e);
  }
}

TEST(CostTableTest, EveryDocumentedRowIsInTheCode) {
  const std::string md = ReadCountingMd();
  const size_t start = md.find("### Per-element cost table");
  ASSERT_NE(start, std::string::npos);
  std::set<std::string> code_rows;
  for (const cost::ElementwiseCost& e : cost::kElementwiseCosts) {
    code_rows.insert(Row(e));
  }
  std::istringstream lines(md.substr(start));
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    if (line.rfind("| ", 0) != 0 || line.rfind("| op ", 0) == 0) continue;
    // Keep the first three cells: "| op | domain | flops |".
    size_t end = 0;
    for (int bars = 0; bars < 4 && end != std::string::npos; ++bars) {
      end = line.find('|', end + (bars == 0 ? 0 : 1));
    }
    if (end == std::string::npos) continue;
    ++rows;
    EXPECT_TRUE(code_rows.contains(line.substr(0, end + 1)))
        << "documented but not in cost_table.h: " << line;
  }
  EXPECT_EQ(rows, static_cast<int>(std::size(cost::kElementwiseCosts)));
}

TEST(CostTableTest, NoDuplicatesAndAllRegistered) {
  std::set<std::pair<std::string_view, std::string_view>> seen;
  for (const cost::ElementwiseCost& e : cost::kElementwiseCosts) {
    EXPECT_TRUE(seen.insert({e.domain, e.op}).second) << e.op;
    EXPECT_GE(e.flops, 0) << e.op;
    EXPECT_TRUE(CounterRegistry::Default().Has(e.domain, e.op)) << e.op;
  }
}

TEST(CostTableTest, PrimitiveConvention) {
  // Hennessy & Patterson normalized FLOPs: +,-,*,compare 1; div, sqrt 4;
  // functions 8.
  EXPECT_EQ(cost::kAdd, 1);
  EXPECT_EQ(cost::kDiv, 4);
  EXPECT_EQ(cost::kSqrt, 4);
  EXPECT_EQ(cost::kTranscendental, 8);
  EXPECT_EQ(cost::kSoftmax, 15);
  EXPECT_EQ(cost::ActivationCost("Tanh"), 8);
  EXPECT_EQ(cost::ActivationCost("NoSuchActivation"), -1);
}

}  // namespace
}  // namespace ridgeline::engine::counters
