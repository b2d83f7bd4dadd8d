// A few kernels (Relu, broadcast Add, Softmax, MatMul with bias, a 3x3 convolution; MatMul and
// the convolution again in float16, which takes the matrix cores where the device has them) run
// once per process and device on small inputs against host loops, before the first partition is
// compiled for that device. A failure is kUnsupported naming the kernel, the element and both
// values: the session then keeps those nodes on the CPU with that reason, rather than give wrong
// numbers from a GPU, driver or build that the kernels were not checked on.
#pragma once

#include "backends/gpu/device_api.h"

namespace hi::gpu::HI_GPU_NS {

Status kernel_self_check(int device);

}  // namespace hi::gpu::HI_GPU_NS
