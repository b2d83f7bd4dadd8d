// onnx_reader::parse_value_bytes: the SequenceProto and OptionalProto test data of the sequence
// and optional conformance tests, read into ops::Value by the declared type. The messages are
// encoded by hand (protobuf wire format) so the test needs no protobuf library.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "onnx/model_reader.h"
#include "ops/graph_builder.h"

namespace hi::test {
namespace {

std::string varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s += static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  s += static_cast<char>(v);
  return s;
}
std::string field_varint(int field, uint64_t v) { return varint(static_cast<uint64_t>(field) << 3) + varint(v); }
std::string field_bytes(int field, const std::string& bytes) {
  return varint((static_cast<uint64_t>(field) << 3) | 2) + varint(bytes.size()) + bytes;
}

// TensorProto float32 with dims and raw_data.
std::string tensor_proto(const std::vector<int64_t>& dims, const std::vector<float>& values) {
  std::string s;
  for (int64_t d : dims) s += field_varint(1, static_cast<uint64_t>(d));
  s += field_varint(2, 1);  // FLOAT
  std::string raw(values.size() * sizeof(float), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  return s + field_bytes(9, raw);
}

constexpr int kTensor = 1, kSequence = 3, kMap = 4;

Result<Value> parse(const std::string& bytes, const ir::ValueType& type) {
  return onnx_reader::parse_value_bytes(bytes.data(), bytes.size(), type, "test.pb");
}

const ir::ValueType kSeq = seq_type(ir::ValueType::tensor_unknown_shape(DType::kFloat32));

TEST(ValueReader, SequenceOfTensors) {
  const std::string bytes =
      field_varint(2, kTensor) + field_bytes(3, tensor_proto({2}, {1, 2})) + field_bytes(3, tensor_proto({}, {3}));
  auto v = parse(bytes, kSeq);
  ASSERT_TRUE(v.is_ok()) << v.status().to_string();
  expect_sequence_eq(v.value(), {f32({2}, {1, 2}), f32({}, {3})});
  // An empty sequence may leave its element type unset.
  auto empty = parse("", kSeq);
  ASSERT_TRUE(empty.is_ok()) << empty.status().to_string();
  expect_sequence_eq(empty.value(), {});
}

TEST(ValueReader, Optionals) {
  const ir::ValueType opt_t = opt_type(ir::ValueType::tensor_unknown_shape(DType::kFloat32));
  auto t = parse(field_varint(2, kTensor) + field_bytes(3, tensor_proto({1}, {5})), opt_t);
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  ASSERT_TRUE(t.value().is_tensor());
  expect_tensor_eq(t.value().tensor, f32({1}, {5}));
  const std::string inner = field_varint(2, kTensor) + field_bytes(3, tensor_proto({1}, {6}));
  auto s = parse(field_varint(2, kSequence) + field_bytes(5, inner), opt_type(kSeq));
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  expect_sequence_eq(s.value(), {f32({1}, {6})});
  auto none = parse(field_bytes(1, "name"), opt_t);
  ASSERT_TRUE(none.is_ok()) << none.status().to_string();
  EXPECT_EQ(none.value().kind, Value::Kind::kNone);
  // An empty optional that names its element type.
  auto typed_none = parse(field_varint(2, kSequence), opt_type(kSeq));
  ASSERT_TRUE(typed_none.is_ok()) << typed_none.status().to_string();
  EXPECT_EQ(typed_none.value().kind, Value::Kind::kNone);
}

TEST(ValueReader, TensorsAndErrors) {
  auto t = parse(tensor_proto({2}, {1, 2}), ir::ValueType::tensor_unknown_shape(DType::kFloat32));
  ASSERT_TRUE(t.is_ok()) << t.status().to_string();
  expect_tensor_eq(t.value().tensor, f32({2}, {1, 2}));
  auto nested = parse(field_varint(2, kSequence) + field_bytes(5, ""), kSeq);
  ASSERT_FALSE(nested.is_ok());
  EXPECT_EQ(nested.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(nested.status().message().find("only sequences of tensors"), std::string::npos)
      << nested.status().message();
  auto map = parse(field_varint(2, kMap), opt_type(kSeq));
  ASSERT_FALSE(map.is_ok());
  EXPECT_EQ(map.status().code(), StatusCode::kUnsupported);
  // A tensor whose dims promise more data than it holds.
  auto forged = parse(field_varint(2, kTensor) + field_bytes(3, tensor_proto({1000000}, {1})), kSeq);
  ASSERT_FALSE(forged.is_ok());
  EXPECT_NE(forged.status().message().find("sequence element 0"), std::string::npos) << forged.status().message();
  auto garbage = parse(std::string("\xff\xff\xff", 3), kSeq);
  ASSERT_FALSE(garbage.is_ok());
  EXPECT_NE(garbage.status().message().find("not a serialized SequenceProto"), std::string::npos)
      << garbage.status().message();
}

}  // namespace
}  // namespace hi::test
