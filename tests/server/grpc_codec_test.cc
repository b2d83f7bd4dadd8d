// grpc_codec: ModelInferRequest -> InferRequest and outputs -> ModelInferResponse, on the cases a
// client gets wrong (counts, fields, datatypes, shapes, BYTES lengths) and the exact bytes it gets back.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "grpc_codec.h"
#include "tensor_codec.h"

namespace hi::server {
namespace {

using InputTensor = inference::ModelInferRequest::InferInputTensor;

InputTensor* add_input(inference::ModelInferRequest& req, const std::string& name, const std::string& datatype,
                       const Shape& shape) {
  InputTensor* in = req.add_inputs();
  in->set_name(name);
  in->set_datatype(datatype);
  for (int64_t d : shape) in->add_shape(d);
  return in;
}

template <typename T>
std::string raw_of(const std::vector<T>& values) {
  std::string raw(values.size() * sizeof(T), '\0');
  if (!values.empty()) std::memcpy(raw.data(), values.data(), raw.size());
  return raw;
}

// BYTES elements as the protocol lays them out: a 4-byte little-endian length, then the bytes.
std::string raw_bytes(const std::vector<std::string>& elements) {
  std::string raw;
  for (const auto& e : elements) {
    const uint32_t len = static_cast<uint32_t>(e.size());
    raw.append(reinterpret_cast<const char*>(&len), 4);
    raw.append(e);
  }
  return raw;
}

template <typename T>
std::vector<T> values_of(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.numel());
}

std::vector<std::string> strings_of(const Tensor& t) {
  return std::vector<std::string>(t.strings(), t.strings() + t.numel());
}

// Decodes and expects success, returning the one tensor named `name`.
Tensor decode_one(const inference::ModelInferRequest& req, const std::string& name) {
  InferRequest out;
  Error e = request_from_grpc(req, nullptr, &out);
  EXPECT_TRUE(e.ok()) << e.message;
  auto it = out.inputs.find(name);
  if (it == out.inputs.end()) {
    ADD_FAILURE() << "no input '" << name << "' decoded";
    return {};
  }
  return it->second;
}

Error decode_error(const inference::ModelInferRequest& req, const inference::ModelConfig* config = nullptr) {
  InferRequest out;
  Error e = request_from_grpc(req, config, &out);
  EXPECT_FALSE(e.ok()) << "decoding succeeded, expected an error";
  return e;
}

// Every part in the text: an error message names the input, the expected and the actual value.
::testing::AssertionResult has_all(const std::string& text, std::initializer_list<std::string> parts) {
  for (const auto& part : parts)
    if (text.find(part) == std::string::npos)
      return ::testing::AssertionFailure() << "'" << part << "' is not in: " << text;
  return ::testing::AssertionSuccess();
}

std::vector<int64_t> shape_of(const google::protobuf::RepeatedField<int64_t>& dims) {
  return {dims.begin(), dims.end()};
}

TEST(GrpcCodec, RawFp32) {
  inference::ModelInferRequest req;
  add_input(req, "x", "FP32", {2, 2});
  req.add_raw_input_contents(raw_of<float>({1.5f, -2.0f, 0.0f, 3.25f}));
  Tensor t = decode_one(req, "x");
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(t.shape(), (Shape{2, 2}));
  EXPECT_EQ(values_of<float>(t), (std::vector<float>{1.5f, -2.0f, 0.0f, 3.25f}));
}

TEST(GrpcCodec, TypedFp32) {
  inference::ModelInferRequest req;
  auto* in = add_input(req, "x", "FP32", {3});
  for (float v : {0.5f, 7.0f, -1.0f}) in->mutable_contents()->add_fp32_contents(v);
  Tensor t = decode_one(req, "x");
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(values_of<float>(t), (std::vector<float>{0.5f, 7.0f, -1.0f}));
}

TEST(GrpcCodec, RawAndTypedInt64) {
  const int64_t big = int64_t{1} << 40;  // would be cut by a 32-bit path
  inference::ModelInferRequest raw;
  add_input(raw, "ids", "INT64", {1, 2});
  raw.add_raw_input_contents(raw_of<int64_t>({big, -3}));
  EXPECT_EQ(values_of<int64_t>(decode_one(raw, "ids")), (std::vector<int64_t>{big, -3}));

  inference::ModelInferRequest typed;
  auto* in = add_input(typed, "ids", "INT64", {1, 2});
  in->mutable_contents()->add_int64_contents(big);
  in->mutable_contents()->add_int64_contents(-3);
  Tensor t = decode_one(typed, "ids");
  EXPECT_EQ(t.dtype(), DType::kInt64);
  EXPECT_EQ(values_of<int64_t>(t), (std::vector<int64_t>{big, -3}));
}

TEST(GrpcCodec, RawAndTypedBytes) {
  const std::string with_nul("a\0b", 3);
  inference::ModelInferRequest raw;
  add_input(raw, "s", "BYTES", {3});
  raw.add_raw_input_contents(raw_bytes({"hello", "", with_nul}));
  Tensor t = decode_one(raw, "s");
  EXPECT_EQ(t.dtype(), DType::kString);
  EXPECT_EQ(strings_of(t), (std::vector<std::string>{"hello", "", with_nul}));

  inference::ModelInferRequest typed;
  auto* in = add_input(typed, "s", "BYTES", {3});
  for (const auto& s : {std::string("hello"), std::string(), with_nul}) in->mutable_contents()->add_bytes_contents(s);
  EXPECT_EQ(strings_of(decode_one(typed, "s")), (std::vector<std::string>{"hello", "", with_nul}));
}

TEST(GrpcCodec, RawAndTypedBool) {
  inference::ModelInferRequest raw;
  add_input(raw, "m", "BOOL", {3});
  raw.add_raw_input_contents(std::string("\1\0\1", 3));
  Tensor t = decode_one(raw, "m");
  EXPECT_EQ(t.dtype(), DType::kBool);
  EXPECT_EQ(values_of<bool>(t), (std::vector<bool>{true, false, true}));

  inference::ModelInferRequest typed;
  auto* in = add_input(typed, "m", "BOOL", {3});
  for (bool b : {false, true, true}) in->mutable_contents()->add_bool_contents(b);
  EXPECT_EQ(values_of<bool>(decode_one(typed, "m")), (std::vector<bool>{false, true, true}));
}

TEST(GrpcCodec, NarrowIntegersAreRangeChecked) {
  inference::ModelInferRequest ok;
  auto* in = add_input(ok, "q", "INT8", {2});
  in->mutable_contents()->add_int_contents(-128);
  in->mutable_contents()->add_int_contents(127);
  EXPECT_EQ(values_of<int8_t>(decode_one(ok, "q")), (std::vector<int8_t>{-128, 127}));

  inference::ModelInferRequest bad;
  in = add_input(bad, "q", "INT8", {2});
  in->mutable_contents()->add_int_contents(1);
  in->mutable_contents()->add_int_contents(300);
  Error e = decode_error(bad);
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(has_all(e.message, {"'q'", "element 1 is 300", "-128 to 127"}));
}

TEST(GrpcCodec, ZeroElementShapes) {
  inference::ModelInferRequest typed;  // no data at all is the right amount for [0]
  add_input(typed, "x", "FP32", {0});
  Tensor t = decode_one(typed, "x");
  EXPECT_EQ(t.dtype(), DType::kFloat32);
  EXPECT_EQ(t.shape(), (Shape{0}));
  EXPECT_EQ(t.numel(), 0);

  inference::ModelInferRequest raw;
  add_input(raw, "x", "INT64", {2, 0});
  raw.add_raw_input_contents("");
  t = decode_one(raw, "x");
  EXPECT_EQ(t.shape(), (Shape{2, 0}));
  EXPECT_EQ(t.dtype(), DType::kInt64);

  inference::ModelInferRequest half;  // FP16 has no typed field, but [0] needs none
  add_input(half, "h", "FP16", {0});
  EXPECT_EQ(decode_one(half, "h").dtype(), DType::kFloat16);
}

TEST(GrpcCodec, TypedCountMismatchNamesInputExpectedActual) {
  for (int count : {5, 7}) {  // too many must fail too: the copy would write past the tensor
    inference::ModelInferRequest req;
    auto* in = add_input(req, "pixels", "FP32", {2, 3});
    for (int i = 0; i < count; ++i) in->mutable_contents()->add_fp32_contents(1.0f);
    Error e = decode_error(req);
    EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
    EXPECT_TRUE(has_all(e.message, {"'pixels'", "needs 6 values in fp32_contents, got " + std::to_string(count)}));
  }
}

TEST(GrpcCodec, TypedWrongFieldForDatatype) {
  inference::ModelInferRequest req;
  auto* in = add_input(req, "x", "FP32", {2});
  in->mutable_contents()->add_int64_contents(1);
  in->mutable_contents()->add_int64_contents(2);
  Error e = decode_error(req);
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(has_all(e.message, {"'x'", "fp32_contents", "int64_contents has 2 values"}));
}

TEST(GrpcCodec, RawEntryCountMismatch) {
  inference::ModelInferRequest req;
  add_input(req, "a", "FP32", {1});
  add_input(req, "b", "FP32", {1});
  req.add_raw_input_contents(raw_of<float>({1.0f}));
  Error e = decode_error(req);
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(has_all(e.message, {"raw_input_contents has 1 entries, expected one per input: 2"}));
}

TEST(GrpcCodec, RawByteSizeMismatch) {
  inference::ModelInferRequest req;
  add_input(req, "x", "FP32", {2, 2});
  req.add_raw_input_contents(raw_of<float>({1.0f, 2.0f, 3.0f}));
  Error e = decode_error(req);
  EXPECT_TRUE(has_all(e.message, {"'x'", "needs 16 bytes", "got 12"}));
}

TEST(GrpcCodec, RawAndTypedTogetherRejected) {
  inference::ModelInferRequest req;
  auto* in = add_input(req, "x", "FP32", {1});
  in->mutable_contents()->add_fp32_contents(1.0f);
  req.add_raw_input_contents(raw_of<float>({1.0f}));
  Error e = decode_error(req);
  EXPECT_TRUE(has_all(e.message, {"'x'", "both"}));
}

TEST(GrpcCodec, UnknownDatatypeListsValidNames) {
  inference::ModelInferRequest req;
  add_input(req, "x", "FLOAT32", {1})->mutable_contents()->add_fp32_contents(1.0f);
  Error e = decode_error(req);
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(has_all(e.message, {"'x'", "'FLOAT32'", "FP32", "BYTES", "BF16", "BOOL"}));

  inference::ModelConfig config;  // with the model's config, the message says what it expects
  auto* declared = config.add_input();
  declared->set_name("x");
  declared->set_data_type(inference::TYPE_FP16);
  InferRequest out;
  e = request_from_grpc(req, &config, &out);
  EXPECT_TRUE(has_all(e.message, {"the model expects FP16"}));
}

TEST(GrpcCodec, NegativeDimRejected) {
  inference::ModelInferRequest req;
  add_input(req, "x", "FP32", {-1, 3});
  Error e = decode_error(req);
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(has_all(e.message, {"'x'", "negative"}));
}

TEST(GrpcCodec, BytesElementPastTheEnd) {
  inference::ModelInferRequest req;
  add_input(req, "s", "BYTES", {2});
  std::string raw = raw_bytes({"ok"});
  const uint32_t claimed = 10;  // the second element claims 10 bytes, 3 follow
  raw.append(reinterpret_cast<const char*>(&claimed), 4);
  raw.append("abc");
  req.add_raw_input_contents(raw);
  Error e = decode_error(req);
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(has_all(e.message, {"'s'", "BYTES element 1 of 2"}));
}

TEST(GrpcCodec, Fp16OnlyRaw) {
  inference::ModelInferRequest typed;
  auto* in = add_input(typed, "h", "FP16", {2});
  in->mutable_contents()->add_fp32_contents(1.0f);
  in->mutable_contents()->add_fp32_contents(2.0f);
  Error e = decode_error(typed);
  EXPECT_EQ(e.code, ErrorCode::kInvalidArgument);
  EXPECT_TRUE(has_all(e.message, {"'h'", "raw_input_contents"}));

  inference::ModelInferRequest empty;  // nothing at all: still needs raw
  add_input(empty, "h", "FP16", {2});
  EXPECT_TRUE(has_all(decode_error(empty).message, {"send its 2 values in raw_input_contents"}));

  inference::ModelInferRequest raw;
  add_input(raw, "h", "FP16", {2});
  raw.add_raw_input_contents(raw_of<uint16_t>({0x3c00, 0xc000}));  // 1.0, -2.0
  Tensor t = decode_one(raw, "h");
  EXPECT_EQ(t.dtype(), DType::kFloat16);
  EXPECT_EQ(t.data<Float16>()[0].bits, 0x3c00);
  EXPECT_EQ(t.data<Float16>()[1].bits, 0xc000);
}

TEST(GrpcCodec, DuplicateAndUnnamedInputs) {
  inference::ModelInferRequest dup;
  add_input(dup, "x", "FP32", {1})->mutable_contents()->add_fp32_contents(1.0f);
  add_input(dup, "x", "FP32", {1})->mutable_contents()->add_fp32_contents(2.0f);
  EXPECT_TRUE(has_all(decode_error(dup).message, {"'x' appears twice"}));

  inference::ModelInferRequest unnamed;
  add_input(unnamed, "", "FP32", {1})->mutable_contents()->add_fp32_contents(1.0f);
  EXPECT_TRUE(has_all(decode_error(unnamed).message, {"input 0 has no name"}));
}

TEST(GrpcCodec, IdOutputsAndTimeoutCarriedOver) {
  inference::ModelInferRequest req;
  req.set_id("req-7");
  add_input(req, "x", "FP32", {1})->mutable_contents()->add_fp32_contents(1.0f);
  req.add_outputs()->set_name("probs");
  req.add_outputs()->set_name("labels");
  (*req.mutable_parameters())["timeout"].set_int64_param(250000);  // microseconds
  InferRequest out;
  ASSERT_TRUE(request_from_grpc(req, nullptr, &out).ok());
  EXPECT_EQ(out.id, "req-7");
  EXPECT_EQ(out.outputs, (std::vector<std::string>{"probs", "labels"}));
  EXPECT_DOUBLE_EQ(out.timeout_ms, 250.0);
}

TEST(GrpcCodec, BadTimeoutParameter) {
  inference::ModelInferRequest req;
  add_input(req, "x", "FP32", {1})->mutable_contents()->add_fp32_contents(1.0f);
  (*req.mutable_parameters())["timeout"].set_string_param("5s");
  EXPECT_TRUE(has_all(decode_error(req).message, {"'timeout'", "string_param"}));
  (*req.mutable_parameters())["timeout"].set_int64_param(-1);
  EXPECT_TRUE(has_all(decode_error(req).message, {"-1 microseconds"}));
}

TEST(GrpcCodec, UnsupportedExtensionsAreUnimplemented) {
  inference::ModelInferRequest req;
  add_input(req, "x", "FP32", {1})->mutable_contents()->add_fp32_contents(1.0f);
  auto* out = req.add_outputs();
  out->set_name("probs");
  (*out->mutable_parameters())["classification"].set_int64_param(3);
  Error e = decode_error(req);
  EXPECT_EQ(e.code, ErrorCode::kUnimplemented);
  EXPECT_TRUE(has_all(e.message, {"'probs'", "classification"}));

  inference::ModelInferRequest shm;
  auto* in = add_input(shm, "x", "FP32", {1});
  (*in->mutable_parameters())["shared_memory_region"].set_string_param("region0");
  e = decode_error(shm);
  EXPECT_EQ(e.code, ErrorCode::kUnimplemented);
  EXPECT_TRUE(has_all(e.message, {"'x'", "shared_memory_region"}));
}

TEST(GrpcCodec, FailedDecodeLeavesRequestUnchanged) {
  inference::ModelInferRequest req;
  req.set_id("new");
  add_input(req, "good", "FP32", {1})->mutable_contents()->add_fp32_contents(1.0f);
  add_input(req, "bad", "NOPE", {1});
  InferRequest out;
  out.id = "old";
  EXPECT_FALSE(request_from_grpc(req, nullptr, &out).ok());
  EXPECT_EQ(out.id, "old");
  EXPECT_TRUE(out.inputs.empty());
}

TEST(GrpcCodec, ResponseFollowsOrderThenTheRest) {
  TensorMap outputs;
  outputs["a"] = Tensor::from_vector<float>({1.0f, 2.0f}, {2});
  outputs["b"] = Tensor::from_vector<int64_t>({9}, {1, 1});
  outputs["c"] = Tensor::empty(DType::kString, {2});
  outputs["c"].strings()[0] = "cat";
  outputs["c"].strings()[1] = "";
  inference::ModelInferResponse resp;
  response_to_grpc("net", "3", "req-1", outputs, {"c", "a"}, &resp);
  EXPECT_EQ(resp.model_name(), "net");
  EXPECT_EQ(resp.model_version(), "3");
  EXPECT_EQ(resp.id(), "req-1");
  ASSERT_EQ(resp.outputs_size(), 3);
  ASSERT_EQ(resp.raw_output_contents_size(), 3);
  EXPECT_EQ(resp.outputs(0).name(), "c");
  EXPECT_EQ(resp.outputs(1).name(), "a");
  EXPECT_EQ(resp.outputs(2).name(), "b");  // not in `order`, but never dropped
  EXPECT_EQ(resp.outputs(0).datatype(), "BYTES");
  EXPECT_EQ(resp.outputs(1).datatype(), "FP32");
  EXPECT_EQ(resp.outputs(2).datatype(), "INT64");
  EXPECT_EQ(shape_of(resp.outputs(2).shape()), (Shape{1, 1}));
  EXPECT_EQ(resp.raw_output_contents(0), raw_bytes({"cat", ""}));
  EXPECT_EQ(resp.raw_output_contents(1), raw_of<float>({1.0f, 2.0f}));
  EXPECT_EQ(resp.raw_output_contents(2), raw_of<int64_t>({9}));
}

TEST(GrpcCodec, RawBytesRoundTrip) {
  // What a client sends comes back byte for byte when the model echoes it.
  const std::string fp32 = raw_of<float>({0.1f, -0.0f, 1e30f, 5.0f, 6.0f, 7.0f});
  const std::string strings = raw_bytes({"x", std::string("\0\xff", 2), ""});
  inference::ModelInferRequest req;
  add_input(req, "f", "FP32", {2, 3});
  add_input(req, "s", "BYTES", {3, 1});
  req.add_raw_input_contents(fp32);
  req.add_raw_input_contents(strings);
  InferRequest decoded;
  ASSERT_TRUE(request_from_grpc(req, nullptr, &decoded).ok());
  inference::ModelInferResponse resp;
  response_to_grpc("echo", "1", "", decoded.inputs, {"f", "s"}, &resp);
  ASSERT_EQ(resp.raw_output_contents_size(), 2);
  EXPECT_EQ(resp.raw_output_contents(0), fp32);
  EXPECT_EQ(resp.raw_output_contents(1), strings);
  EXPECT_EQ(shape_of(resp.outputs(0).shape()), (Shape{2, 3}));
  EXPECT_EQ(shape_of(resp.outputs(1).shape()), (Shape{3, 1}));
}

}  // namespace
}  // namespace hi::server
