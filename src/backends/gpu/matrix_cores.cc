// Matrix-core capability by architecture (see matrix_cores.h).
#include "backends/gpu/matrix_cores.h"

#include <atomic>
#include <cstdint>

namespace hi::gpu::HI_GPU_NS {
namespace {

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

}  // namespace

int f16_matrix_lanes(std::string_view arch) {
  arch = arch.substr(0, arch.find(':'));  // "gfx90a:sramecc+:xnack-"
  if (arch.substr(0, 3) == "sm_") {
    // "sm_" then major and minor digits: sm_70, sm_90, sm_100, sm_120. The last digit is the
    // minor version, so three digits or more, or two from 70 up, is sm_70 or later.
    const std::string_view digits = arch.substr(3);
    if (!all_digits(digits) || digits.size() < 2) return 0;
    return digits.size() > 2 || digits[0] >= '7' ? 32 : 0;
  }
  for (std::string_view cdna : {"gfx908", "gfx90a", "gfx940", "gfx941", "gfx942"})
    if (arch == cdna) return 64;
  return 0;
}

bool arch_has_f16_matrix_cores(std::string_view arch) { return f16_matrix_lanes(arch) != 0; }

bool has_f16_matrix_cores(int device) {
  // 0 unknown, 1 no, 2 yes; devices past the table are queried each time.
  constexpr int kCached = 64;
  static std::atomic<int8_t> cache[kCached];  // zero-initialised: unknown
  const bool cached = device >= 0 && device < kCached;
  if (cached) {
    const int8_t known = cache[device].load(std::memory_order_relaxed);
    if (known != 0) return known == 2;
  }
  const Result<DeviceInfo> info = device_properties(device);
  const int lanes = info.is_ok() ? f16_matrix_lanes(info->arch) : 0;
  const bool yes = lanes != 0 && lanes == info->warp_size;
  // A failed query is not cached: the device may answer later.
  if (cached && info.is_ok()) cache[device].store(yes ? 2 : 1, std::memory_order_relaxed);
  return yes;
}

}  // namespace hi::gpu::HI_GPU_NS
