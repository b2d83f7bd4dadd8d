// Einsum (opset 12): Einstein summation over one or more inputs of one numeric type, e.g.
// "bij,bjk->bik". Labels are letters; a label repeated within one input takes its diagonal; "..."
// stands for broadcast (numpy-style) leading dims; without "->" the output is the ellipsis dims
// followed by the labels that appear exactly once, in ASCII order (numpy's implicit mode). Labels
// missing from the output are summed over. A dim of size 1 broadcasts against the label's size
// (as numpy does). The kernel walks every combination of label values, multiplying the inputs'
// elements and adding into the output: floats accumulate in double, integers wrap.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <type_traits>

#include "ops/elementwise.h"
#include "ops/numeric.h"
#include "ops/op_checks.h"

namespace hi::ops {
namespace {

// One side of the equation for one operand: its labels in order, and where "..." sits.
struct Term {
  std::string labels;    // letters only
  int ellipsis_at = -1;  // number of labels before "...", or -1 without one
};

struct Equation {
  std::vector<Term> inputs;
  Term output;
  bool explicit_output = false;
};

Result<Term> parse_term(const std::string& s, const std::string& eq) {
  Term t;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      t.labels += c;
    } else if (c == '.') {
      if (s.compare(i, 3, "...") != 0 || t.ellipsis_at >= 0)
        return error(StatusCode::kInvalidModel, "equation '", eq, "': '.' must appear as one \"...\" per term");
      t.ellipsis_at = static_cast<int>(t.labels.size());
      i += 2;
    } else {
      return error(StatusCode::kInvalidModel, "equation '", eq, "': unexpected character '", c, "'");
    }
  }
  return t;
}

Result<Equation> parse_equation(const std::string& text, size_t num_inputs) {
  std::string eq;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) eq += c;
  Equation e;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    const size_t len = comma == std::string::npos ? std::string::npos : comma - start;
    HI_ASSIGN_OR_RETURN(Term t, parse_term(lhs.substr(start, len), text));
    e.inputs.push_back(std::move(t));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (e.inputs.size() != num_inputs)
    return error(StatusCode::kInvalidModel, "equation '", text, "' has ", e.inputs.size(),
                 " input terms but the node has ", num_inputs, " inputs");
  bool any_ellipsis = false;
  std::map<char, int> uses;
  for (const Term& t : e.inputs) {
    any_ellipsis = any_ellipsis || t.ellipsis_at >= 0;
    for (char c : t.labels) ++uses[c];
  }
  if (arrow != std::string::npos) {
    e.explicit_output = true;
    const std::string rhs = eq.substr(arrow + 2);
    if (rhs.find("->") != std::string::npos)
      return error(StatusCode::kInvalidModel, "equation '", text, "' has two '->'");
    HI_ASSIGN_OR_RETURN(e.output, parse_term(rhs, text));
    for (size_t i = 0; i < e.output.labels.size(); ++i) {
      const char c = e.output.labels[i];
      if (!uses.count(c))
        return error(StatusCode::kInvalidModel, "equation '", text, "': output label '", c, "' is in no input");
      if (e.output.labels.find(c, i + 1) != std::string::npos)
        return error(StatusCode::kInvalidModel, "equation '", text, "': output label '", c, "' appears twice");
    }
  } else {
    if (any_ellipsis) e.output.ellipsis_at = 0;
    for (const auto& [c, n] : uses)  // std::map iterates in ASCII order
      if (n == 1) e.output.labels += c;
  }
  return e;
}

// Sizes of every summation variable. Variables 0..E-1 are the broadcast ellipsis dims; then one
// per distinct label. D is ir::Dim (inference) or int64_t (run time).
struct Layout {
  int64_t ellipsis_rank = 0;
  std::map<char, size_t> var_of_label;
  size_t num_vars = 0;
  // For each input dim: its variable.
  std::vector<std::vector<size_t>> dim_vars;
  // The output's variables in order.
  std::vector<size_t> out_vars;
};

// Builds the layout from the inputs' ranks; checks each term against its input's rank.
Result<Layout> make_layout(const Equation& e, const std::vector<int64_t>& ranks, const std::string& text) {
  Layout l;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const Term& t = e.inputs[i];
    const auto labels = static_cast<int64_t>(t.labels.size());
    if (t.ellipsis_at < 0 ? ranks[i] != labels : ranks[i] < labels)
      return error(StatusCode::kInvalidModel, "equation '", text, "': term '", t.labels,
                   t.ellipsis_at >= 0 ? "' (with ...)" : "'", " does not fit input ", i, " of rank ", ranks[i]);
    if (t.ellipsis_at >= 0) l.ellipsis_rank = std::max(l.ellipsis_rank, ranks[i] - labels);
  }
  if (e.explicit_output && e.output.ellipsis_at < 0 && l.ellipsis_rank > 0)
    return error(StatusCode::kInvalidModel, "equation '", text, "': the inputs' \"...\" covers ", l.ellipsis_rank,
                 " dims but the output has no \"...\"");
  l.num_vars = static_cast<size_t>(l.ellipsis_rank);
  for (const Term& t : e.inputs)
    for (char c : t.labels)
      if (!l.var_of_label.count(c)) l.var_of_label[c] = l.num_vars++;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    const Term& t = e.inputs[i];
    std::vector<size_t> vars;
    const int64_t ell = ranks[i] - static_cast<int64_t>(t.labels.size());  // dims under "..."
    for (size_t k = 0; k <= t.labels.size(); ++k) {
      if (static_cast<int>(k) == t.ellipsis_at)
        for (int64_t d = 0; d < ell; ++d)
          vars.push_back(static_cast<size_t>(l.ellipsis_rank - ell + d));  // right-aligned
      if (k < t.labels.size()) vars.push_back(l.var_of_label[t.labels[k]]);
    }
    l.dim_vars.push_back(std::move(vars));
  }
  for (size_t k = 0; k <= e.output.labels.size(); ++k) {
    if (static_cast<int>(k) == e.output.ellipsis_at)
      for (int64_t d = 0; d < l.ellipsis_rank; ++d) l.out_vars.push_back(static_cast<size_t>(d));
    if (k < e.output.labels.size()) l.out_vars.push_back(l.var_of_label[e.output.labels[k]]);
  }
  return l;
}

class EinsumOp final : public Op {
 public:
  Status init(InitContext& ctx) override {
    if (!ctx.has("equation")) return ctx.fail(StatusCode::kInvalidModel, "required attribute 'equation' is missing");
    equation_ = ctx.get_string("equation", "");
    HI_RETURN_IF_ERROR(ctx.status());
    auto e = parse_equation(equation_, ctx.node().inputs.size());
    if (!e.is_ok()) return ctx.fail(e.status().code(), e.status().message());
    eq_ = std::move(e).value();
    return ctx.status();
  }

  Status infer(InferContext& ctx) const override {
    HI_RETURN_IF_ERROR(check_arity(ctx, ctx.num_inputs(), ctx.num_inputs(), 1));
    if (ctx.num_inputs() == 0) return error(StatusCode::kInvalidModel, "Einsum needs at least one input");
    DType dtype = DType::kUndefined;
    std::vector<int64_t> ranks;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const ir::ValueType& t = ctx.input_type(i);
      if (t.dtype != DType::kUndefined) {
        if (!in_set(kNumericTypes, t.dtype)) return unsupported_dtype(ctx.node(), t.dtype);
        if (dtype != DType::kUndefined && t.dtype != dtype)
          return error(StatusCode::kInvalidModel, "input ", i, " is ", t.to_string(), " but input 0 is ",
                       dtype_name(dtype));
        dtype = t.dtype;
      }
      if (!t.has_rank()) {
        ctx.set_output_type(0, ir::ValueType::tensor_unknown_shape(dtype));
        return Status::ok();
      }
      ranks.push_back(t.rank());
    }
    HI_ASSIGN_OR_RETURN(const Layout l, make_layout(eq_, ranks, equation_));
    // Each variable's dim: the broadcast of every input dim mapped to it.
    std::vector<ir::Dim> size(l.num_vars, ir::Dim::known(1));
    for (size_t i = 0; i < ranks.size(); ++i) {
      const auto& dims = *ctx.input_type(i).shape;
      for (size_t d = 0; d < dims.size(); ++d) {
        auto b = broadcast_dims({size[l.dim_vars[i][d]]}, {dims[d]});
        if (!b.is_ok())
          return error(StatusCode::kInvalidModel, "equation '", equation_, "': input ", i, " dim ", d, " (",
                       dims[d].to_string(), ") does not match the other inputs' size for its label (",
                       size[l.dim_vars[i][d]].to_string(), ")");
        size[l.dim_vars[i][d]] = b.value()[0];
      }
    }
    std::vector<ir::Dim> out;
    for (size_t v : l.out_vars) out.push_back(size[v]);
    ctx.set_output_type(0, ir::ValueType::tensor(dtype, std::move(out)));
    return Status::ok();
  }

  Status run(RunContext& ctx) const override {
    const size_t k = ctx.num_inputs();
    const Tensor& first = ctx.in(0);
    if (!in_set(kNumericTypes, first.dtype())) return unsupported_dtype(ctx.node(), first.dtype());
    std::vector<int64_t> ranks;
    for (size_t i = 0; i < k; ++i) {
      if (ctx.in(i).dtype() != first.dtype())
        return error(StatusCode::kInvalidArgument, "input ", i, " is ", ctx.in(i).type_string(), " but input 0 is ",
                     first.type_string());
      ranks.push_back(ctx.in(i).rank());
    }
    auto layout = make_layout(eq_, ranks, equation_);
    if (!layout.is_ok()) return Status(StatusCode::kInvalidArgument, layout.status().message());
    const Layout& l = layout.value();
    std::vector<int64_t> size(l.num_vars, 1);
    for (size_t i = 0; i < k; ++i)
      for (size_t d = 0; d < l.dim_vars[i].size(); ++d) {
        const int64_t dim = ctx.in(i).dim(static_cast<int64_t>(d));
        int64_t& s = size[l.dim_vars[i][d]];
        if (dim != s && dim != 1 && s != 1)
          return error(StatusCode::kInvalidArgument, "equation '", equation_, "': input ", i, " ",
                       ctx.in(i).type_string(), " dim ", d, " is ", dim, " but its label has size ", s, " elsewhere");
        if (s == 1) s = dim;
      }
    // coef[i][v]: how far input i's offset moves when variable v steps by one (0 where the
    // input's dim is broadcast; the sum of strides where a label repeats: the diagonal).
    std::vector<std::vector<int64_t>> coef(k, std::vector<int64_t>(l.num_vars, 0));
    for (size_t i = 0; i < k; ++i) {
      const std::vector<int64_t> strides = strides_of(ctx.in(i).shape());
      for (size_t d = 0; d < l.dim_vars[i].size(); ++d)
        if (ctx.in(i).dim(static_cast<int64_t>(d)) != 1) coef[i][l.dim_vars[i][d]] += strides[d];
    }
    Shape out_shape;
    std::vector<bool> is_out(l.num_vars, false);
    for (size_t v : l.out_vars) {
      out_shape.push_back(size[v]);
      is_out[v] = true;
    }
    std::vector<size_t> sum_vars;
    for (size_t v = 0; v < l.num_vars; ++v)
      if (!is_out[v]) sum_vars.push_back(v);
    Tensor& y = ctx.output(0, first.dtype(), out_shape);
    int64_t sum_count = 1;
    for (size_t v : sum_vars) sum_count *= size[v];
    dispatch<kNumericTypes>(first.dtype(), [&]<typename T>() {
      // Accumulator: double for floats; 64-bit integers (wrapping) otherwise.
      using A = std::conditional_t<kIsFloat<T>, double, std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>>;
      std::vector<const T*> in(k);
      for (size_t i = 0; i < k; ++i) in[i] = ctx.in(i).template data<T>();
      T* py = y.data<T>();
      std::vector<int64_t> value(l.num_vars, 0);
      const int64_t n_out = y.numel();
      for (int64_t o = 0; o < n_out; ++o) {
        // The output variables' values for element o (row-major over out_vars).
        int64_t rem = o;
        for (size_t p = l.out_vars.size(); p-- > 0;) {
          value[l.out_vars[p]] = rem % size[l.out_vars[p]];
          rem /= size[l.out_vars[p]];
        }
        for (size_t v : sum_vars) value[v] = 0;
        A acc = A(0);
        for (int64_t s = 0; s < sum_count; ++s) {
          A prod = A(1);
          for (size_t i = 0; i < k; ++i) {
            int64_t off = 0;
            for (size_t v = 0; v < l.num_vars; ++v) off += value[v] * coef[i][v];
            prod = wrap_mul(prod, static_cast<A>(static_cast<compute_t<T>>(in[i][off])));
          }
          acc = wrap_add(acc, prod);
          for (size_t p = sum_vars.size(); p-- > 0;) {  // next combination of summed variables
            if (++value[sum_vars[p]] < size[sum_vars[p]]) break;
            value[sum_vars[p]] = 0;
          }
        }
        py[o] = static_cast<T>(static_cast<compute_t<T>>(acc));
      }
    });
    return Status::ok();
  }

 private:
  std::string equation_;
  Equation eq_;
};

}  // namespace

HI_REGISTER_OP(Einsum, EinsumOp)

}  // namespace hi::ops
