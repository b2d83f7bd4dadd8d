// LSTM (opsets 7, 14, 22), gates i, o, f, c with activations f (default Sigmoid), g and h
// (default Tanh) and peepholes P = [Pi, Po, Pf]:
//   i = f(x*Wi^T + H*Ri^T + Pi . C + Wbi + Rbi)    f = f(x*Wf^T + H*Rf^T + Pf . C + Wbf + Rbf)
//   c = g(x*Wc^T + H*Rc^T + Wbc + Rbc)             C' = f . C + i . c
//   o = f(x*Wo^T + H*Ro^T + Po . C' + Wbo + Rbo)   H' = o . h(C')
// input_forget=1 couples the gates: f = 1 - i (as ONNX Runtime). clip bounds the gate inputs,
// not the argument of h (as ONNX Runtime). Shared parts are in rnn_util.h.
#include "ops/rnn_util.h"

namespace hi::ops {
namespace {

struct LstmCell {
  bool input_forget = false;

  template <typename C>
  void step(const rnn::DirectionWeights<C>& w, int64_t batch, const C* xw, const C* h_prev, const C* c_prev, C* h_next,
            C* c_next) const {
    const int64_t H = w.hidden, G = 4 * H;
    std::vector<C> g(static_cast<size_t>(batch * G));
    rnn::gemm_nt<C>(batch, G, H, C(1), h_prev, H, w.r, H, C(0), g.data(), G);
    const C* pi = w.p;
    const C* po = w.p + H;
    const C* pf = w.p + 2 * H;
    for (int64_t b = 0; b < batch; ++b) {
      const C* xr = xw + b * G;
      const C* hr = g.data() + b * G;
      for (int64_t j = 0; j < H; ++j) {
        const int64_t s = b * H + j;
        // Pre-activations in the model's gate order i, o, f, c.
        const auto pre = [&](int64_t gate) { return xr[gate * H + j] + hr[gate * H + j] + w.rb[gate * H + j]; };
        C in = w.gate(0, pre(0) + pi[j] * c_prev[s]);
        C fg = w.gate(0, pre(2) + pf[j] * c_prev[s]);
        if (input_forget) fg = C(1) - in;
        const C cand = w.gate(1, pre(3));
        const C c = fg * c_prev[s] + in * cand;
        const C o = w.gate(0, pre(1) + po[j] * c);
        c_next[s] = c;
        h_next[s] = o * w.act[2](c);
      }
    }
  }
};

class LstmOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    spec_.gates = 4;
    spec_.activations_per_dir = 3;
    spec_.has_cell = true;
    rnn::parse_attributes(ctx, spec_, {"Sigmoid", "Tanh", "Tanh"});
    const int64_t input_forget = ctx.get_int("input_forget", 0);
    if (input_forget != 0 && input_forget != 1)
      return ctx.fail(StatusCode::kInvalidModel, "LSTM: attribute 'input_forget' must be 0 or 1, got ", input_forget);
    cell_.input_forget = input_forget == 1;
    return ctx.status();
  }
  Status infer(InferContext& ctx) const override { return rnn::infer(ctx, spec_); }
  Status run(RunContext& ctx) const override { return rnn::run(ctx, spec_, cell_); }

 private:
  rnn::Spec spec_;
  LstmCell cell_;
};

}  // namespace

HI_REGISTER_OP(LSTM, LstmOp)

}  // namespace hi::ops
