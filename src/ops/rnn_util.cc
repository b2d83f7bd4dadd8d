// Shared parts of RNN, GRU and LSTM: attributes, inference, input checks and output layout.
#include "ops/rnn_util.h"

#include <algorithm>
#include <cctype>
#include <type_traits>

#include "ops/arity.h"
#include "ops/dispatch.h"
#include "ops/gemm_ref.h"
#include "ops/shape_util.h"

namespace hi::ops::rnn {
namespace {

constexpr const char* kInputName[8] = {"X", "W", "R", "B", "sequence_lens", "initial_h", "initial_c", "P"};

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

struct ActivationInfo {
  const char* name;
  Activation::Kind kind;
  bool uses_alpha, uses_beta;
  float alpha, beta;  // the defaults of the ONNX operator of the same name
};

// ScaledTanh has no default in its (retired) operator; 1, 1 makes it plain tanh. Affine's operator
// defaulted to alpha=1, beta=0 (identity).
constexpr ActivationInfo kActivations[] = {
    {"Relu", Activation::Kind::kRelu, false, false, 0, 0},
    {"Tanh", Activation::Kind::kTanh, false, false, 0, 0},
    {"Sigmoid", Activation::Kind::kSigmoid, false, false, 0, 0},
    {"Affine", Activation::Kind::kAffine, true, true, 1.f, 0.f},
    {"LeakyRelu", Activation::Kind::kLeakyRelu, true, false, 0.01f, 0},
    {"ThresholdedRelu", Activation::Kind::kThresholdedRelu, true, false, 1.f, 0},
    {"ScaledTanh", Activation::Kind::kScaledTanh, true, true, 1.f, 1.f},
    {"HardSigmoid", Activation::Kind::kHardSigmoid, true, true, 0.2f, 0.5f},
    {"Elu", Activation::Kind::kElu, true, false, 1.f, 0},
    {"Softsign", Activation::Kind::kSoftsign, false, false, 0, 0},
    {"Softplus", Activation::Kind::kSoftplus, false, false, 0, 0},
};

const ActivationInfo* find_activation(const std::string& name) {
  for (const ActivationInfo& a : kActivations)
    if (lower(a.name) == lower(name)) return &a;
  return nullptr;
}

std::string dims_string(const std::vector<ir::Dim>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + d[i].to_string();
  return s + "]";
}

ir::Dim known_or_unknown(int64_t v) { return v >= 0 ? ir::Dim::known(v) : ir::Dim{}; }

// The number a dim holds, or -1.
int64_t dim_value(const ir::ValueType& t, size_t i) {
  if (!t.has_rank() || static_cast<size_t>(t.rank()) <= i) return -1;
  return (*t.shape)[i].is_known() ? (*t.shape)[i].value : -1;
}

// A statically known shape must match `want` (unknown entries: -1, match anything).
Status check_static_shape(const InferContext& ctx, size_t input, const std::vector<int64_t>& want) {
  if (!ctx.has_input(input)) return Status::ok();
  const ir::ValueType& t = ctx.input_type(input);
  if (!t.has_rank()) return Status::ok();
  bool ok = t.rank() == static_cast<int64_t>(want.size());
  for (size_t i = 0; ok && i < want.size(); ++i) {
    const int64_t got = dim_value(t, i);
    ok = want[i] < 0 || got < 0 || want[i] == got;
  }
  if (ok) return Status::ok();
  std::vector<ir::Dim> w;
  for (int64_t v : want) w.push_back(known_or_unknown(v));
  return error(StatusCode::kInvalidModel, ctx.node().op_type, " input '", kInputName[input], "' is ", t.to_string(),
               ", expected shape ", dims_string(w));
}

Status check_runtime_shape(const Tensor& t, size_t input, const Shape& want) {
  if (t.shape() == want) return Status::ok();
  return error(StatusCode::kInvalidArgument, "input '", kInputName[input], "' is ", t.type_string(),
               ", expected shape ", shape_to_string(want));
}

// A tensor's elements converted to C.
template <typename C>
std::vector<C> to_compute(const Tensor& t) {
  std::vector<C> v;
  dispatch<kFloatTypes>(t.dtype(), [&]<typename T>() { v = ops::to_compute<T, C>(t); });
  return v;
}

// [a, b, n] -> [b, a, n]: layout=1 swaps the first two dims of X, initial_h, initial_c, Y_h, Y_c.
template <typename C>
std::vector<C> swap_leading(const std::vector<C>& v, int64_t a, int64_t b, int64_t n) {
  std::vector<C> out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j) std::copy_n(v.begin() + (i * b + j) * n, n, out.begin() + (j * a + i) * n);
  return out;
}

template <typename C>
void store(const std::vector<C>& v, Tensor& out) {
  dispatch<kFloatTypes>(out.dtype(), [&]<typename T>() {
    T* dst = out.data<T>();
    for (size_t i = 0; i < v.size(); ++i) dst[i] = static_cast<T>(static_cast<compute_t<T>>(v[i]));
  });
}

bool wants_output(const RunContext& ctx, size_t i) { return i < ctx.num_outputs() && !ctx.node().outputs[i].empty(); }

}  // namespace

void parse_attributes(InitContext& ctx, Spec& spec, const std::vector<std::string>& default_activations) {
  const std::string& op = ctx.node().op_type;
  spec.opset = ctx.opset();
  const std::string direction = ctx.get_string("direction", "forward");
  if (direction == "forward" || direction == "reverse") {
    spec.num_directions = 1;
    spec.reverse = direction == "reverse";
  } else if (direction == "bidirectional") {
    spec.num_directions = 2;
  } else {
    (void)ctx.fail(StatusCode::kInvalidModel, op, " (opset ", spec.opset, "): attribute 'direction' must be forward, ",
                   "reverse or bidirectional, got '", direction, "'");
  }
  if (ctx.has("hidden_size")) {
    spec.hidden_size = ctx.get_int("hidden_size", -1);
    if (spec.hidden_size <= 0)
      (void)ctx.fail(StatusCode::kInvalidModel, op, ": attribute 'hidden_size' must be > 0, got ", spec.hidden_size);
  }
  if (ctx.has("layout") && spec.opset < 14)
    (void)ctx.fail(StatusCode::kInvalidModel, op, " (opset ", spec.opset,
                   "): attribute 'layout' exists from opset 14 only");
  spec.layout = ctx.get_int("layout", 0);
  if (spec.layout != 0 && spec.layout != 1)
    (void)ctx.fail(StatusCode::kInvalidModel, op, ": attribute 'layout' must be 0 or 1, got ", spec.layout);
  if (ctx.has("clip")) {
    const float clip = ctx.get_float("clip", 0);
    if (!(clip > 0)) (void)ctx.fail(StatusCode::kInvalidModel, op, ": attribute 'clip' must be > 0, got ", clip);
    spec.clip = clip;
  }

  // activations: per_dir names for each direction; the same names for both directions when
  // only per_dir are given (RNN's schema default lists two for one direction: the first is used).
  const size_t per_dir = spec.activations_per_dir;
  const size_t need = per_dir * static_cast<size_t>(spec.num_directions);
  std::vector<std::string> names = ctx.get_strings("activations", default_activations);
  if (names.size() == per_dir && need > per_dir) {
    const std::vector<std::string> one_direction = names;
    names.insert(names.end(), one_direction.begin(), one_direction.end());
  } else if (names.size() == 2 * per_dir && need == per_dir) {
    names.resize(per_dir);
  } else if (names.size() != need) {
    (void)ctx.fail(StatusCode::kInvalidModel, op, " (opset ", spec.opset, "): attribute 'activations' must list ", need,
                   " functions (", per_dir, " per direction), got ", names.size());
    return;
  }
  // activation_alpha/beta are consumed in order by the functions that take a parameter.
  const std::vector<float> alphas = ctx.get_floats("activation_alpha");
  const std::vector<float> betas = ctx.get_floats("activation_beta");
  size_t next_alpha = 0, next_beta = 0;
  spec.activations.clear();
  for (const std::string& name : names) {
    const ActivationInfo* info = find_activation(name);
    if (!info) {
      (void)ctx.fail(StatusCode::kUnsupported, op, " (opset ", spec.opset, "): unknown activation '", name,
                     "' (supported: Relu, Tanh, Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, ",
                     "HardSigmoid, Elu, Softsign, Softplus)");
      return;
    }
    Activation a{info->kind, info->alpha, info->beta};
    if (info->uses_alpha && next_alpha < alphas.size()) a.alpha = alphas[next_alpha++];
    if (info->uses_beta && next_beta < betas.size()) a.beta = betas[next_beta++];
    spec.activations.push_back(a);
  }
  if (next_alpha < alphas.size() || next_beta < betas.size())
    (void)ctx.fail(StatusCode::kInvalidModel, op, ": ", alphas.size(), " activation_alpha and ", betas.size(),
                   " activation_beta values given, but the activations take only ", next_alpha, " and ", next_beta);
}

Status infer(InferContext& ctx, const Spec& spec) {
  const ir::Node& n = ctx.node();
  HI_RETURN_IF_ERROR(check_arity(ctx, 3, spec.has_cell ? 8 : 6, spec.has_cell ? 3 : 2));
  const DType t = ctx.input_type(kX).dtype;
  if (t != DType::kUndefined && !in_set(kFloatTypes, t))
    return error(StatusCode::kUnsupported, n.op_type, " (opset ", spec.opset, ") does not support X type ",
                 dtype_name(t), " (float16, bfloat16, float32, float64 only)");
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const DType ti = ctx.input_type(i).dtype;
    const DType want = i == kSequenceLens ? DType::kInt32 : t;
    if (ti != DType::kUndefined && want != DType::kUndefined && ti != want)
      return error(StatusCode::kInvalidModel, n.op_type, " input '", kInputName[i], "' is ", dtype_name(ti),
                   ", expected ", dtype_name(want));
  }
  const ir::ValueType& x = ctx.input_type(kX);
  if (x.has_rank() && x.rank() != 3)
    return error(StatusCode::kInvalidModel, n.op_type, " input 'X' is ", x.to_string(), ", expected rank 3");
  const int64_t batch = dim_value(x, spec.layout == 0 ? 1 : 0);
  const int64_t input = dim_value(x, 2);
  int64_t hidden = spec.hidden_size;
  if (hidden < 0) hidden = dim_value(ctx.input_type(kR), 2);
  const int64_t dirs = spec.num_directions, G = spec.gates;
  // W, R and B hold G and 2G rows of hidden_size each: sizes that must fit in int64.
  if (hidden >= 0 && !checked_mul(2 * G, hidden))
    return error(StatusCode::kInvalidModel, n.op_type, " hidden_size ", hidden, " times ", 2 * G,
                 " gate rows overflows int64");
  const int64_t gh = hidden < 0 ? -1 : G * hidden;
  HI_RETURN_IF_ERROR(check_static_shape(ctx, kW, {dirs, gh, input}));
  HI_RETURN_IF_ERROR(check_static_shape(ctx, kR, {dirs, gh, hidden}));
  HI_RETURN_IF_ERROR(check_static_shape(ctx, kB, {dirs, gh < 0 ? -1 : 2 * gh}));
  HI_RETURN_IF_ERROR(check_static_shape(ctx, kSequenceLens, {batch}));
  const std::vector<int64_t> state =
      spec.layout == 0 ? std::vector<int64_t>{dirs, batch, hidden} : std::vector<int64_t>{batch, dirs, hidden};
  HI_RETURN_IF_ERROR(check_static_shape(ctx, kInitialH, state));
  if (spec.has_cell) {
    HI_RETURN_IF_ERROR(check_static_shape(ctx, kInitialC, state));
    HI_RETURN_IF_ERROR(check_static_shape(ctx, kP, {dirs, hidden < 0 ? -1 : 3 * hidden}));
  }

  // Dims from X where known; the symbols of X's dims carry over.
  const auto x_dim = [&](int64_t i) { return x.has_rank() ? (*x.shape)[static_cast<size_t>(i)] : ir::Dim{}; };
  const ir::Dim seq_d = x_dim(spec.layout == 0 ? 0 : 1), batch_d = x_dim(spec.layout == 0 ? 1 : 0);
  const ir::Dim dirs_d = ir::Dim::known(dirs), hidden_d = known_or_unknown(hidden);
  std::vector<ir::Dim> y = spec.layout == 0 ? std::vector<ir::Dim>{seq_d, dirs_d, batch_d, hidden_d}
                                            : std::vector<ir::Dim>{batch_d, seq_d, dirs_d, hidden_d};
  std::vector<ir::Dim> s = spec.layout == 0 ? std::vector<ir::Dim>{dirs_d, batch_d, hidden_d}
                                            : std::vector<ir::Dim>{batch_d, dirs_d, hidden_d};
  ctx.set_output_type(0, ir::ValueType::tensor(t, y));
  for (size_t i = 1; i < ctx.num_outputs(); ++i) ctx.set_output_type(i, ir::ValueType::tensor(t, s));
  return Status::ok();
}

template <typename C>
Status read_problem(const RunContext& ctx, const Spec& spec, Problem<C>* p) {
  const std::string& op = ctx.node().op_type;
  const Tensor& x = ctx.in(kX);
  if (!in_set(kFloatTypes, x.dtype()))
    return error(StatusCode::kUnsupported, op, " (opset ", spec.opset, ") does not support X type ",
                 dtype_name(x.dtype()), " (float16, bfloat16, float32, float64 only)");
  const size_t max_inputs = spec.has_cell ? 8 : 6;
  for (size_t i = 1; i < std::min(ctx.num_inputs(), max_inputs); ++i) {
    const Tensor* t = ctx.input(i);
    if (!t) continue;
    const DType want = i == kSequenceLens ? DType::kInt32 : x.dtype();
    if (t->dtype() != want)
      return error(StatusCode::kInvalidArgument, "input '", kInputName[i], "' is ", t->type_string(), ", expected ",
                   dtype_name(want));
  }
  if (x.rank() != 3) return error(StatusCode::kInvalidArgument, "input 'X' is ", x.type_string(), ", expected rank 3");
  p->seq = x.dim(spec.layout == 0 ? 0 : 1);
  p->batch = x.dim(spec.layout == 0 ? 1 : 0);
  p->input = x.dim(2);
  p->dirs = spec.num_directions;
  const Tensor& r = ctx.in(kR);
  if (spec.hidden_size > 0) {
    p->hidden = spec.hidden_size;
  } else {
    if (r.rank() != 3)
      return error(StatusCode::kInvalidArgument, "input 'R' is ", r.type_string(), ", expected rank 3");
    p->hidden = r.dim(2);
  }
  const int64_t H = p->hidden, G = spec.gates, D = p->dirs, N = p->batch;
  HI_RETURN_IF_ERROR(check_runtime_shape(ctx.in(kW), kW, {D, G * H, p->input}));
  HI_RETURN_IF_ERROR(check_runtime_shape(r, kR, {D, G * H, H}));
  const Tensor* b = ctx.input(kB);
  const Tensor* lens = ctx.input(kSequenceLens);
  const Tensor* h0 = ctx.input(kInitialH);
  const Tensor* c0 = spec.has_cell ? ctx.input(kInitialC) : nullptr;
  const Tensor* peep = spec.has_cell ? ctx.input(kP) : nullptr;
  if (b) HI_RETURN_IF_ERROR(check_runtime_shape(*b, kB, {D, 2 * G * H}));
  if (lens) HI_RETURN_IF_ERROR(check_runtime_shape(*lens, kSequenceLens, {N}));
  if (h0) HI_RETURN_IF_ERROR(check_runtime_shape(*h0, kInitialH, spec.layout == 0 ? Shape{D, N, H} : Shape{N, D, H}));
  if (c0) HI_RETURN_IF_ERROR(check_runtime_shape(*c0, kInitialC, spec.layout == 0 ? Shape{D, N, H} : Shape{N, D, H}));
  if (peep) HI_RETURN_IF_ERROR(check_runtime_shape(*peep, kP, {D, 3 * H}));

  p->x = to_compute<C>(x);
  if (spec.layout == 1) p->x = swap_leading(p->x, N, p->seq, p->input);
  const auto weights = [](const Tensor& t, std::vector<C>* copy) -> const C* {
    if (t.dtype() == dtype_of<C>) return t.data<C>();
    *copy = to_compute<C>(t);
    return copy->data();
  };
  p->w = weights(ctx.in(kW), &p->w_copy);
  p->r = weights(r, &p->r_copy);
  p->b = b ? to_compute<C>(*b) : std::vector<C>(static_cast<size_t>(D * 2 * G * H), C(0));
  if (spec.has_cell) p->p = peep ? to_compute<C>(*peep) : std::vector<C>(static_cast<size_t>(D * 3 * H), C(0));
  p->lens.assign(static_cast<size_t>(N), p->seq);
  if (lens) {
    const int32_t* l = lens->data<int32_t>();
    for (int64_t i = 0; i < N; ++i) {
      if (l[i] < 0 || l[i] > p->seq)
        return error(StatusCode::kInvalidArgument, "sequence_lens[", i, "] is ", l[i], ", expected a value in [0, ",
                     p->seq, "] (the sequence length of X)");
      p->lens[static_cast<size_t>(i)] = l[i];
    }
  }
  const auto read_state = [&](const Tensor* t) {
    if (!t) return std::vector<C>(static_cast<size_t>(D * N * H), C(0));
    std::vector<C> v = to_compute<C>(*t);
    return spec.layout == 1 ? swap_leading(v, N, D, H) : v;
  };
  p->h0 = read_state(h0);
  if (spec.has_cell) p->c0 = read_state(c0);
  return Status::ok();
}

template <typename C>
Status write_outputs(RunContext& ctx, const Spec& spec, const Problem<C>& p, const std::vector<C>& y,
                     const std::vector<C>& h, const std::vector<C>& c) {
  const DType t = ctx.in(kX).dtype();
  const int64_t S = p.seq, D = p.dirs, N = p.batch, H = p.hidden;
  if (wants_output(ctx, 0)) {
    if (spec.layout == 0) {
      store(y, ctx.output(0, t, {S, D, N, H}));
    } else {
      // [seq, dirs, batch, hidden] -> [batch, seq, dirs, hidden]
      std::vector<C> yt(y.size());
      for (int64_t s = 0; s < S; ++s)
        for (int64_t d = 0; d < D; ++d)
          for (int64_t n = 0; n < N; ++n)
            std::copy_n(y.begin() + ((s * D + d) * N + n) * H, H, yt.begin() + ((n * S + s) * D + d) * H);
      store(yt, ctx.output(0, t, {N, S, D, H}));
    }
  }
  const Shape state = spec.layout == 0 ? Shape{D, N, H} : Shape{N, D, H};
  if (wants_output(ctx, 1)) store(spec.layout == 0 ? h : swap_leading(h, D, N, H), ctx.output(1, t, state));
  if (spec.has_cell && wants_output(ctx, 2))
    store(spec.layout == 0 ? c : swap_leading(c, D, N, H), ctx.output(2, t, state));
  return Status::ok();
}

template <typename C>
void gates_in_place(const DirectionWeights<C>& w, size_t i, C* x, int64_t n) {
  if constexpr (std::is_same_v<C, float>) {
    const Activation::Kind kind = w.act[i].kind;
    if (kind == Activation::Kind::kSigmoid || kind == Activation::Kind::kTanh) {
      if (w.clip)
        for (int64_t k = 0; k < n; ++k) x[k] = std::fmax(-*w.clip, std::fmin(*w.clip, x[k]));
      if (w.kernels && w.kernels->sigmoid_or_tanh) {
        w.kernels->sigmoid_or_tanh(x, n, kind == Activation::Kind::kSigmoid);
        return;
      }
    }
  }
  for (int64_t k = 0; k < n; ++k) x[k] = w.gate(i, x[k]);
}

template <typename C>
void gemm_nt(const DirectionWeights<C>& w, int64_t m, int64_t n, int64_t k, C alpha, const C* a, int64_t lda,
             const C* b, int64_t ldb, C beta, C* c, int64_t ldc) {
  if constexpr (std::is_same_v<C, float>)
    if (w.kernels && w.kernels->gemm_nt) return w.kernels->gemm_nt(m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  gemm_ref<C>(false, true, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

template <typename C>
void project_inputs(const Problem<C>& p, const DirectionWeights<C>& w, int64_t gates, std::vector<C>* xw) {
  const int64_t rows = p.seq * p.batch, cols = gates * p.hidden;
  xw->resize(static_cast<size_t>(rows * cols));
  for (int64_t i = 0; i < rows; ++i) std::copy_n(w.wb, cols, xw->begin() + i * cols);
  gemm_nt<C>(w, rows, cols, p.input, C(1), p.x.data(), p.input, w.w, p.input, C(1), xw->data(), cols);
}

template Status read_problem<float>(const RunContext&, const Spec&, Problem<float>*);
template Status read_problem<double>(const RunContext&, const Spec&, Problem<double>*);
template Status write_outputs<float>(RunContext&, const Spec&, const Problem<float>&, const std::vector<float>&,
                                     const std::vector<float>&, const std::vector<float>&);
template Status write_outputs<double>(RunContext&, const Spec&, const Problem<double>&, const std::vector<double>&,
                                      const std::vector<double>&, const std::vector<double>&);
template void project_inputs<float>(const Problem<float>&, const DirectionWeights<float>&, int64_t,
                                    std::vector<float>*);
template void gates_in_place<float>(const DirectionWeights<float>&, size_t, float*, int64_t);
template void gates_in_place<double>(const DirectionWeights<double>&, size_t, double*, int64_t);
template void gemm_nt<float>(const DirectionWeights<float>&, int64_t, int64_t, int64_t, float, const float*, int64_t,
                             const float*, int64_t, float, float*, int64_t);
template void gemm_nt<double>(const DirectionWeights<double>&, int64_t, int64_t, int64_t, double, const double*,
                              int64_t, const double*, int64_t, double, double*, int64_t);
template void project_inputs<double>(const Problem<double>&, const DirectionWeights<double>&, int64_t,
                                     std::vector<double>*);

}  // namespace hi::ops::rnn
