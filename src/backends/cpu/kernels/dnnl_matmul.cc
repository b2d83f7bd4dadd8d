// Matrix products with constant weights through oneDNN's matmul: the weights are packed once
// into the layout its kernel wants, and the bias, residual sum and activation run as post-ops.
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#include "backends/cpu/kernels/avx512_util.h"
#include "backends/cpu/kernels/dnnl_common.h"
#include "core/threading.h"

namespace hi::cpu {
namespace {

using dnnl::memory;
using tag = memory::format_tag;
using dt = memory::data_type;

class DnnlMatMulKernel final : public MatMulKernel {
 public:
  // `after`: an activation applied by our own vector code once oneDNN's product is done (not
  // a post-op); see make_dnnl_matmul_kernel.
  DnnlMatMulKernel(dnnl::matmul::primitive_desc pd, std::shared_ptr<const memory> weights, memory bias,
                   memory::desc src, memory::desc dst, bool with_sum, const Activation& after)
      : pd_(std::move(pd)), prim_(pd_), weights_(std::move(weights)), bias_(std::move(bias)), src_(src), dst_(dst),
        scratch_bytes_(pd_.scratchpad_desc().get_size()), with_sum_(with_sum), after_(after) {}

  Status run(const float* a, const float* z, float* y) const override {
    dnnl::stream& s = dnnl_stream();
    if (with_sum_ && z != y) std::copy(z, z + dst_.get_size() / sizeof(float), y);
    const std::shared_ptr<ThreadArguments::Args> args = args_.get([&] {
      dnnl::engine& eng = dnnl_engine();
      ThreadArguments::Args made = {{DNNL_ARG_SRC, memory(src_, eng, nullptr)},
                                    {DNNL_ARG_WEIGHTS, *weights_},
                                    {DNNL_ARG_DST, memory(dst_, eng, nullptr)},
                                    {DNNL_ARG_SCRATCHPAD, memory(pd_.scratchpad_desc(), eng, nullptr)}};
      if (bias_) made[DNNL_ARG_BIAS] = bias_;
      return made;
    });
    args->at(DNNL_ARG_SRC).set_data_handle(const_cast<float*>(a));
    args->at(DNNL_ARG_DST).set_data_handle(y);
    args->at(DNNL_ARG_SCRATCHPAD).set_data_handle(thread_scratchpad_buffer(scratch_bytes_));
    prim_.execute(s, *args);
    s.wait();
    activate_in_place(y, static_cast<int64_t>(dst_.get_size() / sizeof(float)), after_);
    return Status::ok();
  }

  std::string describe() const override {
    return std::string("oneDNN ") + pd_.impl_info_str() +
           (after_.kind == Activation::Kind::kNone ? "" : ", " + after_.name() + " after");
  }

 private:
  dnnl::matmul::primitive_desc pd_;
  dnnl::matmul prim_;
  std::shared_ptr<const memory> weights_;  // shared by the kernels of one op (backends/cpu/kernels/weight_cache.h)
  memory bias_;
  memory::desc src_, dst_;
  size_t scratch_bytes_;
  bool with_sum_;
  Activation after_;
  ThreadArguments args_;  // the memory objects of each thread's runs
};

}  // namespace

std::unique_ptr<MatMulKernel> make_dnnl_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                      const float* bias, const Activation& act, bool with_sum,
                                                      WeightCache* cache) {
  if (rows <= 0 || k <= 0 || n <= 0) return nullptr;
  try {
    dnnl::engine& eng = dnnl_engine();
    // A primitive keeps the thread count it was made with: a small one is made for the calling
    // thread alone (kSerialProductWork), or every run would wake the pool.
    std::optional<ThreadScope> serial;
    if (rows * k * n < kSerialProductWork) serial.emplace(1);
    const memory::desc src({rows, k}, dt::f32, tag::ab), dst({rows, n}, dt::f32, tag::ab);
    const memory::desc user_w({k, n}, dt::f32, tag::ab), any_w({k, n}, dt::f32, tag::any);
    const memory::desc bias_md = bias ? memory::desc({1, n}, dt::f32, tag::ab) : memory::desc();
    // oneDNN's erf GELU post-op costs more than the product's own time saves by fusing it (1.9
    // against 1.5 ms for [1024, 256] x [256, 1024] on two Xeon cores); our rational GELU over the
    // output afterwards, while it is in cache, costs a third of that.
    const bool own_gelu = act.kind == Activation::Kind::kGelu && avx512_kernels_available();
    const Activation after = own_gelu ? act : Activation{};
    const dnnl::primitive_attr attr = make_attr(own_gelu ? Activation{} : act, with_sum);
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, any_w, bias_md, dst), attr, eng);
    std::shared_ptr<const memory> packed = reordered_weights(user_w, weights, pd.weights_desc(), cache);
    memory b;
    if (bias) {
      b = memory(bias_md, eng);
      std::copy(bias, bias + n, static_cast<float*>(b.get_data_handle()));
    }
    return std::make_unique<DnnlMatMulKernel>(std::move(pd), std::move(packed), std::move(b), src, dst, with_sum,
                                              after);
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

// oneDNN's matmul or our own packed product, whichever runs this shape faster: timed once per
// row count for the process (an encoder repeats a few shapes many times; the timing runs on
// zeros, so the weights do not matter), and past a few row counts not at all (backends/cpu/kernels/fastest.h).
std::unique_ptr<MatMulKernel> make_matmul_kernel(int64_t rows, int64_t k, int64_t n, const float* weights,
                                                 const float* bias, const Activation& act, bool with_sum,
                                                 Precision precision, WeightCache* cache) {
  if (precision == Precision::kBFloat16)
    if (auto bf16 = make_packed_matmul_kernel(rows, k, n, weights, bias, act, with_sum, Precision::kBFloat16, cache))
      return bf16;
  static KernelChoices choices("matmul");  // 1: our packed product won
  const std::string family = std::to_string(k) + "," + std::to_string(n) + act.name() + std::to_string(with_sum);
  auto own = [&] {
    return make_packed_matmul_kernel(rows, k, n, weights, bias, act, with_sum, Precision::kFloat32, cache);
  };
  auto onednn = [&] { return make_dnnl_matmul_kernel(rows, k, n, weights, bias, act, with_sum, cache); };
  const int known = choices.find(family, {rows}, static_cast<double>(rows));
  if (known >= 0)
    if (std::unique_ptr<MatMulKernel> kernel = known == 1 ? own() : onednn()) return kernel;
  // Untimed: our packed product for a few rows (a classifier's or pooler's single row), oneDNN's
  // for more (it won the encoders' 128 and 1024 rows on the EPYC that backends/cpu/kernels/fastest.h measured).
  if (!time_new_shapes())
    if (std::unique_ptr<MatMulKernel> kernel = rows < 32 ? own() : onednn()) return kernel;
  std::unique_ptr<MatMulKernel> dnnl_kernel = onednn(), own_kernel = own();
  if (!dnnl_kernel || !own_kernel) return dnnl_kernel ? std::move(dnnl_kernel) : std::move(own_kernel);
  const size_t in = static_cast<size_t>(rows * k), out = static_cast<size_t>(rows * n);
  const bool own_faster = fastest_on_zeros<MatMulKernel>({dnnl_kernel.get(), own_kernel.get()}, in, out) == 1;
  choices.remember(family, {rows}, static_cast<double>(rows), own_faster ? 1 : 0);
  return own_faster ? std::move(own_kernel) : std::move(dnnl_kernel);
}

}  // namespace hi::cpu
