#include "tools/python/session.h"

#include <sstream>
#include <utility>

#include "absl/strings/cord.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"
#include "zoo/hardware_catalog.h"
#include "zoo/runtime_catalog.h"

namespace ridgeline::python {
namespace {

using tools::analyze::Options;

constexpr char kModelErrorPayload[] = "ridgeline/model-error";

absl::Status AsModelError(const absl::Status& status) {
  absl::Status marked = status;
  marked.SetPayload(kModelErrorPayload, absl::Cord("1"));
  return marked;
}

// The error with the model's name in front, unless it already names it (as
// the CLI's import errors do).
absl::Status Named(const absl::Status& status, std::string_view name) {
  std::string_view message = MessageOf(status);
  if (message.find(name) != std::string_view::npos) return status;
  return absl::Status(status.code(), fmt::format("{}: {}", name, message));
}

// The batch the graph was bound with, as the CLI's RunAnalyze decides it
// (tools/analyze/run.cc): the first dim of the first graph input of rank
// >= 2 when known, else --batch, else 1; warns when --batch was not applied.
int64_t GraphBatch(const graph::Graph& g, const Options& o,
                   std::vector<std::string>* warnings) {
  for (int t : g.Inputs()) {
    const graph::Tensor& in = g.tensor(t);
    if (!in.shape_known || in.dims.size() < 2) continue;
    const int64_t b = in.dims[0];
    if (o.batch && *o.batch != b) {
      warnings->push_back(fmt::format(
          "batch {} not applied: input '{}' has a static first dim of {}; "
          "throughput uses batch {}",
          *o.batch, in.name, b, b));
    }
    return b > 0 ? b : 1;
  }
  return o.batch.value_or(1);
}

}  // namespace

bool IsModelError(const absl::Status& status) {
  return status.GetPayload(kModelErrorPayload).has_value();
}

absl::StatusOr<std::unique_ptr<Session>> Session::Open(
    const std::vector<std::string>& args,
    std::optional<std::string> model_bytes) {
  absl::StatusOr<Options> options = tools::analyze::ParseArgs(args);
  if (!options.ok()) return options.status();
  std::unique_ptr<Session> s(new Session());
  s->options_ = *std::move(options);
  // The report page is the only picture the package renders.
  s->options_.picture = Options::Picture::kHtml;
  s->model_bytes_ = std::move(model_bytes);
  if (absl::Status st = s->Load(); !st.ok()) return st;
  return s;
}

absl::Status Session::Load() {
  absl::StatusOr<std::vector<engine::Hardware>> catalog =
      zoo::HardwareCatalog();
  if (!catalog.ok()) return catalog.status();
  catalog_ = *std::move(catalog);
  ctx_.options = &options_;
  ctx_.catalog = &catalog_;
  ctx_.err = &err_;
  for (size_t i = 0; i < options_.hw.size(); ++i) {
    absl::StatusOr<engine::Hardware> hw =
        engine::FindHardware(catalog_, options_.hw[i]);
    if (!hw.ok()) return hw.status();
    if (i == 0) ctx_.hw = *std::move(hw);
  }
  const std::string runtime_name =
      !options_.runtime.empty()
          ? options_.runtime
          : std::string(options_.mlsysim ? "mlsysim"
                                         : zoo::DefaultRuntimeKey(ctx_.hw));
  absl::StatusOr<engine::Runtime> runtime = zoo::ResolveRuntime(runtime_name);
  if (!runtime.ok()) return runtime.status();
  ctx_.runtime = *std::move(runtime);

  if (model_bytes_) {
    ctx_.model_name = options_.model_path;
    absl::StatusOr<graph::Graph> g = ImportAtBatch(0);
    if (!g.ok()) return AsModelError(g.status());
    ctx_.graph = *std::move(g);
  } else if (absl::Status st = tools::analyze::LoadModel(&ctx_); !st.ok()) {
    // NotFound: an unknown --zoo name, an argument; the rest is the model.
    return absl::IsNotFound(st) ? st : AsModelError(st);
  }
  for (const std::string& w : ctx_.graph.warnings) {
    warnings_.push_back(fmt::format("{}: {}", ctx_.model_name, w));
  }

  ctx_.analyze = options_.analyze;
  ctx_.analyze.runtime = &ctx_.runtime;
  ctx_.analyze.batch = GraphBatch(ctx_.graph, options_, &warnings_);
  absl::StatusOr<engine::Analysis> analysis =
      engine::Analyze(ctx_.graph, ctx_.hw, ctx_.analyze);
  if (!analysis.ok()) return Named(analysis.status(), ctx_.model_name);
  ctx_.analysis = *std::move(analysis);
  ctx_.analysis.model = ctx_.model_name;
  const engine::Summary& sum = ctx_.analysis.summary;
  if (!sum.skipped_layers.empty() || !sum.unknown_ops.empty()) {
    warnings_.push_back(fmt::format(
        "{}: {} layer(s) skipped (unresolved shapes or counting errors), {} "
        "op type(s) without a counter; see the report's warnings/summary",
        ctx_.model_name, sum.skipped_layers.size(), sum.unknown_ops.size()));
  }
  return absl::OkStatus();
}

// `batch` 0: the options' own --batch/--dim bindings.
absl::StatusOr<graph::Graph> Session::ImportAtBatch(int64_t batch) const {
  if (!model_bytes_) return tools::analyze::LoadModelAtBatch(ctx_, batch);
  importers::ImportOptions import;
  for (const auto& [name, value] : options_.dims) import.dims[name] = value;
  import.batch = options_.batch;
  if (batch > 0) {
    import.dims.erase("batch");  // a sweep point wins
    import.batch = batch;
  }
  absl::StatusOr<graph::Graph> g =
      importers::ImportOnnxBytes(*model_bytes_, ctx_.model_name, "", import);
  if (!g.ok()) return Named(g.status(), ctx_.model_name);
  return g;
}

std::vector<std::string> Session::warnings() const {
  std::vector<std::string> all = warnings_;
  constexpr std::string_view kPrefix = "analyze: warning: ";
  std::istringstream lines(err_.str());
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with(kPrefix)) all.push_back(line.substr(kPrefix.size()));
  }
  return all;
}

absl::StatusOr<engine::SweepResult> Session::Sweep(
    const std::string& spec_text) const {
  absl::StatusOr<engine::SweepSpec> spec = engine::ParseSweepSpec(spec_text);
  if (!spec.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "sweep: invalid value '{}': {}", spec_text, MessageOf(spec.status())));
  }
  engine::SweepOptions sweep;
  if (options_.whole_model) {
    sweep.whole_model = tools::analyze::EstimateOptions(ctx_);
  }
  if (spec->axis == engine::SweepSpec::Axis::kBatch) {
    engine::AnalyzeAtBatch at =
        [this](int64_t batch) -> absl::StatusOr<engine::Analysis> {
      absl::StatusOr<graph::Graph> g = ImportAtBatch(batch);
      if (!g.ok()) return AsModelError(g.status());
      engine::AnalyzeOptions o = ctx_.analyze;
      o.batch = batch;
      return engine::Analyze(*g, ctx_.hw, o);
    };
    return engine::SweepBatch(at, spec->batches, sweep);
  }
  std::vector<engine::Hardware> devices;
  for (const std::string& name : spec->hardware) {
    absl::StatusOr<engine::Hardware> hw = engine::FindHardware(catalog_, name);
    if (!hw.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("sweep: {}", MessageOf(hw.status())));
    }
    devices.push_back(*std::move(hw));
  }
  engine::AnalyzeOnHardware on =
      [this](const engine::Hardware& hw) -> absl::StatusOr<engine::Analysis> {
    return engine::Analyze(ctx_.graph, hw, ctx_.analyze);
  };
  return engine::SweepHardware(ctx_.analysis, ctx_.analyze, devices, on, sweep);
}

}  // namespace ridgeline::python
