// The wire pre-pass (importers/onnx_wire.h): which payloads it skips, that it
// never reads them (they sit in pages made unreadable; a file is read around
// them), and that malformed bytes end in an error naming the file, never a
// crash.
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "importers/onnx_importer.h"
#include "importers/onnx_wire.h"
#include "onnx/onnx_pb.h"

namespace ridgeline::importers {
namespace {

void AddValueInfo(onnx::ValueInfoProto* v, const std::string& name,
                  std::initializer_list<int64_t> dims) {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

// x[1,128] -> MatMul(w: 128x64 raw_data) -> Add(b: 64 float_data) ->
// Reshape(shape: int64 [2] kept) -> Mul(Constant 1x64 ... big constant
// 100x64 via attribute) ; plus an int64 initializer of 5000 values.
onnx::ModelProto TestModel() {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(17);
  onnx::GraphProto* g = m.mutable_graph();
  g->set_name("wire");
  AddValueInfo(g->add_input(), "x", {1, 128});
  onnx::TensorProto* w = g->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(128);
  w->add_dims(64);
  w->set_raw_data(std::string(128 * 64 * 4, '\xab'));
  onnx::TensorProto* b = g->add_initializer();
  b->set_name("b");
  b->set_data_type(onnx::TensorProto::FLOAT);
  b->add_dims(64);
  for (int i = 0; i < 64; ++i) b->add_float_data(0.5f);
  onnx::TensorProto* shape = g->add_initializer();
  shape->set_name("shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(2);
  shape->add_int64_data(8);
  shape->add_int64_data(8);
  onnx::TensorProto* ids = g->add_initializer();
  ids->set_name("ids");
  ids->set_data_type(onnx::TensorProto::INT64);
  ids->add_dims(5000);
  for (int i = 0; i < 5000; ++i) ids->add_int64_data(i);
  auto node = [&](const std::string& op, std::vector<std::string> in,
                  const std::string& out) {
    onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->set_name(out + "_node");
    for (const auto& i : in) n->add_input(i);
    n->add_output(out);
    return n;
  };
  node("MatMul", {"x", "w"}, "y");
  node("Add", {"y", "b"}, "z");
  onnx::NodeProto* c = node("Constant", {}, "c");
  onnx::AttributeProto* value = c->add_attribute();
  value->set_name("value");
  value->set_type(onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_dims(64);
  value->mutable_t()->set_raw_data(std::string(64 * 4, '\0'));
  onnx::NodeProto* big = node("Constant", {}, "table");
  onnx::AttributeProto* table = big->add_attribute();
  table->set_name("value");
  table->set_type(onnx::AttributeProto::TENSOR);
  table->mutable_t()->set_data_type(onnx::TensorProto::FLOAT);
  table->mutable_t()->add_dims(100);
  table->mutable_t()->add_dims(64);
  for (int i = 0; i < 6400; ++i) table->mutable_t()->add_float_data(1.0f);
  node("Mul", {"z", "c"}, "u");
  node("Reshape", {"u", "shape"}, "out");
  AddValueInfo(g->add_output(), "out", {8, 8});
  return m;
}

const onnx::TensorProto* Initializer(const onnx::ModelProto& m,
                                     const std::string& name) {
  for (const auto& t : m.graph().initializer()) {
    if (t.name() == name) return &t;
  }
  return nullptr;
}

TEST(ImporterWireTest, SkipsLargePayloadsKeepsSmallOnes) {
  const std::string bytes = TestModel().SerializeAsString();
  absl::StatusOr<CompactModel> compact = CompactModelBytes(bytes);
  ASSERT_TRUE(compact.ok()) << compact.status();
  EXPECT_EQ(compact->skipped_tensors, 3);  // w, ids, table
  EXPECT_LT(compact->bytes.size(), 2048u);
  onnx::ModelProto m;
  ASSERT_TRUE(m.ParseFromString(compact->bytes));
  const onnx::TensorProto* w = Initializer(m, "w");
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(HasSkippedPayload(*w));
  EXPECT_FALSE(w->has_raw_data());
  EXPECT_EQ(w->dims_size(), 2);
  EXPECT_EQ(w->data_type(), onnx::TensorProto::FLOAT);
  EXPECT_EQ(Initializer(m, "ids")->int64_data_size(), 0);
  EXPECT_TRUE(HasSkippedPayload(*Initializer(m, "ids")));
  EXPECT_EQ(Initializer(m, "b")->float_data_size(), 64);
  EXPECT_FALSE(HasSkippedPayload(*Initializer(m, "b")));
  EXPECT_EQ(Initializer(m, "shape")->int64_data_size(), 2);
  const onnx::TensorProto& table = m.graph().node(3).attribute(0).t();
  EXPECT_TRUE(HasSkippedPayload(table));
  EXPECT_EQ(table.float_data_size(), 0);
  EXPECT_EQ(m.graph().node(2).attribute(0).t().raw_data().size(), 256u);
}

TEST(ImporterWireTest, ImportedWeightsAreNotExternalAndKeepTheirShape) {
  const std::string bytes = TestModel().SerializeAsString();
  absl::StatusOr<graph::Graph> g =
      ImportOnnxBytes(bytes, "wire.onnx", "", ImportOptions());
  ASSERT_TRUE(g.ok()) << g.status();
  const graph::Tensor& w = g->tensor(*g->FindTensor("w"));
  EXPECT_TRUE(w.is_weight());
  EXPECT_FALSE(w.external_data);
  EXPECT_EQ(w.dims, (graph::Dims{128, 64}));
  EXPECT_FALSE(w.int_values.has_value());
  EXPECT_EQ(*g->tensor(*g->FindTensor("shape")).int_values,
            (std::vector<int64_t>{8, 8}));
  EXPECT_TRUE(g->warnings.empty());
  const graph::Tensor& out = g->tensor(*g->FindTensor("out"));
  EXPECT_EQ(out.dims, (graph::Dims{8, 8}));
}

// The payload of `w` lies in pages made unreadable: the pre-pass must skip
// them by length (a read would fault).
TEST(ImporterWireTest, NeverReadsSkippedPayloadPages) {
  const std::string bytes = TestModel().SerializeAsString();
  const std::string pattern(4096, '\xab');
  const size_t payload = bytes.find(pattern);
  ASSERT_NE(payload, std::string::npos);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t length = bytes.size() + 4 * page;
  void* map = mmap(nullptr, length, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(map, MAP_FAILED);
  char* base = static_cast<char*>(map);
  std::memcpy(base, bytes.data(), bytes.size());
  // Whole pages inside w's 32 KiB payload.
  const size_t first = (payload + page - 1) / page * page;
  const size_t last = (payload + 128 * 64 * 4) / page * page;
  ASSERT_GT(last, first);
  ASSERT_EQ(mprotect(base + first, last - first, PROT_NONE), 0);
  absl::StatusOr<CompactModel> compact =
      CompactModelBytes(std::string_view(base, bytes.size()));
  ASSERT_TRUE(compact.ok()) << compact.status();
  EXPECT_EQ(compact->skipped_tensors, 3);
  munmap(map, length);
}

void ExpectNamedError(const std::string& bytes) {
  absl::StatusOr<graph::Graph> g =
      ImportOnnxBytes(bytes, "bad.onnx", "", ImportOptions());
  ASSERT_FALSE(g.ok());
  EXPECT_TRUE(absl::StartsWith(g.status().message(), "bad.onnx: "))
      << g.status();
}

TEST(ImporterWireTest, MalformedBytesFailWithTheFileName) {
  ExpectNamedError(std::string("\x3a") + std::string(11, '\xff'));  // varint
  ExpectNamedError("\x3a\xe8\x07\x0a\x00");  // graph length past the end
  ExpectNamedError("\x3f");                  // wire type 7
  ExpectNamedError("\x3c");                  // end of group, no start
  ExpectNamedError(std::string("\x00", 1));  // field 0
  ExpectNamedError("\x3b\x08\x01");          // group never ended
  ExpectNamedError("\x3b\x08\x01\x44");      // group ended by field 8
  // A group in an unknown field is valid protobuf: skipped, then the model.
  std::string grouped = TestModel().SerializeAsString();
  grouped += std::string("\xa3\x06\x08\x01\xa4\x06");  // field 100 group
  EXPECT_TRUE(CompactModelBytes(grouped).ok());
  EXPECT_TRUE(ImportOnnxBytes(grouped, "g.onnx", "", ImportOptions()).ok());
}

TEST(ImporterWireTest, DeepNestingIsAnErrorNotACrash) {
  // graph { node { attribute { g { node { ... } } } } }, 400 levels deep.
  std::string graph;
  for (int i = 0; i < 400; ++i) {
    auto wrap = [](int field, const std::string& body) {
      std::string out(1, static_cast<char>((field << 3) | 2));
      size_t n = body.size();
      while (n >= 0x80) {
        out.push_back(static_cast<char>((n & 0x7f) | 0x80));
        n >>= 7;
      }
      out.push_back(static_cast<char>(n));
      return out + body;
    };
    graph = wrap(1, wrap(5, wrap(6, graph)));  // node, attribute, g
  }
  std::string model = std::string("\x08\x08", 2);  // ir_version 8
  std::string prefix(1, static_cast<char>((7 << 3) | 2));
  size_t n = graph.size();
  while (n >= 0x80) {
    prefix.push_back(static_cast<char>((n & 0x7f) | 0x80));
    n >>= 7;
  }
  prefix.push_back(static_cast<char>(n));
  ExpectNamedError(model + prefix + graph);
}

TEST(ImporterWireTest, EveryTruncationFailsOrImportsLikeTheFullParse) {
  const std::string bytes = TestModel().SerializeAsString();
  for (size_t cut = 1; cut < bytes.size(); cut += (cut < 600 ? 1 : 61)) {
    const std::string prefix = bytes.substr(0, cut);
    onnx::ModelProto full;
    const bool parses = full.ParseFromString(prefix) && full.has_graph() &&
                        full.ir_version() > 0;
    absl::StatusOr<graph::Graph> g =
        ImportOnnxBytes(prefix, "cut.onnx", "", ImportOptions());
    if (!g.ok()) {
      EXPECT_TRUE(absl::StartsWith(g.status().message(), "cut.onnx: "))
          << g.status();
    }
    if (!parses) {
      EXPECT_FALSE(g.ok()) << "cut at " << cut;
    }
  }
}

// An anonymous in-memory file holding `bytes`.
class MemFile {
 public:
  explicit MemFile(const std::string& bytes)
      : fd_(memfd_create("wire_test", MFD_CLOEXEC)) {
    if (fd_ >= 0 && !bytes.empty()) {
      ok_ = pwrite(fd_, bytes.data(), bytes.size(), 0) ==
            static_cast<ssize_t>(bytes.size());
    }
  }
  ~MemFile() {
    if (fd_ >= 0) close(fd_);
  }
  int fd() const { return ok_ ? fd_ : -1; }

 private:
  int fd_;
  bool ok_ = false;
};

// Read through windows of 1 to 16 bytes, the file gives the same compact
// model as the bytes in memory, and the payloads are never read: what is
// read is the structure, walked once and copied once.
TEST(ImporterWireTest, FileReaderMatchesTheBytesAndSkipsThePayloads) {
  const std::string bytes = TestModel().SerializeAsString();
  MemFile file(bytes);
  ASSERT_GE(file.fd(), 0);
  absl::StatusOr<CompactModel> memory = CompactModelBytes(bytes);
  ASSERT_TRUE(memory.ok()) << memory.status();
  ASSERT_FALSE(memory->bytes.empty());
  for (size_t max_window : {1, 2, 7, 16, 4096}) {
    WireReadOptions options;
    options.whole_file_limit = 0;
    options.min_window = 1;
    options.max_window = max_window;
    absl::StatusOr<CompactModel> read =
        CompactModelFile(file.fd(), bytes.size(), options);
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->bytes, memory->bytes) << "window " << max_window;
    EXPECT_EQ(read->skipped_tensors, 3);
    EXPECT_EQ(read->skipped_bytes, memory->skipped_bytes);
    // w's payload alone is 32 KiB; the structure is under 2 KiB.
    if (max_window <= 16) {
      EXPECT_LE(read->read_bytes,
                static_cast<int64_t>(bytes.size()) - memory->skipped_bytes +
                    static_cast<int64_t>(memory->bytes.size()) + 16 * 64)
          << "window " << max_window;
    }
  }
  // Read whole (a small file): the same.
  absl::StatusOr<CompactModel> whole = CompactModelFile(
      file.fd(), bytes.size(), WireReadOptions{.whole_file_limit = 1 << 20});
  ASSERT_TRUE(whole.ok()) << whole.status();
  EXPECT_EQ(whole->bytes, memory->bytes);
  EXPECT_EQ(whole->read_bytes, static_cast<int64_t>(bytes.size()));
}

// Nothing to skip: the file's bytes are the model to parse.
TEST(ImporterWireTest, FileReaderWithoutPayloadsReturnsTheFile) {
  onnx::ModelProto m = TestModel();
  m.mutable_graph()->clear_initializer();
  m.mutable_graph()->mutable_node()->DeleteSubrange(2, 2);
  const std::string bytes = m.SerializeAsString();
  ASSERT_TRUE(CompactModelBytes(bytes)->bytes.empty());
  MemFile file(bytes);
  ASSERT_GE(file.fd(), 0);
  for (size_t limit : {size_t{0}, size_t{1} << 20}) {
    absl::StatusOr<CompactModel> read = CompactModelFile(
        file.fd(), bytes.size(),
        WireReadOptions{.whole_file_limit = limit, .min_window = 3});
    ASSERT_TRUE(read.ok()) << read.status();
    EXPECT_EQ(read->bytes, bytes);
    EXPECT_EQ(read->skipped_tensors, 0);
  }
}

// A file shorter than its stated size (it shrank after the stat), or
// unreadable: an error, not a crash.
TEST(ImporterWireTest, FileReadErrorsAreErrors) {
  const std::string bytes = TestModel().SerializeAsString();
  MemFile file(bytes.substr(0, 100));
  ASSERT_GE(file.fd(), 0);
  for (size_t limit : {size_t{0}, size_t{1} << 20}) {
    absl::StatusOr<CompactModel> read = CompactModelFile(
        file.fd(), bytes.size(), WireReadOptions{.whole_file_limit = limit});
    ASSERT_FALSE(read.ok());
    EXPECT_TRUE(absl::IsDataLoss(read.status())) << read.status();
  }
  absl::StatusOr<CompactModel> closed =
      CompactModelFile(-1, bytes.size(), WireReadOptions());
  EXPECT_FALSE(closed.ok());
}

}  // namespace
}  // namespace ridgeline::importers
