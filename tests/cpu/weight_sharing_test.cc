// Kernels for new input shapes reuse what does not depend on the shape: the packed weights one op
// shares among its kernels (backends/cpu/kernels/weight_cache.h) and the timed choice of kernel for a family of
// sizes (KernelChoices, backends/cpu/kernels/fastest.h). Kernels made through one cache for awkward sizes must
// still compute the convolution and the product exactly as kernels of their own do.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "backends/cpu/kernels/fastest.h"
#include "cpu/kernel_test_util.h"
#include "backends/cpu/kernels/kernels.h"
#include "core/threading.h"
#include "backends/cpu/kernels/weight_cache.h"

namespace hi::cpu {
namespace {

TEST(WeightCache, PacksOnceForAllHoldersAndFreesWithTheLast) {
  WeightCache cache;
  const float weights[4] = {1, 2, 3, 4}, other[4] = {};
  int packs = 0;
  auto pack = [&] {
    ++packs;
    return std::vector<float>(weights, weights + 4);
  };
  auto a = cache.get<std::vector<float>>(weights, "plain", pack);
  auto b = cache.get<std::vector<float>>(weights, "plain", pack);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(packs, 1);
  // Another layout, or other weights under the same layout, are packed apart.
  auto c = cache.get<std::vector<float>>(weights, "blocked", pack);
  auto d = cache.get<std::vector<float>>(other, "plain", pack);
  EXPECT_NE(c.get(), a.get());
  EXPECT_NE(d.get(), a.get());
  EXPECT_EQ(packs, 3);
  EXPECT_EQ(cache.live_entries(), 3u);
  // A form no kernel holds any more is freed, and packed again when asked for.
  a.reset();
  b.reset();
  EXPECT_EQ(cache.live_entries(), 2u);
  auto e = cache.get<std::vector<float>>(weights, "plain", pack);
  EXPECT_EQ(packs, 4);
  EXPECT_EQ(*e, std::vector<float>(weights, weights + 4));
}

TEST(KernelChoices, TimesAFewSizesThenTakesTheNearest) {
  KernelChoices choices("test nearest");
  EXPECT_EQ(choices.find("conv 3x3", {1, 32, 32}, 1024), -1);
  choices.remember("conv 3x3", {1, 10, 10}, 100, 0);
  EXPECT_EQ(choices.find("conv 3x3", {1, 10, 10}, 100), 0);
  EXPECT_EQ(choices.find("conv 3x3", {1, 32, 32}, 1024), -1) << "a second size is timed too";
  choices.remember("conv 3x3", {1, 32, 32}, 1000, 1);
  choices.remember("conv 3x3", {1, 100, 100}, 10000, 2);
  EXPECT_EQ(choices.find("conv 3x3", {1, 55, 55}, 3000), 1);  // 3x from 1000, 3.3x from 10000
  EXPECT_EQ(choices.find("conv 3x3", {1, 90, 90}, 8000), 2);
  EXPECT_EQ(choices.find("conv 3x3", {1, 4, 4}, 16), 0);
  EXPECT_EQ(choices.find("conv 3x3", {1, 32, 32}, 1000), 1) << "a timed size keeps its own winner";
  EXPECT_EQ(choices.find("conv 1x1", {1, 32, 32}, 1024), -1) << "families are apart";
}

TEST(KernelChoices, ARunOnFewerThreadsTakesTheFullCountsWinnerUntimed) {
  KernelChoices choices("test reduced");
  {
    ThreadScope two(2);
    choices.remember("conv 3x3", {1, 10, 10}, 100, 3);
  }
  ThreadScope one(1);
  EXPECT_EQ(choices.find("conv 3x3", {1, 10, 10}, 100), -1) << "a session asking for one thread times its own";
  RegionLoad run;
  run.full_threads = 2;
  RegionLoadScope scope(&run);
  EXPECT_EQ(choices.find("conv 3x3", {1, 10, 10}, 100), 3) << "reduced from two: two's winner";
  EXPECT_EQ(choices.find("conv 3x3", {1, 40, 40}, 1600), 3) << "and for a size two never timed, the nearest";
  EXPECT_EQ(choices.find("conv 1x1", {1, 10, 10}, 100), -1) << "nothing known at two: timed";
  choices.remember("conv 3x3", {1, 10, 10}, 100, 5);
  EXPECT_EQ(choices.find("conv 3x3", {1, 10, 10}, 100), 5) << "one's own winner, once there is one";
}

// The kernel cache file: timed winners of other processes are read once, lines that do not read
// are skipped, and a new winner is appended as one line.
TEST(KernelChoices, ReadsTheCacheFileAndAppendsToIt) {
  const std::string path = testing::TempDir() + "/hi_choices_test.tsv";
  {
    std::ofstream out(path);
    out << "# hipinfer kernel cache: header\n"
        << "test file|2|conv 5x5\t1,20,20\t400\t4\n"
        << "test file|2|conv 5x5\t1,30\n"                     // cut short
        << "test file|2|conv 7x7\t1,8,8\t64\tnot a number\n"  // corrupt
        << "test file|2|conv 7x7\t1,9,9\t81\t99\n";           // no such candidate
  }
  KernelChoices choices("test file");
  ThreadScope two(2);
  KernelTuning tuning;
  tuning.cache_file = path;
  {
    KernelTuningScope scope(&tuning);
    EXPECT_FALSE(time_new_shapes()) << "a session's default: nothing timed";
    EXPECT_EQ(choices.find("conv 5x5", {1, 20, 20}, 400), 4) << "read from the file";
    EXPECT_EQ(choices.find("conv 5x5", {1, 30, 30}, 900), -1);
    EXPECT_EQ(choices.find("conv 7x7", {1, 8, 8}, 64), -1);
    EXPECT_EQ(choices.find("conv 7x7", {1, 9, 9}, 81), -1);
    choices.remember("conv 5x5", {1, 30, 30}, 900, 2);
  }
  EXPECT_TRUE(time_new_shapes()) << "without a scope, new shapes are timed";
  std::ifstream in(path);
  std::string line, last;
  while (std::getline(in, line)) last = line;
  EXPECT_EQ(last, "test file|2|conv 5x5\t1,30,30\t900\t2");
  std::remove(path.c_str());
}

// Channels-last 2-D convolution, one group, in double.
std::vector<float> reference_conv(const ConvGeometry& g, const std::vector<float>& x, const std::vector<float>& w,
                                  const std::vector<float>& b) {
  const int64_t kh = g.kernel[0], kw = g.kernel[1], c = g.in_channels, o = g.out_channels;
  std::vector<float> y(static_cast<size_t>(g.batch * g.out[0] * g.out[1] * o));
  for (int64_t n = 0; n < g.batch; ++n)
    for (int64_t oy = 0; oy < g.out[0]; ++oy)
      for (int64_t ox = 0; ox < g.out[1]; ++ox)
        for (int64_t oc = 0; oc < o; ++oc) {
          double acc = b[static_cast<size_t>(oc)];
          for (int64_t ic = 0; ic < c; ++ic)
            for (int64_t ky = 0; ky < kh; ++ky)
              for (int64_t kx = 0; kx < kw; ++kx) {
                const int64_t iy = oy * g.strides[0] - g.pads_begin[0] + ky;
                const int64_t ix = ox * g.strides[1] - g.pads_begin[1] + kx;
                if (iy < 0 || iy >= g.in[0] || ix < 0 || ix >= g.in[1]) continue;
                acc += static_cast<double>(x[static_cast<size_t>(((n * g.in[0] + iy) * g.in[1] + ix) * c + ic)]) *
                       w[static_cast<size_t>(((oc * c + ic) * kh + ky) * kw + kx)];
              }
          y[static_cast<size_t>(((n * g.out[0] + oy) * g.out[1] + ox) * o + oc)] = static_cast<float>(acc);
        }
  return y;
}

// Which kernel maker: one implementation each, so that its sharing is checked whatever the
// timing would choose; kAny is make_conv_kernel's choice among all that apply.
enum class Maker { kAny, kWinograd, kWinogradBf16, kPointwise, kImplicitBf16 };

struct ConvCase {
  Maker maker;
  int64_t c, o, kernel, stride, pad;
};

std::unique_ptr<ConvKernel> make(Maker m, const ConvGeometry& g, const float* w, const float* b, WeightCache* cache) {
  switch (m) {
    case Maker::kAny: return make_conv_kernel(g, w, b, Activation{}, false, Precision::kFloat32, cache);
    case Maker::kWinograd: return make_winograd_conv_kernel(g, w, b, Activation{}, false, Precision::kFloat32, cache);
    case Maker::kWinogradBf16:
      return make_winograd_conv_kernel(g, w, b, Activation{}, false, Precision::kBFloat16, cache);
    case Maker::kPointwise: return make_packed_pointwise_conv_kernel(g, w, b, Activation{}, false, cache);
    case Maker::kImplicitBf16: return make_bf16_conv_kernel(g, w, b, Activation{}, false, cache);
  }
  return nullptr;
}

class SharedConvWeights : public ::testing::TestWithParam<ConvCase> {};

// One op's convolution at sizes a detector meets, every kernel made through the op's one cache:
// each matches the plain loop, and kernels of one implementation share one packed form.
TEST_P(SharedConvWeights, NewSizesMatchAPlainLoopAndShareThePacking) {
  const ConvCase& c = GetParam();
  const bool bf16 = c.maker == Maker::kWinogradBf16 || c.maker == Maker::kImplicitBf16;
  const auto w = random_values(static_cast<size_t>(c.o * c.c * c.kernel * c.kernel), 11);
  const auto b = random_values(static_cast<size_t>(c.o), 12);
  WeightCache cache;
  std::vector<std::unique_ptr<ConvKernel>> kept;
  std::set<std::string> implementations;
  const std::vector<std::vector<int64_t>> sizes = {{1, 13, 7}, {2, 9, 17}, {1, 30, 22}, {1, 5, 41}, {3, 8, 8}};
  for (const auto& s : sizes) {
    const ConvGeometry g =
        conv_geometry(s[0], c.c, c.o, s[1], s[2], c.kernel, c.kernel, c.stride, {c.pad, c.pad, c.pad, c.pad});
    const auto x = random_values(static_cast<size_t>(s[0] * s[1] * s[2] * c.c), static_cast<uint32_t>(s[1]));
    auto kernel = make(c.maker, g, w.data(), b.data(), &cache);
    if (!kernel) GTEST_SKIP() << "this kernel is not built or not available on this CPU";
    const auto want = reference_conv(g, x, w, b);
    std::vector<float> y(want.size(), NAN);
    ASSERT_TRUE(kernel->run(x.data(), nullptr, y.data()).is_ok());
    double scale = 1e-6;
    for (float v : want) scale = std::max(scale, static_cast<double>(std::fabs(v)));
    // bfloat16 rounds inputs and weights to 8 bits: about 2^-8 of each term, summed.
    const double tolerance = (bf16 ? 3e-2 : 2e-5) * scale;
    for (size_t i = 0; i < y.size(); ++i)
      ASSERT_NEAR(y[i], want[i], tolerance) << kernel->describe() << " at " << s[1] << "x" << s[2] << ", " << i;
    implementations.insert(kernel->describe());
    kept.push_back(std::move(kernel));
  }
  // Our own kernels: one packed form for all sizes. oneDNN may want another layout for some
  // sizes (a 32- instead of a 48-channel block for a small batch of small images), so its
  // kernels share some forms, never one per size, and none is left out of the cache.
  if (c.maker != Maker::kAny) {
    EXPECT_EQ(implementations.size(), 1u);
    EXPECT_EQ(cache.live_entries(), 1u) << "kernels for other sizes must share one packed form";
  } else {
    EXPECT_GE(cache.live_entries(), 1u) << "oneDNN's reordered weights must go through the cache";
    EXPECT_LT(cache.live_entries(), kept.size()) << "kernels for other sizes must share packed forms";
  }
  kept.clear();
  EXPECT_EQ(cache.live_entries(), 0u) << "the packed forms go with the last kernel holding them";
}

INSTANTIATE_TEST_SUITE_P(Shapes, SharedConvWeights,
                         ::testing::Values(ConvCase{Maker::kAny, 24, 40, 1, 1, 0},  // packed product or oneDNN
                                           ConvCase{Maker::kAny, 19, 33, 3, 1, 1},  // Winograd or oneDNN
                                           ConvCase{Maker::kAny, 16, 24, 3, 2, 1},  // strided: oneDNN alone
                                           ConvCase{Maker::kAny, 3, 17, 5, 1, 2},   // wide kernel, few channels
                                           ConvCase{Maker::kWinograd, 19, 33, 3, 1, 1},
                                           ConvCase{Maker::kWinogradBf16, 21, 18, 3, 1, 2},
                                           ConvCase{Maker::kPointwise, 24, 40, 1, 1, 0},
                                           ConvCase{Maker::kImplicitBf16, 13, 20, 3, 2, 1}));

TEST(SharedMatMulWeights, NewRowCountsMatchAPlainLoopAndShareThePacking) {
  const int64_t k = 37, n = 45;
  const auto w = random_values(static_cast<size_t>(k * n), 21);
  const auto b = random_values(static_cast<size_t>(n), 22);
  WeightCache cache;
  std::vector<std::unique_ptr<MatMulKernel>> kept;
  std::set<std::string> implementations;
  for (int64_t rows : {1, 7, 130, 29, 600, 3}) {
    auto kernel = make_matmul_kernel(rows, k, n, w.data(), b.data(), Activation{}, false, Precision::kFloat32, &cache);
    if (!kernel) GTEST_SKIP() << "no fast product kernel on this build or CPU";
    const auto a = random_values(static_cast<size_t>(rows * k), static_cast<uint32_t>(rows));
    std::vector<float> y(static_cast<size_t>(rows * n), NAN);
    ASSERT_TRUE(kernel->run(a.data(), nullptr, y.data()).is_ok());
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < n; ++j) {
        double want = b[static_cast<size_t>(j)];
        for (int64_t i = 0; i < k; ++i)
          want += static_cast<double>(a[static_cast<size_t>(r * k + i)]) * w[static_cast<size_t>(i * n + j)];
        ASSERT_NEAR(y[static_cast<size_t>(r * n + j)], want, 1e-4 * (1 + std::fabs(want)))
            << kernel->describe() << " rows " << rows << " at " << r << "," << j;
      }
    implementations.insert(kernel->describe());
    kept.push_back(std::move(kernel));
  }
  EXPECT_EQ(cache.live_entries(), implementations.size());
}

}  // namespace
}  // namespace hi::cpu
