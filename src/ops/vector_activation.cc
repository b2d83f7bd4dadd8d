#include "ops/vector_activation.h"

#include <algorithm>

#include "cpu/kernels.h"
#include "cpu/threading.h"

namespace hi::ops {

void run_vector_activation(const Tensor& x, Tensor& out, VectorActivation act) {
  cpu::Activation a;
  a.kind = act == VectorActivation::kTanh ? cpu::Activation::Kind::kTanh : cpu::Activation::Kind::kSigmoid;
  const float* px = x.data<float>();
  float* po = out.data<float>();
  cpu::parallel_for(x.numel(), int64_t{1} << 14, [&](int64_t i0, int64_t i1) {
    if (po != px) std::copy(px + i0, px + i1, po + i0);
    cpu::activate_in_place(po + i0, i1 - i0, a);
  });
}

}  // namespace hi::ops
