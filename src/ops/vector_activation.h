// Float32 Tanh and Sigmoid on the CPU's vector activation kernels (the ones fused convolutions and
// recurrent gates use): std::tanh one element at a time took 3.7 ms on Magika's 508 x 512
// tensor, this under 0.1.
#pragma once

#include "hipinfer/tensor.h"

namespace hi::ops {

enum class VectorActivation { kTanh, kSigmoid };

// out[i] = act(x[i]) for float32 tensors of one size, in chunks over the threads. `out` may be
// x's storage (the ops run in place).
void run_vector_activation(const Tensor& x, Tensor& out, VectorActivation act);

}  // namespace hi::ops
