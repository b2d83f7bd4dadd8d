// GRU (opsets 7, 14, 22), gates z (update), r (reset), h (hidden), activations f (default
// Sigmoid) and g (default Tanh):
//   z = f(x*Wz^T + H*Rz^T + Wbz + Rbz)      r = f(x*Wr^T + H*Rr^T + Wbr + Rbr)
//   h = g(x*Wh^T + (r . H)*Rh^T + Rbh + Wbh)        linear_before_reset = 0
//   h = g(x*Wh^T + r . (H*Rh^T + Rbh) + Wbh)        linear_before_reset = 1
//   H' = (1 - z) . h + z . H
// The attributes, layouts and time loop are shared with RNN and LSTM in rnn_util.h.
#include "ops/rnn_util.h"

namespace hi::ops {
namespace {

struct GruCell {
  bool linear_before_reset = false;

  template <typename C>
  void step(const rnn::DirectionWeights<C>& w, int64_t batch, const C* xw, const C* h_prev, const C*, C* h_next,
            C*) const {
    const int64_t H = w.hidden, G = 3 * H;
    // hr = H * R^T for all three gates; the h gate's part is redone below without linear_before_reset.
    std::vector<C> hr(static_cast<size_t>(batch * G)), z(static_cast<size_t>(batch * H)), rh(z.size());
    rnn::gemm_nt<C>(batch, G, H, C(1), h_prev, H, w.r, H, C(0), hr.data(), G);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < H; ++j) {
        const size_t i = static_cast<size_t>(b * H + j);
        z[i] = w.gate(0, xw[b * G + j] + hr[static_cast<size_t>(b * G + j)] + w.rb[j]);
        const C r = w.gate(0, xw[b * G + H + j] + hr[static_cast<size_t>(b * G + H + j)] + w.rb[H + j]);
        // With linear_before_reset, rh holds r . (H*Rh^T + Rbh); without, r . H (multiplied by Rh^T below).
        rh[i] = linear_before_reset ? r * (hr[static_cast<size_t>(b * G + 2 * H + j)] + w.rb[2 * H + j])
                                    : r * h_prev[b * H + j];
      }
    if (!linear_before_reset) {
      std::vector<C> rhr(rh.size());
      rnn::gemm_nt<C>(batch, H, H, C(1), rh.data(), H, w.r + 2 * H * H, H, C(0), rhr.data(), H);
      for (int64_t j = 0, n = static_cast<int64_t>(rh.size()); j < n; ++j)
        rh[static_cast<size_t>(j)] = rhr[static_cast<size_t>(j)] + w.rb[2 * H + j % H];
    }
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < H; ++j) {
        const size_t i = static_cast<size_t>(b * H + j);
        const C h = w.gate(1, xw[b * G + 2 * H + j] + rh[i]);
        h_next[i] = (C(1) - z[i]) * h + z[i] * h_prev[i];
      }
  }
};

class GruOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    spec_.gates = 3;
    spec_.activations_per_dir = 2;
    rnn::parse_attributes(ctx, spec_, {"Sigmoid", "Tanh"});
    const int64_t lbr = ctx.get_int("linear_before_reset", 0);
    if (lbr != 0 && lbr != 1)
      return ctx.fail(StatusCode::kInvalidModel, "GRU: attribute 'linear_before_reset' must be 0 or 1, got ", lbr);
    cell_.linear_before_reset = lbr == 1;
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override { return rnn::infer(ctx, spec_); }
  Status run(RunContext& ctx) const override { return rnn::run(ctx, spec_, cell_); }

 private:
  rnn::Spec spec_;
  GruCell cell_;
};

}  // namespace

HI_REGISTER_OP(GRU, GruOp)

}  // namespace hi::ops
