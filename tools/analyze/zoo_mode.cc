// analyze --list-zoo and --zoo NAME: built-in models, imported exactly like
// a file (display name "zoo:NAME") with the entry's default dims.
#include <sstream>
#include <string>

#include "engine/sweep.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "importers/onnx_importer.h"
#include "tools/analyze/modes.h"
#include "zoo/catalog.h"

namespace ridgeline::tools::analyze {
namespace {

absl::flat_hash_map<std::string, int64_t> UserDims(const Options& o) {
  absl::flat_hash_map<std::string, int64_t> dims;
  for (const auto& [name, value] : o.dims) dims[name] = value;
  return dims;
}

// The batch of the first import: --batch, else the first point of a
// --sweep batch=..., so a sweep needs no --batch.
std::optional<int64_t> FirstBatch(const Options& o) {
  if (o.batch || o.sweep.empty()) return o.batch;
  absl::StatusOr<engine::SweepSpec> spec = engine::ParseSweepSpec(o.sweep);
  if (!spec.ok() || spec->axis != engine::SweepSpec::Axis::kBatch ||
      spec->batches.empty()) {
    return std::nullopt;
  }
  return spec->batches.front();
}

// Imports the model; with `batch` (a sweep point) every dim of the batch
// binding the first import recorded (Graph::batch) is rebound to it.
absl::StatusOr<graph::Graph> Import(const RunContext& ctx,
                                    std::optional<int64_t> batch) {
  const Options& o = *ctx.options;
  const std::optional<int64_t> b = batch ? batch : FirstBatch(o);
  importers::ImportOptions import;
  import.dims = UserDims(o);
  import.inputs = o.inputs;
  import.input_values = o.input_values;
  import.batch = b;
  if (ctx.zoo_entry) {
    import.dims = zoo::EntryDims(*ctx.zoo_entry, import.dims, b);
  } else if (o.serve) {
    if (absl::Status s = AddServeDecodeBindings(ctx, &import); !s.ok()) {
      return s;
    }
  }
  if (batch) {
    for (const std::string& name : ctx.graph.batch.dim_names) {
      import.dims.erase(name);  // a sweep point wins
    }
  }
  absl::StatusOr<graph::Graph> g =
      ctx.zoo_entry ? importers::ImportWeightlessOnnxBytes(
                          ctx.zoo_entry->onnx, ctx.model_name, import)
      : !ctx.model_bytes.empty()
          ? importers::ImportOnnxBytes(ctx.model_bytes, ctx.model_name, "",
                                       import)
          : importers::ImportOnnxFile(o.model_path, import);
  if (!g.ok()) {
    std::string_view message = MessageOf(g.status());
    return absl::InvalidArgumentError(
        message.find(ctx.model_name) == std::string_view::npos
            ? fmt::format("{}: {}", ctx.model_name, message)
            : std::string(message));
  }
  return g;
}

}  // namespace

absl::StatusOr<std::string> ListZoo(engine::report::Format format,
                                    size_t max_width) {
  absl::StatusOr<std::vector<zoo::ModelEntry>> catalog = zoo::ModelCatalog();
  if (!catalog.ok()) return catalog.status();
  std::ostringstream out;
  zoo::WriteModelList(*catalog, format, out, max_width);
  return out.str();
}

absl::Status LoadModel(RunContext* ctx) {
  const Options& o = *ctx->options;
  if (!o.zoo.empty()) {
    absl::StatusOr<zoo::ModelEntry> entry = zoo::FindZooModel(o.zoo);
    if (!entry.ok()) {
      return absl::NotFoundError(
          fmt::format("--zoo {}: {}", o.zoo, MessageOf(entry.status())));
    }
    ctx->zoo_entry = *entry;
    ctx->model_name = fmt::format("zoo:{}", entry->name);
  } else {
    ctx->model_name = o.model_path;
  }
  absl::StatusOr<graph::Graph> g = Import(*ctx, std::nullopt);
  if (!g.ok()) return g.status();
  ctx->graph = *std::move(g);
  return absl::OkStatus();
}

engine::AnalyzeOptions RunAnalyzeOptions(const RunContext& ctx) {
  engine::AnalyzeOptions a = ctx.options->analyze;
  if (ctx.zoo_entry && a.precision.empty() &&
      !ctx.zoo_entry->native_precision.empty()) {
    a.precision = ctx.zoo_entry->native_precision;
    a.precision_source =
        fmt::format("the zoo entry's native dtype ({}; --precision overrides)",
                    ctx.zoo_entry->native_precision_source);
  }
  return a;
}

absl::StatusOr<graph::Graph> LoadModelAtBatch(const RunContext& ctx,
                                              int64_t batch) {
  if (!ctx.graph.batch.symbolic()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: --sweep batch: the model has no symbolic batch dim to bind (no "
        "dim named like \"batch\", no symbolic leading dim); name one with "
        "--input NAME=...xbatchx...",
        ctx.model_name));
  }
  return Import(ctx, batch);
}

}  // namespace ridgeline::tools::analyze
