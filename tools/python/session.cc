#include "tools/python/session.h"

#include <sstream>
#include <utility>

#include "absl/strings/cord.h"
#include "engine/analysis.h"
#include "engine/hardware.h"
#include "engine/parallel/sharding.h"
#include "engine/report/json.h"
#include "engine/report/serve_report.h"
#include "engine/report/text.h"
#include "fmt/format.h"
#include "graph/fmt_absl.h"
#include "zoo/hardware_catalog.h"

namespace ridgeline::python {
namespace {

using tools::analyze::Options;

constexpr char kModelErrorPayload[] = "ridgeline/model-error";

absl::Status AsModelError(const absl::Status& status) {
  absl::Status marked = status;
  marked.SetPayload(kModelErrorPayload, absl::Cord("1"));
  return marked;
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

// The steps of the CLI's RunAnalyze (tools/analyze/run.cc) up to the report.
absl::Status Session::Load() {
  ctx_.options = &options_;
  ctx_.catalog = &catalog_;
  ctx_.warnings = &warnings_;  // ctx_.err stays null: nothing is printed
  if (model_bytes_) ctx_.model_bytes = *model_bytes_;
  for (size_t i = 0; i < options_.hw.size(); ++i) {
    absl::StatusOr<engine::Hardware> hw = catalog_.Find(options_.hw[i]);
    if (!hw.ok()) return hw.status();
    if (i == 0) ctx_.hw = *std::move(hw);
  }
  if (absl::Status st = tools::analyze::SelectRuntime(&ctx_); !st.ok()) {
    return st;
  }

  if (absl::Status st = tools::analyze::LoadRunModel(&ctx_); !st.ok()) {
    // NotFound: an unknown --zoo name, an argument; the rest is the model.
    return absl::IsNotFound(st) ? st : AsModelError(st);
  }
  return tools::analyze::AnalyzeRun(&ctx_);
}

std::vector<std::string> Session::warnings() const {
  return engine::report::CollapseRepeats(warnings_);
}

// The CLI's --format json document (tools/analyze/run.cc): the written
// bytes with the modes' sections (serve, search, what-ifs, whole model) and
// the run's warnings, parsed.
absl::StatusOr<nlohmann::ordered_json> Session::Document() const {
  absl::StatusOr<engine::report::JsonExtras> extras =
      tools::analyze::ReportJsonExtras(ctx_);
  if (!extras.ok()) return extras.status();
  std::ostringstream out;
  engine::report::WriteAnalysisJson(ctx_.analysis, *extras, out);
  return nlohmann::ordered_json::parse(out.str());
}

absl::StatusOr<std::string> Session::ModeText() const {
  return tools::analyze::ModeText(ctx_);
}

absl::StatusOr<engine::SweepResult> Session::Sweep(
    const std::string& spec) const {
  return tools::analyze::RunSweep(ctx_, spec);
}

absl::StatusOr<std::pair<nlohmann::ordered_json, std::string>>
Session::ServeSweep(const std::string& list) const {
  absl::StatusOr<engine::SweepSpec> spec =
      tools::analyze::ParseSweepFlag("concurrency=" + list);
  if (!spec.ok()) return spec.status();
  if (!options_.serve) {
    return absl::InvalidArgumentError("--sweep concurrency=LIST needs --serve");
  }
  absl::StatusOr<std::vector<engine::ServeResult>> r =
      tools::analyze::RunServeSweep(ctx_, spec->concurrency);
  if (!r.ok()) return r.status();
  return std::make_pair(engine::report::ServeSweepJson(*r),
                        engine::report::FormatServeSweep(*r, ctx_.table_width));
}

}  // namespace ridgeline::python
