// The C API through libhipinfer.so (nothing but include/hipinfer/): running a model as the C++ API
// does, from several threads, and every kind of bad use answered with a status that names the
// problem. scripts/test runs this file again under AddressSanitizer and UBSan (build-fuzz-session).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "hipinfer/c_api.h"
#include "hipinfer/session.h"
#include "hipinfer/zoo.h"

namespace {

// Takes a status: its code, and its message ("" for success); frees it.
struct Outcome {
  hi_status_code code;
  std::string message;
};
Outcome take(hi_status* s) {
  Outcome o{hi_status_get_code(s), hi_status_get_message(s)};
  hi_status_free(s);
  return o;
}

#define EXPECT_OK(call)                             \
  do {                                              \
    Outcome o_ = take(call);                        \
    EXPECT_EQ(o_.code, HI_STATUS_OK) << o_.message; \
  } while (0)

// Fails unless the call fails with `code` and its message contains every fragment.
void expect_error(hi_status* s, hi_status_code code, std::vector<std::string> fragments) {
  Outcome o = take(s);
  EXPECT_EQ(o.code, code) << o.message;
  for (const auto& f : fragments)
    EXPECT_NE(o.message.find(f), std::string::npos) << "'" << f << "' not in: " << o.message;
}

// A small MobileNetV2 (32x32 images, 10 classes): input "input" float32[batch, 3, 32, 32].
const std::string& model_bytes() {
  static const std::string bytes = [] {
    hi::zoo::ZooOptions o;
    o.image_size = 32;
    o.classes = 10;
    auto r = hi::zoo::build_zoo_model("mobilenetv2", o);
    EXPECT_TRUE(r.is_ok()) << r.status().to_string();
    return r.is_ok() ? r.value() : std::string();
  }();
  return bytes;
}

std::vector<float> random_image(int batch, uint32_t seed) {
  std::vector<float> x(static_cast<size_t>(batch) * 3 * 32 * 32);
  for (float& v : x) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<float>(seed >> 8) / 16777216.0f * 2 - 1;
  }
  return x;
}

class CApi : public ::testing::Test {
 protected:
  void SetUp() override {
    EXPECT_OK(hi_env_create(HI_LOG_ERROR, &env_));
    EXPECT_OK(hi_session_options_create(&options_));
    EXPECT_OK(hi_session_options_set_threads(options_, 1));
    EXPECT_OK(hi_session_options_set_devices(options_, "cpu"));
    EXPECT_OK(hi_session_create_from_bytes(env_, model_bytes().data(), model_bytes().size(), options_, &session_));
    ASSERT_NE(session_, nullptr);
  }
  void TearDown() override {
    EXPECT_OK(hi_session_free(session_));
    EXPECT_OK(hi_session_options_free(options_));
    EXPECT_OK(hi_env_free(env_));
  }
  // A float32 input over the caller's buffer.
  hi_value* image_value(std::vector<float>& x, int batch) {
    const int64_t shape[] = {batch, 3, 32, 32};
    hi_value* v = nullptr;
    EXPECT_OK(hi_value_create_tensor_with_data(HI_TYPE_FLOAT32, shape, 4, x.data(), x.size() * sizeof(float), &v));
    return v;
  }
  std::vector<float> run_c(std::vector<float>& x, int batch) {
    hi_value* in = image_value(x, batch);
    const char* in_name = "input";
    hi_value* out = nullptr;
    EXPECT_OK(hi_session_run(session_, nullptr, &in_name, &in, 1, nullptr, 1, &out));
    std::vector<float> result;
    if (out != nullptr) {
      void* data = nullptr;
      size_t bytes = 0;
      EXPECT_OK(hi_value_get_data(out, &data, &bytes));
      result.assign(static_cast<float*>(data), static_cast<float*>(data) + bytes / sizeof(float));
    }
    EXPECT_OK(hi_value_free(in));
    EXPECT_OK(hi_value_free(out));
    return result;
  }

  hi_env* env_ = nullptr;
  hi_session_options* options_ = nullptr;
  hi_session* session_ = nullptr;
};

TEST(CApiVersion, MatchesTheBuild) {
  EXPECT_EQ(hi_c_api_version(), static_cast<uint32_t>(HI_C_API_VERSION));
  EXPECT_GE(hi_c_api_revision(), static_cast<uint32_t>(HI_C_API_REVISION));
  EXPECT_STREQ(hi_version_string(), HI_TEST_PROJECT_VERSION);
  EXPECT_GT(std::strlen(hi_git_commit()), 0u);
  EXPECT_EQ(hi_element_type_size(HI_TYPE_FLOAT16), 2u);
  EXPECT_EQ(hi_element_type_size(HI_TYPE_STRING), 0u);
  EXPECT_STREQ(hi_status_code_name(HI_STATUS_OUT_OF_MEMORY), "OutOfMemory");
  EXPECT_EQ(hi_status_get_code(nullptr), HI_STATUS_OK);
  EXPECT_STREQ(hi_status_get_message(nullptr), "");
}

TEST_F(CApi, DescribesInputsAndOutputs) {
  size_t n = 0;
  EXPECT_OK(hi_session_get_input_count(session_, &n));
  EXPECT_EQ(n, 1u);
  EXPECT_OK(hi_session_get_output_count(session_, &n));
  EXPECT_EQ(n, 1u);
  const char* name = nullptr;
  EXPECT_OK(hi_session_get_input_name(session_, 0, &name));
  EXPECT_STREQ(name, "input");
  hi_element_type type = HI_TYPE_UNDEFINED;
  EXPECT_OK(hi_session_get_input_type(session_, 0, &type));
  EXPECT_EQ(type, HI_TYPE_FLOAT32);
  int64_t dims[4] = {0, 0, 0, 0};
  int64_t rank = 0;
  EXPECT_OK(hi_session_get_input_shape(session_, 0, dims, 4, &rank));
  EXPECT_EQ(rank, 4);
  EXPECT_EQ(dims[0], -1);  // the symbolic batch
  EXPECT_EQ(dims[1], 3);
  EXPECT_EQ(dims[3], 32);
  EXPECT_OK(hi_session_get_output_shape(session_, 0, dims, 4, &rank));
  EXPECT_EQ(rank, 2);
  EXPECT_EQ(dims[1], 10);
  const char* summary = nullptr;
  EXPECT_OK(hi_session_get_placement_summary(session_, &summary));
  EXPECT_NE(std::string(summary).find("on cpu"), std::string::npos) << summary;
}

TEST_F(CApi, FreeDimensionOverridesFixTheBatch) {
  EXPECT_OK(hi_session_options_add_free_dimension_override(options_, "batch", 2));
  hi_session* s = nullptr;
  EXPECT_OK(hi_session_create_from_bytes(env_, model_bytes().data(), model_bytes().size(), options_, &s));
  int64_t dims[4] = {0, 0, 0, 0};
  int64_t rank = 0;
  EXPECT_OK(hi_session_get_input_shape(s, 0, dims, 4, &rank));
  EXPECT_EQ(dims[0], 2);
  EXPECT_OK(hi_session_free(s));
  expect_error(hi_session_options_add_free_dimension_override(options_, "batch", -1), HI_STATUS_INVALID_ARGUMENT,
               {"'size' must be 0 or more, got -1"});
  expect_error(hi_session_options_add_free_dimension_override(options_, nullptr, 1), HI_STATUS_INVALID_ARGUMENT,
               {"'dim_name' is NULL"});
}

// The classifier's bias (the zoo names it as PyTorch's export does) replaced by the caller's: every
// logit moves by exactly the difference.
TEST_F(CApi, InitializersFromTheOptionsReplaceTheModels) {
  std::vector<float> x = random_image(1, 9), x2 = random_image(1, 10);
  const std::vector<float> before = run_c(x, 1), before2 = run_c(x2, 1);
  std::vector<float> bias(10, 0.0f);
  const int64_t shape[] = {10};
  hi_value* v = nullptr;
  EXPECT_OK(hi_value_create_tensor_with_data(HI_TYPE_FLOAT32, shape, 1, bias.data(), bias.size() * 4, &v));
  EXPECT_OK(hi_session_options_add_initializer(options_, "classifier.1.bias", v));
  EXPECT_OK(hi_value_free(v));  // the options hold the tensor
  hi_session* zero_bias = nullptr;
  EXPECT_OK(hi_session_create_from_bytes(env_, model_bytes().data(), model_bytes().size(), options_, &zero_bias));
  std::swap(session_, zero_bias);
  const std::vector<float> after = run_c(x, 1), after2 = run_c(x2, 1);
  std::swap(session_, zero_bias);
  EXPECT_OK(hi_session_free(zero_bias));
  // before - after is the model's own bias: not all zero, and the same for both inputs.
  ASSERT_EQ(after.size(), 10u);
  ASSERT_EQ(after2.size(), 10u);
  bool moved = false;
  for (size_t i = 0; i < 10; ++i) {
    moved = moved || before[i] != after[i];
    EXPECT_NEAR(before[i] - after[i], before2[i] - after2[i], 1e-5) << "logit " << i;
  }
  EXPECT_TRUE(moved);

  const int64_t wrong_shape[] = {9};
  EXPECT_OK(hi_value_create_tensor(HI_TYPE_FLOAT32, wrong_shape, 1, &v));
  EXPECT_OK(hi_session_options_add_initializer(options_, "classifier.1.bias", v));
  hi_session* s = nullptr;
  expect_error(hi_session_create_from_bytes(env_, model_bytes().data(), model_bytes().size(), options_, &s),
               HI_STATUS_INVALID_ARGUMENT,
               {"initializer 'classifier.1.bias' given in the options is float32[9], the model's is float32[10]"});
  expect_error(hi_session_options_add_initializer(options_, "b", nullptr), HI_STATUS_INVALID_ARGUMENT,
               {"'value' is NULL"});
  EXPECT_OK(hi_value_free(v));
  expect_error(hi_session_options_add_initializer(options_, "b", v), HI_STATUS_INVALID_ARGUMENT,
               {"not a live hi_value"});
}

TEST_F(CApi, RunsAsTheCppApiDoes) {
  hi::SessionOptions o;
  o.threads = 1;
  o.devices = {"cpu"};
  auto cpp = hi::Session::create_from_bytes(model_bytes().data(), model_bytes().size(), o);
  ASSERT_TRUE(cpp.is_ok()) << cpp.status().to_string();
  for (int batch : {1, 3}) {
    std::vector<float> x = random_image(batch, 7u + static_cast<uint32_t>(batch));
    std::vector<float> c = run_c(x, batch);
    auto expected =
        cpp.value()->run({{"input", hi::Tensor::wrap(hi::DType::kFloat32, {batch, 3, 32, 32}, x.data(), nullptr)}});
    ASSERT_TRUE(expected.is_ok()) << expected.status().to_string();
    const hi::Tensor& e = expected.value().begin()->second;
    ASSERT_EQ(c.size(), static_cast<size_t>(e.numel()));
    for (size_t i = 0; i < c.size(); ++i) EXPECT_EQ(c[i], e.data<float>()[i]) << "batch " << batch << " element " << i;
  }
}

TEST_F(CApi, RunsIntoTheCallersBuffer) {
  std::vector<float> x = random_image(2, 3);
  const std::vector<float> expected = run_c(x, 2);
  std::vector<float> buffer(20, -7.0f);
  const int64_t out_shape[] = {2, 10};
  hi_value* out = nullptr;
  EXPECT_OK(hi_value_create_tensor_with_data(HI_TYPE_FLOAT32, out_shape, 2, buffer.data(), buffer.size() * 4, &out));
  hi_value* in = image_value(x, 2);
  const char* in_name = "input";
  const char* out_name = nullptr;
  EXPECT_OK(hi_session_get_output_name(session_, 0, &out_name));
  hi_value* given = out;
  EXPECT_OK(hi_session_run(session_, nullptr, &in_name, &in, 1, &out_name, 1, &given));
  EXPECT_EQ(given, out);  // the same value, filled
  EXPECT_EQ(buffer, expected);
  EXPECT_OK(hi_value_free(in));
  EXPECT_OK(hi_value_free(out));
}

TEST_F(CApi, OneSessionManyThreads) {
  std::vector<std::vector<float>> inputs, expected;
  for (int t = 0; t < 8; ++t) {
    inputs.push_back(random_image(1 + t % 3, 100u + static_cast<uint32_t>(t)));
    expected.push_back(run_c(inputs.back(), 1 + t % 3));
  }
  std::vector<std::vector<float>> got(8);
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 5; ++rep) got[t] = run_c(inputs[t], 1 + t % 3);
    });
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(got[t], expected[t]) << "thread " << t;
}

TEST_F(CApi, StringTensorsRoundTrip) {
  const char* words[] = {"", "hipinfer", "a\xc3\xa9z"};
  const int64_t shape[] = {3};
  hi_value* v = nullptr;
  EXPECT_OK(hi_value_create_string_tensor(shape, 1, words, 3, &v));
  for (size_t i = 0; i < 3; ++i) {
    const char* s = nullptr;
    size_t len = 0;
    EXPECT_OK(hi_value_get_string(v, i, &s, &len));
    EXPECT_EQ(std::string(s, len), words[i]);
  }
  void* data = nullptr;
  expect_error(hi_value_get_data(v, &data, nullptr), HI_STATUS_INVALID_ARGUMENT,
               {"hi_value_get_data", "string tensor"});
  expect_error(hi_value_get_string(v, 3, &words[0], nullptr), HI_STATUS_INVALID_ARGUMENT,
               {"'index' is 3", "3 elements"});
  EXPECT_OK(hi_value_free(v));
}

TEST_F(CApi, NullHandlesAndPointersAreNamed) {
  size_t n = 0;
  expect_error(hi_session_get_input_count(nullptr, &n), HI_STATUS_INVALID_ARGUMENT,
               {"hi_session_get_input_count", "'session' is NULL"});
  expect_error(hi_session_get_input_count(session_, nullptr), HI_STATUS_INVALID_ARGUMENT, {"'out' is NULL"});
  expect_error(hi_session_create(env_, nullptr, nullptr, &session_), HI_STATUS_INVALID_ARGUMENT,
               {"'model_path' is NULL"});
  hi_session* s = nullptr;
  expect_error(hi_session_create(nullptr, "m.onnx", nullptr, &s), HI_STATUS_INVALID_ARGUMENT, {"'env' is NULL"});
  expect_error(hi_session_create(env_, "m.onnx", nullptr, nullptr), HI_STATUS_INVALID_ARGUMENT, {"'out' is NULL"});
  expect_error(hi_session_run(nullptr, nullptr, nullptr, nullptr, 0, nullptr, 0, nullptr), HI_STATUS_INVALID_ARGUMENT,
               {"hi_session_run", "'session' is NULL"});
  expect_error(hi_session_run(session_, nullptr, nullptr, nullptr, 1, nullptr, 1, nullptr), HI_STATUS_INVALID_ARGUMENT,
               {"'input_names' is NULL but 'input_count' is 1"});
  expect_error(hi_value_free(nullptr), HI_STATUS_INVALID_ARGUMENT, {"hi_value_free", "'value' is NULL"});
  expect_error(hi_session_options_set_precision(options_, nullptr), HI_STATUS_INVALID_ARGUMENT,
               {"'precision' is NULL"});
  expect_error(hi_value_create_tensor(HI_TYPE_FLOAT32, nullptr, 2, nullptr), HI_STATUS_INVALID_ARGUMENT,
               {"'out' is NULL"});
  hi_value* v = reinterpret_cast<hi_value*>(0x1);
  expect_error(hi_value_create_tensor(HI_TYPE_FLOAT32, nullptr, 2, &v), HI_STATUS_INVALID_ARGUMENT,
               {"'shape' is NULL but 'rank' is 2"});
  EXPECT_EQ(v, nullptr);  // out is reset on failure
}

TEST_F(CApi, FreedAndWrongKindHandlesAreRefused) {
  hi_value* v = nullptr;
  const int64_t shape[] = {2};
  EXPECT_OK(hi_value_create_tensor(HI_TYPE_INT64, shape, 1, &v));
  EXPECT_OK(hi_value_free(v));
  int64_t count = 0;
  expect_error(hi_value_get_element_count(v, &count), HI_STATUS_INVALID_ARGUMENT,
               {"hi_value_get_element_count", "'value' is not a live hi_value", "already freed"});
  expect_error(hi_value_free(v), HI_STATUS_INVALID_ARGUMENT, {"not a live hi_value"});
  // A session where a value belongs, and the other way round.
  expect_error(hi_value_get_element_count(reinterpret_cast<const hi_value*>(session_), &count),
               HI_STATUS_INVALID_ARGUMENT, {"'value' is a hi_session, expected a hi_value"});
  expect_error(hi_session_free(reinterpret_cast<hi_session*>(options_)), HI_STATUS_INVALID_ARGUMENT,
               {"'session' is a hi_session_options, expected a hi_session"});
  // A pointer hipinfer never handed out is not read through.
  int64_t not_a_handle = 42;
  expect_error(hi_value_get_element_count(reinterpret_cast<const hi_value*>(&not_a_handle), &count),
               HI_STATUS_INVALID_ARGUMENT, {"not a live hi_value"});
  // A freed status is ignored by free and described by its accessors.
  hi_status* s = hi_value_free(nullptr);
  hi_status_free(s);
  hi_status_free(s);
  EXPECT_EQ(hi_status_get_code(s), HI_STATUS_INVALID_ARGUMENT);
}

TEST_F(CApi, WrongSizesAndTypesAreNamed) {
  std::vector<float> x = random_image(1, 1);
  const int64_t shape[] = {1, 3, 32, 32};
  hi_value* v = nullptr;
  expect_error(hi_value_create_tensor_with_data(HI_TYPE_FLOAT32, shape, 4, x.data(), 100, &v),
               HI_STATUS_INVALID_ARGUMENT, {"'byte_size' is 100", "float32[1, 3, 32, 32] needs 12288 bytes"});
  const int64_t negative[] = {2, -3};
  expect_error(hi_value_create_tensor(HI_TYPE_FLOAT32, negative, 2, &v), HI_STATUS_INVALID_ARGUMENT,
               {"'shape' dim 1 is -3"});
  const int64_t huge[] = {INT64_MAX, 4};
  expect_error(hi_value_create_tensor(HI_TYPE_FLOAT32, huge, 2, &v), HI_STATUS_INVALID_ARGUMENT,
               {"more elements than int64"});
  expect_error(hi_value_create_tensor(static_cast<hi_element_type>(99), shape, 4, &v), HI_STATUS_INVALID_ARGUMENT,
               {"'type' 99 is not an element type"});
  const int64_t big[] = {int64_t{1} << 40};
  expect_error(hi_value_create_tensor(HI_TYPE_FLOAT32, big, 1, &v), HI_STATUS_OUT_OF_MEMORY,
               {"hi_value_create_tensor"});

  // An int64 image, a wrong shape, an unknown input name, a missing input.
  const char* in_name = "input";
  hi_value* out = nullptr;
  EXPECT_OK(hi_value_create_tensor(HI_TYPE_INT64, shape, 4, &v));
  expect_error(hi_session_run(session_, nullptr, &in_name, &v, 1, nullptr, 1, &out), HI_STATUS_INVALID_ARGUMENT,
               {"hi_session_run", "input", "float32", "int64"});
  EXPECT_EQ(out, nullptr);
  EXPECT_OK(hi_value_free(v));
  const int64_t wrong[] = {1, 4, 32, 32};
  EXPECT_OK(hi_value_create_tensor(HI_TYPE_FLOAT32, wrong, 4, &v));
  expect_error(hi_session_run(session_, nullptr, &in_name, &v, 1, nullptr, 1, &out), HI_STATUS_INVALID_ARGUMENT,
               {"input", "4", "3"});
  const char* unknown = "image";
  expect_error(hi_session_run(session_, nullptr, &unknown, &v, 1, nullptr, 1, &out), HI_STATUS_INVALID_ARGUMENT,
               {"'image' is not an input of the model; its inputs are 'input'"});
  expect_error(hi_session_run(session_, nullptr, nullptr, nullptr, 0, nullptr, 1, &out), HI_STATUS_INVALID_ARGUMENT,
               {"input"});
  const hi_value* twice[] = {v, v};
  const char* twice_names[] = {"input", "input"};
  expect_error(hi_session_run(session_, nullptr, twice_names, twice, 2, nullptr, 1, &out), HI_STATUS_INVALID_ARGUMENT,
               {"input 'input' is given twice"});
  EXPECT_OK(hi_value_free(v));

  // Outputs: a wrong count for "all", an unknown name, a given value of the wrong shape.
  hi_value* in = image_value(x, 1);
  expect_error(hi_session_run(session_, nullptr, &in_name, &in, 1, nullptr, 2, &out), HI_STATUS_INVALID_ARGUMENT,
               {"'output_count' is 2", "the model has 1 outputs"});
  const char* no_such = "logits_typo";
  expect_error(hi_session_run(session_, nullptr, &in_name, &in, 1, &no_such, 1, &out), HI_STATUS_INVALID_ARGUMENT,
               {"'logits_typo' is not an output of the model"});
  std::vector<float> small(5, 1.0f);
  const int64_t small_shape[] = {1, 5};
  hi_value* given = nullptr;
  EXPECT_OK(hi_value_create_tensor_with_data(HI_TYPE_FLOAT32, small_shape, 2, small.data(), 20, &given));
  hi_value* slot = given;
  expect_error(hi_session_run(session_, nullptr, &in_name, &in, 1, nullptr, 1, &slot), HI_STATUS_INVALID_ARGUMENT,
               {"the value given holds float32[1, 5] but the result is float32[1, 10]"});
  EXPECT_EQ(small, std::vector<float>(5, 1.0f));  // untouched
  EXPECT_OK(hi_value_free(given));
  EXPECT_OK(hi_value_free(in));

  // Capacity and index checks of the queries.
  int64_t dims[1];
  int64_t rank = 0;
  expect_error(hi_session_get_input_shape(session_, 0, dims, 1, &rank), HI_STATUS_INVALID_ARGUMENT,
               {"'capacity' is 1 but 'input' has rank 4"});
  EXPECT_EQ(rank, 4);
  const char* name = nullptr;
  expect_error(hi_session_get_output_name(session_, 1, &name), HI_STATUS_INVALID_ARGUMENT,
               {"'index' is 1 but the model has 1 outputs"});
}

TEST_F(CApi, OptionsAreCheckedWhenSet) {
  expect_error(hi_session_options_set_precision(options_, "fp8"), HI_STATUS_INVALID_ARGUMENT,
               {"'precision' must be \"fp32\" or \"bf16\", got \"fp8\""});
  expect_error(hi_session_options_set_threads(options_, -2), HI_STATUS_INVALID_ARGUMENT, {"'threads'", "-2"});
  expect_error(hi_session_options_set_optimization_level(options_, 7), HI_STATUS_INVALID_ARGUMENT, {"0 to 3, got 7"});
  expect_error(hi_session_options_set_devices(options_, "gpu,,cpu"), HI_STATUS_INVALID_ARGUMENT, {"empty entry"});
  expect_error(hi_session_options_set_memory_limit(options_, -1), HI_STATUS_INVALID_ARGUMENT, {"'bytes'"});
  hi_env* e = nullptr;
  expect_error(hi_env_create(static_cast<hi_log_level>(9), &e), HI_STATUS_INVALID_ARGUMENT, {"'level'", "9"});
  hi_run_options* ro = nullptr;
  EXPECT_OK(hi_run_options_create(&ro));
  expect_error(hi_run_options_set_timeout_ms(ro, -1), HI_STATUS_INVALID_ARGUMENT, {"'timeout_ms'"});
  EXPECT_OK(hi_run_options_free(ro));

  // Checked at creation: an unknown device and an unknown pass name, each named.
  hi_session* s = nullptr;
  EXPECT_OK(hi_session_options_set_devices(options_, "tpu"));
  expect_error(hi_session_create_from_bytes(env_, model_bytes().data(), model_bytes().size(), options_, &s),
               HI_STATUS_INVALID_ARGUMENT, {"tpu"});
  EXPECT_OK(hi_session_options_set_devices(options_, "cpu"));
  EXPECT_OK(hi_session_options_disable_pass(options_, "no_such_pass"));
  expect_error(hi_session_create_from_bytes(env_, model_bytes().data(), model_bytes().size(), options_, &s),
               HI_STATUS_INVALID_ARGUMENT, {"no_such_pass"});
  EXPECT_EQ(s, nullptr);
}

TEST_F(CApi, BadModelsAreNamed) {
  hi_session* s = nullptr;
  expect_error(hi_session_create(env_, "/nonexistent/model.onnx", nullptr, &s), HI_STATUS_NOT_FOUND,
               {"/nonexistent/model.onnx"});
  const char garbage[] = "this is not a protobuf";
  expect_error(hi_session_create_from_bytes(env_, garbage, sizeof garbage, nullptr, &s), HI_STATUS_INVALID_MODEL, {});
  expect_error(hi_session_create_from_bytes(env_, nullptr, 10, nullptr, &s), HI_STATUS_INVALID_ARGUMENT,
               {"'model_data' is NULL but 'size' is 10"});
  EXPECT_EQ(s, nullptr);
}

TEST_F(CApi, RunOptionsStopARun) {
  hi_run_options* ro = nullptr;
  EXPECT_OK(hi_run_options_create(&ro));
  EXPECT_OK(hi_run_options_set_terminate(ro, 1));
  std::vector<float> x = random_image(1, 5);
  hi_value* in = image_value(x, 1);
  const char* in_name = "input";
  hi_value* out = nullptr;
  expect_error(hi_session_run(session_, ro, &in_name, &in, 1, nullptr, 1, &out), HI_STATUS_CANCELLED, {});
  EXPECT_EQ(out, nullptr);
  EXPECT_OK(hi_run_options_set_terminate(ro, 0));
  EXPECT_OK(hi_session_run(session_, ro, &in_name, &in, 1, nullptr, 1, &out));  // serves the next run
  EXPECT_OK(hi_value_free(out));
  expect_error(hi_session_run(session_, reinterpret_cast<hi_run_options*>(in), &in_name, &in, 1, nullptr, 1, &out),
               HI_STATUS_INVALID_ARGUMENT, {"'run_options' is a hi_value"});
  EXPECT_OK(hi_value_free(in));
  EXPECT_OK(hi_run_options_free(ro));
}

}  // namespace
