// Choosing among candidate kernels for one shape by timing them (convolutions, products, the
// inverted residual block), shared by the oneDNN and own kernel files.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace hi::cpu {

// Which of the candidate kernels runs fastest, timed on zeros (the weights do not matter): after
// one warm-up run each, rounds in which every kernel runs once in turn, each kept at its best
// round. Interleaved, a busy moment on a shared machine slows all of them alike instead of
// deciding for one; as many rounds as fit about 20 ms per kernel, 3 to 15. How
// make_conv_kernel and make_matmul_kernel choose.
template <typename Kernel>
size_t fastest_on_zeros(const std::vector<const Kernel*>& kernels, size_t input_floats, size_t output_floats) {
  std::vector<float> x(input_floats, 0.f), z(output_floats, 0.f), y(output_floats, 0.f);
  auto time_once = [&](const Kernel& k) {
    const auto t0 = std::chrono::steady_clock::now();
    (void)k.run(x.data(), z.data(), y.data());
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> best(kernels.size(), 1e30);
  double slowest = 0;
  for (size_t i = 0; i < kernels.size(); ++i) slowest = std::max(slowest, time_once(*kernels[i]));
  const int rounds = std::clamp(static_cast<int>(20.0 / std::max(slowest, 1e-3)), 3, 15);
  for (int r = 0; r < rounds; ++r)
    for (size_t i = 0; i < kernels.size(); ++i) best[i] = std::min(best[i], time_once(*kernels[i]));
  return static_cast<size_t>(std::min_element(best.begin(), best.end()) - best.begin());
}

// Which candidate won the timing for a shape, remembered for the process. A family is every shape
// of one operation (weights' dims, strides, activation) that differs only in its size: batch,
// image size, rows. Models repeat shapes (ResNet-50's sixteen 3x3 convolutions have four), so a
// shape is timed once; and a model fed ever new sizes (a text detector on pages) must not time
// every one: once kTimedSizes sizes of a family are timed, a new size takes the winner of the
// timed size nearest in work, untimed. Winners are kept per thread count (the current one), but
// a run on fewer threads than its session asked for (a busy machine, see ThreadGovernor) takes
// the full count's winner untimed: timing there would be slow, and disturbed.
class KernelChoices {
 public:
  static constexpr size_t kTimedSizes = 3;
  // The winner for this size of the family, or -1 when it is to be timed. `work`: the size's
  // amount of computation (e.g. output elements), for finding the nearest timed size.
  int find(const std::string& family, const std::vector<int64_t>& size, double work) const;
  void remember(const std::string& family, const std::vector<int64_t>& size, double work, int winner);

 private:
  // The winner under `key` ("THREADS|family") for `size`, else the nearest size's once at least
  // `nearest_after` sizes are timed; -1 when none.
  int find_at(const std::string& key, const std::vector<int64_t>& size, double work, size_t nearest_after) const;
  struct Timed {
    double work;
    int winner;
  };
  mutable std::mutex mutex_;
  std::map<std::string, std::map<std::vector<int64_t>, Timed>> families_;
};

}  // namespace hi::cpu
