#include "runtime/pass_target.h"

#include "backends/cpu/kernels/inverted_residual.h"
#include "backends/cpu/kernels/kernels.h"

namespace hi::runtime {

passes::Target pass_target(const std::string& device) {
  passes::Target t;
  if (device != "cpu") return t;
  t.channels_last_convolutions = cpu::fast_kernels_available();
  t.int8_convolutions = cpu::int8_kernels_available();
  t.inverted_residual = cpu::inverted_residual_available();
  using K = Activation::Kind;
  for (K kind : {K::kNone, K::kRelu, K::kLeakyRelu, K::kClip, K::kSigmoid, K::kTanh, K::kHardSigmoid, K::kHardSwish,
                 K::kGelu, K::kGeluTanh})
    if (cpu::inverted_residual_activation_supported(Activation{kind})) t.inverted_residual_activations.insert(kind);
  return t;
}

}  // namespace hi::runtime
