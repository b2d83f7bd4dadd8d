// Fill kernels: set every element of a device buffer to one value (kernels/fill.cu).
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"

namespace hi::gpu::HI_GPU_NS {

// Queues dst[0, n) = value on `stream`; dst is device memory of the current device. n == 0 is a
// no-op; n < 0 is an InvalidArgument error. Launch errors come back as a Status; errors while
// the kernel runs surface at the next synchronisation, as with any asynchronous launch.
Status fill_f32(float* dst, int64_t n, float value, Stream stream);

// Queues dst[0, n) = values[0, n) for n <= kMaxFillValues, the values travelling as kernel
// parameters (so a captured graph holds them, and nothing on the host has to outlive the launch):
// Shape and Size write their few integers this way.
constexpr int kMaxFillValues = 16;
Status fill_i64_values(int64_t* dst, const int64_t* values, int n, Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
