// --serve on the decoder of an encoder-decoder model (Whisper, T5, BART as
// optimum exports them): the served graphs hold the decoder alone, so the
// time to first token lacks the encoder's run (and, for a decoder with past
// only, the projection of the encoder's output into the cross-attention
// keys and values). The report says so: a warning (stderr and the JSON
// "warnings"), an assumption line, the TTFT row's label and the serve
// section's "ttft_includes_encoder" / "ttft_includes_cross_kv_projection".
// A decoder-only model gets none of them. Expected texts are written by
// hand.
#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "bench/onnx_builder.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/cli_test_util.h"

namespace ridgeline {
namespace {

using bench::OnnxBuilder;
using cli_testing::Contains;
using cli_testing::Result;
using cli_testing::RunCli;

constexpr int kF32 = onnx::TensorProto::FLOAT;

// A decoder with past as optimum's decoder_with_past_model.onnx declares
// it: input_ids [batch_size, decoder_sequence_length], the decoder's past
// keys [batch_size, 2, past_decoder_sequence_length, 8] (Relu -> present),
// and, with `encoder`, the cross-attention keys [batch_size, 2,
// encoder_sequence_length_out, 8], read by a node of every pass (its first
// pass included: it has no branch without past).
std::string WriteDecoder(bool encoder) {
  OnnxBuilder b(encoder ? "encdec_decoder_with_past" : "decoder_only", 17);
  b.Input("input_ids", onnx::TensorProto::INT64,
          {std::string("batch_size"), std::string("decoder_sequence_length")});
  b.Input("past_key_values.0.decoder.key", kF32,
          {std::string("batch_size"), int64_t{2},
           std::string("past_decoder_sequence_length"), int64_t{8}});
  b.Output(b.Node("Relu", {"past_key_values.0.decoder.key"}));
  if (encoder) {
    b.Input("past_key_values.0.encoder.key", kF32,
            {std::string("batch_size"), int64_t{2},
             std::string("encoder_sequence_length_out"), int64_t{8}});
    b.Output(b.Node("Relu", {"past_key_values.0.encoder.key"}));
  }
  const std::string path =
      (cli_testing::TempDir() /
       (encoder ? "encdec_decoder_with_past.onnx" : "decoder_only.onnx"))
          .string();
  std::ofstream(path, std::ios::binary) << b.Serialize();
  return path;
}

Result Serve(const std::string& model, std::vector<std::string> extra) {
  std::vector<std::string> args = {model,      "--hw", "h100",       "--serve",
                                   "--prompt", "8",    "--generate", "4"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunCli(args);
}

const std::string kWithPastNote =
    "the decoder of an encoder-decoder model (input "
    "past_key_values.0.encoder.key): the time to first token is its first "
    "pass alone, without the encoder's run and without projecting the "
    "encoder's output into the cross-attention keys and values, which that "
    "pass takes as inputs; add the encoder's latency (analyze the encoder at "
    "the same batch) and that projection's";

TEST(ServeEncoder, DecoderWithPastSaysTtftLacksEncoderAndProjection) {
  const std::string model = WriteDecoder(true);
  const std::vector<std::string> dims = {"--dim",
                                         "encoder_sequence_length_out=8"};
  std::vector<std::string> json_args = dims;
  json_args.insert(json_args.end(), {"--format", "json"});
  const Result j = Serve(model, json_args);
  ASSERT_EQ(j.code, 0) << j.err;
  const std::string warning =
      model + ": --serve: this model is " + kWithPastNote;
  EXPECT_EQ(j.err, "analyze: warning: " + warning + "\n");
  const nlohmann::json report = nlohmann::json::parse(j.out);
  ASSERT_TRUE(report.contains("warnings")) << j.out;
  EXPECT_NE(
      std::find(report["warnings"].begin(), report["warnings"].end(), warning),
      report["warnings"].end())
      << report["warnings"].dump(2);
  const nlohmann::json& s = report["serve"];
  EXPECT_EQ(s["ttft_includes_encoder"], false);
  EXPECT_EQ(s["ttft_includes_cross_kv_projection"], false);

  const Result text = Serve(model, dims);
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "\n  time to first token (decoder only)  "))
      << text.out;
  EXPECT_FALSE(Contains(text.out, "time to first token (prefill)"));
  // The note is prose: wrapped at spaces to the report's 160 columns (not a
  // terminal), continuation lines starting in the value column (2 + the
  // 34-column labels + 2 = 38).
  const std::string label = "\n  assumption (TTFT)                   ";
  const size_t at = text.out.find(label);
  ASSERT_NE(at, std::string::npos) << text.out;
  std::string note;
  size_t pos = at + label.size();
  const std::string continuation = "\n" + std::string(38, ' ');
  for (;;) {
    const size_t eol = text.out.find('\n', pos);
    ASSERT_NE(eol, std::string::npos);
    EXPECT_LE(eol - text.out.rfind('\n', eol - 1) - 1, 160u);
    note += text.out.substr(pos, eol - pos);
    if (text.out.compare(eol, continuation.size(), continuation) != 0) break;
    note += ' ';
    pos = eol + continuation.size();
  }
  EXPECT_EQ(note, kWithPastNote) << text.out;

  // A sweep serves at each concurrency; the warning is given once.
  std::vector<std::string> sweep = dims;
  sweep.insert(sweep.end(), {"--sweep", "concurrency=1,2"});
  const Result swept = Serve(model, sweep);
  ASSERT_EQ(swept.code, 0) << swept.err;
  EXPECT_EQ(swept.err, "analyze: warning: " + warning + "\n");
}

// optimum's merged Whisper decoder (tests/fixtures/field): its first pass
// projects encoder_hidden_states into the cross-attention keys and values
// itself; only the encoder's run is missing. Inputs named: the encoder's
// output, then the first two of the four cross-attention KV inputs.
TEST(ServeEncoder, MergedDecoderSaysTtftLacksTheEncoderOnly) {
  const std::string model =
      RIDGELINE_SOURCE_DIR "/tests/fixtures/field/whisper_decoder_merged.onnx";
  const Result r =
      Serve(model, {"--dim", "encoder_sequence_length_out=8", "--dim",
                    "encoder_sequence_length / 2=8", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string warning =
      model +
      ": --serve: this model is the decoder of an encoder-decoder model "
      "(inputs encoder_hidden_states, past_key_values.0.encoder.key, "
      "past_key_values.0.encoder.value, ... 5 in all): the time to first "
      "token is its first pass alone, without the encoder's run; add the "
      "encoder's latency (analyze the encoder at the same batch)";
  EXPECT_EQ(r.err, "analyze: warning: " + warning + "\n");
  const nlohmann::json report = nlohmann::json::parse(r.out);
  EXPECT_NE(
      std::find(report["warnings"].begin(), report["warnings"].end(), warning),
      report["warnings"].end())
      << report["warnings"].dump(2);
  EXPECT_EQ(report["serve"]["ttft_includes_encoder"], false);
  EXPECT_EQ(report["serve"]["ttft_includes_cross_kv_projection"], true);
}

TEST(ServeEncoder, DecoderOnlyHasNoEncoderFlagOrWarning) {
  const std::string model = WriteDecoder(false);
  const Result j = Serve(model, {"--format", "json"});
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(j.err, "");
  const nlohmann::json report = nlohmann::json::parse(j.out);
  EXPECT_TRUE(report["serve"]["ttft_includes_encoder"].is_null());
  EXPECT_TRUE(report["serve"]["ttft_includes_cross_kv_projection"].is_null());
  for (const auto& w : report["warnings"]) {
    EXPECT_FALSE(Contains(w.get<std::string>(), "encoder")) << w;
  }
  const Result text = Serve(model, {});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_TRUE(Contains(text.out, "time to first token (prefill)")) << text.out;
  EXPECT_FALSE(Contains(text.out, "decoder only"));
  EXPECT_FALSE(Contains(text.out, "assumption (TTFT)"));
}

// --search serves the same graphs in every configuration: its JSON carries
// the same two flags once, and its text the TTFT note.
TEST(ServeEncoder, SearchCarriesTheEncoderFlags) {
  const std::string encdec = WriteDecoder(true);
  const std::vector<std::string> dims = {"--dim",
                                         "encoder_sequence_length_out=8"};
  std::vector<std::string> args = dims;
  args.insert(args.end(), {"--search", "--format", "json"});
  Result r = Serve(encdec, args);
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json search = nlohmann::json::parse(r.out)["search"];
  EXPECT_EQ(search["ttft_includes_encoder"], false);
  EXPECT_EQ(search["ttft_includes_cross_kv_projection"], false);
  args = dims;
  args.push_back("--search");
  r = Serve(encdec, args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Contains(r.out,
                       "\nassumption (TTFT)  the decoder of an "
                       "encoder-decoder model"))
      << r.out;

  r = Serve(WriteDecoder(false), {"--search", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  search = nlohmann::json::parse(r.out)["search"];
  EXPECT_TRUE(search["ttft_includes_encoder"].is_null());
  EXPECT_TRUE(search["ttft_includes_cross_kv_projection"].is_null());
}

}  // namespace
}  // namespace ridgeline
