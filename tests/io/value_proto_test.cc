// Value files read back as the type a model declares (hi::read_value_proto), and the
// onnxruntime type spelling that names it (ir::ValueType::ort_string / from_ort_string).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "hipinfer/tensor_proto.h"
#include "ir/graph.h"

namespace hi {
namespace {

namespace fs = std::filesystem;

Tensor floats(std::initializer_list<float> v) {
  Tensor t = Tensor::empty(DType::kFloat32, {static_cast<int64_t>(v.size())});
  int64_t i = 0;
  for (float x : v) t.data<float>()[i++] = x;
  return t;
}

TEST(ValueTypeString, SpellingsRoundTrip) {
  for (const char* s : {"tensor(float)", "tensor(int64)", "tensor(double)", "seq(tensor(uint8))",
                        "optional(seq(tensor(int64)))", "map(int64,tensor(float))", "seq(map(string,tensor(float)))"}) {
    const std::optional<ir::ValueType> t = ir::ValueType::from_ort_string(s);
    ASSERT_TRUE(t.has_value()) << s;
    EXPECT_EQ(t->ort_string(), s);
  }
  for (const char* bad : {"", "tensor(banana)", "seq(tensor(float)", "tensor(float))", "map(float)", "list(int)"})
    EXPECT_FALSE(ir::ValueType::from_ort_string(bad).has_value()) << bad;
}

TEST(ValueProto, ReadsBackAsTheDeclaredType) {
  const fs::path dir = fs::temp_directory_path() / ("hipinfer_value_proto_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string seq = (dir / "seq.pb").string(), none = (dir / "none.pb").string();
  ASSERT_TRUE(write_value_proto(seq, Value::of_sequence({floats({1, 2}), floats({3})}), "s").is_ok());
  ASSERT_TRUE(write_value_proto(none, Value{}, "o").is_ok());

  auto s = read_value_proto(seq, "seq(tensor(float))");
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  ASSERT_EQ(s.value().kind, Value::Kind::kSequence);
  ASSERT_EQ(s.value().sequence.size(), 2u);
  EXPECT_EQ(s.value().sequence[1].data<float>()[0], 3.f);
  auto o = read_value_proto(none, "optional(tensor(float))");
  ASSERT_TRUE(o.is_ok()) << o.status().to_string();
  EXPECT_TRUE(o.value().is_none());

  auto bad = read_value_proto(seq, "seq(tensor(float)");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find(seq), std::string::npos) << bad.status().to_string();
  EXPECT_NE(bad.status().message().find("'seq(tensor(float)'"), std::string::npos) << bad.status().to_string();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace hi
