// SessionOptions::kernel_tuning and the kernel cache: by default a new shape's kernel is chosen by
// a rule of thumb and nothing is timed; "time" times the candidates once, keeps the winner in
// the kernel cache file, and the results agree with the reference kernels either way.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "backends/cpu/kernels/fastest.h"
#include "hipinfer/session.h"
#include "model_builder.h"

namespace hi::test {
namespace {

// A 3x3 convolution with C channels over an odd H x W image, which no other test uses, so the
// process has no choice for it yet; Relu after it (fused).
struct ConvShape {
  int64_t c = 19, h = 13, w = 11;
};
std::string conv_model(ConvShape s = {}) {
  ModelBuilder b;
  b.input("x", onnx::TensorProto::FLOAT, {1, s.c, s.h, s.w});
  b.output("y", onnx::TensorProto::FLOAT);
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.f, 0.2f);
  std::vector<float> w(static_cast<size_t>(s.c * s.c * 9)), bias(static_cast<size_t>(s.c));
  for (float& v : w) v = normal(rng);
  for (float& v : bias) v = normal(rng);
  b.initializer_f32("w", {s.c, s.c, 3, 3}, w);
  b.initializer_f32("b", {s.c}, bias);
  auto& conv = b.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  ModelBuilder::set_ints(conv, "pads", {1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"}, "relu");
  return b.bytes();
}

Tensor input(ConvShape s = {}) {
  Tensor x = Tensor::empty(DType::kFloat32, {1, s.c, s.h, s.w});
  for (int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = std::sin(static_cast<float>(i) * 0.61f);
  return x;
}

struct Ran {
  std::vector<float> y;
  int64_t shapes_timed = 0;
};

Ran run(const std::string& bytes, const SessionOptions& o, ConvShape shape = {}) {
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  if (!s.is_ok()) return {};
  RunStats stats;
  auto out = s.value()->run({{"x", input(shape)}}, {}, &stats);
  EXPECT_TRUE(out.is_ok()) << out.status().to_string();
  if (!out.is_ok()) return {};
  const Tensor& y = out.value().at("y");
  return {std::vector<float>(y.data<float>(), y.data<float>() + y.numel()), stats.shapes_timed};
}

void expect_close(const std::vector<float>& got, const std::vector<float>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-4f * (1.f + std::abs(want[i]))) << what << " at " << i;
}

// Two threads on the CPU, a fixed thread count, the kernel cache in `dir`.
SessionOptions cached_options(const std::filesystem::path& dir) {
  SessionOptions o;
  o.devices = {"cpu"};
  o.threads = 2;
  o.adapt_threads = false;
  o.kernel_cache_dir = dir.string();
  return o;
}

// What the tuned session is compared with: the graph as written (no fusion, channels-first),
// without the kernel cache.
SessionOptions unfused_options(SessionOptions o) {
  o.optimization_level = 0;
  o.kernel_cache = false;
  return o;
}

TEST(KernelTuning, AutoTimesNothingAndTimeKeepsTheWinnerInTheCache) {
  const std::string bytes = conv_model();
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "hi_kernel_cache_test";
  std::filesystem::remove_all(dir);
  SessionOptions o = cached_options(dir);
  const SessionOptions reference = unfused_options(o);
  const Ran want = run(bytes, reference);

  const Ran untimed = run(bytes, o);
  EXPECT_EQ(untimed.shapes_timed, 0) << "\"auto\" times nothing";
  expect_close(untimed.y, want.y, "rule of thumb");
  EXPECT_FALSE(std::filesystem::exists(dir)) << "nothing timed, nothing written";

  o.kernel_tuning = "time";
  const Ran timed = run(bytes, o);
  EXPECT_GE(timed.shapes_timed, 1) << "the convolution's candidates are timed";
  expect_close(timed.y, want.y, "timed winner");
  std::vector<std::string> lines;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().extension(), ".tsv");
    std::ifstream in(entry.path());
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  ASSERT_GE(lines.size(), 2u) << "a header and the timed shape";
  EXPECT_EQ(lines[0].rfind("# hipinfer kernel cache", 0), 0u) << lines[0];
  bool found = false;
  for (const std::string& line : lines) found = found || line.find("conv|2|3,3,1,1,1,1,1,1,1,1,19,19,") == 0;
  EXPECT_TRUE(found) << "the convolution's family at 2 threads";

  const Ran again = run(bytes, o);
  EXPECT_EQ(again.shapes_timed, 0) << "a shape is timed once per process";
  std::filesystem::remove_all(dir);
}

// A cache line naming a kernel that does not apply to the shape (written by another build, or by
// hand) must not make "auto" time the candidates: the rule of thumb takes the shape.
TEST(KernelTuning, AutoTimesNothingWhenTheCachedChoiceCannotBeMade) {
  const ConvShape shape{17, 9, 7};
  const std::string bytes = conv_model(shape);
  const std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "hi_kernel_cache_stale";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  {
    // Candidate 1, the first-layer kernel, is only made for 1-4 channels read channels-first.
    std::ofstream out(cpu::kernel_cache_file(dir.string()));
    out << "conv|2|3,3,1,1,1,1,1,1,1,1,17,17,1,110Reluf32\t1,9,7,9,7\t63\t1\n";
  }
  SessionOptions o = cached_options(dir);
  const SessionOptions reference = unfused_options(o);
  const Ran want = run(bytes, reference, shape);
  const Ran got = run(bytes, o, shape);
  EXPECT_EQ(got.shapes_timed, 0) << "\"auto\" timed the shape its cached choice could not make";
  expect_close(got.y, want.y, "rule of thumb after a stale choice");
  std::filesystem::remove_all(dir);
}

TEST(KernelTuning, AnUnknownModeIsRefused) {
  const std::string bytes = conv_model();
  SessionOptions o;
  o.kernel_tuning = "exhaustive";
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.status().message(), "kernel_tuning must be \"auto\" or \"time\", got \"exhaustive\"");
}

}  // namespace
}  // namespace hi::test
