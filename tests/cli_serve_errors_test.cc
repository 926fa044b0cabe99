// --serve on an encoder-decoder (Whisper as HF optimum exports it): the
// dims --serve cannot bind itself (the encoder's output length) are an
// input error that names each, its inputs and the exact flags to give; a
// decoder with past only points to the merged decoder. Expected messages
// are written by hand.
#include <fstream>
#include <string>
#include <vector>

#include "bench/onnx_builder.h"
#include "gtest/gtest.h"
#include "tests/cli_test_util.h"

namespace ridgeline {
namespace {

using bench::OnnxBuilder;
using cli_testing::Result;
using cli_testing::RunCli;

const std::string kDir = RIDGELINE_SOURCE_DIR "/tests/fixtures/field/";
const std::string kMerged = kDir + "whisper_decoder_merged.onnx";
const std::vector<std::string> kServe = {
    "--hw", "h100", "--serve", "--prompt", "8", "--generate", "4"};

Result Serve(const std::string& model, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {model};
  args.insert(args.end(), kServe.begin(), kServe.end());
  args.insert(args.end(), extra.begin(), extra.end());
  return RunCli(args);
}

constexpr char kEncoderHint[] =
    " (N: the encoder's output length, the same in each; Whisper's encoder "
    "gives 1500 positions for its 30 s window)";

// What --serve binds in the merged decoder, and the first dim it cannot.
const std::string kMergedBindsNotFirst =
    ": --serve: binds the batch (--concurrency), "
    "'past_decoder_sequence_length' (cached tokens), "
    "'decoder_sequence_length' (new tokens) and 'use_cache_branch' (which "
    "branch) itself, not 'encoder_sequence_length / 2' (input "
    "encoder_hidden_states)";

TEST(ServeErrors, MergedWhisperDecoderNamesTheEncoderDimsToGive) {
  Result r = Serve(kMerged);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "analyze: error: " + kMerged + kMergedBindsNotFirst +
                       ", 'encoder_sequence_length_out' (inputs "
                       "past_key_values.0.encoder.key, "
                       "past_key_values.0.encoder.value, "
                       "past_key_values.1.encoder.key, "
                       "past_key_values.1.encoder.value): give --dim "
                       "'encoder_sequence_length / 2=N' --dim "
                       "encoder_sequence_length_out=N" +
                       kEncoderHint + "\n");

  // One given: the other is still asked for, by itself.
  r = Serve(kMerged, {"--dim", "encoder_sequence_length_out=8"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err, "analyze: error: " + kMerged + kMergedBindsNotFirst +
                       ": give --dim 'encoder_sequence_length / 2=N'" +
                       kEncoderHint + "\n");

  // The flags as the message gives them (the shell's quotes removed) serve.
  r = Serve(kMerged, {"--dim", "encoder_sequence_length / 2=8", "--dim",
                      "encoder_sequence_length_out=8"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(cli_testing::Contains(r.out, "time to first token")) << r.out;
}

// optimum's decoder_with_past_model.onnx of a Whisper-like model, inputs
// only as it declares them (the error comes before any import):
// input_ids [batch_size, decoder_sequence_length], the decoder's past keys
// [batch_size, 2, past_decoder_sequence_length, 8] and the encoder's keys
// [batch_size, 2, encoder_sequence_length_out, 8]; no use_cache_branch.
std::string WriteDecoderWithPast() {
  OnnxBuilder b("whisper_decoder_with_past", 17);
  b.Input("input_ids", onnx::TensorProto::INT64,
          {std::string("batch_size"), std::string("decoder_sequence_length")});
  b.Input("past_key_values.0.decoder.key", onnx::TensorProto::FLOAT,
          {std::string("batch_size"), int64_t{2},
           std::string("past_decoder_sequence_length"), int64_t{8}});
  b.Input("past_key_values.0.encoder.key", onnx::TensorProto::FLOAT,
          {std::string("batch_size"), int64_t{2},
           std::string("encoder_sequence_length_out"), int64_t{8}});
  b.Output(b.Node("Relu", {"past_key_values.0.decoder.key"}));
  b.Output(b.Node("Relu", {"past_key_values.0.encoder.key"}));
  const std::string path =
      (cli_testing::TempDir() / "decoder_with_past_model.onnx").string();
  std::ofstream(path, std::ios::binary) << b.Serialize();
  return path;
}

TEST(ServeErrors, DecoderWithPastPointsToTheMergedDecoder) {
  const std::string path = WriteDecoderWithPast();
  const Result r = Serve(path);
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "analyze: error: " + path +
                ": --serve: binds the batch (--concurrency), "
                "'past_decoder_sequence_length' (cached tokens) and "
                "'decoder_sequence_length' (new tokens) itself, not "
                "'encoder_sequence_length_out' (input "
                "past_key_values.0.encoder.key): give --dim "
                "encoder_sequence_length_out=N" +
                kEncoderHint +
                ". This decoder takes the encoder's keys and values as inputs "
                "and has no branch without them: a decoder with past only "
                "(optimum's decoder_with_past_model.onnx), whose first pass "
                "(decoder_model.onnx, which projects the encoder output into "
                "them) is another file. Serve optimum's "
                "decoder_model_merged.onnx, which holds both (optimum-cli "
                "export onnx writes it by default), with the same flags\n");
}

}  // namespace
}  // namespace ridgeline
