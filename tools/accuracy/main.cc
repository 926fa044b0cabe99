// accuracy: predicted vs measured for every row of a table of published
// end-to-end measurements (bench/accuracy/references.tsv). Each row is run
// through the analyze CLI in-process (the same code users run), with the
// row's zoo model, device, precision, batch, dims, runtime and weight-only
// quantization; no efficiency or tax flags. Multi-GPU rows carry tp=T and
// pp=P in the dims field (passed as --tp / --pp).
//
// Serving rows (metric serve_output_tokens_per_s_per_gpu, or
// serve_output_tokens_per_s for all GPUs together) run the decode
// zoo entry with --serve: the batch column is the concurrency B, dims
// prompt=N (--prompt) and osl=L (--generate), the output tokens per
// request as a benchmark counts them: the first comes out of the prefill
// (the context phase) and L - 1 from decode steps, as --serve counts them
// (README "Serving"). The prediction is the aggregate output tokens/s,
// B x L / (TTFT + the L - 1 decode steps), / GPUs (summary.gpus). A batch
// column "max:N" is a benchmark at full load (trtllm-bench throughput):
// B = min(N, the largest concurrency that fits, --serve's
// max_concurrency). A
// time-to-first-token row with prompt=N and osl=1 reads --serve's ttft_s
// (the prefill at N tokens + the runtime's per-request cost).
//
//   accuracy bench/accuracy/references.tsv [--format md] [--max-median F]
//
// --max-median F: exit 1 when the median |error| of the rows on their own
// runtime profile exceeds F (a fraction); CTest runs it with 0.15. The flags
// are rows of the shared table (tools/cli/flags.h); a usage error prints
// the usage and exits 1, a bad references file exits 2.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "engine/rank_stats.h"
#include "engine/report/text_table.h"
#include "fmt/format.h"
#include "fmt/ostream.h"
#include "nlohmann/json.hpp"
#include "tools/analyze/run.h"
#include "tools/cli/flags.h"

namespace {

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

// A decimal integer >= 1, or 0 when `s` is not one.
int64_t PositiveInt(const std::string& s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() && v > 0 ? v : 0;
}

int Fail(const std::string& message) {
  fmt::print(std::cerr, "accuracy: error: {}\n", message);
  return 2;
}

struct Row {
  std::string id, model, hw, precision, weights, dims, runtime, metric, unit;
  int64_t batch = 1;
  // A serving row whose batch column is "max:N": the concurrency is the
  // largest that fits (--serve's max_concurrency at one request), at most
  // N (the benchmark's batch cap).
  int64_t max_batch = 0;
  double measured = 0;
};

namespace cli = ridgeline::tools::cli;

// The command line: the references file and the flags of kFlags.
struct AccuracyArgs {
  std::string references;  // REFERENCES.tsv
  bool markdown = false;   // --format md
  double max_median = -1;  // --max-median F; < 0: no gate
};

constexpr cli::Flag<AccuracyArgs> kFlags[] = {
    {"--format", "table|md", "md: the table as Markdown (default: text)",
     [](AccuracyArgs& a, std::string_view v) -> absl::Status {
       absl::StatusOr<std::string> f = cli::Choice("--format", "table|md", v);
       if (!f.ok()) return f.status();
       a.markdown = *f == "md";
       return absl::OkStatus();
     }},
    {"--max-median", "F",
     "exit 1 when the median |error| of the rows on their own runtime "
     "profile exceeds F (a fraction >= 0)",
     [](AccuracyArgs& a, std::string_view v) -> absl::Status {
       absl::StatusOr<double> f = cli::NumberIn("--max-median", v, 0, 1e9);
       if (!f.ok()) return f.status();
       a.max_median = *f;
       return absl::OkStatus();
     }},
};

std::string Usage() {
  return "usage: accuracy REFERENCES.tsv [--format table|md] [--max-median "
         "F]\n\nflags:\n" +
         cli::HelpLines<AccuracyArgs>(kFlags, 22);
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  AccuracyArgs a;
  absl::Status parsed = cli::ParseFlags<AccuracyArgs>(
      kFlags, args, a, [&a](std::string_view arg) -> absl::Status {
        if (!a.references.empty()) {
          return absl::InvalidArgumentError(fmt::format(
              "unexpected argument '{}' (one REFERENCES.tsv)", arg));
        }
        a.references = std::string(arg);
        return absl::OkStatus();
      });
  if (parsed.ok() && a.references.empty()) {
    parsed = absl::InvalidArgumentError("REFERENCES.tsv is required");
  }
  if (!parsed.ok()) {
    fmt::print(std::cerr, "accuracy: {}\n{}", std::string(parsed.message()),
               Usage());
    return 1;
  }
  const std::string& references = a.references;
  const bool markdown = a.markdown;
  const double max_median = a.max_median;
  std::ifstream in(references);
  if (!in) return Fail(fmt::format("{}: cannot open", references));
  std::string line;
  std::vector<Row> rows;
  int line_no = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      header = true;
      continue;
    }
    const std::vector<std::string> f = Split(line, '\t');
    if (f.size() < 11) {
      return Fail(fmt::format("{}:{}: expected 13 tab-separated fields",
                              references, line_no));
    }
    Row r;
    r.id = f[0];
    r.model = f[1];
    r.hw = f[2];
    r.precision = f[3];
    r.weights = f[4];
    r.dims = f[6];
    r.runtime = f[7];
    r.metric = f[8];
    r.unit = f[10];
    try {
      if (f[5].rfind("max:", 0) == 0) {
        r.max_batch = PositiveInt(f[5].substr(4));
        if (r.max_batch < 1) throw std::invalid_argument("max:N");
        r.batch = 1;
      } else {
        r.batch = std::stoll(f[5]);
      }
      r.measured = std::stod(f[9]);
    } catch (const std::exception&) {
      return Fail(
          fmt::format("{}:{}: bad batch (a number or max:N) or "
                      "measured value",
                      references, line_no));
    }
    rows.push_back(r);
  }

  std::vector<double> gated, other;
  ridgeline::engine::report::TextTable table;
  table.headers = {"id",       "device",    "runtime", "metric",
                   "measured", "predicted", "error"};
  // Markdown keeps its columns unaligned (the README's table).
  if (!markdown) {
    table.right_align = {false, false, false, false, true, true, true};
  }
  for (const Row& r : rows) {
    const bool own_runtime = r.runtime.rfind("other:", 0) != 0;
    // A row with prompt=N runs --serve (the decode zoo entry and its
    // -prefill sibling): serving throughput, or a time to first token as
    // --serve gives it (the prefill + the runtime's per-request cost).
    const bool serve = r.dims.find("prompt=") != std::string::npos;
    std::vector<std::string> args = {"--zoo",
                                     r.model,
                                     "--hw",
                                     r.hw,
                                     "--precision",
                                     r.precision,
                                     serve ? "--concurrency" : "--batch",
                                     std::to_string(r.batch),
                                     "--format",
                                     "json"};
    if (serve) args.push_back("--serve");
    int64_t osl = 0;
    if (own_runtime) {
      args.push_back("--runtime");
      args.push_back(r.runtime);
    }
    if (r.dims != "-") {
      for (const std::string& d : Split(r.dims, ',')) {
        const size_t eq = d.find('=');
        const std::string key = d.substr(0, eq);
        const std::string value = d.substr(eq + 1);
        if (key == "osl") {
          osl = PositiveInt(value);
          if (osl < 1) return Fail(fmt::format("{}: osl must be >= 1", r.id));
          args.push_back("--generate");
          args.push_back(std::to_string(osl));
        } else if (key == "int4_group" || key == "tp" || key == "pp" ||
                   key == "prompt") {
          // Flags, not dims: --int4-group, --tp, --pp, --prompt.
          args.push_back(key == "int4_group" ? "--int4-group" : "--" + key);
          args.push_back(value);
        } else {
          args.push_back("--dim");
          args.push_back(d);
        }
      }
    }
    const bool quantized = r.weights != r.precision;
    if (quantized) {
      args.push_back("--weights");
      args.push_back(r.weights);
    }
    if (serve && osl == 0) {
      return Fail(fmt::format("{}: a serving row needs osl=L", r.id));
    }
    if (!serve && (r.metric == "serve_output_tokens_per_s_per_gpu" ||
                   r.metric == "serve_output_tokens_per_s")) {
      return Fail(fmt::format("{}: a serving row needs prompt=N", r.id));
    }
    if (r.max_batch > 0 && !serve) {
      return Fail(fmt::format("{}: batch max:N needs a serving row", r.id));
    }
    auto run = [&args](const Row& row) -> absl::StatusOr<nlohmann::json> {
      std::ostringstream out, err;
      if (ridgeline::tools::analyze::AnalyzeMain(args, out, err) != 0) {
        return absl::InvalidArgumentError(
            fmt::format("{}: analyze failed: {}", row.id, err.str()));
      }
      return nlohmann::json::parse(out.str());
    };
    absl::StatusOr<nlohmann::json> ran = run(r);
    if (ran.ok() && r.max_batch > 0) {
      // The concurrency a benchmark at full load settles at: as many
      // requests as the KV cache holds, up to its batch cap.
      const int64_t fits = (*ran)["serve"]["max_concurrency"].get<int64_t>();
      const int64_t concurrency = std::min(fits, r.max_batch);
      if (concurrency < 1) {
        return Fail(fmt::format("{}: not one request fits", r.id));
      }
      const auto at = std::find(args.begin(), args.end(), "--concurrency");
      *(at + 1) = std::to_string(concurrency);
      ran = run(r);
    }
    if (!ran.ok()) return Fail(std::string(ran.status().message()));
    const nlohmann::json& j = *ran;
    double predicted = 0;
    if (serve) {
      const nlohmann::json& s = j["serve"];
      const double aggregate = s["aggregate_output_tokens_per_s"];
      predicted = r.metric == "ttft_s" ? s["ttft_s"].get<double>()
                  : r.metric == "serve_output_tokens_per_s"
                      ? aggregate
                      : aggregate / j["summary"].value("gpus", 1.0);
    } else {
      const double latency =
          (quantized ? j["quantize"]["summary"] : j["summary"])["latency_s"]
              .get<double>();
      const bool rate =
          r.metric == "tokens_per_s" || r.metric == "throughput_per_s";
      predicted = rate ? static_cast<double>(r.batch) / latency : latency;
    }
    const double error = predicted / r.measured - 1;
    (own_runtime ? gated : other).push_back(std::abs(error));
    const std::string runtime = own_runtime ? r.runtime : r.runtime + "*";
    table.rows.push_back({r.id, r.hw, runtime, r.metric,
                          fmt::format("{:.4g} {}", r.measured, r.unit),
                          fmt::format("{:.4g} {}", predicted, r.unit),
                          fmt::format("{:+.1f}%", 100 * error)});
  }
  fmt::print("{}", markdown ? ridgeline::engine::report::RenderMarkdown(table)
                            : ridgeline::engine::report::RenderText(table));
  auto stats = [](const std::vector<double>& v) {
    return v.empty()
               ? std::string("none")
               : fmt::format(
                     "{} rows, |error| median {:.1f}%, max {:.1f}%", v.size(),
                     100 * ridgeline::engine::Quantile(v, 0.5).value_or(0),
                     100 * *std::max_element(v.begin(), v.end()));
  };
  fmt::print("\nrows on their own runtime profile: {}\n", stats(gated));
  fmt::print(
      "rows on another runtime (*: MXNet, FasterTransformer; predicted with "
      "the device's default profile): {}\n",
      stats(other));
  const double gated_median =
      ridgeline::engine::Quantile(gated, 0.5).value_or(0);
  if (max_median >= 0 && gated_median > max_median) {
    fmt::print(std::cerr, "accuracy: median |error| {:.1f}% exceeds {:.1f}%\n",
               100 * gated_median, 100 * max_median);
    return 1;
  }
  return 0;
}
