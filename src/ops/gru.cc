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

  // Pre-activations first, then each gate's activation over the whole block
  // (rnn::gates_in_place: vector Sigmoid and Tanh for float32).
  template <typename C>
  void step(const rnn::DirectionWeights<C>& w, int64_t batch, const C* xw, const C* h_prev, const C*, C* h_next,
            C*) const {
    const int64_t H = w.hidden, G = 3 * H, n = batch * H;
    // hr = H * R^T for all three gates; the h gate's part is redone below without linear_before_reset.
    std::vector<C> hr(static_cast<size_t>(batch * G)), z(static_cast<size_t>(n)), r(z.size()), h(z.size());
    rnn::gemm_nt<C>(w, batch, G, H, C(1), h_prev, H, w.r, H, C(0), hr.data(), G);
    const auto at = [](int64_t i) { return static_cast<size_t>(i); };
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < H; ++j) {
        z[at(b * H + j)] = xw[b * G + j] + hr[at(b * G + j)] + w.rb[j];
        r[at(b * H + j)] = xw[b * G + H + j] + hr[at(b * G + H + j)] + w.rb[H + j];
      }
    rnn::gates_in_place(w, 0, z.data(), n);
    rnn::gates_in_place(w, 0, r.data(), n);
    // rh: with linear_before_reset r . (H*Rh^T + Rbh); without, (r . H)*Rh^T + Rbh.
    std::vector<C> rh(z.size());
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < H; ++j) {
        const size_t i = at(b * H + j);
        rh[i] = linear_before_reset ? r[i] * (hr[at(b * G + 2 * H + j)] + w.rb[2 * H + j]) : r[i] * h_prev[i];
      }
    if (!linear_before_reset) {
      std::vector<C> rhr(rh.size());
      rnn::gemm_nt<C>(w, batch, H, H, C(1), rh.data(), H, w.r + 2 * H * H, H, C(0), rhr.data(), H);
      for (int64_t i = 0; i < n; ++i) rh[at(i)] = rhr[at(i)] + w.rb[2 * H + i % H];
    }
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < H; ++j) h[at(b * H + j)] = xw[b * G + 2 * H + j] + rh[at(b * H + j)];
    rnn::gates_in_place(w, 1, h.data(), n);
    for (int64_t i = 0; i < n; ++i) h_next[i] = (C(1) - z[at(i)]) * h[at(i)] + z[at(i)] * h_prev[i];
  }
};

}  // namespace

Status GruOp::init(InitContext& ctx) {
  spec_.gates = 3;
  spec_.activations_per_dir = 2;
  rnn::parse_attributes(ctx, spec_, {"Sigmoid", "Tanh"});
  const int64_t lbr = ctx.get_int("linear_before_reset", 0);
  if (lbr != 0 && lbr != 1)
    return ctx.fail(StatusCode::kInvalidModel, "GRU: attribute 'linear_before_reset' must be 0 or 1, got ", lbr);
  linear_before_reset_ = lbr == 1;
  return ctx.status();
}

Status GruOp::run(RunContext& ctx) const {
  return rnn::run(ctx, spec_, GruCell{linear_before_reset_}, float32_kernels());
}

HI_REGISTER_OP(GRU, GruOp)

}  // namespace hi::ops
