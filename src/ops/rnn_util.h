// What RNN, GRU and LSTM share: attribute parsing (direction, hidden_size, layout, clip, gate
// activations with their alpha/beta), inference and input checks, the weight layout, and the
// per-direction time loop. Each op's file only defines its cell: how one time step turns
// x*W^T + Wb and the previous state into the next state.
//
// Layout of the inputs (one block per direction, G gates per op: RNN 1, GRU 3, LSTM 4):
//   X  [seq, batch, input]  (layout=1: [batch, seq, input])
//   W  [dirs, G*hidden, input]   R [dirs, G*hidden, hidden]   B [dirs, 2*G*hidden] = Wb then Rb
//   sequence_lens [batch] int32  initial_h / initial_c [dirs, batch, hidden] (layout=1: [batch, dirs, hidden])
//   P  [dirs, 3*hidden] (LSTM peepholes, order i, o, f)
// Outputs: Y [seq, dirs, batch, hidden] (layout=1: [batch, seq, dirs, hidden]), Y_h and Y_c like initial_h.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "core/memory_budget.h"
#include "core/run_control.h"
#include "ops/op.h"

namespace hi::ops::rnn {

// Input indices, the same for the three ops (LSTM adds initial_c and P).
enum Input : size_t { kX = 0, kW, kR, kB, kSequenceLens, kInitialH, kInitialC, kP };

// One gate activation with its parameters (defaults as the ONNX operator of the same name).
struct Activation {
  enum class Kind {
    kRelu,
    kTanh,
    kSigmoid,
    kAffine,
    kLeakyRelu,
    kThresholdedRelu,
    kScaledTanh,
    kHardSigmoid,
    kElu,
    kSoftsign,
    kSoftplus
  };
  Kind kind = Kind::kTanh;
  float alpha = 0;
  float beta = 0;

  template <typename C>
  C operator()(C x) const {
    const C a = static_cast<C>(alpha), b = static_cast<C>(beta);
    switch (kind) {
      case Kind::kRelu: return x > C(0) ? x : C(0);
      case Kind::kTanh: return std::tanh(x);
      case Kind::kSigmoid: return C(1) / (C(1) + std::exp(-x));
      case Kind::kAffine: return a * x + b;
      case Kind::kLeakyRelu: return x >= C(0) ? x : a * x;
      case Kind::kThresholdedRelu: return x > a ? x : C(0);
      case Kind::kScaledTanh: return a * std::tanh(b * x);
      case Kind::kHardSigmoid: return std::fmax(C(0), std::fmin(C(1), a * x + b));
      case Kind::kElu: return x >= C(0) ? x : a * (std::exp(x) - C(1));
      case Kind::kSoftsign: return x / (C(1) + std::abs(x));
      case Kind::kSoftplus: return x > C(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
    }
    return x;
  }
};

// The attributes the three ops share, and what each op fixes (gates, activations per direction).
struct Spec {
  int64_t opset = 0;
  int64_t gates = 1;               // G: W has G*hidden rows per direction
  size_t activations_per_dir = 1;  // RNN 1 (f), GRU 2 (f, g), LSTM 3 (f, g, h)
  bool has_cell = false;           // LSTM: initial_c, P and Y_c
  int64_t hidden_size = -1;        // -1: taken from R's shape
  int64_t num_directions = 1;
  bool reverse = false;  // direction "reverse" (with one direction)
  int64_t layout = 0;
  std::optional<float> clip;            // bounds the input of every gate activation
  std::vector<Activation> activations;  // activations_per_dir for direction 0, then direction 1
};

// Reads direction, hidden_size, layout, clip, activations, activation_alpha/beta into `spec`
// (gates, activations_per_dir and has_cell must be set). Problems are recorded in ctx.
void parse_attributes(InitContext& ctx, Spec& spec, const std::vector<std::string>& default_activations);

// Checks input types and shapes that are known statically and sets the output types.
Status infer(InferContext& ctx, const Spec& spec);

// Inputs read at run time, converted to the compute type C (float, or double for float64).
// B and P absent read as zeros; initial_h/initial_c absent read as zeros.
template <typename C>
struct Problem {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0, dirs = 1;
  std::vector<C> x;      // [seq, batch, input] whatever the layout
  const C* w = nullptr;  // W and R as in the model: the inputs' own memory where they are
  const C* r = nullptr;  // already of type C (no copy of the weights per call), else w_copy, r_copy
  std::vector<C> w_copy, r_copy;
  std::vector<C> b;           // [dirs, 2*G*hidden]
  std::vector<C> p;           // [dirs, 3*hidden] (LSTM)
  std::vector<int64_t> lens;  // [batch]
  std::vector<C> h0, c0;      // [dirs, batch, hidden] whatever the layout
};

// The float32 products and gate activations a backend runs its own way (the CPU's sgemm and
// vector Sigmoid/Tanh, backends/cpu/ops/recurrent.h): a step of a small recurrent model is a few small
// products, which the reference loops made 3x slower than ONNX Runtime's. Null members take the
// reference loops.
struct Float32Kernels {
  // c = alpha a b^T + beta c, row-major a [m, k], b [n, k].
  void (*gemm_nt)(int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda, const float* b,
                  int64_t ldb, float beta, float* c, int64_t ldc) = nullptr;
  // x = sigmoid(x) (or tanh(x)) over n values.
  void (*sigmoid_or_tanh)(float* x, int64_t n, bool sigmoid) = nullptr;
};

// One direction's weights, handed to a cell.
template <typename C>
struct DirectionWeights {
  int64_t input = 0, hidden = 0;
  const C* w = nullptr;             // [G*hidden, input]
  const C* r = nullptr;             // [G*hidden, hidden]
  const C* wb = nullptr;            // [G*hidden]
  const C* rb = nullptr;            // [G*hidden]
  const C* p = nullptr;             // [3*hidden]
  const Activation* act = nullptr;  // activations_per_dir of them
  std::optional<float> clip;
  const Float32Kernels* kernels = nullptr;  // a backend's, for C = float; null: the reference loops

  // act[i] applied to x clipped to [-clip, clip] when clip is set.
  C gate(size_t i, C x) const {
    if (clip) x = std::fmax(static_cast<C>(-*clip), std::fmin(static_cast<C>(*clip), x));
    return act[i](x);
  }
};

// gate(i, x) over n values in place: the backend's Sigmoid and Tanh for float32 where it gives
// them (a step's activations one call at a time were a third of a small LSTM's time), else one by
// one.
// Instantiated for float and double.
template <typename C>
void gates_in_place(const DirectionWeights<C>& w, size_t i, C* x, int64_t n);

// Reads and checks the inputs at run time (shapes against each other and against the
// attributes, sequence_lens in [0, seq]). Instantiated for float and double.
template <typename C>
Status read_problem(const RunContext& ctx, const Spec& spec, Problem<C>* p);

// Allocates the outputs the node asks for and writes them in the model's layout and dtype.
// y is [seq, dirs, batch, hidden]; h and c are [dirs, batch, hidden].
template <typename C>
Status write_outputs(RunContext& ctx, const Spec& spec, const Problem<C>& p, const std::vector<C>& y,
                     const std::vector<C>& h, const std::vector<C>& c);

// c = alpha a b^T + beta c for row-major a [m, k], b [n, k]: w's backend product for float32 where
// it gives one, else the reference. Instantiated for float and double.
template <typename C>
void gemm_nt(const DirectionWeights<C>& w, int64_t m, int64_t n, int64_t k, C alpha, const C* a, int64_t lda,
             const C* b, int64_t ldb, C beta, C* c, int64_t ldc);

// xw[t*batch + b, :] = x[t, b, :] * W^T + Wb for every time step at once.
template <typename C>
void project_inputs(const Problem<C>& p, const DirectionWeights<C>& w, int64_t gates, std::vector<C>* xw);

// A cell computes one step for all batch rows:
//   template <typename C> void step(const DirectionWeights<C>& w, int64_t batch, const C* xw,
//                                   const C* h_prev, const C* c_prev, C* h_next, C* c_next) const;
// xw is [batch, G*hidden] = x_t * W^T + Wb; h/c are [batch, hidden] (c only for LSTM; null for
// the others). The time loop below keeps the state of rows whose sequence has ended.
//
// One direction over the whole sequence. Row b runs sequence_lens[b] steps; the reverse
// direction reads x[len-1], ..., x[0] of its own length. y gets the new state at each step's time
// index (other entries stay zero); h/c end as the state after the row's last step (zero for a
// row of length 0, as ONNX Runtime gives).
template <typename C, typename Cell>
void run_direction(const Problem<C>& p, const Spec& spec, int64_t dir, const Cell& cell, const Float32Kernels* kernels,
                   std::vector<C>* y, std::vector<C>* h_out, std::vector<C>* c_out) {
  const int64_t G = spec.gates, H = p.hidden, B = p.batch;
  const auto at = [](int64_t i) { return static_cast<size_t>(i); };
  DirectionWeights<C> w;
  w.input = p.input;
  w.hidden = H;
  w.w = p.w + at(dir * G * H * p.input);
  w.r = p.r + at(dir * G * H * H);
  w.wb = p.b.data() + at(dir * 2 * G * H);
  w.rb = w.wb + G * H;
  w.p = spec.has_cell ? p.p.data() + at(dir * 3 * H) : nullptr;
  w.act = spec.activations.data() + at(dir) * spec.activations_per_dir;
  w.clip = spec.clip;
  w.kernels = kernels;
  const bool reverse = spec.reverse || dir == 1;

  std::vector<C> xw;
  project_inputs(p, w, G, &xw);
  std::vector<C> h(p.h0.begin() + dir * B * H, p.h0.begin() + (dir + 1) * B * H);
  std::vector<C> c;
  if (spec.has_cell) c.assign(p.c0.begin() + dir * B * H, p.c0.begin() + (dir + 1) * B * H);
  std::vector<C> xw_step(at(B * G * H)), h_next(at(B * H)), c_next(spec.has_cell ? at(B * H) : 0);
  for (int64_t k = 0; k < p.seq; ++k) {
    check_run_stop();  // a long sequence stops between steps (RunOptions' timeout and terminate)
    for (int64_t b = 0; b < B; ++b) {
      C* dst = xw_step.data() + b * G * H;
      if (k < p.lens[at(b)]) {
        const int64_t t = reverse ? p.lens[at(b)] - 1 - k : k;
        const C* src = xw.data() + (t * B + b) * G * H;
        std::copy(src, src + G * H, dst);
      } else {
        std::fill(dst, dst + G * H, C(0));  // an ended row: computed, then discarded
      }
    }
    cell.step(w, B, xw_step.data(), h.data(), spec.has_cell ? c.data() : nullptr, h_next.data(),
              spec.has_cell ? c_next.data() : nullptr);
    for (int64_t b = 0; b < B; ++b) {
      if (k >= p.lens[at(b)]) continue;
      const int64_t t = reverse ? p.lens[at(b)] - 1 - k : k;
      std::copy(h_next.begin() + b * H, h_next.begin() + (b + 1) * H, h.begin() + b * H);
      if (spec.has_cell) std::copy(c_next.begin() + b * H, c_next.begin() + (b + 1) * H, c.begin() + b * H);
      std::copy(h_next.begin() + b * H, h_next.begin() + (b + 1) * H, y->begin() + ((t * p.dirs + dir) * B + b) * H);
    }
  }
  for (int64_t b = 0; b < B; ++b) {
    if (p.lens[at(b)] == 0) {
      std::fill(h.begin() + b * H, h.begin() + (b + 1) * H, C(0));
      if (spec.has_cell) std::fill(c.begin() + b * H, c.begin() + (b + 1) * H, C(0));
    }
  }
  std::copy(h.begin(), h.end(), h_out->begin() + dir * B * H);
  if (spec.has_cell) std::copy(c.begin(), c.end(), c_out->begin() + dir * B * H);
}

// Reads the inputs, runs every direction and writes the outputs. float16 and bfloat16 compute
// in float (the state is not rounded between steps), float64 in double.
template <typename Cell>
Status run(RunContext& ctx, const Spec& spec, const Cell& cell, const Float32Kernels* kernels) {
  const auto go = [&]<typename C>() -> Status {
    Problem<C> p;
    HI_RETURN_IF_ERROR(read_problem<C>(ctx, spec, &p));
    // Y for every direction and one direction's projected inputs (xw), held beside the outputs:
    // counted against the session's memory limit before either is built.
    const ScratchBytes held(shape_numel({p.seq, p.batch, p.hidden, p.dirs + spec.gates, int64_t{sizeof(C)}}));
    const size_t state = static_cast<size_t>(p.dirs * p.batch * p.hidden);
    std::vector<C> y(static_cast<size_t>(p.seq) * state, C(0)), h(state), c(spec.has_cell ? state : 0);
    for (int64_t d = 0; d < p.dirs; ++d) run_direction(p, spec, d, cell, kernels, &y, &h, &c);
    return write_outputs<C>(ctx, spec, p, y, h, c);
  };
  const DType t = ctx.in(kX).dtype();
  if (t == DType::kFloat64) return go.template operator()<double>();
  return go.template operator()<float>();  // read_problem rejects types other than the float ones
}

// RNN, GRU and LSTM (ops/rnn.cc, gru.cc, lstm.cc): their attributes in spec_, their cells in their
// files. A backend's op derived from one gives float32_kernels().
class RecurrentOp : public Op {
 public:
  Status infer(InferContext& ctx) const override { return rnn::infer(ctx, spec_); }

 protected:
  virtual const Float32Kernels* float32_kernels() const { return nullptr; }
  Spec spec_;
};

}  // namespace hi::ops::rnn

namespace hi::ops {

class RnnOp : public rnn::RecurrentOp {
 public:
  Status init(InitContext& ctx) override;
  Status run(RunContext& ctx) const override;
};

class GruOp : public rnn::RecurrentOp {
 public:
  Status init(InitContext& ctx) override;
  Status run(RunContext& ctx) const override;

 private:
  bool linear_before_reset_ = false;
};

class LstmOp : public rnn::RecurrentOp {
 public:
  Status init(InitContext& ctx) override;
  Status run(RunContext& ctx) const override;

 private:
  bool input_forget_ = false;
};

}  // namespace hi::ops
