#include "cpu/dnnl_common.h"

#include <cstdlib>
#include <memory>
#include <string>

namespace hi::cpu {

dnnl::engine& dnnl_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::stream& dnnl_stream() {
  thread_local dnnl::stream stream(dnnl_engine());
  return stream;
}

dnnl::primitive_attr make_attr(const Activation& act, bool with_sum) {
  dnnl::primitive_attr attr;
  attr.set_post_ops(make_post_ops(act, with_sum));
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::memory thread_scratchpad(const dnnl::memory::desc& desc) {
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<void, FreeDeleter> buffer;
  thread_local size_t capacity = 0;
  const size_t size = desc.get_size();
  if (size > capacity) {
    const size_t rounded = (size + 4095) / 4096 * 4096;
    buffer.reset(std::aligned_alloc(4096, rounded));
    if (!buffer) throw std::bad_alloc();
    capacity = rounded;
  }
  return dnnl::memory(desc, dnnl_engine(), size ? buffer.get() : nullptr);
}

bool fast_kernels_available() { return true; }

bool cpu_has_bf16() {
  const dnnl::cpu_isa isa = dnnl::get_effective_cpu_isa();
  return isa == dnnl::cpu_isa::avx512_core_bf16 || isa == dnnl::cpu_isa::avx512_core_amx;
}

std::string fast_kernels_description() {
  const dnnl_version_t* v = dnnl_version();
  const char* isa = "";
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::avx512_core_amx: isa = "avx512_core_amx"; break;
    case dnnl::cpu_isa::avx512_core_bf16: isa = "avx512_core_bf16"; break;
    case dnnl::cpu_isa::avx512_core_vnni: isa = "avx512_core_vnni"; break;
    case dnnl::cpu_isa::avx512_core: isa = "avx512_core"; break;
    case dnnl::cpu_isa::avx2: isa = "avx2"; break;
    default: isa = "other"; break;
  }
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch) + " (" +
         isa + ")";
}

dnnl::post_ops make_post_ops(const Activation& act, bool with_sum) {
  using A = Activation::Kind;
  using alg = dnnl::algorithm;
  dnnl::post_ops po;
  if (with_sum) po.append_sum(1.f);
  switch (act.kind) {
    case A::kNone: break;
    case A::kRelu: po.append_eltwise(1.f, alg::eltwise_relu, 0.f, 0.f); break;
    case A::kLeakyRelu: po.append_eltwise(1.f, alg::eltwise_relu, act.alpha, 0.f); break;
    case A::kClip: po.append_eltwise(1.f, alg::eltwise_clip, act.alpha, act.beta); break;
    case A::kSigmoid: po.append_eltwise(1.f, alg::eltwise_logistic, 0.f, 0.f); break;
    case A::kTanh: po.append_eltwise(1.f, alg::eltwise_tanh, 0.f, 0.f); break;
    case A::kHardSigmoid:  // oneDNN 2.6 has no hardsigmoid: clip(alpha * x + beta, 0, 1)
      po.append_eltwise(1.f, alg::eltwise_linear, act.alpha, act.beta);
      po.append_eltwise(1.f, alg::eltwise_clip, 0.f, 1.f);
      break;
    case A::kHardSwish: po.append_eltwise(1.f, alg::eltwise_hardswish, 0.f, 0.f); break;
    case A::kGelu: po.append_eltwise(1.f, alg::eltwise_gelu_erf, 0.f, 0.f); break;
    case A::kGeluTanh: po.append_eltwise(1.f, alg::eltwise_gelu_tanh, 0.f, 0.f); break;
  }
  return po;
}

}  // namespace hi::cpu
