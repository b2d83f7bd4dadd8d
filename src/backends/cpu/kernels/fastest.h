// Choosing among candidate kernels for one shape by timing them (convolutions, products, the
// inverted residual block), shared by the oneDNN and own kernel files; the choices kept in memory
// for the process and, per CPU, in a kernel cache on disk.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hi::cpu {

// Which of the candidate kernels runs fastest, timed on zeros (the weights do not matter): after
// one warm-up run each, rounds in which every kernel runs once in turn, each kept at its best
// round. Interleaved, a busy moment on a shared machine slows all of them alike instead of
// deciding for one; as many rounds as fit about 20 ms per kernel, 3 to 15. How
// make_conv_kernel and make_matmul_kernel choose when new shapes are timed (KernelTuning).
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

// How the runs on this thread choose a kernel for a shape no choice is known for (Session::run
// sets it from SessionOptions::kernel_tuning). Timing the candidates makes a first run slow
// (ResNet-50: 0.6 s of its 0.75 s), so by default a rule of thumb per operation picks one,
// untimed, and timed choices come from the kernel cache that a timed session (`hipinfer run --tune`)
// filled. Without a scope (kernel tests, tools calling kernels directly) new shapes are timed
// and nothing is written.
struct KernelTuning {
  bool time_new_shapes = false;
  std::string cache_file;  // the kernel cache of this CPU (kernel_cache_file), "" for none
};
class KernelTuningScope {
 public:
  explicit KernelTuningScope(const KernelTuning* tuning);
  ~KernelTuningScope();
  KernelTuningScope(const KernelTuningScope&) = delete;
  KernelTuningScope& operator=(const KernelTuningScope&) = delete;

 private:
  const KernelTuning* previous_;
};
// Whether a shape without a known choice is timed here (true without a scope).
bool time_new_shapes();
// DIR/kernels-<fingerprint>.tsv: one file per CPU model, instruction set, oneDNN and hipinfer
// build, since a choice measured on one need not hold on another.
std::string kernel_cache_file(const std::string& dir);
// Shapes whose candidates were timed on this thread so far (a run's kernels are made on the
// thread that runs it), for RunStats: concurrent runs of other sessions do not count.
int64_t shapes_timed();

// Which candidate won the timing for a shape, remembered for the process and in the kernel cache
// in scope. A family is every shape of one operation (weights' dims, strides, activation) that
// differs only in its size: batch, image size, rows. Models repeat shapes (ResNet-50's sixteen
// 3x3 convolutions have four), so a shape is timed once; and a model fed ever new sizes (a text
// detector on pages) must not time every one: once kTimedSizes sizes of a family are timed, a
// new size takes the winner of the timed size nearest in work, untimed. Winners are kept per
// thread count (the current one), but a run on fewer threads than its session asked for (a busy
// machine, see ThreadGovernor) takes the full count's winner untimed: timing there would be
// slow, and disturbed. `name` tells the operations apart in one store and one cache file.
class KernelChoices {
 public:
  static constexpr size_t kTimedSizes = 3;
  explicit KernelChoices(std::string name) : name_(std::move(name)) {}
  // The winner for this size of the family, or -1 when none is known (to be timed, or left to
  // the rule of thumb). `work`: the size's amount of computation (e.g. output elements), for
  // finding the nearest timed size. Reads the kernel cache in scope the first time.
  int find(const std::string& family, const std::vector<int64_t>& size, double work) const;
  // Keeps a timed winner, and appends it to the kernel cache in scope.
  void remember(const std::string& family, const std::vector<int64_t>& size, double work, int winner);

 private:
  std::string name_;
};

}  // namespace hi::cpu
