// Sigmoid and Tanh in AVX2 registers, for CPUs without AVX-512 (many cloud CPUs, and VMs that hide
// it): the recurrent gates and the Tanh and Sigmoid ops otherwise call libm once per element
// (activate_in_place). The same formulas as the AVX-512 forms in avx512_util.h, 8 lanes at a time.
#pragma once

#include <cstdint>

#include "core/activation.h"

namespace hi::cpu {

// Whether activate_avx2 takes `act` on this CPU (Sigmoid and Tanh, with AVX2 and FMA).
bool avx2_activation_available(const Activation& act);
// y[i] = act(y[i]); only where avx2_activation_available(act).
void activate_avx2(float* y, int64_t n, const Activation& act);

}  // namespace hi::cpu
