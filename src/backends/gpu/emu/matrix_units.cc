// The emulated matrix-core collectives (matrix_units.h): the checks every lane of a warp passes
// through, and v_mfma_f32_16x16x16f16 with AMD's lane layout.
#include "backends/gpu/emu/matrix_units.h"

#include <string>

namespace hi::gpu::emu {

void require_warp_size(int lanes, const char* what) {
  if (current_thread->warp_size == lanes) return;
  static thread_local std::string message;
  message = std::string(what) + " needs a warp of " + std::to_string(lanes) + " lanes; this device's has " +
            std::to_string(current_thread->warp_size);
  kernel_fault(message.c_str());
}

void require_uniform(const void* pointer, unsigned ldm, const char* what) {
  struct Args {
    const void* pointer;
    unsigned ldm;
  };
  auto* slots = static_cast<Args*>(warp_scratch());
  const int lane = lane_id();
  slots[lane] = Args{pointer, ldm};
  warp_barrier();
  const bool same = slots[0].pointer == pointer && slots[0].ldm == ldm;
  warp_barrier();  // every lane has compared before the slots are written again
  if (!same) {
    static thread_local std::string message;
    message = std::string(what) + ": lanes of one warp passed different pointers or leading dimensions";
    kernel_fault(message.c_str());
  }
}

mfma_f32x4 mfma_f32_16x16x16f16(mfma_f16x4 a, mfma_f16x4 b, mfma_f32x4 c, int cbsz, int abid, int blgp) {
  require_warp_size(64, "__builtin_amdgcn_mfma_f32_16x16x16f16");
  if (cbsz != 0 || abid != 0 || blgp != 0)
    kernel_fault("__builtin_amdgcn_mfma_f32_16x16x16f16: broadcast controls are not emulated");
  auto* tiles = static_cast<float(*)[16][16]>(warp_scratch());  // A(m, k), B(k, n)
  const int lane = lane_id(), mn = lane % 16, k0 = lane / 16 * 4;
  for (int v = 0; v < 4; ++v) {
    tiles[0][mn][k0 + v] = static_cast<float>(a[v]);
    tiles[1][k0 + v][mn] = static_cast<float>(b[v]);
  }
  warp_barrier();
  mfma_f32x4 d;
  for (int v = 0; v < 4; ++v) {
    float sum = c[v];
    for (int k = 0; k < 16; ++k) sum += tiles[0][k0 + v][k] * tiles[1][k][mn];
    d[v] = sum;
  }
  warp_barrier();
  return d;
}

}  // namespace hi::gpu::emu
