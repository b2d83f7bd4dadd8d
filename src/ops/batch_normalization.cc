// BatchNormalization, inference mode (is_test=1 in opset 6): y = (x - mean) / sqrt(var + epsilon) * scale + B per
// channel (dim 1; a 1-D input is [N] with one channel). Opsets 6/7 with spatial=0 take
// per-element statistics of shape [C, D1, ...]. From opset 14, training_mode=1 normalises with
// the batch's own per-channel mean and (population) variance and outputs the running statistics
//   running_mean = input_mean * momentum + batch_mean * (1 - momentum)   (the same for var);
// training before opset 14 (is_test=0, or the extra outputs) is not supported. From opset 15
// scale/B and mean/var may have float types other than X's.
#include "core/threading.h"
#include "ops/elementwise.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

constexpr const char* kParamName[5] = {"X", "scale", "B", "input_mean", "input_var"};

class BatchNormalizationOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    opset_ = ctx.opset();
    epsilon_ = ctx.get_float("epsilon", 1e-5f);
    momentum_ = ctx.get_float("momentum", 0.9f);  // training only
    spatial_ = opset_ >= 9 || ctx.get_int("spatial", 1) != 0;
    if (opset_ < 7 && ctx.get_int("is_test", 0) == 0)
      return ctx.fail(StatusCode::kUnsupported, "is_test=0 asks for training mode (batch statistics) in opset ", opset_,
                      "; hipinfer runs inference only (set is_test=1)");
    const int64_t training = opset_ >= 14 ? ctx.get_int("training_mode", 0) : 0;
    if (training != 0 && training != 1)
      return ctx.fail(StatusCode::kInvalidModel, "attribute 'training_mode' must be 0 or 1, got ", training);
    training_ = training == 1;
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, 5, 5, opset_ >= 14 ? 3 : 5));
    for (size_t i = 1; i < ctx.node().outputs.size(); ++i)
      if (!ctx.node().outputs[i].empty() && !training_)
        return error(StatusCode::kUnsupported, "output ", i, " ('", ctx.node().outputs[i],
                     "') is a training output; hipinfer runs BatchNormalization in inference mode only");
    const ir::ValueType& x = ctx.input_type(0);
    for (size_t i = 0; i < 5; ++i) {
      const DType t = ctx.input_type(i).dtype;
      if (t != DType::kUndefined && !in_set(kFloatTypes, t)) return unsupported_dtype(ctx.node(), t, kParamName[i]);
    }
    // Before opset 15 all inputs share one type; from 15 scale~B and mean~var pair up.
    auto same = [&](size_t a, size_t b) -> Status {
      const DType ta = ctx.input_type(a).dtype, tb = ctx.input_type(b).dtype;
      if (ta != DType::kUndefined && tb != DType::kUndefined && ta != tb)
        return error(StatusCode::kInvalidModel, kParamName[a], " is ", dtype_name(ta), " but ", kParamName[b], " is ",
                     dtype_name(tb), opset_ < 15 ? " (they may differ only from opset 15)" : "");
      return Status::ok();
    };
    HI_RETURN_IF_ERROR(same(1, 2));
    HI_RETURN_IF_ERROR(same(3, 4));
    if (opset_ < 15) {
      HI_RETURN_IF_ERROR(same(0, 1));
      HI_RETURN_IF_ERROR(same(0, 3));
    }
    if (x.has_rank()) {
      if (x.rank() < 1) return error(StatusCode::kInvalidModel, "X ", x.to_string(), " must have rank >= 1");
      const auto& xd = *x.shape;
      // Expected parameter dims: [C], or [C, D1, ...] for spatial=0.
      std::vector<ir::Dim> want = {x.rank() == 1 ? ir::Dim::known(1) : xd[1]};
      if (!spatial_) want.insert(want.end(), xd.begin() + std::min<int64_t>(2, x.rank()), xd.end());
      for (size_t i = 1; i < 5; ++i) {
        const ir::ValueType& p = ctx.input_type(i);
        if (!p.has_rank()) continue;
        bool ok = p.rank() == static_cast<int64_t>(want.size());
        for (size_t d = 0; ok && d < want.size(); ++d)
          ok = !(want[d].is_known() && (*p.shape)[d].is_known() && want[d].value != (*p.shape)[d].value);
        if (!ok) {
          std::string w = "[";
          for (size_t d = 0; d < want.size(); ++d) w += (d ? ", " : "") + want[d].to_string();
          return error(StatusCode::kInvalidModel, kParamName[i], " ", p.to_string(), " must have shape ", w, "] for X ",
                       x.to_string());
        }
      }
    }
    ctx.set_output_type(0, x);
    // The running statistics have input_mean's type and shape.
    for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output_type(i, ctx.input_type(i == 1 ? 3 : 4));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const Tensor& x = ctx.in(0);
    if (x.rank() < 1) return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " must have rank >= 1");
    const int64_t c = x.rank() == 1 ? 1 : x.dim(1);
    Shape want = {c};
    if (!spatial_) want.insert(want.end(), x.shape().begin() + std::min<int64_t>(2, x.rank()), x.shape().end());
    std::vector<double> param[5];
    for (size_t i = 1; i < 5; ++i) {
      const Tensor& p = ctx.in(i);
      if (p.shape() != want)
        return error(StatusCode::kInvalidArgument, kParamName[i], " ", p.type_string(), " must have shape ",
                     shape_to_string(want), " for X ", x.type_string());
      if (!in_set(kFloatTypes, p.dtype())) return unsupported_dtype(ctx.node(), p.dtype(), kParamName[i]);
      param[i].resize(static_cast<size_t>(p.numel()));
      for (int64_t j = 0; j < p.numel(); ++j) param[i][static_cast<size_t>(j)] = p.as_double(j);
    }
    const int64_t inner = x.rank() <= 2 ? 1 : shape_numel(Shape(x.shape().begin() + 2, x.shape().end()));
    if (training_) HI_RETURN_IF_ERROR(use_batch_statistics(ctx, x, c, inner, param));
    std::vector<double> inv_std(param[4].size());
    for (size_t j = 0; j < inv_std.size(); ++j)
      inv_std[j] = 1.0 / std::sqrt(param[4][j] + static_cast<double>(epsilon_));
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    const bool ok = dispatch<kFloatTypes>(x.dtype(), [&]<typename T>() {
      const T* px = x.data<T>();
      T* py = y.data<T>();
      if (!spatial_) {
        for (int64_t i = 0; i < x.numel(); ++i) {
          const size_t j = static_cast<size_t>(((i / inner) % c) * inner + i % inner);
          py[i] = static_cast<T>((static_cast<double>(px[i]) - param[3][j]) * inv_std[j] * param[1][j] + param[2][j]);
        }
        return;
      }
      // One channel's run of `inner` values at a time, its parameters hoisted: the same arithmetic
      // as element by element, in a loop the compiler vectorises, the runs shared among threads.
      const int64_t runs = inner > 0 ? x.numel() / inner : 0;
      parallel_for(runs, std::max<int64_t>(1, (int64_t{1} << 14) / std::max<int64_t>(inner, 1)),
                   [&](int64_t r0, int64_t r1) {
                     for (int64_t r = r0; r < r1; ++r) {
                       const size_t j = static_cast<size_t>(r % c);
                       const double mean = param[3][j], is = inv_std[j], scale = param[1][j], bias = param[2][j];
                       const T* xr = px + r * inner;
                       T* yr = py + r * inner;
                       for (int64_t k = 0; k < inner; ++k)
                         yr[k] = static_cast<T>((static_cast<double>(xr[k]) - mean) * is * scale + bias);
                     }
                   });
    });
    if (!ok) return unsupported_dtype(ctx.node(), x.dtype());
    return Status::ok();
  }

 private:
  // Training mode: replaces mean/var (param[3], param[4]) by the batch's per-channel statistics
  // and writes the running statistics to outputs 1 and 2 when the node asks for them.
  Status use_batch_statistics(RunContext& ctx, const Tensor& x, int64_t c, int64_t inner,
                              std::vector<double>* param) const {
    const int64_t n = x.numel() / c;  // values per channel
    if (n == 0) return error(StatusCode::kInvalidArgument, "X ", x.type_string(), " is empty: no batch statistics");
    std::vector<double> mean(static_cast<size_t>(c), 0.0), var(static_cast<size_t>(c), 0.0);
    for (int64_t i = 0; i < x.numel(); ++i) mean[static_cast<size_t>((i / inner) % c)] += x.as_double(i);
    for (double& m : mean) m /= static_cast<double>(n);
    for (int64_t i = 0; i < x.numel(); ++i) {
      const size_t ch = static_cast<size_t>((i / inner) % c);
      const double d = x.as_double(i) - mean[ch];
      var[ch] += d * d;
    }
    for (double& v : var) v /= static_cast<double>(n);
    const double m = static_cast<double>(momentum_);
    for (size_t k = 0; k < 2; ++k) {
      const size_t out = k + 1, in = k + 3;
      const std::vector<double>& batch = k == 0 ? mean : var;
      if (ctx.num_outputs() <= out || ctx.node().outputs[out].empty()) continue;
      const Tensor& running = ctx.in(in);
      Tensor& r = ctx.output(out, running.dtype(), running.shape());
      dispatch<kFloatTypes>(running.dtype(), [&]<typename T>() {
        T* p = r.data<T>();
        for (int64_t j = 0; j < c; ++j)
          p[j] = static_cast<T>(static_cast<compute_t<T>>(param[in][static_cast<size_t>(j)] * m +
                                                          batch[static_cast<size_t>(j)] * (1.0 - m)));
      });
    }
    param[3] = std::move(mean);
    param[4] = std::move(var);
    return Status::ok();
  }

  int64_t opset_ = 15;
  bool training_ = false;
  float momentum_ = 0.9f;
  float epsilon_ = 1e-5f;
  bool spatial_ = true;
};

}  // namespace

HI_REGISTER_OP(BatchNormalization, BatchNormalizationOp)

}  // namespace hi::ops
