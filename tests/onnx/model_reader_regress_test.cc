// Regression tests for reader bugs found while fuzzing: string tensors in external data, forged
// dims on string and external tensors (must fail before allocating), external bool bytes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "model_builder.h"
#include "onnx/model_reader.h"

namespace hi::test {
namespace {
namespace fs = std::filesystem;

struct ReaderRegress : ::testing::Test {
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hi_reader_regress_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // A model with one initializer "w" of `type` and `dims` stored in external file `location`.
  std::string external(int type, std::vector<int64_t> dims, const std::string& location, const std::string& data) {
    ModelBuilder b;
    b.input("x", onnx::TensorProto::FLOAT, {1}).output("y", onnx::TensorProto::FLOAT);
    b.node("Identity", {"x"}, {"y"}, "id");
    auto* t = b.proto().mutable_graph()->add_initializer();
    t->set_name("w");
    t->set_data_type(type);
    for (auto d : dims) t->add_dims(d);
    t->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* e = t->add_external_data();
    e->set_key("location");
    e->set_value(location);
    std::ofstream(dir_ / location, std::ios::binary) << data;
    const auto p = dir_ / "m.onnx";
    std::ofstream(p, std::ios::binary) << b.bytes();
    return p.string();
  }
  fs::path dir_;
};

// External data read into std::string objects corrupted the heap (SEGV on free).
TEST_F(ReaderRegress, StringTensorWithExternalDataIsRefused) {
  auto m = onnx_reader::read_model_file(external(onnx::TensorProto::STRING, {4}, "w.bin", std::string(128, 'A')));
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidModel);
  EXPECT_NE(m.status().message().find("string tensor cannot use external data"), std::string::npos)
      << m.status().message();
}

// External bool bytes other than 0/1 were handed on as invalid bools.
TEST_F(ReaderRegress, ExternalBoolsAreNormalised) {
  auto m =
      onnx_reader::read_model_file(external(onnx::TensorProto::BOOL, {4}, "b.bin", std::string("\x00\x01\x02\xff", 4)));
  ASSERT_TRUE(m.is_ok()) << m.status().to_string();
  const Tensor& t = m->graph.initializers.at("w");
  const auto* p = static_cast<const uint8_t*>(t.raw());
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
  EXPECT_EQ(p[3], 1);
}

// External data with forged dims: the file's size is checked before allocating, and the error
// says so (it used to be a host-memory-limit error, or an allocation of the forged size).
TEST_F(ReaderRegress, ExternalForgedDimsFailOnTheFileSize) {
  const int64_t before = host_memory_stats().allocations;
  auto m = onnx_reader::read_model_file(
      external(onnx::TensorProto::FLOAT, {int64_t{1} << 28}, "f.bin", std::string(16, '\0')));
  ASSERT_FALSE(m.is_ok());
  EXPECT_EQ(m.status().code(), StatusCode::kInvalidModel) << m.status().to_string();
  EXPECT_NE(m.status().message().find("file has 16"), std::string::npos) << m.status().message();
  EXPECT_EQ(host_memory_stats().allocations, before);
}

// A 10-byte TensorProto declaring 4M strings and holding none allocated and constructed 4M
// std::strings (128 MiB; up to the machine's memory) before noticing.
TEST_F(ReaderRegress, StringTensorWithForgedDimsFailsBeforeAllocating) {
  onnx::TensorProto t;
  t.set_data_type(onnx::TensorProto::STRING);
  t.add_dims(200000000);
  const std::string bytes = t.SerializeAsString();
  const int64_t before = host_memory_stats().allocations;
  auto r = onnx_reader::parse_tensor_bytes(bytes.data(), bytes.size(), "s.pb");
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("200000000 elements holds 0 strings"), std::string::npos) << r.status().message();
  EXPECT_EQ(host_memory_stats().allocations, before);
}

// A model whose If nodes nest `depth` subgraphs: each branch holds the next If.
std::string nested_ifs(int depth) {
  ModelBuilder b;
  b.input("c", onnx::TensorProto::BOOL, {}).output("y", onnx::TensorProto::FLOAT);
  onnx::GraphProto* g = b.proto().mutable_graph();
  // Each level's output is y<level> (the main graph's is y).
  auto output = [](int level) { return level == 0 ? std::string("y") : str("y", level); };
  for (int i = 0; i < depth; ++i) {
    auto* n = g->add_node();
    n->set_op_type("If");
    n->add_input(std::string("c"));
    n->add_output(output(i));
    auto* a = n->add_attribute();
    a->set_name("then_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    g = a->mutable_g();
    g->set_name(str("level", i + 1));
    g->add_output()->set_name(output(i + 1));
  }
  return b.bytes();
}

// Issue 24: past protobuf's nesting limit the reader said "truncated, corrupt, or not ONNX";
// it now says what nests and names the limit. Just inside it, the subgraph limit of the
// conversion speaks instead, and a moderate nesting reads.
TEST(ReaderNesting, SubgraphsPastTheLimitAreNamedNotCalledCorrupt) {
  for (int depth : {70, 200, 1000}) {
    const std::string bytes = nested_ifs(depth);
    auto m = onnx_reader::read_model_bytes(bytes.data(), bytes.size(), "", "deep.onnx");
    ASSERT_FALSE(m.is_ok()) << depth;
    const std::string& msg = m.status().message();
    EXPECT_EQ(m.status().code(), StatusCode::kInvalidModel);
    EXPECT_NE(
        msg.find("deep.onnx: not a model hipinfer reads: it nests subgraphs (If/Loop/Scan bodies, 66 levels so far; "
                 "at most 64 are supported) deeper than the reader's limit of 200 protobuf message levels"),
        std::string::npos)
        << depth << ": " << msg;
    EXPECT_EQ(msg.find("truncated"), std::string::npos) << msg;
  }
  const std::string just_inside = nested_ifs(65);
  auto m = onnx_reader::read_model_bytes(just_inside.data(), just_inside.size(), "", "deep.onnx");
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.status().message().find("subgraphs are nested more than 64 deep"), std::string::npos)
      << m.status().message();
  const std::string moderate = nested_ifs(20);
  EXPECT_TRUE(onnx_reader::read_model_bytes(moderate.data(), moderate.size(), "", "ok.onnx").is_ok());
}

TEST(ReaderNesting, TypesPastTheLimitAreNamed) {
  ModelBuilder b;
  b.output("y", onnx::TensorProto::FLOAT);
  auto* in = b.proto().mutable_graph()->add_input();
  in->set_name("x");
  onnx::TypeProto* t = in->mutable_type();
  for (int i = 0; i < 150; ++i) t = t->mutable_sequence_type()->mutable_elem_type();
  t->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
  const std::string bytes = b.bytes();
  auto m = onnx_reader::read_model_bytes(bytes.data(), bytes.size(), "", "types.onnx");
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.status().message().find("it nests types (sequences, optionals or maps of each other, "),
            std::string::npos)
      << m.status().message();
  EXPECT_NE(m.status().message().find("deeper than the reader's limit of 200"), std::string::npos)
      << m.status().message();
}

// Bytes that are simply not a model still say so.
TEST(ReaderNesting, CorruptBytesAreStillCorrupt) {
  const std::string bytes = nested_ifs(3).substr(0, 40);
  auto m = onnx_reader::read_model_bytes(bytes.data(), bytes.size(), "", "cut.onnx");
  ASSERT_FALSE(m.is_ok());
  EXPECT_NE(m.status().message().find("truncated, corrupt, or not ONNX"), std::string::npos) << m.status().message();
}

}  // namespace
}  // namespace hi::test
