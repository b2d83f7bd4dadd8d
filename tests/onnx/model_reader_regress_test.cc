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
  EXPECT_NE(m.status().message().find("string tensor cannot use external data"), std::string::npos) << m.status().message();
}

// External bool bytes other than 0/1 were handed on as invalid bools.
TEST_F(ReaderRegress, ExternalBoolsAreNormalised) {
  auto m = onnx_reader::read_model_file(external(onnx::TensorProto::BOOL, {4}, "b.bin", std::string("\x00\x01\x02\xff", 4)));
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
  auto m = onnx_reader::read_model_file(external(onnx::TensorProto::FLOAT, {int64_t{1} << 28}, "f.bin", std::string(16, '\0')));
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

}  // namespace
}  // namespace hi::test
