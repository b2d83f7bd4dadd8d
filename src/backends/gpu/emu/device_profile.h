// What the emulated GPU pretends to be, read once from the environment:
//   HI_EMU_DEVICE    nvidia (default): warp 32, sm_80, 48 KiB of shared memory a block, wmma
//                    amd: wavefront 64, gfx90a, 64 KiB of shared memory a block, MFMA
//   HI_EMU_MEMORY    device memory, bytes with an optional K, M or G suffix (default 4G), so that
//                    out-of-memory paths can be tested
//   HI_EMU_SCHEDULE  forward (default), reverse or shuffle: the order in which the threads of a
//                    block run between two barriers; the last two expose ordering races
//   HI_EMU_THREADS   host threads that run blocks (default: the host's cores)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace hi::gpu::emu {

enum class Schedule { kForward, kReverse, kShuffle };

struct DeviceProfile {
  std::string name;
  std::string arch;  // "sm_80" or "gfx90a": what the kernels' host side decides by
  int warp_size = 32;
  int compute_major = 8, compute_minor = 0;
  size_t shared_bytes_per_block = 48 * 1024;
  int max_threads_per_block = 1024;
  int max_block_dim[3] = {1024, 1024, 64};
  int64_t max_grid_dim[3] = {2147483647, 65535, 65535};
  size_t memory_bytes = size_t{4} << 30;
  Schedule schedule = Schedule::kForward;
  int host_threads = 1;
  std::string error;  // a variable that could not be read: the device is then not offered
};

const DeviceProfile& device_profile();
// For tests: the schedule and memory size may be changed between launches.
DeviceProfile& mutable_device_profile();

}  // namespace hi::gpu::emu
