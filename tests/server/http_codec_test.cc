#include "http_codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <nlohmann/json.hpp>

namespace hi::server {
namespace {

Error parse(const std::string& body, int64_t header_length = -1, InferRequest* request = nullptr,
            HttpResponseForm* form = nullptr) {
  InferRequest r;
  HttpResponseForm f;
  return parse_infer_request(body, header_length, request ? request : &r, form ? form : &f);
}

void expect_error(const Error& e, ErrorCode code, std::initializer_list<const char*> parts) {
  EXPECT_EQ(e.code, code) << e.message;
  for (const char* p : parts) EXPECT_NE(e.message.find(p), std::string::npos) << "'" << p << "' not in: " << e.message;
}

std::string raw_floats(std::initializer_list<float> values) {
  std::string s(values.size() * 4, '\0');
  std::memcpy(s.data(), values.begin(), s.size());
  return s;
}

TEST(HttpCodec, ParsesNestedJsonDataAndOutputChoices) {
  InferRequest r;
  HttpResponseForm f;
  Error e = parse(R"({"id":"r1","parameters":{"timeout":2500},
    "inputs":[{"name":"x","shape":[2,3],"datatype":"FP32","data":[[1,2,3],[4.5,-5,6]]},
              {"name":"ids","shape":[2],"datatype":"INT64","data":[-9007199254740993, 7]}],
    "outputs":[{"name":"y","parameters":{"binary_data":true}},{"name":"ids_out"}]})",
                  -1, &r, &f);
  ASSERT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(r.id, "r1");
  EXPECT_DOUBLE_EQ(r.timeout_ms, 2.5);
  const Tensor& x = r.inputs.at("x");
  EXPECT_EQ(x.shape(), (Shape{2, 3}));
  EXPECT_EQ(x.data<float>()[3], 4.5f);
  EXPECT_EQ(r.inputs.at("ids").data<int64_t>()[0], -9007199254740993LL);  // exact past 2^53
  ASSERT_EQ(r.outputs, (std::vector<std::string>{"y", "ids_out"}));
  EXPECT_TRUE(f.outputs[0].binary);
  EXPECT_FALSE(f.outputs[1].binary);
}

TEST(HttpCodec, ReadsBinaryTensorDataAfterTheJsonHeader) {
  const std::string header =
      R"({"inputs":[{"name":"x","shape":[1,3],"datatype":"FP32","parameters":{"binary_data_size":12}},
                    {"name":"s","shape":[2],"datatype":"BYTES","parameters":{"binary_data_size":13}}]})";
  std::string strings;
  for (std::string v : {std::string("abc"), std::string("\0z", 2)}) {
    uint32_t n = static_cast<uint32_t>(v.size());
    strings.append(reinterpret_cast<const char*>(&n), 4);
    strings += v;
  }
  InferRequest r;
  Error e = parse(header + raw_floats({1.5f, -2, 3}) + strings, static_cast<int64_t>(header.size()), &r);
  ASSERT_TRUE(e.ok()) << e.message;
  EXPECT_EQ(r.inputs.at("x").data<float>()[1], -2.0f);
  EXPECT_EQ(r.inputs.at("s").strings()[0], "abc");
  EXPECT_EQ(r.inputs.at("s").strings()[1], std::string("\0z", 2));
}

TEST(HttpCodec, MalformedBodiesNameWhatIsWrong) {
  expect_error(parse("{\"inputs\": [ {"), ErrorCode::kInvalidArgument, {"not valid JSON"});
  expect_error(parse("[1,2]"), ErrorCode::kInvalidArgument, {"array", "expected an object"});
  expect_error(parse(R"({"inputs":[]})"), ErrorCode::kInvalidArgument, {"inputs is missing or empty"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[2,2],"datatype":"FP32","data":[1,2,3]}]})"),
               ErrorCode::kInvalidArgument, {"'x'", "[2, 2]", "4 elements", "data holds 3"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1,2]}]})"),
               ErrorCode::kInvalidArgument, {"'x'", "1 elements", "more"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[2],"datatype":"FLOAT32","data":[1,2]}]})"),
               ErrorCode::kInvalidArgument, {"'x'", "\"FLOAT32\"", "FP32"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[2],"datatype":"INT8","data":[1,300]}]})"),
               ErrorCode::kInvalidArgument, {"'x'", "data[1] is 300", "INT8"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[1],"datatype":"UINT8","data":[-1]}]})"),
               ErrorCode::kInvalidArgument, {"data[0] is -1"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[1],"datatype":"INT64","data":[1.5]}]})"),
               ErrorCode::kInvalidArgument, {"data[0] is 1.5"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[1],"datatype":"BOOL","data":[1]}]})"),
               ErrorCode::kInvalidArgument, {"true or false"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[-2],"datatype":"FP32","data":[]}]})"),
               ErrorCode::kInvalidArgument, {"'x'", "negative"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1]},
                                   {"name":"x","shape":[1],"datatype":"FP32","data":[1]}]})"),
               ErrorCode::kInvalidArgument, {"'x' is given twice"});
  expect_error(parse(R"({"inputs":[{"name":"x","shape":[1],"datatype":"FP32","data":[1]}],
                         "outputs":[{"name":"y","parameters":{"classification":3}}]})"),
               ErrorCode::kUnimplemented, {"classification"});
}

TEST(HttpCodec, BinaryLengthsThatDoNotAddUpAreRejected) {
  const std::string header =
      R"({"inputs":[{"name":"x","shape":[1,3],"datatype":"FP32","parameters":{"binary_data_size":12}}]})";
  const int64_t n = static_cast<int64_t>(header.size());
  expect_error(parse(header, n + 100), ErrorCode::kInvalidArgument, {"Inference-Header-Content-Length", "only"});
  expect_error(parse(header + raw_floats({1, 2}), n), ErrorCode::kInvalidArgument,
               {"'x'", "binary_data_size is 12", "8 bytes"});
  expect_error(parse(header + raw_floats({1, 2, 3, 4}), n), ErrorCode::kInvalidArgument,
               {"4 bytes of binary data after"});
  const std::string wrong_size =
      R"({"inputs":[{"name":"x","shape":[1,3],"datatype":"FP32","parameters":{"binary_data_size":8}}]})";
  expect_error(parse(wrong_size + raw_floats({1, 2}), static_cast<int64_t>(wrong_size.size())),
               ErrorCode::kInvalidArgument, {"'x'", "needs 12 bytes", "got 8"});
  const std::string strings =
      R"({"inputs":[{"name":"s","shape":[1],"datatype":"BYTES","parameters":{"binary_data_size":6}}]})";
  std::string bad_len("\x09\0\0\0ab", 6);
  expect_error(parse(strings + bad_len, static_cast<int64_t>(strings.size())), ErrorCode::kInvalidArgument,
               {"'s'", "BYTES element 0", "past the end"});
}

TEST(HttpCodec, BinaryBoolsOtherThanZeroOrOneAreRejected) {
  const std::string header =
      R"({"inputs":[{"name":"flags","shape":[3],"datatype":"BOOL","parameters":{"binary_data_size":3}}]})";
  const int64_t n = static_cast<int64_t>(header.size());
  InferRequest r;
  ASSERT_TRUE(parse(header + std::string("\1\0\1", 3), n, &r).ok());
  EXPECT_TRUE(r.inputs.at("flags").data<bool>()[2]);
  expect_error(parse(header + std::string("\1\2\0", 3), n), ErrorCode::kInvalidArgument,
               {"'flags'", "BOOL element 1 is byte 2", "0 or 1"});
}

TEST(HttpCodec, ResponseWritesJsonAndBinaryOutputsInOrder) {
  TensorMap outputs;
  outputs.emplace("y", Tensor::from_vector<float>({1.25f, -3}, {1, 2}));
  outputs.emplace("ids_out", Tensor::from_vector<int64_t>({5, 6, 7}, {3}));
  HttpResponseForm form;
  form.outputs = {{"ids_out", false}, {"y", true}};
  HttpBody body = make_infer_response("m", "2", "req-9", outputs, {"ids_out", "y"}, form);
  ASSERT_GT(body.header_length, 0);
  auto doc = nlohmann::json::parse(body.data.substr(0, static_cast<size_t>(body.header_length)));
  EXPECT_EQ(doc["model_name"], "m");
  EXPECT_EQ(doc["model_version"], "2");
  EXPECT_EQ(doc["id"], "req-9");
  EXPECT_EQ(doc["outputs"][0]["name"], "ids_out");
  EXPECT_EQ(doc["outputs"][0]["data"], nlohmann::json::parse("[5,6,7]"));
  EXPECT_EQ(doc["outputs"][1]["datatype"], "FP32");
  EXPECT_EQ(doc["outputs"][1]["parameters"]["binary_data_size"], 8);
  EXPECT_EQ(body.data.substr(static_cast<size_t>(body.header_length)), raw_floats({1.25f, -3}));

  HttpBody json_only = make_infer_response("m", "1", "", outputs, {"y"}, HttpResponseForm{});
  EXPECT_EQ(json_only.header_length, -1);
  auto doc2 = nlohmann::json::parse(json_only.data);
  EXPECT_EQ(doc2["outputs"].size(), 1u);
  EXPECT_EQ(doc2["outputs"][0]["shape"], nlohmann::json::parse("[1,2]"));
  EXPECT_EQ(doc2["outputs"][0]["data"][0], 1.25);
}

}  // namespace
}  // namespace hi::server
