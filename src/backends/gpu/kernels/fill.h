// Fill kernels: set every element of a device buffer to one value (kernels/fill.cu).
#pragma once

#include <cstdint>

#include "backends/gpu/device_api.h"

namespace hi::gpu::HI_GPU_NS {

// Queues dst[0, n) = value on `stream`; dst is device memory of the current device. n == 0 is a
// no-op; n < 0 is an InvalidArgument error. Launch errors come back as a Status; errors while
// the kernel runs surface at the next synchronisation, as with any asynchronous launch.
Status fill_f32(float* dst, int64_t n, float value, Stream stream);

}  // namespace hi::gpu::HI_GPU_NS
