// The hardware zoo (zoo/hardware/*.json, embedded) and the hardware JSON
// format: every entry parses, names and aliases resolve, bad files fail with
// the file and the field in the message.
#include "engine/hardware.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "zoo/entry_names.h"
#include "zoo/hardware_catalog.h"
#include "zoo/zoo.h"

namespace ridgeline {
namespace {

std::string Message(const absl::Status& s) { return std::string(s.message()); }

std::vector<engine::Hardware> Catalog() {
  absl::StatusOr<std::vector<engine::Hardware>> c = zoo::HardwareCatalog();
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : std::vector<engine::Hardware>{};
}

TEST(HardwareZooTest, EveryEmbeddedEntryParsesAndIsComplete) {
  const std::vector<engine::Hardware> all = Catalog();
  EXPECT_GE(all.size(), 13u);
  for (const engine::Hardware& hw : all) {
    SCOPED_TRACE(hw.key);
    EXPECT_FALSE(hw.name.empty());
    EXPECT_FALSE(hw.source.empty());
    EXPECT_FALSE(hw.peak_flops_per_s.empty());
    EXPECT_GT(hw.memory_bandwidth_bytes_per_s, 0);
    EXPECT_GT(hw.memory_capacity_bytes, 0);
    EXPECT_GT(hw.dispatch_tax_s, 0);
  }
}

TEST(HardwareZooTest, HasTheRequiredDevices) {
  const std::vector<engine::Hardware> all = Catalog();
  for (const char* key :
       {"a100-40gb-sxm", "a100-80gb-sxm", "h100-sxm", "h100-pcie", "h200-sxm",
        "b200", "l4", "l40s", "t4", "a10", "v100-sxm2", "mi300x", "tpu-v5e",
        "jetson-agx-orin-64gb", "epyc-9654"}) {
    absl::StatusOr<engine::Hardware> hw = engine::FindHardware(all, key);
    EXPECT_TRUE(hw.ok()) << key << ": " << hw.status();
  }
}

TEST(HardwareZooTest, AliasesAndNamesResolveCaseInsensitively) {
  const std::vector<engine::Hardware> all = Catalog();
  auto key_of = [&](const char* name) {
    absl::StatusOr<engine::Hardware> hw = engine::FindHardware(all, name);
    return hw.ok() ? hw->key : "ERROR: " + Message(hw.status());
  };
  EXPECT_EQ(key_of("h100"), "h100-sxm");
  EXPECT_EQ(key_of("H100"), "h100-sxm");
  EXPECT_EQ(key_of("NVIDIA H100 SXM5 80GB"), "h100-sxm");
  EXPECT_EQ(key_of("H100_SXM"), "h100-sxm");  // punctuation ignored
  EXPECT_EQ(key_of("a100"), "a100-80gb-sxm");
  EXPECT_EQ(key_of("A10"), "a10");  // not a prefix match of the A100
  EXPECT_EQ(key_of("A100-40GB"), "a100-40gb-sxm");
  EXPECT_EQ(key_of("h200"), "h200-sxm");
  EXPECT_EQ(key_of("B200"), "b200");
  EXPECT_EQ(key_of("v100"), "v100-sxm2");
  EXPECT_EQ(key_of("TPU-v5e"), "tpu-v5e");
  EXPECT_EQ(key_of("orin"), "jetson-agx-orin-64gb");
  EXPECT_EQ(key_of("cpu"), "epyc-9654");
}

TEST(HardwareZooTest, UnknownNameListsTheKnownOnes) {
  absl::StatusOr<engine::Hardware> hw =
      engine::FindHardware(Catalog(), "h9000");
  ASSERT_FALSE(hw.ok());
  EXPECT_NE(Message(hw.status()).find("h9000"), std::string::npos);
  EXPECT_NE(Message(hw.status()).find("h100-sxm"), std::string::npos);
}

// --hw NAME reads the entries' names from their heads and parses only the
// entry it finds (zoo::HardwareLookup): the names are the parsed catalog's,
// in its order, and every lookup finds what FindHardware finds in the whole
// catalog, the unknown-name message included.
TEST(HardwareZooTest, LookupByNameParsesOneEntryAndAgreesWithTheCatalog) {
  const std::vector<engine::Hardware> all = Catalog();
  const std::vector<zoo::NamedFile> named =
      zoo::ReadEntryNames(zoo::kHardwarePrefix);
  ASSERT_EQ(named.size(), all.size());
  for (size_t i = 0; i < all.size(); ++i) {
    SCOPED_TRACE(all[i].key);
    EXPECT_EQ(named[i].names.key, all[i].key);
    EXPECT_EQ(named[i].names.name, all[i].name);
    EXPECT_EQ(named[i].names.aliases, all[i].aliases);
  }
  const zoo::HardwareLookup lookup;
  std::vector<std::string> queries = {
      "H100_SXM", "NVIDIA H100 SXM5 80GB", "a100", "orin", "h9000", ""};
  for (const engine::Hardware& hw : all) {
    queries.push_back(hw.key);
    queries.push_back(hw.name);
    for (const std::string& a : hw.aliases) queries.push_back(a);
  }
  for (const std::string& q : queries) {
    SCOPED_TRACE(q);
    absl::StatusOr<engine::Hardware> want = engine::FindHardware(all, q);
    absl::StatusOr<engine::Hardware> got = lookup.Find(q);
    ASSERT_EQ(got.ok(), want.ok()) << got.status() << " / " << want.status();
    if (!want.ok()) {
      EXPECT_EQ(Message(got.status()), Message(want.status()));
      continue;
    }
    EXPECT_EQ(engine::HardwareToJson(*got), engine::HardwareToJson(*want));
  }
}

// A --hw-file device replaces the zoo entry with its key (and only it): its
// key and aliases find the file's device, the others the zoo's.
TEST(HardwareZooTest, LookupOverrideReplacesTheEntryWithItsKey) {
  zoo::HardwareLookup lookup;
  absl::StatusOr<engine::Hardware> h100 = lookup.Find("h100");
  ASSERT_TRUE(h100.ok());
  engine::Hardware mine = *h100;
  mine.name = "my H100";
  mine.aliases = {"mine"};
  mine.memory_bandwidth_bytes_per_s = 1e12;
  lookup.Override(mine);
  absl::StatusOr<engine::Hardware> by_key = lookup.Find("h100-sxm");
  ASSERT_TRUE(by_key.ok());
  EXPECT_EQ(by_key->memory_bandwidth_bytes_per_s, 1e12);
  ASSERT_TRUE(lookup.Find("mine").ok());
  EXPECT_FALSE(lookup.Find("h100-sxm5").ok());  // the zoo entry's alias
  ASSERT_TRUE(lookup.Find("a100").ok());
  EXPECT_EQ(lookup.Find("a100")->key, "a100-80gb-sxm");
  absl::StatusOr<std::vector<engine::Hardware>> all = lookup.All();
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), Catalog().size());
  EXPECT_EQ(all->back().name, "my H100");
}

TEST(HardwareZooTest, DatasheetFiguresOfTheMlsysimDevices) {
  const std::vector<engine::Hardware> all = Catalog();
  // mlsysim's A100: 312 TFLOP/s fp16, 2039 GB/s, 0.015 ms dispatch tax;
  // the NVIDIA A100 datasheet gives the same for the 80GB SXM.
  const engine::Hardware a100 = *engine::FindHardware(all, "a100");
  EXPECT_EQ(*a100.PeakFlops("fp16"), 312e12);
  EXPECT_EQ(a100.memory_bandwidth_bytes_per_s, 2039e9);
  EXPECT_EQ(a100.dispatch_tax_s, 0.015e-3);
  // H100 SXM datasheet: 1979 TFLOP/s fp16 with sparsity -> 989.5 dense.
  const engine::Hardware h100 = *engine::FindHardware(all, "h100");
  EXPECT_EQ(*h100.PeakFlops("fp16"), 989.5e12);
  EXPECT_EQ(h100.memory_bandwidth_bytes_per_s, 3.35e12);
  EXPECT_EQ(h100.dispatch_tax_s, 0.010e-3);
  EXPECT_FALSE(h100.PeakFlops("int4").ok());  // Hopper has no int4
  // EPYC 9654 fp32 = 96 cores x 2.4 GHz x 32 FLOP/cycle.
  const engine::Hardware cpu = *engine::FindHardware(all, "epyc-9654");
  EXPECT_DOUBLE_EQ(*cpu.PeakFlops("fp32"), 96 * 2.4e9 * 32);
}

TEST(HardwareZooTest, EmbeddedBytesEqualTheSourceFiles) {
  const std::vector<zoo::EmbeddedFile> files = zoo::Files("");
  ASSERT_FALSE(files.empty());
  for (const zoo::EmbeddedFile& f : files) {
    std::ifstream in(
        std::string(RIDGELINE_SOURCE_DIR) + "/zoo/" + std::string(f.path),
        std::ios::binary);
    ASSERT_TRUE(in) << f.path;
    std::ostringstream text;
    text << in.rdbuf();
    EXPECT_TRUE(text.str() == f.bytes) << f.path;
  }
  EXPECT_EQ(zoo::Files("hardware/").size(), Catalog().size());
  EXPECT_TRUE(zoo::Files("no-such-dir/").empty());
}

constexpr const char* kGood = R"({
  "key": "My-GPU", "name": "My GPU", "aliases": ["mine"],
  "peak_flops_per_s": {"fp32": 1e13, "fp16": 2e13},
  "memory_bandwidth_bytes_per_s": 1e12, "memory_capacity_bytes": 8e9,
  "tdp_w": 100, "dispatch_tax_s": 1e-5, "source": "measured",
  "compute_efficiency_by_op": {"Conv": 0.7},
  "memory_efficiency_by_op": {"Softmax": 0.55}
})";

TEST(HardwareJsonTest, ParsesAndRoundTrips) {
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(kGood, "my.json");
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_EQ(hw->key, "my-gpu");  // keys are lower-cased
  EXPECT_EQ(*hw->PeakFlops("fp16"), 2e13);
  EXPECT_EQ(hw->compute_efficiency_by_op.at("Conv"), 0.7);
  absl::StatusOr<engine::Hardware> again =
      engine::ParseHardwareJson(engine::HardwareToJson(*hw), "again.json");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->key, hw->key);
  EXPECT_EQ(again->peak_flops_per_s, hw->peak_flops_per_s);
  EXPECT_EQ(again->memory_efficiency_by_op, hw->memory_efficiency_by_op);
  EXPECT_EQ(again->dispatch_tax_s, hw->dispatch_tax_s);
  EXPECT_EQ(again->aliases, hw->aliases);
}

void ExpectError(const std::string& json, const std::string& field) {
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(json, "bad.json");
  ASSERT_FALSE(hw.ok()) << json;
  EXPECT_NE(Message(hw.status()).find("bad.json"), std::string::npos)
      << hw.status();
  EXPECT_NE(Message(hw.status()).find(field), std::string::npos) << hw.status();
}

std::string Replace(std::string text, const std::string& from,
                    const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

TEST(HardwareJsonTest, ErrorsNameTheFileAndTheField) {
  ExpectError("{not json", "not valid JSON");
  ExpectError("[1, 2]", "object");
  ExpectError(Replace(kGood, R"("memory_bandwidth_bytes_per_s": 1e12,)", ""),
              "memory_bandwidth_bytes_per_s");
  ExpectError(Replace(kGood, R"("fp16": 2e13)", R"("fp16": -2e13)"),
              "peak_flops_per_s.fp16");
  ExpectError(Replace(kGood, R"("fp16": 2e13)", R"("fp16_sparse": 4e13)"),
              "peak_flops_per_s.fp16_sparse");
  ExpectError(Replace(kGood, R"("fp16": 2e13)", R"("fp16": "fast")"),
              "peak_flops_per_s.fp16");
  ExpectError(Replace(kGood, R"("tdp_w": 100)", R"("tdp_w": 0)"), "tdp_w");
  ExpectError(Replace(kGood, R"("key": "My-GPU",)", ""), "key");
  ExpectError(Replace(kGood, R"(["mine"])", R"("mine")"), "aliases");
  ExpectError(Replace(kGood, R"("tdp_w")", R"("tdp_watts")"), "tdp_watts");
  ExpectError(Replace(kGood, R"("Conv": 0.7)", R"("Conv": 0)"),
              "compute_efficiency_by_op.Conv");
  ExpectError(
      Replace(kGood, R"("dispatch_tax_s": 1e-5)", R"("dispatch_tax_s": -1)"),
      "dispatch_tax_s");
  // Counts are whole numbers (engine::WholeNumberField).
  const std::string with_counts = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                          R"("dispatch_tax_s": 1e-5,
         "kernel_model": {"compute_units": 108},
         "interconnect": {"intra_node": "NVLink", "gpus_per_node": 8,
           "intra_node_bandwidth_bytes_per_s": 3e11,
           "intra_node_latency_s": 1e-6, "source": "test"},)");
  absl::StatusOr<engine::Hardware> counted =
      engine::ParseHardwareJson(with_counts, "good.json");
  ASSERT_TRUE(counted.ok()) << counted.status();
  EXPECT_EQ(counted->kernel_model.compute_units, 108);
  EXPECT_EQ(counted->interconnect.gpus_per_node, 8);
  ExpectError(Replace(with_counts, R"("compute_units": 108)",
                      R"("compute_units": 10.5)"),
              "field 'kernel_model.compute_units': must be a whole number of "
              "compute units >= 0");
  ExpectError(
      Replace(with_counts, R"("gpus_per_node": 8)", R"("gpus_per_node": 0)"),
      "field 'interconnect.gpus_per_node': must be a whole number of GPUs >= "
      "1");
  ExpectError(
      Replace(with_counts, R"("gpus_per_node": 8)", R"("gpus_per_node": 2e6)"),
      "must be a whole number of GPUs >= 1 and <= 1000000");
}

// interconnect.measured_collectives: tables of a known op on one node's GPU
// counts, sizes strictly ascending, one time per size, a source;
// round-trips.
TEST(HardwareJsonTest, MeasuredCollectiveTables) {
  const std::string good = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                   R"("dispatch_tax_s": 1e-5,
         "interconnect": {"intra_node": "NVLink", "gpus_per_node": 8,
           "intra_node_bandwidth_bytes_per_s": 3e11, "source": "test",
           "measured_collectives": {"source": "nccl-tests",
             "tables": [{"op": "all_reduce", "gpus": 8, "bytes": [1000, 4000],
                         "seconds": [1e-5, 2e-5]},
                        {"op": "all_gather", "gpus": 2, "bytes": [512],
                         "seconds": [6e-6]}]}},)");
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(good, "good.json");
  ASSERT_TRUE(hw.ok()) << hw.status();
  const engine::Interconnect& ic = hw->interconnect;
  ASSERT_EQ(ic.measured_collectives.size(), 2u);
  EXPECT_EQ(ic.measured_collectives_source, "nccl-tests");
  ASSERT_NE(ic.MeasuredFor("all_reduce", 8), nullptr);
  EXPECT_EQ(ic.MeasuredFor("all_reduce", 8)->bytes,
            (std::vector<double>{1000, 4000}));
  EXPECT_EQ(ic.MeasuredFor("all_reduce", 8)->seconds,
            (std::vector<double>{1e-5, 2e-5}));
  EXPECT_EQ(ic.MeasuredFor("all_reduce", 4), nullptr);
  EXPECT_EQ(ic.MeasuredFor("all_reduce", 2), nullptr);
  EXPECT_EQ(ic.MeasuredFor("all_gather", 8), nullptr);
  absl::StatusOr<engine::Hardware> again =
      engine::ParseHardwareJson(engine::HardwareToJson(*hw), "again.json");
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->interconnect.measured_collectives.size(), 2u);
  ASSERT_NE(again->interconnect.MeasuredFor("all_gather", 2), nullptr);
  EXPECT_EQ(again->interconnect.MeasuredFor("all_gather", 2)->seconds,
            (std::vector<double>{6e-6}));
  EXPECT_EQ(again->interconnect.measured_collectives_source, "nccl-tests");

  ExpectError(Replace(good, "[1000, 4000]", "[4000, 1000]"),
              "interconnect.measured_collectives.tables[0].bytes': must be "
              "strictly ascending");
  ExpectError(Replace(good, "[1e-5, 2e-5]", "[1e-5]"),
              "lists 2 sizes but 1 times");
  ExpectError(Replace(good, "[1e-5, 2e-5]", "[1e-5, -2e-5]"),
              "tables[0].seconds");
  ExpectError(Replace(good, R"("op": "all_gather", "gpus": 2)",
                      R"("op": "all_reduce", "gpus": 8)"),
              "all_reduce on 8 GPUs listed twice");
  ExpectError(Replace(good, R"("op": "all_gather")", R"("op": "broadcast")"),
              "tables[1].op': must be one of all_reduce, all_gather, "
              "reduce_scatter, all_to_all");
  ExpectError(Replace(good, R"("gpus": 2)", R"("gpus": 16)"),
              "a table for 16 GPUs, more than the 8 GPUs of a node");
  ExpectError(Replace(good, R"("gpus": 2)", R"("gpus": 1)"),
              "tables[1].gpus': must be a whole number of GPUs >= 2");
  ExpectError(Replace(good, R"("source": "nccl-tests",)", ""),
              "measured_collectives.source");
  ExpectError(Replace(good, R"("seconds": [6e-6])", R"("time": [6e-6])"),
              "tables[1].time");
}

// kernel_model's attention constants: unset unless given; the efficiency is
// a fraction, the times non-negative.
TEST(HardwareJsonTest, AttentionConstantsAreOptional) {
  const std::string with = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                   R"("dispatch_tax_s": 1e-5,
         "kernel_model": {"compute_units": 132,
                          "attention_memory_efficiency": 0.7,
                          "attention_kernel_fixed_s": 8e-6,
                          "attention_block_s": 4e-9},)");
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(with, "good.json");
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_DOUBLE_EQ(*hw->kernel_model.attention_memory_efficiency, 0.7);
  EXPECT_DOUBLE_EQ(*hw->kernel_model.attention_kernel_fixed_s, 8e-6);
  EXPECT_DOUBLE_EQ(*hw->kernel_model.attention_block_s, 4e-9);
  absl::StatusOr<engine::Hardware> plain =
      engine::ParseHardwareJson(kGood, "good.json");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->kernel_model.attention_memory_efficiency.has_value());
  EXPECT_FALSE(plain->kernel_model.attention_block_s.has_value());
  ExpectError(Replace(with, "0.7,", "1.5,"),
              "field 'kernel_model.attention_memory_efficiency': must be in "
              "(0, 1]");
  ExpectError(Replace(with, "4e-9}", "-4e-9}"),
              "kernel_model.attention_block_s");
}

// kernel_model.held: names of the four fitted constants a fit keeps.
TEST(HardwareJsonTest, HeldNamesFittedConstants) {
  const std::string with = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                   R"("dispatch_tax_s": 1e-5,
         "kernel_model": {"compute_units": 132, "kernel_fixed_s": 3e-6,
                          "held": ["kernel_fixed_s"]},)");
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(with, "good.json");
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_EQ(hw->kernel_model.held, std::vector<std::string>{"kernel_fixed_s"});
  ExpectError(Replace(with, R"(["kernel_fixed_s"])", R"(["kernel_fixed"])"),
              "field 'kernel_model.held': unknown constant (known: "
              "matrix_efficiency, memory_efficiency, kernel_fixed_s, "
              "matrix_overlap)");
  ExpectError(Replace(with, R"(["kernel_fixed_s"])", R"("kernel_fixed_s")"),
              "field 'kernel_model.held': must be a list of names");
  ExpectError(Replace(with, R"(["kernel_fixed_s"])", R"([3])"),
              "field 'kernel_model.held': unknown constant");
}

// The kernel_model counts in units of work a thread block pays beyond its
// loop: matrix_k_overhead (elements of K) and attention_kv_overhead (keys),
// 0 (none) when not given; a negative value is an error naming the field.
TEST(HardwareJsonTest, BlockOverheadsAreNonNegativeCounts) {
  struct Case {
    const char* field;
    double engine::KernelModel::*member;
  };
  for (const Case& c :
       {Case{"matrix_k_overhead", &engine::KernelModel::matrix_k_overhead},
        Case{"attention_kv_overhead",
             &engine::KernelModel::attention_kv_overhead}}) {
    const std::string entry = fmt::format(R"("{}": 128)", c.field);
    const std::string with = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                     fmt::format(R"("dispatch_tax_s": 1e-5,
         "kernel_model": {{"compute_units": 132, {}}},)",
                                                 entry));
    absl::StatusOr<engine::Hardware> hw =
        engine::ParseHardwareJson(with, "good.json");
    ASSERT_TRUE(hw.ok()) << hw.status();
    EXPECT_DOUBLE_EQ(hw->kernel_model.*c.member, 128) << c.field;
    EXPECT_DOUBLE_EQ(hw->kernel_model.ForPrecision("fp8").*c.member, 128)
        << c.field;
    absl::StatusOr<engine::Hardware> plain =
        engine::ParseHardwareJson(kGood, "good.json");
    ASSERT_TRUE(plain.ok()) << plain.status();
    EXPECT_DOUBLE_EQ(plain->kernel_model.*c.member, 0) << c.field;
    ExpectError(Replace(with, entry, fmt::format(R"("{}": -1)", c.field)),
                fmt::format("field 'kernel_model.{}'", c.field));
  }
}

// kernel_model.attention_exp_per_s (a rate, 0 = no exponential term when
// not given) and attention_exp_overlap (a share in [0, 1], 0 when not
// given).
TEST(HardwareJsonTest, AttentionExponentialRateAndOverlap) {
  const std::string with = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                   R"("dispatch_tax_s": 1e-5,
         "kernel_model": {"attention_exp_per_s": 3.865e12,
                          "attention_exp_overlap": 0.55},)");
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(with, "good.json");
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_DOUBLE_EQ(hw->kernel_model.attention_exp_per_s, 3.865e12);
  EXPECT_DOUBLE_EQ(hw->kernel_model.attention_exp_overlap, 0.55);
  absl::StatusOr<engine::Hardware> plain =
      engine::ParseHardwareJson(kGood, "good.json");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_DOUBLE_EQ(plain->kernel_model.attention_exp_per_s, 0);
  EXPECT_DOUBLE_EQ(plain->kernel_model.attention_exp_overlap, 0);
  ExpectError(Replace(with, "0.55", "1.5"),
              "field 'kernel_model.attention_exp_overlap'");
  ExpectError(Replace(with, "3.865e12", "-1"),
              "field 'kernel_model.attention_exp_per_s'");
}

// An unknown kernel_model field is an error that lists every field the
// parser reads (the list is the parser's own table, so a new field is
// named there as soon as it is read).
TEST(HardwareJsonTest, UnknownKernelModelFieldListsTheKnownOnes) {
  const std::string with = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                   R"("dispatch_tax_s": 1e-5,
         "kernel_model": {"attention_exp_overlaps": 0.5},)");
  ExpectError(with,
              "field 'kernel_model.attention_exp_overlaps': unknown field "
              "(known: compute_units, matrix_efficiency, memory_efficiency, "
              "kernel_fixed_s, memory_kernel_fixed_s, matrix_overlap, "
              "attention_efficiency, attention_kv_overhead, "
              "attention_exp_per_s, attention_exp_overlap, "
              "attention_memory_efficiency, attention_kernel_fixed_s, "
              "attention_block_s, wave_quantization, matrix_k_overhead, "
              "sustained_matrix_fraction, vector_flops_per_s, "
              "matrix_by_precision, held, source)");
}

// kernel_model.sustained_matrix_fraction: a fraction of the matrix peak, 1
// (no power cap) when not given.
TEST(HardwareJsonTest, SustainedMatrixFractionIsAFraction) {
  const std::string with = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                   R"("dispatch_tax_s": 1e-5,
         "kernel_model": {"sustained_matrix_fraction": 0.44},)");
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(with, "good.json");
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_DOUBLE_EQ(hw->kernel_model.sustained_matrix_fraction, 0.44);
  absl::StatusOr<engine::Hardware> plain =
      engine::ParseHardwareJson(kGood, "good.json");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_DOUBLE_EQ(plain->kernel_model.sustained_matrix_fraction, 1);
  ExpectError(Replace(with, "0.44", "1.5"),
              "field 'kernel_model.sustained_matrix_fraction'");
}

// kernel_model.wave_quantization: an exponent in [0, 1], 1 when not given.
TEST(HardwareJsonTest, WaveQuantizationIsAnExponentInZeroToOne) {
  const std::string with = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                   R"("dispatch_tax_s": 1e-5,
         "kernel_model": {"compute_units": 132, "wave_quantization": 0},)");
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(with, "good.json");
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_DOUBLE_EQ(hw->kernel_model.wave_quantization, 0);
  // A precision's own exponent replaces the device's for its GEMMs only.
  const std::string by_precision = Replace(with, R"("wave_quantization": 0})",
                                           R"("wave_quantization": 0,
           "matrix_by_precision": {"fp8": {"wave_quantization": 1}}})");
  absl::StatusOr<engine::Hardware> fp8 =
      engine::ParseHardwareJson(by_precision, "good.json");
  ASSERT_TRUE(fp8.ok()) << fp8.status();
  EXPECT_DOUBLE_EQ(fp8->kernel_model.ForPrecision("fp8").wave_quantization, 1);
  EXPECT_DOUBLE_EQ(fp8->kernel_model.ForPrecision("bf16").wave_quantization, 0);
  ExpectError(Replace(by_precision, R"({"wave_quantization": 1})",
                      R"({"wave_quantization": 2})"),
              "field 'kernel_model.matrix_by_precision.fp8.wave_quantization': "
              "must be in [0, 1]");
  absl::StatusOr<engine::Hardware> plain =
      engine::ParseHardwareJson(kGood, "good.json");
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_DOUBLE_EQ(plain->kernel_model.wave_quantization, 1);
  ExpectError(
      Replace(with, R"("wave_quantization": 0)", R"("wave_quantization": 1.5)"),
      "field 'kernel_model.wave_quantization': must be in [0, 1]");
  ExpectError(Replace(with, R"("wave_quantization": 0)",
                      R"("wave_quantization": -0.5)"),
              "kernel_model.wave_quantization");
}

// kernel_model.matrix_by_precision: a precision's GEMM constants replace the
// device's for matrix kernels at that peak only; attention keeps the device's
// fixed cost.
TEST(HardwareJsonTest, MatrixConstantsByPrecision) {
  const std::string with = Replace(kGood, R"("dispatch_tax_s": 1e-5,)",
                                   R"("dispatch_tax_s": 1e-5,
         "kernel_model": {"matrix_efficiency": 0.8, "kernel_fixed_s": 5e-6,
           "matrix_by_precision": {"fp8": {"matrix_efficiency": 0.6,
                                           "kernel_fixed_s": 1.3e-5},
                                   "int8": {"matrix_efficiency": 0.7}}},)");
  absl::StatusOr<engine::Hardware> hw =
      engine::ParseHardwareJson(with, "good.json");
  ASSERT_TRUE(hw.ok()) << hw.status();
  const engine::KernelModel fp8 = hw->kernel_model.ForPrecision("fp8");
  EXPECT_DOUBLE_EQ(fp8.matrix_efficiency, 0.6);
  EXPECT_DOUBLE_EQ(fp8.MatrixFixedSeconds(), 1.3e-5);
  EXPECT_DOUBLE_EQ(fp8.kernel_fixed_s, 5e-6);  // attention's
  const engine::KernelModel int8 = hw->kernel_model.ForPrecision("int8");
  EXPECT_DOUBLE_EQ(int8.matrix_efficiency, 0.7);
  EXPECT_DOUBLE_EQ(int8.MatrixFixedSeconds(), 5e-6);  // not given: device's
  const engine::KernelModel bf16 = hw->kernel_model.ForPrecision("bf16");
  EXPECT_DOUBLE_EQ(bf16.matrix_efficiency, 0.8);
  EXPECT_DOUBLE_EQ(bf16.MatrixFixedSeconds(), 5e-6);

  ExpectError(Replace(with, R"("matrix_efficiency": 0.7)",
                      R"("matrix_efficency": 0.7)"),
              "field 'kernel_model.matrix_by_precision.int8.matrix_efficency': "
              "unknown field (known: matrix_efficiency, kernel_fixed_s, "
              "wave_quantization)");
  ExpectError(
      Replace(with, R"("matrix_efficiency": 0.7)", R"("matrix_efficiency": 7)"),
      "field 'kernel_model.matrix_by_precision.int8.matrix_efficiency': must "
      "be in (0, 1]");
  ExpectError(
      Replace(with, R"({"matrix_efficiency": 0.7})", "0.7"),
      "field 'kernel_model.matrix_by_precision.int8': must be an object");
  ExpectError(
      Replace(with, R"("int8": {)", R"("fp9": {)"),
      "field 'kernel_model.matrix_by_precision.fp9': unknown precision");
  ExpectError(
      Replace(with, R"("kernel_fixed_s": 1.3e-5)", R"("kernel_fixed_s": -1)"),
      "field 'kernel_model.matrix_by_precision.fp8.kernel_fixed_s': "
      "must be a non-negative finite number");
}

TEST(HardwareJsonTest, LoadFileNamesTheFile) {
  absl::StatusOr<engine::Hardware> missing =
      engine::LoadHardwareFile("/nonexistent/dir/hw.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(Message(missing.status()).find("/nonexistent/dir/hw.json"),
            std::string::npos);

  const std::string path =
      (std::filesystem::temp_directory_path() / "ridgeline_hw_test.json")
          .string();
  std::ofstream(path) << kGood;
  absl::StatusOr<engine::Hardware> hw = engine::LoadHardwareFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(hw.ok()) << hw.status();
  EXPECT_EQ(hw->name, "My GPU");
}

}  // namespace
}  // namespace ridgeline
