// RNN (opsets 7, 14, 22): H_t = f(x_t*W^T + H_{t-1}*R^T + Wb + Rb), f default Tanh. The
// attributes, layouts and time loop are shared with GRU and LSTM in rnn_util.h.
#include "ops/rnn_util.h"

namespace hi::ops {
namespace {

struct RnnCell {
  template <typename C>
  void step(const rnn::DirectionWeights<C>& w, int64_t batch, const C* xw, const C* h_prev, const C*, C* h_next,
            C*) const {
    const int64_t H = w.hidden;
    rnn::gemm_nt<C>(w, batch, H, H, C(1), h_prev, H, w.r, H, C(0), h_next, H);
    for (int64_t b = 0; b < batch; ++b)
      for (int64_t j = 0; j < H; ++j) {
        C& v = h_next[b * H + j];
        v = w.gate(0, xw[b * H + j] + v + w.rb[j]);
      }
  }
};

}  // namespace

Status RnnOp::init(InitContext& ctx) {
  spec_.gates = 1;
  spec_.activations_per_dir = 1;
  rnn::parse_attributes(ctx, spec_, {"Tanh"});
  return ctx.status();
}

Status RnnOp::run(RunContext& ctx) const { return rnn::run(ctx, spec_, RnnCell{}, float32_kernels()); }

HI_REGISTER_OP(RNN, RnnOp)

}  // namespace hi::ops
