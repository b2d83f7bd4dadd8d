// The generator behind the random ops (RandomUniform/Normal[Like], Bernoulli, Dropout in
// training mode). With a seed it is MT19937 seeded and read the way numpy's legacy
// np.random.RandomState(seed) reads it, so a seeded op gives the numbers the ONNX reference
// implementation gives (and ONNX's seeded test data, made with numpy, can be reproduced).
// Without a seed it starts from std::random_device: every run differs.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <random>

namespace hi::ops {

class RandomSource {
 public:
  // `seed` as the ops give it (an int for Dropout, a float for the others); numpy takes seeds
  // in [0, 2^32), other values wrap into that range; NaN counts as no seed.
  explicit RandomSource(std::optional<double> seed) : mt_(seed_value(seed)) {}

  // Uniform in [0, 1) with 53 random bits (numpy's random_sample).
  double uniform() {
    const double a = static_cast<double>(mt_() >> 5), b = static_cast<double>(mt_() >> 6);
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

  // Standard normal by the polar method, the second value of each pair kept for the next call
  // (numpy's legacy gauss).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * uniform() - 1.0;
      x2 = 2.0 * uniform() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    spare_ = f * x1;
    has_spare_ = true;
    return f * x2;
  }

 private:
  static uint32_t seed_value(std::optional<double> seed) {
    if (!seed || std::isnan(*seed) || std::isinf(*seed)) return std::random_device{}();
    return static_cast<uint32_t>(static_cast<int64_t>(std::fmod(std::trunc(*seed), 4294967296.0)));
  }

  std::mt19937 mt_;
  bool has_spare_ = false;
  double spare_ = 0;
};

}  // namespace hi::ops
