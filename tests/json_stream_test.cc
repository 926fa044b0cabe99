// The streaming JSON writer (engine/report/json_writer.h, json.cc) against
// nlohmann's dump of the same document: byte for byte on the zoo's models
// and on edge values (escapes, invalid UTF-8, non-finite and signed-zero
// numbers, empty lists), with the CLI's extras (sections, per-layer keys,
// warnings), and on every CLI mode's output (a re-dump of the parsed
// output gives the same bytes).
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "engine/analysis.h"
#include "engine/precision.h"
#include "engine/report/json.h"
#include "engine/report/json_writer.h"
#include "engine/report/report.h"
#include "engine/report/sections.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "nlohmann/json.hpp"
#include "tools/analyze/run.h"
#include "zoo/catalog.h"
#include "zoo/hardware_catalog.h"

namespace ridgeline::engine::report {
namespace {

using Json = nlohmann::ordered_json;

std::string Dump(const Json& j) {
  return j.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

// "" when equal, else the first difference with some context (a failed
// EXPECT_EQ on megabytes of text would print an unbounded diff).
std::string Difference(const std::string& got, const std::string& want) {
  if (got == want) return "";
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  const size_t from = i > 80 ? i - 80 : 0;
  return "at byte " + std::to_string(i) + ": got '" + got.substr(from, 160) +
         "', want '" + want.substr(from, 160) + "'";
}

std::string Written(const Analysis& a, const JsonExtras& extras = {}) {
  std::ostringstream out;
  WriteAnalysisJson(a, extras, out);
  return out.str();
}

// The document as a tree, field by field (the fields of JSON_SCHEMA.md):
// what the writer must produce, built independently of it.
Json Tree(const Analysis& a) {
  auto tensors = [](const std::vector<TensorInfo>& list) {
    Json out = Json::array();
    for (const TensorInfo& t : list) {
      Json j;
      j["name"] = t.name;
      j["shape"] = t.shape_known ? Json(t.dims) : Json(nullptr);
      j["dtype"] = std::string(graph::DTypeName(t.dtype));
      out.push_back(std::move(j));
    }
    return out;
  };
  auto unresolved = [](const std::vector<graph::Unresolved>& list) {
    Json out = Json::array();
    for (const graph::Unresolved& u : list) {
      out.push_back(
          {{"tensor", u.tensor}, {"node", u.node}, {"reason", u.reason}});
    }
    return out;
  };
  auto sorted = [](const absl::flat_hash_map<std::string, double>& map) {
    std::vector<std::pair<std::string, double>> items(map.begin(), map.end());
    std::sort(items.begin(), items.end());
    Json out = Json::object();
    for (const auto& [k, v] : items) out[k] = v;
    return out;
  };
  const Hardware& hw = a.hardware;
  const Assumptions& as = a.assumptions;
  const Summary& s = a.summary;
  Json root;
  root["schema_version"] = kJsonSchemaVersion;
  root["model"] = a.model;
  Json h;
  h["key"] = hw.key;
  h["name"] = hw.name;
  h["aliases"] = hw.aliases;
  Json peaks = Json::object();
  for (const Precision& p : kPrecisions) {
    auto it = hw.peak_flops_per_s.find(std::string(p.name));
    if (it != hw.peak_flops_per_s.end()) {
      peaks[std::string(p.name)] = it->second;
    }
  }
  h["peak_flops_per_s"] = std::move(peaks);
  h["memory_bandwidth_bytes_per_s"] = hw.memory_bandwidth_bytes_per_s;
  h["memory_capacity_bytes"] = hw.memory_capacity_bytes;
  h["tdp_w"] = hw.tdp_w > 0 ? Json(hw.tdp_w) : Json(nullptr);
  h["dispatch_tax_s"] = hw.dispatch_tax_s;
  h["source"] = hw.source;
  h["compute_efficiency_by_op"] = sorted(hw.compute_efficiency_by_op);
  h["memory_efficiency_by_op"] = sorted(hw.memory_efficiency_by_op);
  root["hardware"] = std::move(h);
  Json j;
  j["flops_per_mac"] = as.flops_per_mac;
  j["compute_efficiency"] = as.compute_efficiency;
  j["memory_efficiency"] = as.memory_efficiency;
  j["per_layer_tax_s"] = as.per_layer_tax_s;
  j["dispatch_tax_s"] = as.dispatch_tax_s;
  j["precision"] = as.precision;
  j["precision_source"] =
      as.precision_source.empty() ? Json(nullptr) : Json(as.precision_source);
  j["peak_precision"] = as.peak_precision;
  j["peak_reason"] = as.peak_reason;
  j["peak_flops_per_s"] = as.peak_flops_per_s;
  j["memory_bandwidth_bytes_per_s"] = as.memory_bandwidth_bytes_per_s;
  j["ridge_point_flop_per_byte"] = RidgePoint(a);
  j["effective_ridge_point_flop_per_byte"] = EffectiveRidgePoint(a);
  j["batch"] = a.batch;
  j["runtime"] = as.runtime;
  j["runtime_name"] = as.runtime_name;
  j["kernel_model"] = as.kernel_model;
  j["l2_cache_bytes"] = as.l2_cache_bytes;
  j["l2_weights_resident"] = as.l2_weights_resident;
  root["assumptions"] = std::move(j);
  Json layers = Json::array();
  for (const LayerResult& l : a.layers) {
    Json x;
    x["name"] = l.name;
    x["op"] = l.op_type;
    x["domain"] = l.domain;
    x["inputs"] = tensors(l.inputs);
    x["outputs"] = tensors(l.outputs);
    x["macs"] = l.cost.macs;
    x["flops"] = l.flops;
    x["bytes_read"] = l.cost.bytes_read;
    x["bytes_written"] = l.cost.bytes_written;
    x["bytes"] = l.bytes;
    x["intensity"] = l.intensity;
    x["t_compute_s"] = l.t_compute_s;
    x["t_memory_s"] = l.t_memory_s;
    x["t_overhead_s"] = l.t_overhead_s;
    x["latency_s"] = l.latency_s;
    x["bound"] = l.skipped ? "skipped" : std::string(BoundName(l.bound));
    x["regime"] = std::string(RegimeName(l.regime));
    x["overhead_share"] = l.latency_s > 0 ? l.t_overhead_s / l.latency_s : 0.0;
    x["overhead_dominated"] = l.overhead_dominated;
    x["host"] = l.host;
    x["kernel"] = l.kernel >= 0 ? Json(l.kernel) : Json(nullptr);
    x["note"] = l.cost.note;
    layers.push_back(std::move(x));
  }
  root["layers"] = std::move(layers);
  Json kernels = Json::array();
  for (const KernelResult& k : a.kernels) {
    Json x;
    x["name"] = k.name;
    x["fusion"] = k.fusion;
    x["class"] = std::string(KernelClassName(k.work.kind));
    x["layers"] = k.layers;
    x["flops"] = k.work.Flops();
    x["bytes"] = k.work.bytes;
    x["l2_bytes"] = L2Bytes(k.work);
    x["t_compute_s"] = k.time.t_compute_s;
    x["t_memory_s"] = k.time.t_memory_s;
    x["t_overhead_s"] = k.time.t_overhead_s;
    x["latency_s"] = k.time.latency_s;
    x["regime"] = std::string(RegimeName(k.time.regime));
    x["bound"] = std::string(BoundName(k.bound));
    x["tile_wave_efficiency"] = k.time.tile_wave_efficiency;
    kernels.push_back(std::move(x));
  }
  root["kernels"] = std::move(kernels);
  Json y;
  y["layers"] = s.layers;
  y["macs"] = s.macs;
  y["flops"] = s.flops;
  y["bytes"] = s.bytes;
  y["l2_bytes"] = s.l2_bytes;
  y["params"] = s.params;
  if (s.active_params != s.params) y["active_params"] = s.active_params;
  y["weight_bytes"] = s.weight_bytes;
  y["latency_s"] = s.latency_s;
  y["throughput_per_s"] = s.throughput_per_s;
  y["mfu"] = s.mfu;
  y["bound"] = std::string(BoundName(s.bound));
  y["unknown_ops"] = s.unknown_ops;
  y["unresolved"] = unresolved(s.unresolved);
  y["view_layers"] = s.view_layers;
  y["skipped_layers"] = unresolved(s.skipped_layers);
  y["peak_activation_bytes"] = s.peak_activation_bytes;
  y["fits_in_memory"] = s.fits_in_memory;
  y["compute_bound_layers"] = s.compute_bound_layers;
  y["memory_bound_layers"] = s.memory_bound_layers;
  y["overhead_bound_layers"] = s.overhead_bound_layers;
  y["compute_bound_time_s"] = s.compute_bound_time_s;
  y["memory_bound_time_s"] = s.memory_bound_time_s;
  y["overhead_bound_time_s"] = s.overhead_bound_time_s;
  y["overhead_dominated_layers"] = s.overhead_bound_layers;
  y["overhead_s"] = s.overhead_s;
  y["per_inference_s"] = s.per_inference_s;
  y["host_layers"] = s.host_layers;
  y["kernels"] = s.kernels;
  root["summary"] = std::move(y);
  root["warnings"] = WarningLines(a);
  return root;
}

Analysis ZooAnalysis(const std::string& name, const std::string& hw_key) {
  absl::StatusOr<std::vector<zoo::ModelEntry>> zoo = zoo::ModelCatalog();
  EXPECT_TRUE(zoo.ok()) << zoo.status();
  absl::StatusOr<zoo::ModelEntry> e = zoo::FindModel(*zoo, name);
  EXPECT_TRUE(e.ok()) << e.status();
  importers::ImportOptions o;
  o.dims = zoo::EntryDims(*e, {}, std::nullopt);
  absl::StatusOr<graph::Graph> g =
      importers::ImportOnnxBytes(e->onnx, "zoo:" + e->name, "", o);
  EXPECT_TRUE(g.ok()) << g.status();
  absl::StatusOr<std::vector<Hardware>> devices = zoo::HardwareCatalog();
  EXPECT_TRUE(devices.ok()) << devices.status();
  absl::StatusOr<Hardware> hw = FindHardware(*devices, hw_key);
  EXPECT_TRUE(hw.ok()) << hw.status();
  AnalyzeOptions options;
  options.batch = g->batch.value;
  absl::StatusOr<Analysis> a = Analyze(*g, *hw, options);
  EXPECT_TRUE(a.ok()) << a.status();
  a->model = "zoo:" + name;
  return *std::move(a);
}

TEST(JsonStream, EqualsTheTreeDumpOnEveryZooModel) {
  absl::StatusOr<std::vector<zoo::ModelEntry>> zoo = zoo::ModelCatalog();
  ASSERT_TRUE(zoo.ok()) << zoo.status();
  for (const zoo::ModelEntry& e : *zoo) {
    for (const char* hw : {"h100", "epyc-9654"}) {
      const Analysis a = ZooAnalysis(e.name, hw);
      EXPECT_EQ(Difference(Written(a), Dump(Tree(a))), "")
          << e.name << " on " << hw;
    }
  }
}

TEST(JsonStream, EqualsTheTreeDumpOnEdgeValues) {
  Analysis a = ZooAnalysis("resnet50", "h100");
  ASSERT_GE(a.layers.size(), 3u);
  a.model = "ctl\x01\t\n\"q\"\\ caf\xc3\xa9 bad\xff\xfe end\x7f";
  a.hardware.tdp_w = 0;
  a.hardware.aliases.clear();
  a.hardware.compute_efficiency_by_op = {{"Conv", 0.5}, {"B\"x", 1e-300}};
  LayerResult& l = a.layers[0];
  l.name = "\xe2\x82";  // truncated UTF-8
  l.op_type = std::string("nul\0in", 6);
  l.inputs.clear();
  l.outputs[0].shape_known = false;
  l.flops = std::numeric_limits<double>::quiet_NaN();
  l.bytes = std::numeric_limits<double>::infinity();
  l.intensity = -std::numeric_limits<double>::infinity();
  l.t_compute_s = -0.0;
  l.t_memory_s = 1e300;
  l.t_overhead_s = 0.1;
  l.cost.macs = 123456789012345678.0;
  l.cost.bytes_read = 5e-7;
  l.cost.bytes_written = 1e21;
  l.kernel = -1;
  l.skipped = true;
  a.layers[1].outputs[0].dims.clear();
  a.summary.unknown_ops = {"x:Foo", "\x80"};
  a.summary.unresolved = {{"t\n", "n", "r"}};
  a.summary.params = std::numeric_limits<int64_t>::min();
  a.summary.kernels = std::numeric_limits<int64_t>::max();
  a.kernels.front().layers.clear();
  EXPECT_EQ(Difference(Written(a), Dump(Tree(a))), "");
  a.layers.clear();
  a.kernels.clear();
  EXPECT_EQ(Difference(Written(a), Dump(Tree(a))), "");
}

// As the CLI composed the document before the writer streamed: the tree,
// each layer update()d, the sections appended, the warnings merged.
TEST(JsonStream, ExtrasEqualTheTreeUpdates) {
  const Analysis a = ZooAnalysis("gpt2", "h100");
  JsonExtras extras;
  extras.warnings_first = {"first", "second \x01"};
  Json sections = Json::object();
  sections["whole_model"] = {{"latency_s", 1.5}, {"nested", {1, 2, {}}}};
  Json layers = Json::array();
  for (size_t i = 0; i < a.layers.size(); ++i) {
    Json x = {{"measured_s", nullptr}, {"ratio", 0.5}};
    if (i % 3 == 0) x["flops"] = "replaced";
    if (i % 5 == 0) x["empty"] = Json::object();
    layers.push_back(std::move(x));
  }
  sections["layers"] = layers;
  sections["measured"] = {{"runs", 3}, {"list", Json::array()}};
  sections["model"] = "replaced in place";
  extras.sections = sections;

  Json expected = Tree(a);
  for (size_t i = 0; i < a.layers.size(); ++i) {
    expected["layers"][i].update(layers[i]);
  }
  expected["whole_model"] = sections["whole_model"];
  expected["measured"] = sections["measured"];
  expected["model"] = sections["model"];
  Json warnings = Json::array({"first", "second \x01"});
  for (const Json& w : expected["warnings"]) warnings.push_back(w);
  expected["warnings"] = warnings;
  EXPECT_EQ(Difference(Written(a, extras), Dump(expected)), "");
}

TEST(JsonStream, AnalysisToJsonParsesTheWrittenDocument) {
  const Analysis a = ZooAnalysis("bert-base", "a100");
  EXPECT_TRUE(AnalysisToJson(a) == Json::parse(Written(a)));
  EXPECT_EQ(Difference(Dump(AnalysisToJson(a)), Written(a)), "");
}

TEST(JsonWriter, LongDocumentsFlushInChunks) {
  std::ostringstream out;
  Json expected = Json::array();
  {
    JsonWriter w(out);
    w.BeginArray();
    for (int i = 0; i < 5000; ++i) {  // ~400 kB: several chunks
      w.BeginObject();
      w.Key("i");
      w.Int(i);
      w.Key("v");
      w.Value(Json({{"a", i * 0.25}, {"b", Json::array()}}));
      w.EndObject();
      expected.push_back(
          {{"i", i}, {"v", {{"a", i * 0.25}, {"b", Json::array()}}}});
    }
    w.EndArray();
    w.Finish();
  }
  EXPECT_GT(out.str().size(), 256u * 1024);
  EXPECT_EQ(Difference(out.str(), Dump(expected)), "");
}

// The CLI's runs in every mode (json_stream and the key-order test below).
std::vector<std::vector<std::string>> CliRuns() {
  const std::string fixtures = RIDGELINE_SOURCE_DIR "/tests/fixtures/";
  const std::string small_cnn = fixtures + "profile_models/small_cnn.onnx";
  return {
      {"--zoo", "llama-3.1-8b-decode", "--hw", "h100"},
      {"--zoo", "resnet50", "--hw", "a100", "--whole-model", "--mlsysim"},
      {"--zoo", "resnet50", "--hw", "h100", "--sweep", "batch=1,2,4",
       "--whole-model"},
      {"--zoo", "resnet50", "--hw", "h100", "--sweep", "hw=a100,h100"},
      {"--zoo", "llama-3.1-70b-decode", "--hw", "h100", "--precision", "bf16",
       "--sweep", "tp=1,2,4"},
      {"--zoo", "resnet50", "--hw", "h100", "--runtime", "eager", "--fuse",
       "all"},
      {"--zoo", "resnet50", "--hw", "h100", "--precision", "fp16", "--weights",
       "int8", "--what-if"},
      {"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision", "bf16",
       "--activations", "fp8", "--kv-cache", "int8"},
      {small_cnn, "--hw", "epyc-9654", "--measured",
       fixtures + "profiles/small_cnn_disabled.json"},
      {small_cnn, "--hw", "epyc-9654", "--measured",
       fixtures + "profiles/small_cnn_pytorch.json"},
      {"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision", "bf16",
       "--serve", "--prompt", "256", "--generate", "64", "--concurrency", "4"},
      {"--zoo", "llama-3.1-8b-decode", "--hw", "h100", "--precision", "bf16",
       "--serve", "--prompt", "256", "--generate", "64", "--sweep",
       "concurrency=1,8"},
      {"--zoo", "llama-3.1-70b-decode", "--hw", "h100", "--precision", "bf16",
       "--tp", "8"},
      {fixtures + "tiny_custom_op.onnx", "--hw", "h100"},
  };
}

std::string RunJson(std::vector<std::string> args) {
  args.push_back("--format");
  args.push_back("json");
  std::ostringstream out, err;
  EXPECT_EQ(tools::analyze::AnalyzeMain(args, out, err), 0) << err.str();
  return out.str();
}

// Every mode of the CLI: the output is exactly nlohmann's dump of itself.
TEST(JsonStream, CliOutputsAreCanonicalDumps) {
  for (const std::vector<std::string>& args : CliRuns()) {
    const std::string out = RunJson(args);
    const Json j = Json::parse(out);
    EXPECT_EQ(Difference(Dump(j), out), "") << args[0] << " " << args[1];
  }
}

// The first object, at any depth, whose keys are not in alphabetical order
// (its path), or "".
std::string UnsortedObject(const Json& j, const std::string& path) {
  if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) {
      std::string found =
          UnsortedObject(j[i], path + "[" + std::to_string(i) + "]");
      if (!found.empty()) return found;
    }
  }
  if (!j.is_object()) return "";
  std::string previous;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it != j.begin() && !(previous < it.key())) {
      return path + "." + it.key();
    }
    previous = it.key();
    std::string found = UnsortedObject(it.value(), path + "." + it.key());
    if (!found.empty()) return found;
  }
  return "";
}

// The sections of the whole-model, sweep, what-if, fusion, quantization and
// measured modes list their keys in alphabetical order, at every depth, as
// they always have (the engine builds them in that order; no re-sorting
// pass); so do the measured keys added to each layer, after the layer's own.
TEST(JsonStream, ModeSectionsListKeysAlphabetically) {
  const std::vector<std::string> sorted_sections = {
      "whole_model", "sweep",   "quantize", "groups",
      "fusion",      "what_if", "measured"};
  const std::vector<std::string> measured_layer_keys = {
      "fused_layers",  "match", "measured_s",
      "measured_with", "ratio", "roof_fraction"};
  int sections = 0;
  for (const std::vector<std::string>& args : CliRuns()) {
    const Json j = Json::parse(RunJson(args));
    const bool serve_sweep =
        std::find(args.begin(), args.end(), "--serve") != args.end();
    for (const std::string& key : sorted_sections) {
      if (!j.contains(key) || (key == "sweep" && serve_sweep)) continue;
      ++sections;
      EXPECT_EQ(UnsortedObject(j[key], key), "") << args[0] << " " << args[1];
    }
    if (!j.contains("measured")) continue;
    for (const Json& layer : j["layers"]) {
      std::vector<std::string> added;
      std::string last;
      for (auto it = layer.begin(); it != layer.end(); ++it) {
        last = it.key();
        if (std::find(measured_layer_keys.begin(), measured_layer_keys.end(),
                      it.key()) != measured_layer_keys.end()) {
          added.push_back(it.key());
        }
      }
      ASSERT_GE(added.size(), 2u) << layer["name"];
      EXPECT_TRUE(std::is_sorted(added.begin(), added.end())) << layer["name"];
      // They come last, after the layer's own keys.
      EXPECT_EQ(last, added.back()) << layer["name"];
    }
  }
  // whole_model: --mlsysim, --sweep batch; sweep: batch, hw, tp; groups and
  // fusion: --fuse; quantize: --weights, --activations; what_if: --what-if;
  // measured: two profiles.
  EXPECT_EQ(sections, 2 + 3 + 1 + 1 + 2 + 1 + 2);
}

}  // namespace
}  // namespace ridgeline::engine::report
