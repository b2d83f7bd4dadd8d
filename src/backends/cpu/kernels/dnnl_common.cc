#include "backends/cpu/kernels/dnnl_common.h"

#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>

#include "backends/cpu/kernels/weight_cache.h"

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

namespace {

// A blocked layout written out in full (dims, type, padding, strides, blocks), so that two
// descriptions with the same text describe the same bytes; empty for other kinds of layout.
std::string layout_key(const dnnl::memory::desc& desc) {
  const dnnl_memory_desc_t& d = desc.data;
  if (d.format_kind != dnnl_blocked || d.extra.flags != 0) return {};
  const dnnl_blocking_desc_t& b = d.format_desc.blocking;
  std::ostringstream key;
  key << "dnnl t" << d.data_type << " o" << d.offset0;
  for (int i = 0; i < d.ndims; ++i)
    key << " " << d.dims[i] << "/" << d.padded_dims[i] << "/" << d.padded_offsets[i] << "/" << b.strides[i];
  key << " blocks";
  for (int i = 0; i < b.inner_nblks; ++i) key << " " << b.inner_idxs[i] << ":" << b.inner_blks[i];
  return key.str();
}

dnnl::memory reorder_now(const dnnl::memory::desc& user, const float* weights, const dnnl::memory::desc& wanted) {
  dnnl::engine& eng = dnnl_engine();
  dnnl::memory from(user, eng, const_cast<float*>(weights)), to(wanted, eng);
  dnnl::stream& s = dnnl_stream();
  dnnl::reorder(from, to).execute(s, from, to);
  s.wait();
  return to;
}

}  // namespace

std::shared_ptr<const dnnl::memory> reordered_weights(const dnnl::memory::desc& user, const float* weights,
                                                      const dnnl::memory::desc& wanted, WeightCache* cache) {
  const std::string key = layout_key(wanted);
  auto reorder = [&] { return reorder_now(user, weights, wanted); };
  if (key.empty()) return std::make_shared<const dnnl::memory>(reorder());
  return packed_weights<dnnl::memory>(cache, weights, key, reorder);
}

void* thread_scratchpad_buffer(size_t bytes) {
  struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
  };
  thread_local std::unique_ptr<void, FreeDeleter> buffer;
  thread_local size_t capacity = 0;
  if (bytes > capacity) {
    const size_t rounded = (bytes + 4095) / 4096 * 4096;
    buffer.reset(std::aligned_alloc(4096, rounded));
    if (!buffer) throw std::bad_alloc();
    capacity = rounded;
  }
  return bytes ? buffer.get() : nullptr;
}

dnnl::memory thread_scratchpad(const dnnl::memory::desc& desc) {
  return dnnl::memory(desc, dnnl_engine(), thread_scratchpad_buffer(desc.get_size()));
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
