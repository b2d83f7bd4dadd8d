// The activations fused into a convolution or matrix product (FusedConv, FusedGemm,
// FusedMatMul, InvertedResidual): one description shared by the passes that fuse them, the
// reference ops and every backend's kernels.
#pragma once

#include <string>
#include <vector>

namespace hi {

// An activation applied after a convolution or matrix product (and after the residual sum).
struct Activation {
  enum class Kind { kNone, kRelu, kLeakyRelu, kClip, kSigmoid, kTanh, kHardSigmoid, kHardSwish, kGelu, kGeluTanh };
  Kind kind = Kind::kNone;
  float alpha = 0, beta = 0;  // LeakyRelu: alpha; Clip: [alpha, beta]; HardSigmoid: alpha, beta
  float apply(float x) const;
  // Parses the FusedConv/FusedGemm attribute value ("Relu", "Clip", ...); false if unknown.
  static bool parse(const std::string& name, const std::vector<float>& params, Activation* out);
  std::string name() const;
};

}  // namespace hi
