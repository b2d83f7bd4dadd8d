// Convolution through oneDNN: the primitive picks its own layouts (blocked, e.g. nChw16c) and
// algorithm; weights are reordered once when the kernel is made, activations are reordered
// in and out around each call when the primitive's layout differs from plain NCHW.
#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"
#include "core/threading.h"

namespace hi::cpu {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

tag plain_tag(size_t rank, bool channels_last) {
  if (channels_last) return rank == 3 ? tag::nwc : rank == 4 ? tag::nhwc : tag::ndhwc;
  return rank == 3 ? tag::ncw : rank == 4 ? tag::nchw : tag::ncdhw;
}
tag plain_weights_tag(size_t rank, bool grouped) {
  if (grouped) return rank == 4 ? tag::goiw : rank == 5 ? tag::goihw : tag::goidhw;
  return rank == 3 ? tag::oiw : rank == 4 ? tag::oihw : tag::oidhw;
}

class DnnlConvKernel final : public ConvKernel {
 public:
  DnnlConvKernel(dnnl::convolution_forward::primitive_desc pd, std::shared_ptr<const memory> weights, memory bias,
                 memory::desc user_src, memory::desc user_dst, bool with_sum, std::string name)
      : pd_(std::move(pd)), prim_(pd_), weights_(std::move(weights)), bias_(std::move(bias)), user_src_(user_src),
        user_dst_(user_dst), with_sum_(with_sum), name_(std::move(name)) {}

  Status run(const float* x, const float* sum, float* y) const override {
    dnnl::engine& eng = dnnl_engine();
    dnnl::stream& s = dnnl_stream();
    memory src(user_src_, eng, const_cast<float*>(x));
    memory dst(user_dst_, eng, y);
    // Activations in the primitive's layout, reordered when it differs from plain.
    memory src_k = src, dst_k = dst;
    if (pd_.src_desc() != user_src_) {
      src_k = memory(pd_.src_desc(), eng);
      dnnl::reorder(src, src_k).execute(s, src, src_k);
    }
    if (pd_.dst_desc() != user_dst_) dst_k = memory(pd_.dst_desc(), eng);
    if (with_sum_) {
      memory residual(user_dst_, eng, const_cast<float*>(sum));
      if (dst_k.get_data_handle() == dst.get_data_handle()) {
        if (sum != y) std::copy(sum, sum + user_dst_.get_size() / sizeof(float), y);
      } else {
        dnnl::reorder(residual, dst_k).execute(s, residual, dst_k);
      }
    }
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, src_k}, {DNNL_ARG_WEIGHTS, *weights_}, {DNNL_ARG_DST, dst_k}};
    if (bias_) args[DNNL_ARG_BIAS] = bias_;
    args[DNNL_ARG_SCRATCHPAD] = thread_scratchpad(pd_.scratchpad_desc());
    prim_.execute(s, args);
    if (dst_k.get_data_handle() != dst.get_data_handle()) dnnl::reorder(dst_k, dst).execute(s, dst_k, dst);
    s.wait();
    return Status::ok();
  }

  std::string describe() const override { return name_; }

 private:
  dnnl::convolution_forward::primitive_desc pd_;
  dnnl::convolution_forward prim_;
  std::shared_ptr<const memory> weights_;  // shared by the kernels of one op (backends/cpu/kernels/weight_cache.h)
  memory bias_;
  memory::desc user_src_, user_dst_;
  bool with_sum_;
  std::string name_;
};

memory::dims to_dims(const std::vector<int64_t>& v) { return memory::dims(v.begin(), v.end()); }

bool winograd_candidate(const ConvGeometry& g) {
  if (g.kernel.size() != 2 || g.groups != 1 || g.in_channels < 16 || g.out_channels < 16) return false;
  for (size_t i = 0; i < 2; ++i)
    if (g.kernel[i] != 3 || g.strides[i] != 1 || g.dilations[i] != 1) return false;
  return true;
}

// Which candidate won for a geometry, remembered for the process (backends/cpu/kernels/fastest.h): the family is
// everything but the batch and the image size.
constexpr int kCandidates = 7;
KernelChoices& winners() {
  static KernelChoices choices("conv");
  return choices;
}
// The candidate that won most often for such a geometry on a 2-core AVX-512 BF16 EPYC (ResNet-50
// and MobileNetV2 at batch 1 and 8, Magika), taken untimed when no timed choice is known:
// Winograd for 3x3 stride-1 convolutions (oneDNN's in float32, ours on the bfloat16 product),
// our packed product for pointwise convolutions that add a residual in float32 and for all of
// them in bfloat16, im2col and sgemm for float32 convolutions along one axis (Magika's 5x1 over
// 508x1: 3.7 ms against oneDNN's 11), oneDNN's direct kernel for the rest.
int rule_of_thumb(const ConvGeometry& g, bool with_sum, bool bf16) {
  bool pointwise = g.groups == 1, one_axis = false;
  for (int64_t k : g.kernel) pointwise = pointwise && k == 1;
  for (int64_t d : g.out) one_axis = one_axis || d == 1;
  if (winograd_candidate(g)) return bf16 ? 3 : 4;
  if (one_axis && !pointwise && !bf16 && g.groups == 1) return 6;
  if (pointwise && bf16) return 5;
  if (pointwise && with_sum && g.channels_last) return 2;
  return 0;
}
std::string family_key(const ConvGeometry& g, const Activation& act, bool with_sum, bool bf16) {
  std::string key;
  for (const auto* v : {&g.kernel, &g.strides, &g.dilations, &g.pads_begin, &g.pads_end})
    for (int64_t d : *v) key += std::to_string(d) + ",";
  key += std::to_string(g.in_channels) + "," + std::to_string(g.out_channels) + "," + std::to_string(g.groups) + "," +
         std::to_string(g.channels_last) + std::to_string(g.input_channels_first) + std::to_string(with_sum) +
         act.name() + (bf16 ? "bf16" : "f32");
  return key;
}
std::vector<int64_t> size_of(const ConvGeometry& g) {
  std::vector<int64_t> size = {g.batch};
  size.insert(size.end(), g.in.begin(), g.in.end());
  size.insert(size.end(), g.out.begin(), g.out.end());
  return size;
}
double work_of(const ConvGeometry& g) {
  double outputs = static_cast<double>(g.batch);
  for (int64_t d : g.out) outputs *= static_cast<double>(d);
  return outputs;
}

}  // namespace

std::unique_ptr<ConvKernel> make_conv_kernel(const ConvGeometry& g, const float* weights, const float* bias,
                                             const Activation& act, bool with_sum, Precision precision,
                                             WeightCache* cache) {
  const size_t sp = g.in.size();
  if (sp < 1 || sp > 3) return nullptr;
  const size_t rank = sp + 2;
  try {
    dnnl::engine& eng = dnnl_engine();
    memory::dims src_dims = {g.batch, g.in_channels}, dst_dims = {g.batch, g.out_channels};
    for (size_t i = 0; i < sp; ++i) {
      src_dims.push_back(g.in[i]);
      dst_dims.push_back(g.out[i]);
    }
    const bool grouped = g.groups > 1;
    memory::dims w_dims;
    if (grouped) w_dims = {g.groups, g.out_channels / g.groups, g.in_channels / g.groups};
    else w_dims = {g.out_channels, g.in_channels};
    for (int64_t k : g.kernel) w_dims.push_back(k);
    memory::dims dil;
    for (int64_t d : g.dilations) dil.push_back(d - 1);  // oneDNN counts dilation from 0

    const dt compute = precision == Precision::kBFloat16 && cpu_has_bf16() ? dt::bf16 : dt::f32;
    const Precision effective = compute == dt::bf16 ? Precision::kBFloat16 : Precision::kFloat32;
    const memory::desc user_src(src_dims, dt::f32, plain_tag(rank, g.channels_last && !g.input_channels_first));
    const memory::desc user_dst(dst_dims, dt::f32, plain_tag(rank, g.channels_last));
    const memory::desc user_w(w_dims, dt::f32, plain_weights_tag(w_dims.size(), grouped));
    const memory::desc any_src(src_dims, compute, tag::any), any_w(w_dims, compute, tag::any);
    const memory::desc any_dst(dst_dims, dt::f32, tag::any);
    const memory::desc bias_md = bias ? memory::desc({g.out_channels}, dt::f32, tag::x) : memory::desc();

    const dnnl::primitive_attr attr = make_attr(act, with_sum);
    auto make_pd = [&](dnnl::algorithm alg) {
      dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, alg, any_src, any_w, bias_md, any_dst,
                                        to_dims(g.strides), dil, to_dims(g.pads_begin), to_dims(g.pads_end));
      return dnnl::convolution_forward::primitive_desc(d, attr, eng);
    };
    auto build = [&](dnnl::convolution_forward::primitive_desc pd) {
      std::shared_ptr<const memory> w_k = reordered_weights(user_w, weights, pd.weights_desc(), cache);
      memory b_k;
      if (bias) {
        b_k = memory(bias_md, eng);
        std::copy(bias, bias + g.out_channels, static_cast<float*>(b_k.get_data_handle()));
      }
      std::string name = std::string("oneDNN ") + pd.impl_info_str();
      return std::make_unique<DnnlConvKernel>(std::move(pd), std::move(w_k), std::move(b_k), user_src, user_dst,
                                              with_sum, std::move(name));
    };
    // The candidates for one convolution: oneDNN's direct kernel; our direct kernel for a first
    // layer over an image (oneDNN reorders the image first); our packed product for channels-last
    // 1x1 convolutions; Winograd F(2x2, 3x3) for 3x3 ones, 2.25x fewer multiplications at the
    // price of the transforms (ours channels-last, oneDNN's with reorders to its blocked layout).
    // Each that applies is timed once per geometry (or not at all, see KernelChoices) and the
    // fastest kept. With bfloat16 compute:
    // oneDNN's direct kernel (its input reordered into bfloat16 first), our image kernel (in
    // float32), our Winograd on the bfloat16 product, and our implicit bfloat16 product for any
    // 2-D convolution, both rounding their float32 inputs on the way in. Last, for float32
    // channels-first 2-D convolutions, im2col and one sgemm per image.
    auto candidate = [&](int i) -> std::unique_ptr<ConvKernel> {
      switch (i) {
        case 0: return build(make_pd(dnnl::algorithm::convolution_direct));
        case 1: return make_image_conv_kernel(g, weights, bias, act, with_sum);
        case 2:
          return compute == dt::f32 ? make_packed_pointwise_conv_kernel(g, weights, bias, act, with_sum, cache)
                                    : nullptr;
        case 3: return make_winograd_conv_kernel(g, weights, bias, act, with_sum, effective, cache);
        case 4:
          if (compute != dt::f32 || !winograd_candidate(g)) return nullptr;
          try {
            return build(make_pd(dnnl::algorithm::convolution_winograd));
          } catch (const dnnl::error&) {
            return nullptr;  // no oneDNN Winograd kernel for this shape or CPU
          }
        case 5: return compute == dt::bf16 ? make_bf16_conv_kernel(g, weights, bias, act, with_sum, cache) : nullptr;
        default: return compute == dt::f32 ? make_columns_conv_kernel(g, weights, bias, act, with_sum, cache) : nullptr;
      }
    };
    const std::string family = family_key(g, act, with_sum, compute == dt::bf16);
    const int known = winners().find(family, size_of(g), work_of(g));
    if (known >= 0)
      if (auto k = candidate(known)) return k;
    // Untimed, also when a remembered winner cannot be made here (a cache line of another build).
    if (!time_new_shapes()) {
      if (auto k = candidate(rule_of_thumb(g, with_sum, compute == dt::bf16))) return k;
      for (int i = 0; i < kCandidates; ++i)
        if (auto k = candidate(i)) return k;
      return nullptr;
    }
    std::vector<std::unique_ptr<ConvKernel>> made;
    std::vector<int> made_from;
    for (int i = 0; i < kCandidates; ++i)
      if (auto k = candidate(i)) {
        made.push_back(std::move(k));
        made_from.push_back(i);
      }
    if (made.empty()) return nullptr;
    size_t best = 0;
    if (made.size() > 1) {
      std::vector<const ConvKernel*> kernels;
      for (const auto& k : made) kernels.push_back(k.get());
      best = fastest_on_zeros(kernels, user_src.get_size() / sizeof(float), user_dst.get_size() / sizeof(float));
    }
    winners().remember(family, size_of(g), work_of(g), made_from[best]);
    return std::move(made[best]);
  } catch (const dnnl::error&) {
    return nullptr;  // a case oneDNN does not implement: the reference kernel takes it
  }
}

}  // namespace hi::cpu
