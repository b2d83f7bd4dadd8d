#include "core/activation.h"

#include <algorithm>
#include <cmath>

namespace hi {

float Activation::apply(float x) const {
  switch (kind) {
    case Kind::kNone: return x;
    case Kind::kRelu: return x > 0 ? x : 0.f;
    case Kind::kLeakyRelu: return x >= 0 ? x : alpha * x;
    case Kind::kClip: return std::min(std::max(x, alpha), beta);
    case Kind::kSigmoid: return 1.f / (1.f + std::exp(-x));
    case Kind::kTanh: return std::tanh(x);
    case Kind::kHardSigmoid: return std::max(0.f, std::min(1.f, alpha * x + beta));
    case Kind::kHardSwish: return x * std::max(0.f, std::min(1.f, x / 6.f + 0.5f));
    case Kind::kGelu: return 0.5f * x * (1.f + std::erf(x * 0.70710678118654752f));
    case Kind::kGeluTanh: return 0.5f * x * (1.f + std::tanh(0.7978845608028654f * (x + 0.044715f * x * x * x)));
  }
  return x;
}

bool Activation::parse(const std::string& name, const std::vector<float>& params, Activation* out) {
  static const struct {
    const char* name;
    Kind kind;
    size_t params;
  } kTable[] = {{"", Kind::kNone, 0},
                {"Relu", Kind::kRelu, 0},
                {"LeakyRelu", Kind::kLeakyRelu, 1},
                {"Clip", Kind::kClip, 2},
                {"Sigmoid", Kind::kSigmoid, 0},
                {"Tanh", Kind::kTanh, 0},
                {"HardSigmoid", Kind::kHardSigmoid, 2},
                {"HardSwish", Kind::kHardSwish, 0},
                {"Gelu", Kind::kGelu, 0},
                {"GeluTanh", Kind::kGeluTanh, 0}};
  for (const auto& e : kTable) {
    if (name != e.name) continue;
    if (params.size() != e.params) return false;
    out->kind = e.kind;
    out->alpha = e.params > 0 ? params[0] : 0.f;
    out->beta = e.params > 1 ? params[1] : 0.f;
    return true;
  }
  return false;
}

std::string Activation::name() const {
  switch (kind) {
    case Kind::kNone: return "";
    case Kind::kRelu: return "Relu";
    case Kind::kLeakyRelu: return "LeakyRelu";
    case Kind::kClip: return "Clip";
    case Kind::kSigmoid: return "Sigmoid";
    case Kind::kTanh: return "Tanh";
    case Kind::kHardSigmoid: return "HardSigmoid";
    case Kind::kHardSwish: return "HardSwish";
    case Kind::kGelu: return "Gelu";
    case Kind::kGeluTanh: return "GeluTanh";
  }
  return "";
}

}  // namespace hi
