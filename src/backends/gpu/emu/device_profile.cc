#include "backends/gpu/emu/device_profile.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace hi::gpu::emu {
namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// "4G", "512M", "65536": bytes; false for anything else.
bool parse_bytes(const std::string& s, size_t* out) {
  if (s.empty()) return false;
  size_t digits = 0;
  while (digits < s.size() && s[digits] >= '0' && s[digits] <= '9') ++digits;
  if (digits == 0 || digits > 15) return false;
  size_t v = std::stoull(s.substr(0, digits));
  const std::string suffix = s.substr(digits);
  if (suffix == "K" || suffix == "k") v <<= 10;
  else if (suffix == "M" || suffix == "m") v <<= 20;
  else if (suffix == "G" || suffix == "g") v <<= 30;
  else if (!suffix.empty()) return false;
  *out = v;
  return true;
}

DeviceProfile read_profile() {
  DeviceProfile p;
  const std::string kind = env("HI_EMU_DEVICE");
  if (kind.empty() || kind == "nvidia") {
    p.name = "hipinfer emulated GPU (NVIDIA-like: warp 32, sm_80)";
    p.arch = "sm_80";
  } else if (kind == "amd") {
    p.name = "hipinfer emulated GPU (AMD-like: wavefront 64, gfx90a)";
    p.arch = "gfx90a";
    p.warp_size = 64;
    p.compute_major = 9;
    p.compute_minor = 0;
    p.shared_bytes_per_block = 64 * 1024;
  } else {
    p.error = "HI_EMU_DEVICE='" + kind + "' is not one of nvidia, amd";
  }
  if (const std::string m = env("HI_EMU_MEMORY");
      !m.empty() && (!parse_bytes(m, &p.memory_bytes) || p.memory_bytes == 0))
    p.error = "HI_EMU_MEMORY='" + m + "' is not a byte count such as 4G, 512M or 1048576";
  const std::string order = env("HI_EMU_SCHEDULE");
  if (order == "reverse") p.schedule = Schedule::kReverse;
  else if (order == "shuffle") p.schedule = Schedule::kShuffle;
  else if (!order.empty() && order != "forward")
    p.error = "HI_EMU_SCHEDULE='" + order + "' is not one of forward, reverse, shuffle";
  p.host_threads = std::max(1u, std::thread::hardware_concurrency());
  if (const std::string t = env("HI_EMU_THREADS"); !t.empty()) {
    size_t n = 0;
    if (!parse_bytes(t, &n) || n == 0 || n > 256) p.error = "HI_EMU_THREADS='" + t + "' is not a count from 1 to 256";
    else p.host_threads = static_cast<int>(n);
  }
  return p;
}

}  // namespace

DeviceProfile& mutable_device_profile() {
  static DeviceProfile profile = read_profile();
  return profile;
}

const DeviceProfile& device_profile() { return mutable_device_profile(); }

}  // namespace hi::gpu::emu
