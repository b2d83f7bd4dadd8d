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

  // Per row: pre-activations of all four gates (x W^T + H R^T + biases, peepholes on i and f),
  // then each gate's activation over its whole block, then the cell, then o (its peephole reads
  // the new cell) and H'.
  template <typename C>
  void step(const rnn::DirectionWeights<C>& w, int64_t batch, const C* xw, const C* h_prev, const C* c_prev, C* h_next,
            C* c_next) const {
    const int64_t H = w.hidden, G = 4 * H;
    std::vector<C> g(static_cast<size_t>(batch * G)), cell(static_cast<size_t>(H));
    rnn::gemm_nt<C>(w, batch, G, H, C(1), h_prev, H, w.r, H, C(0), g.data(), G);
    const C* pi = w.p;
    const C* po = w.p + H;
    const C* pf = w.p + 2 * H;
    rnn::DirectionWeights<C> unclipped = w;  // h(C') takes no clip: ONNX Runtime clips the gates' inputs only
    unclipped.clip.reset();
    for (int64_t b = 0; b < batch; ++b) {
      // The model's gate order: i, o, f, c.
      C* gi = g.data() + b * G;
      C* go = gi + H;
      C* gf = gi + 2 * H;
      C* gc = gi + 3 * H;
      const C* cp = c_prev + b * H;
      for (int64_t k = 0; k < G; ++k) gi[k] += xw[b * G + k] + w.rb[k];
      for (int64_t j = 0; j < H; ++j) {
        gi[j] += pi[j] * cp[j];
        gf[j] += pf[j] * cp[j];
      }
      rnn::gates_in_place(w, 0, gi, H);
      rnn::gates_in_place(w, 0, gf, H);
      rnn::gates_in_place(w, 1, gc, H);
      C* cn = c_next + b * H;
      for (int64_t j = 0; j < H; ++j) {
        const C fg = input_forget ? C(1) - gi[j] : gf[j];
        cn[j] = fg * cp[j] + gi[j] * gc[j];
        go[j] += po[j] * cn[j];
      }
      rnn::gates_in_place(w, 0, go, H);
      std::copy(cn, cn + H, cell.begin());
      rnn::gates_in_place(unclipped, 2, cell.data(), H);
      for (int64_t j = 0; j < H; ++j) h_next[b * H + j] = go[j] * cell[static_cast<size_t>(j)];
    }
  }
};

}  // namespace

Status LstmOp::init(InitContext& ctx) {
  spec_.gates = 4;
  spec_.activations_per_dir = 3;
  spec_.has_cell = true;
  rnn::parse_attributes(ctx, spec_, {"Sigmoid", "Tanh", "Tanh"});
  const int64_t input_forget = ctx.get_int("input_forget", 0);
  if (input_forget != 0 && input_forget != 1)
    return ctx.fail(StatusCode::kInvalidModel, "LSTM: attribute 'input_forget' must be 0 or 1, got ", input_forget);
  input_forget_ = input_forget == 1;
  return ctx.status();
}

Status LstmOp::run(RunContext& ctx) const { return rnn::run(ctx, spec_, LstmCell{input_forget_}, float32_kernels()); }

HI_REGISTER_OP(LSTM, LstmOp)

}  // namespace hi::ops
