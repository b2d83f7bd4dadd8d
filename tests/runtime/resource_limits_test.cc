// A session's own memory limit, the constant-folding limit and the bounded plan cache: what keeps
// a small hostile model (or an endless stream of new shapes) from taking the machine.
#include <gtest/gtest.h>

#include <chrono>

#include "hipinfer/session.h"
#include "model_builder.h"

namespace hi::test {
namespace {

constexpr int64_t kMiB = int64_t{1} << 20;

std::unique_ptr<Session> make(const ModelBuilder& b, SessionOptions o = {}) {
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  return s.is_ok() ? std::move(s).value() : nullptr;
}

// y = Relu(x): the output is as large as the (caller's) input.
ModelBuilder relu_model() {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {-1, 1024}, {"n"}).output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"y"}, "big_relu");
  return b;
}

TEST(SessionMemoryLimit, ARunPastItFailsNamingTheNodeAndTheLimit) {
  SessionOptions o;
  o.memory_limit = kMiB;
  auto s = make(relu_model(), o);
  ASSERT_TRUE(s);
  auto out = s->run({{"x", Tensor::zeros(DType::kFloat32, {512, 1024})}});  // 2 MiB output
  ASSERT_FALSE(out.is_ok());
  EXPECT_EQ(out.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(out.status().message().find("big_relu"), std::string::npos) << out.status().message();
  EXPECT_NE(out.status().message().find("memory limit of 1 MiB"), std::string::npos) << out.status().message();
  // Within the limit it runs, and the session serves it as if nothing had failed.
  auto small = s->run({{"x", Tensor::zeros(DType::kFloat32, {64, 1024})}});
  ASSERT_TRUE(small.is_ok()) << small.status().to_string();
}

TEST(SessionMemoryLimit, EachSessionHasItsOwn) {
  SessionOptions tight;
  tight.memory_limit = kMiB;
  auto limited = make(relu_model(), tight);
  auto unlimited = make(relu_model());  // created after: inherits nothing
  ASSERT_TRUE(limited && unlimited);
  const Tensor x = Tensor::zeros(DType::kFloat32, {512, 1024});
  EXPECT_FALSE(limited->run({{"x", x}}).is_ok());
  EXPECT_TRUE(unlimited->run({{"x", x}}).is_ok());
  EXPECT_EQ(unlimited->memory_stats().limit_bytes, 0);
  EXPECT_EQ(limited->memory_stats().limit_bytes, kMiB);
}

TEST(SessionMemoryLimit, OutputsCountUntilReleased) {
  SessionOptions o;
  o.memory_limit = 3 * kMiB;
  auto s = make(relu_model(), o);
  ASSERT_TRUE(s);
  const Tensor x = Tensor::zeros(DType::kFloat32, {512, 1024});  // 2 MiB output
  auto first = s->run({{"x", x}});
  ASSERT_TRUE(first.is_ok()) << first.status().to_string();
  EXPECT_GE(s->memory_stats().in_use_bytes, 2 * kMiB);
  EXPECT_EQ(s->run({{"x", x}}).status().code(), StatusCode::kOutOfMemory);  // the first output is still held
  first = TensorMap{};
  EXPECT_LT(s->memory_stats().in_use_bytes, kMiB);
  EXPECT_TRUE(s->run({{"x", x}}).is_ok());
}

TEST(SessionMemoryLimit, WeightsCountAtCreate) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {256, 1024}).output("y", onnx::TensorProto::FLOAT);
  b.initializer_f32("w", {256, 1024}, std::vector<float>(256 * 1024, 0.5f));  // 1 MiB
  b.node("Add", {"x", "w"}, {"y"});
  SessionOptions o;
  o.memory_limit = kMiB / 2;
  const std::string bytes = b.bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.status().code(), StatusCode::kOutOfMemory) << s.status().to_string();
  EXPECT_NE(s.status().message().find("memory limit"), std::string::npos) << s.status().message();
  o.memory_limit = 8 * kMiB;
  auto fits = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(fits.is_ok()) << fits.status().to_string();
  EXPECT_GE(fits.value()->memory_stats().in_use_bytes, kMiB);
}

// Protobuf's parsed form of 2 M empty strings is about 80 MiB from 4 MB on disk: the parse
// itself is charged to the session's limit, so it fails there instead of growing the process.
TEST(SessionMemoryLimit, ParsingTheModelCounts) {
  ModelBuilder b;
  b.output("y", onnx::TensorProto::STRING);
  b.node("Identity", {"s"}, {"y"}, "copy_strings");
  auto* t = b.proto().mutable_graph()->add_initializer();
  t->set_name("s");
  t->set_data_type(onnx::TensorProto::STRING);
  constexpr int kStrings = 2'000'000;
  t->add_dims(kStrings);
  for (int i = 0; i < kStrings; ++i) t->add_string_data();
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.memory_limit = 16 * kMiB;
  auto limited = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(limited.is_ok());
  EXPECT_EQ(limited.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(limited.status().message().find("parsing the model"), std::string::npos) << limited.status().message();
  EXPECT_NE(limited.status().message().find("memory limit of 16 MiB"), std::string::npos) << limited.status().message();
  o.memory_limit = 1024 * kMiB;
  auto roomy = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_TRUE(roomy.is_ok()) << roomy.status().to_string();
  auto out = roomy.value()->run(TensorMap{});
  ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  EXPECT_EQ(out.value().at("y").numel(), kStrings);
}

TEST(SessionMemoryLimit, NegativeIsRefused) {
  SessionOptions o;
  o.memory_limit = -1;
  const std::string bytes = relu_model().bytes();
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.status().message().find("memory_limit"), std::string::npos);
}

// y = x + ConstantOfShape(shape): a 100-byte model asking for `elements` floats.
ModelBuilder constant_of_shape_model(int64_t elements) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1}).output("y", onnx::TensorProto::FLOAT);
  b.initializer_i64("shape", {1}, {elements});
  b.node("ConstantOfShape", {"shape"}, {"big"}, "huge_fill");
  b.node("Add", {"x", "big"}, {"y"}, "add");
  return b;
}

TEST(ConstantFoldingLimit, AHugeConstantIsNotFoldedAtCreate) {
  SessionOptions o;
  o.memory_limit = 64 * kMiB;
  auto s = make(constant_of_shape_model(int64_t{1} << 32), o);  // 16 GiB if folded
  ASSERT_TRUE(s);
  EXPECT_LT(s->memory_stats().peak_bytes, kMiB);
  // Running it needs the memory: the limit stops it at the node, before allocating.
  auto out = s->run({{"x", Tensor::zeros(DType::kFloat32, {1})}});
  ASSERT_FALSE(out.is_ok());
  EXPECT_EQ(out.status().code(), StatusCode::kOutOfMemory);
  EXPECT_NE(out.status().message().find("huge_fill"), std::string::npos) << out.status().message();
}

TEST(ConstantFoldingLimit, SmallConstantsStillFold) {
  auto s = make(constant_of_shape_model(1000));
  ASSERT_TRUE(s);
  EXPECT_EQ(s->placement().nodes.size(), 1u);  // the ConstantOfShape was folded away
  SessionOptions none;
  none.constant_folding_limit = 1000;  // 4000 bytes: too big now
  auto kept = make(constant_of_shape_model(1000), none);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->placement().nodes.size(), 2u);
  auto a = s->run({{"x", Tensor::scalar<float>(2.f).reshaped({1})}});
  auto b = kept->run({{"x", Tensor::scalar<float>(2.f).reshaped({1})}});
  ASSERT_TRUE(a.is_ok() && b.is_ok());
  EXPECT_EQ(a.value().at("y").numel(), 1000);
  EXPECT_EQ(b.value().at("y").data<float>()[999], 2.f);
}

// Kernels' scratch beside their output (Pad's index maps, pooling's per-position data) counts
// too: these tiny models used to fill the machine's memory before failing.
TEST(SessionMemoryLimit, KernelScratchCountsAndFailsBeforeItIsBuilt) {
  ModelBuilder pad;
  pad.input("x", onnx::TensorProto::FLOAT, {1}).output("y", onnx::TensorProto::FLOAT);
  pad.initializer_i64("pads", {2}, {int64_t{2} << 20, 0});  // an 8 MiB output with 16 MiB of index maps
  pad.node("Pad", {"x", "pads"}, {"y"}, "wide_pad");
  ModelBuilder pool;
  pool.input("x", onnx::TensorProto::FLOAT, {1, 1, 4, 4}).output("y", onnx::TensorProto::FLOAT);
  auto& p = pool.node("AveragePool", {"x"}, {"y"}, "wide_pool");
  ModelBuilder::set_ints(p, "kernel_shape", {2, 2});
  ModelBuilder::set_ints(p, "pads", {1000000000, 1000000000, 1000000000, 1000000000});
  ModelBuilder::set_int(p, "count_include_pad", 1);
  SessionOptions o;
  o.memory_limit = 16 * kMiB;
  for (auto* b : {&pad, &pool}) {
    const auto start = std::chrono::steady_clock::now();
    const std::string bytes = b->bytes();
    auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
    Status st =
        s.is_ok()
            ? s.value()->run({{"x", Tensor::zeros(DType::kFloat32, b == &pad ? Shape{1} : Shape{1, 1, 4, 4})}}).status()
            : s.status();
    ASSERT_FALSE(st.is_ok());
    EXPECT_TRUE(st.code() == StatusCode::kOutOfMemory || st.code() == StatusCode::kInvalidArgument) << st.to_string();
    EXPECT_NE(st.message().find(b == &pad ? "wide_pad" : "wide_pool"), std::string::npos) << st.message();
    if (s.is_ok()) {
      EXPECT_LT(s.value()->memory_stats().peak_bytes, 16 * kMiB);
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
  }
}

// The reference kernels' working copies count as well: a Resize whose 8 MiB output fits a 16 MiB
// limit but whose double-precision passes (16 MiB more) do not, and an RNN whose sequence-long
// state and projected inputs (16 MiB) sit beside its 8 MiB output.
TEST(SessionMemoryLimit, ReferenceKernelWorkingCopiesCount) {
  ModelBuilder resize(19);
  resize.input("x", onnx::TensorProto::FLOAT, {1, 1, 1, 1}).output("y", onnx::TensorProto::FLOAT);
  resize.initializer_i64("sizes", {4}, {1, 1, 1024, 2048});
  auto& r = resize.node("Resize", {"x", "", "", "sizes"}, {"y"}, "tall_resize");
  ModelBuilder::set_string(r, "mode", "linear");
  ModelBuilder rnn;
  rnn.input("x", onnx::TensorProto::FLOAT, {4096, 32, 1}).input("W", onnx::TensorProto::FLOAT, {1, 16, 1});
  rnn.input("R", onnx::TensorProto::FLOAT, {1, 16, 16}).output("y", onnx::TensorProto::FLOAT);
  auto& n = rnn.node("RNN", {"x", "W", "R"}, {"y"}, "long_rnn");
  ModelBuilder::set_int(n, "hidden_size", 16);
  for (int limit_mib : {16, 64}) {
    SessionOptions o;
    o.memory_limit = limit_mib * kMiB;
    SCOPED_TRACE("memory limit " + std::to_string(limit_mib) + " MiB");
    auto rs = make(resize, o);
    ASSERT_TRUE(rs);
    auto out = rs->run({{"x", Tensor::zeros(DType::kFloat32, {1, 1, 1, 1})}});
    auto ns = make(rnn, o);
    ASSERT_TRUE(ns);
    auto out2 = ns->run({{"x", Tensor::zeros(DType::kFloat32, {4096, 32, 1})},
                         {"W", Tensor::zeros(DType::kFloat32, {1, 16, 1})},
                         {"R", Tensor::zeros(DType::kFloat32, {1, 16, 16})}});
    if (limit_mib == 64) {  // the same runs, with room for their working copies
      EXPECT_TRUE(out.is_ok()) << out.status().to_string();
      EXPECT_TRUE(out2.is_ok()) << out2.status().to_string();
      continue;
    }
    for (const auto& [st, node] : {std::pair{out.status(), "tall_resize"}, std::pair{out2.status(), "long_rnn"}}) {
      ASSERT_FALSE(st.is_ok()) << node << " ran within the limit";
      EXPECT_EQ(st.code(), StatusCode::kOutOfMemory) << st.to_string();
      EXPECT_NE(st.message().find(node), std::string::npos) << st.message();
    }
    EXPECT_LE(rs->memory_stats().peak_bytes, 16 * kMiB);
    EXPECT_LE(ns->memory_stats().peak_bytes, 16 * kMiB);
  }
}

// A graph whose intermediate r lives in the planned arena, for [n, 1024] inputs of any n.
std::unique_ptr<Session> relu_neg_session() {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {-1, 1024}, {"n"}).output("y", onnx::TensorProto::FLOAT);
  b.node("Relu", {"x"}, {"r"});
  b.node("Neg", {"r"}, {"y"});
  return make(b);
}

void run_twice(Session& s, int64_t n) {  // the first run of a shape makes its plan, the second uses an arena
  for (int run = 0; run < 2; ++run) {
    auto out = s.run({{"x", Tensor::zeros(DType::kFloat32, {n, 1024})}});
    ASSERT_TRUE(out.is_ok()) << out.status().to_string();
  }
}

TEST(PlanCache, ManyDistinctShapesHoldABoundedAmount) {
  auto s = relu_neg_session();
  ASSERT_TRUE(s);
  constexpr int64_t kShapes = 100, kRow = 1024 * sizeof(float);
  for (int64_t n = 1; n <= kShapes; ++n) run_twice(*s, n);
  // Unbounded, an idle arena per shape would stay: kShapes * (kShapes + 1) / 2 rows (20 MiB).
  // The pool keeps 4 arenas, the largest.
  const int64_t held = s->memory_stats().in_use_bytes;
  EXPECT_GT(held, 0);
  EXPECT_LE(held, 4 * kShapes * kRow);
}

TEST(PlanCache, SmallerShapesReuseALargerIdleArena) {
  auto s = relu_neg_session();
  ASSERT_TRUE(s);
  run_twice(*s, 300);
  const int64_t held = s->memory_stats().in_use_bytes;
  EXPECT_GE(held, 300 * 1024 * int64_t{sizeof(float)});
  // Every smaller shape runs in the one idle arena: nothing more is allocated and kept.
  for (int64_t n = 1; n < 300; n += 7) run_twice(*s, n);
  EXPECT_EQ(s->memory_stats().in_use_bytes, held);
}

}  // namespace
}  // namespace hi::test
