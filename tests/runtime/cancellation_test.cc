// RunOptions: a time limit and terminate from another thread stop a run that would never end (a
// Loop of 2^62 iterations), quickly, with a clean status; the session then runs normally.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "hipinfer/session.h"
#include "model_builder.h"

namespace hi::test {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// y = Loop(M, x): the body adds one to x each iteration, or (empty_body) passes it through with
// no node at all.
std::unique_ptr<Session> loop_session(bool empty_body) {
  ModelBuilder b(17);
  b.input("M", onnx::TensorProto::INT64, {}).input("x", onnx::TensorProto::FLOAT, {1});
  b.output("y", onnx::TensorProto::FLOAT);
  b.initializer_f32("one", {1}, {1.f});
  onnx::NodeProto& loop = b.node("Loop", {"M", "", "x"}, {"y"}, "endless");
  onnx::AttributeProto* a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  onnx::GraphProto* body = a->mutable_g();
  body->set_name("body");
  ModelBuilder::fill_value_info(body->add_input(), "i", onnx::TensorProto::INT64, {});
  ModelBuilder::fill_value_info(body->add_input(), "cond", onnx::TensorProto::BOOL, {});
  ModelBuilder::fill_value_info(body->add_input(), "acc", onnx::TensorProto::FLOAT, {1});
  ModelBuilder::fill_value_info(body->add_output(), "cond", onnx::TensorProto::BOOL, {});
  ModelBuilder::fill_value_info(body->add_output(), empty_body ? "acc" : "next", onnx::TensorProto::FLOAT, {1});
  if (!empty_body) {
    onnx::NodeProto* add = body->add_node();
    add->set_op_type("Add");
    add->set_name("step");
    add->add_input("acc");
    add->add_input("one");
    add->add_output("next");
  }
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size());
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  return s.is_ok() ? std::move(s).value() : nullptr;
}

TensorMap loop_inputs(int64_t trips) {
  return {{"M", Tensor::scalar<int64_t>(trips)}, {"x", Tensor::scalar<float>(0.f).reshaped({1})}};
}

constexpr int64_t kEndless = int64_t{1} << 62;

void expect_serves_next_run(const Session& s, int64_t trips, float expected) {
  auto out = s.run(loop_inputs(trips));
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value().at("y").data<float>()[0], expected);
}

TEST(RunTimeout, StopsAnEndlessLoopWithinTheLimitPlusOneSecond) {
  for (bool empty_body : {false, true}) {
    SCOPED_TRACE(empty_body ? "empty body" : "body of one Add");
    auto s = loop_session(empty_body);
    ASSERT_TRUE(s);
    RunOptions ro;
    ro.timeout_ms = 200;
    const auto start = Clock::now();
    auto out = s->run(loop_inputs(kEndless), {}, nullptr, &ro);
    const double took = seconds_since(start);
    ASSERT_FALSE(out.is_ok());
    EXPECT_EQ(out.status().code(), StatusCode::kDeadlineExceeded);
    EXPECT_NE(out.status().message().find("200 ms"), std::string::npos) << out.status().message();
    EXPECT_NE(out.status().message().find("endless"), std::string::npos) << out.status().message();
    EXPECT_LT(took, 1.2);
    expect_serves_next_run(*s, 5, empty_body ? 0.f : 5.f);
  }
}

TEST(RunTerminate, FromAnotherThreadStopsTheRunWithinASecond) {
  auto s = loop_session(false);
  ASSERT_TRUE(s);
  RunOptions ro;
  Clock::time_point asked;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    asked = Clock::now();
    ro.terminate = true;
  });
  auto out = s->run(loop_inputs(kEndless), {}, nullptr, &ro);
  const double after_asking = seconds_since(asked);
  stopper.join();
  ASSERT_FALSE(out.is_ok());
  EXPECT_EQ(out.status().code(), StatusCode::kCancelled);
  EXPECT_NE(out.status().message().find("terminate"), std::string::npos) << out.status().message();
  EXPECT_LT(after_asking, 1.0);
  expect_serves_next_run(*s, 3, 3.f);
  // A run started while the flag is still set stops at once; cleared, the options serve again.
  EXPECT_EQ(s->run(loop_inputs(3), {}, nullptr, &ro).status().code(), StatusCode::kCancelled);
  ro.terminate = false;
  EXPECT_TRUE(s->run(loop_inputs(3), {}, nullptr, &ro).is_ok());
}

TEST(RunTerminate, StopsOnlyTheRunsUsingThoseOptions) {
  auto s = loop_session(false);
  ASSERT_TRUE(s);
  RunOptions stop_me, other;
  other.timeout_ms = 60000;
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    stop_me.terminate = true;
  });
  Result<TensorMap> endless = Status::ok(), finite = Status::ok();
  std::thread runner([&] { finite = s->run(loop_inputs(20000), {}, nullptr, &other); });
  endless = s->run(loop_inputs(kEndless), {}, nullptr, &stop_me);
  runner.join();
  stopper.join();
  EXPECT_EQ(endless.status().code(), StatusCode::kCancelled);
  ASSERT_TRUE(finite.is_ok()) << finite.status().to_string();
  EXPECT_EQ(finite.value().at("y").data<float>()[0], 20000.f);
}

TEST(RunTimeout, StopsInsideALongKernel) {
  // One node: 4000 int32 products of 64x64 matrices on the reference kernel, about a second.
  ModelBuilder b;
  b.input("a", onnx::TensorProto::INT32, {4000, 64, 64}).input("b", onnx::TensorProto::INT32, {4000, 64, 64});
  b.output("y", onnx::TensorProto::INT32);
  b.node("MatMul", {"a", "b"}, {"y"}, "long_product");
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size());
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  const Tensor x = Tensor::zeros(DType::kInt32, {4000, 64, 64});
  RunOptions ro;
  ro.timeout_ms = 50;
  const auto start = Clock::now();
  auto out = s.value()->run({{"a", x}, {"b", x}}, {}, nullptr, &ro);
  const double took = seconds_since(start);
  ASSERT_FALSE(out.is_ok()) << "the product finished in " << took << " s";
  EXPECT_EQ(out.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(out.status().message().find("long_product"), std::string::npos) << out.status().message();
  EXPECT_LT(took, 0.5);
}

TEST(RunTimeout, StopsALongRecurrentSequenceBetweenSteps) {
  // One RNN node: 4000 steps of a 1024-wide hidden state, each a 1024x1024 product.
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {4000, 1, 1}).input("W", onnx::TensorProto::FLOAT, {1, 1024, 1});
  b.input("R", onnx::TensorProto::FLOAT, {1, 1024, 1024}).output("y", onnx::TensorProto::FLOAT);
  auto& n = b.node("RNN", {"x", "W", "R"}, {"y"}, "long_sequence");
  ModelBuilder::set_int(n, "hidden_size", 1024);
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.threads = 1;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(s.is_ok()) << s.status().to_string();
  RunOptions ro;
  ro.timeout_ms = 20;
  const auto start = Clock::now();
  auto out = s.value()->run({{"x", Tensor::zeros(DType::kFloat32, {4000, 1, 1})},
                             {"W", Tensor::zeros(DType::kFloat32, {1, 1024, 1})},
                             {"R", Tensor::zeros(DType::kFloat32, {1, 1024, 1024})}},
                            {}, nullptr, &ro);
  const double took = seconds_since(start);
  ASSERT_FALSE(out.is_ok()) << "the sequence finished in " << took << " s";
  EXPECT_EQ(out.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_NE(out.status().message().find("long_sequence"), std::string::npos) << out.status().message();
  EXPECT_LT(took, 0.5);
}

TEST(RunTimeout, NegativeIsRefused) {
  auto s = loop_session(false);
  ASSERT_TRUE(s);
  RunOptions ro;
  ro.timeout_ms = -1;
  auto out = s->run(loop_inputs(1), {}, nullptr, &ro);
  EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hi::test
