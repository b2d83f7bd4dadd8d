#include "model_runner.h"

#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <future>

#include "model_config.h"
#include "server_test_util.h"

namespace hi::server {
namespace {

inference::ModelConfig parse_config(const std::string& text, const std::filesystem::path& dir,
                                    std::vector<std::string>* warnings = nullptr) {
  const auto path = dir / "config.pbtxt";
  std::ofstream(path) << text;
  auto config = read_model_config(path.string(), warnings);
  EXPECT_TRUE(config.is_ok()) << config.status().message();
  return config.is_ok() ? config.value() : inference::ModelConfig();
}

InferRequest request(std::vector<float> x, int64_t rows) {
  InferRequest r;
  r.inputs.emplace("x", Tensor::from_vector<float>(x, {rows, 3}));
  std::vector<int64_t> ids(static_cast<size_t>(rows * 2));
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>(i) * 100 + rows;
  r.inputs.emplace("ids", Tensor::from_vector<int64_t>(ids, {rows, 2}));
  return r;
}

InferResult run_one(ModelRunner& runner, InferRequest r) {
  std::promise<InferResult> done;
  auto answer = done.get_future();
  runner.submit(std::move(r), [&done](InferResult&& result) { done.set_value(std::move(result)); });
  return answer.get();
}

class ModelRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = test::temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    model_ = test::write_double_model(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::unique_ptr<ModelRunner> make(const std::string& config_text, RunnerOptions options = {}) {
    options.devices = {"cpu"};
    options.threads = 1;  // no OpenMP team: scripts/tsan-check runs these, and libgomp is not instrumented
    auto runner = ModelRunner::create("double", 1, model_, parse_config(config_text, dir_), options);
    EXPECT_TRUE(runner.is_ok()) << runner.status().message();
    return runner.is_ok() ? std::move(runner).value() : nullptr;
  }
  std::filesystem::path dir_;
  std::string model_;
};

TEST_F(ModelRunnerTest, ConfigIsCompletedFromTheModel) {
  auto runner = make("max_batch_size: 8");
  ASSERT_TRUE(runner);
  const auto& config = runner->config();
  EXPECT_EQ(config.name(), "double");
  ASSERT_EQ(config.input_size(), 2);
  EXPECT_EQ(config.input(0).name(), "x");
  EXPECT_EQ(config.input(0).data_type(), inference::TYPE_FP32);
  EXPECT_EQ(std::vector<int64_t>(config.input(0).dims().begin(), config.input(0).dims().end()),
            (std::vector<int64_t>{3}));
  EXPECT_EQ(config.output(1).data_type(), inference::TYPE_INT64);
  EXPECT_EQ(config.instance_group_size(), 1);
}

TEST_F(ModelRunnerTest, ConfigThatContradictsTheModelIsRefusedByName) {
  auto check = [&](const std::string& text, std::initializer_list<const char*> parts) {
    auto runner = ModelRunner::create("double", 1, model_, parse_config(text, dir_), RunnerOptions{});
    ASSERT_FALSE(runner.is_ok()) << text;
    for (const char* p : parts)
      EXPECT_NE(runner.status().message().find(p), std::string::npos) << p << " not in " << runner.status().message();
  };
  check("max_batch_size: 4 input { name: \"x\" data_type: TYPE_INT32 dims: [3] }", {"'x'", "TYPE_INT32", "TYPE_FP32"});
  check("max_batch_size: 4 input { name: \"x\" data_type: TYPE_FP32 dims: [4] }", {"'x'", "[4]", "[3]"});
  check("input { name: \"nope\" data_type: TYPE_FP32 dims: [3] }", {"'nope'", "not in the model", "x, ids"});
  check("name: \"other\"", {"other", "double"});
  check("max_batch_size: 4 dynamic_batching { preferred_batch_size: [8] }", {"preferred_batch_size 8"});
  check("dynamic_batching { }", {"max_batch_size > 0"});
}

TEST_F(ModelRunnerTest, ConfigFileErrorsNameTheLineAndUnknownFieldsWarn) {
  std::vector<std::string> warnings;
  parse_config("max_batch_size: 2\noptimization { execution_accelerators { } }\n", dir_, &warnings);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("optimization"), std::string::npos) << warnings[0];
  const auto path = dir_ / "bad.pbtxt";
  std::ofstream(path) << "max_batch_size: 2\ninput { name: \"x\" dims: [3 }\n";
  auto bad = read_model_config(path.string(), nullptr);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("bad.pbtxt:2:"), std::string::npos) << bad.status().message();
}

TEST_F(ModelRunnerTest, AnswersCorrectlyAndChecksRequestsAgainstTheConfig) {
  auto runner = make("max_batch_size: 4");
  ASSERT_TRUE(runner);
  InferResult ok = run_one(*runner, request({1, 2, 3, -4, 5.5f, 6}, 2));
  ASSERT_TRUE(ok.error.ok()) << ok.error.message;
  EXPECT_EQ(ok.outputs.at("y").data<float>()[4], 11.0f);
  EXPECT_EQ(ok.outputs.at("ids_out").data<int64_t>()[3], 302);

  auto expect_bad = [&](InferRequest r, std::initializer_list<const char*> parts) {
    InferResult res = run_one(*runner, std::move(r));
    EXPECT_EQ(res.error.code, ErrorCode::kInvalidArgument) << res.error.message;
    for (const char* p : parts)
      EXPECT_NE(res.error.message.find(p), std::string::npos) << p << " not in " << res.error.message;
  };
  InferRequest wrong_type = request({1, 2, 3}, 1);
  wrong_type.inputs["x"] = Tensor::from_vector<int32_t>({1, 2, 3}, {1, 3});
  expect_bad(std::move(wrong_type), {"'x'", "INT32", "FP32"});
  InferRequest wrong_shape = request({1, 2, 3}, 1);
  wrong_shape.inputs["x"] = Tensor::from_vector<float>({1, 2, 3, 4}, {1, 4});
  expect_bad(std::move(wrong_shape), {"'x'", "[1, 4]", "[-1, 3]"});
  InferRequest missing = request({1, 2, 3}, 1);
  missing.inputs.erase("ids");
  expect_bad(std::move(missing), {"'ids'", "missing"});
  InferRequest extra = request({1, 2, 3}, 1);
  extra.inputs.emplace("z", Tensor::scalar<float>(1));
  expect_bad(std::move(extra), {"no input 'z'"});
  expect_bad(request(std::vector<float>(15, 1.0f), 5), {"batch size is 5", "max_batch_size 4"});
  InferRequest unknown_output = request({1, 2, 3}, 1);
  unknown_output.outputs = {"w"};
  expect_bad(std::move(unknown_output), {"no output 'w'"});
  EXPECT_EQ(runner->stats().failure, 6);
  EXPECT_EQ(runner->stats().success, 1);
}

TEST_F(ModelRunnerTest, DynamicBatchingMergesConcurrentRequestsAndSplitsTheAnswers) {
  auto runner = make("max_batch_size: 16 dynamic_batching { max_queue_delay_microseconds: 200000 }");
  ASSERT_TRUE(runner);
  constexpr int kRequests = 7;
  std::vector<std::promise<InferResult>> done(kRequests);
  std::vector<std::vector<float>> inputs;
  for (int r = 0; r < kRequests; ++r) {
    const int64_t rows = 1 + r % 3;
    std::vector<float> x(static_cast<size_t>(rows * 3));
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(r * 10 + static_cast<int>(i)) - 0.5f;
    inputs.push_back(x);
    runner->submit(request(x, rows), [&done, r](InferResult&& res) { done[r].set_value(std::move(res)); });
  }
  for (int r = 0; r < kRequests; ++r) {
    InferResult res = done[r].get_future().get();
    ASSERT_TRUE(res.error.ok()) << res.error.message;
    const Tensor& y = res.outputs.at("y");
    ASSERT_EQ(y.dim(0), 1 + r % 3) << "request " << r;
    for (size_t i = 0; i < inputs[r].size(); ++i) ASSERT_EQ(y.data<float>()[i], 2 * inputs[r][i]) << r << " " << i;
    EXPECT_EQ(res.outputs.at("ids_out").data<int64_t>()[0], 1 + r % 3);
  }
  const RunnerStats stats = runner->stats();
  EXPECT_EQ(stats.success, kRequests);
  EXPECT_EQ(stats.inference_count, 13);  // rows 1+r%3 for r = 0..6
  EXPECT_LT(stats.execution_count, kRequests) << "no two requests shared a run";
}

TEST_F(ModelRunnerTest, AFullQueueRejectsAndEveryAcceptedRequestIsAnsweredOnce) {
  auto runner = make(
      "max_batch_size: 4 dynamic_batching { max_queue_delay_microseconds: 20000 default_queue_policy "
      "{ max_queue_size: 3 } }");
  ASSERT_TRUE(runner);
  constexpr int kRequests = 64;
  std::atomic<int> answered{0}, rejected{0}, succeeded{0};
  std::vector<std::atomic<int>> calls(kRequests);
  for (int r = 0; r < kRequests; ++r)
    runner->submit(request({1, 2, 3}, 1), [&, r](InferResult&& res) {
      calls[r] += 1;
      answered += 1;
      if (res.error.code == ErrorCode::kUnavailable) {
        EXPECT_NE(res.error.message.find("queue is full (3"), std::string::npos) << res.error.message;
        rejected += 1;
      } else if (res.error.ok()) {
        succeeded += 1;
      }
    });
  runner->drain();
  EXPECT_EQ(answered.load(), kRequests);
  EXPECT_GT(rejected.load(), 0);
  EXPECT_EQ(succeeded.load() + rejected.load(), kRequests);
  for (int r = 0; r < kRequests; ++r) EXPECT_EQ(calls[r].load(), 1) << r;
  InferResult after = run_one(*runner, request({1, 2, 3}, 1));
  EXPECT_EQ(after.error.code, ErrorCode::kUnavailable);
  EXPECT_NE(after.error.message.find("shutting down"), std::string::npos);
}

TEST_F(ModelRunnerTest, ARequestWhoseTimeoutPassedInTheQueueIsNotRun) {
  auto runner = make("max_batch_size: 4");
  ASSERT_TRUE(runner);
  InferRequest late = request({1, 2, 3}, 1);
  late.timeout_ms = 5;
  late.received = Clock::now() - std::chrono::seconds(1);
  InferResult res = run_one(*runner, std::move(late));
  EXPECT_EQ(res.error.code, ErrorCode::kDeadlineExceeded) << res.error.message;
  EXPECT_EQ(runner->stats().execution_count, 0);
}

TEST_F(ModelRunnerTest, TheQueuePolicyDecidesWhetherARequestMayOverrideItsTimeout) {
  // A request that asks for 5 ms and has already waited a second, against a config default of 60 s.
  auto answer_late_request = [&](bool allow_override) {
    auto runner =
        make(str("max_batch_size: 4 dynamic_batching { default_queue_policy { "
                 "default_timeout_microseconds: 60000000 allow_timeout_override: ",
                 allow_override ? "true" : "false", " } }"));
    EXPECT_TRUE(runner);
    InferRequest late = request({1, 2, 3}, 1);
    late.timeout_ms = 5;
    late.received = Clock::now() - std::chrono::seconds(1);
    return runner ? run_one(*runner, std::move(late)).error : Error{ErrorCode::kInternal, "no runner"};
  };
  const Error strict = answer_late_request(false);
  EXPECT_TRUE(strict.ok()) << "the request's 5 ms replaced the config's 60 s: " << strict.message;
  EXPECT_EQ(answer_late_request(true).code, ErrorCode::kDeadlineExceeded);
}

TEST_F(ModelRunnerTest, SeveralInstancesServeOneQueue) {
  auto runner = make("max_batch_size: 4 instance_group { count: 3 kind: KIND_CPU }");
  ASSERT_TRUE(runner);
  std::vector<std::future<InferResult>> answers;
  std::vector<std::promise<InferResult>> done(30);
  for (int r = 0; r < 30; ++r) {
    answers.push_back(done[r].get_future());
    runner->submit(request({float(r), 0, 1}, 1), [&done, r](InferResult&& res) { done[r].set_value(std::move(res)); });
  }
  for (int r = 0; r < 30; ++r) {
    InferResult res = answers[r].get();
    ASSERT_TRUE(res.error.ok()) << res.error.message;
    EXPECT_EQ(res.outputs.at("y").data<float>()[0], 2.0f * r);
  }
}

}  // namespace
}  // namespace hi::server
