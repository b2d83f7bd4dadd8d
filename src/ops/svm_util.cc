#include "ops/svm_util.h"

#include <cmath>
#include <string>

namespace hi::ops {

SvmKernel SvmKernel::parse(InitContext& ctx, const std::string& label) {
  SvmKernel k;
  const std::string type = ctx.get_string("kernel_type", "LINEAR");
  if (type == "LINEAR") k.type = Type::kLinear;
  else if (type == "POLY") k.type = Type::kPoly;
  else if (type == "RBF") k.type = Type::kRbf;
  else if (type == "SIGMOID") k.type = Type::kSigmoid;
  else
    (void)ctx.fail(StatusCode::kInvalidModel, label, ": kernel_type must be LINEAR, POLY, RBF or SIGMOID, got '", type,
                   "'");
  const std::vector<float> params = ctx.get_floats("kernel_params");
  if (!params.empty() && params.size() != 3)
    (void)ctx.fail(StatusCode::kInvalidModel, label, ": kernel_params must be [gamma, coef0, degree], got ",
                   params.size(), " values");
  if (params.size() == 3) {
    k.gamma = params[0];
    k.coef0 = params[1];
    k.degree = static_cast<int64_t>(params[2]);
  }
  return k;
}

double SvmKernel::operator()(const double* x, const float* v, int64_t n) const {
  if (type == Type::kRbf) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double d = x[i] - v[i];
      sum += d * d;
    }
    return std::exp(-gamma * sum);
  }
  double dot = 0;
  for (int64_t i = 0; i < n; ++i) dot += x[i] * v[i];
  switch (type) {
    case Type::kPoly: return std::pow(gamma * dot + coef0, static_cast<double>(degree));
    case Type::kSigmoid: return std::tanh(gamma * dot + coef0);
    default: return dot;
  }
}

Result<ir::Dim> svm_rows(const InferContext& ctx, int64_t opset, const std::string& label, int64_t features) {
  HI_RETURN_IF_ERROR(check_input_type(ctx.node(), opset, ctx, 0, kSvmTypes, "X"));
  const ir::ValueType& x = ctx.input_type(0);
  if (!x.has_rank()) return ir::Dim{};
  if (x.rank() != 1 && x.rank() != 2)
    return error(StatusCode::kInvalidModel, label, ": X must be [N, F] or [F], got ", x.to_string());
  if (x.shape->back().is_known() && x.shape->back().value != features)
    return error(StatusCode::kInvalidModel, label, ": X has ", x.shape->back().value, " features, the model ",
                 features);
  return x.rank() == 1 ? ir::Dim::known(1) : (*x.shape)[0];
}

Result<RowView> svm_input(const RunContext& ctx, int64_t opset, const std::string& label, int64_t features) {
  const Tensor& x = ctx.in(0);
  if (!in_set(kSvmTypes, x.dtype())) return unsupported_type(ctx.node(), opset, "X", x.dtype());
  if (x.rank() != 1 && x.rank() != 2)
    return error(StatusCode::kInvalidArgument, label, ": X must be [N, F] or [F], got ", x.type_string());
  const RowView v = rows_of(x.shape());
  if (v.features != features)
    return error(StatusCode::kInvalidArgument, label, ": X is ", x.type_string(), ", the model has ", features,
                 " features");
  return v;
}

void read_row(const Tensor& x, int64_t r, int64_t features, std::vector<double>* row) {
  row->resize(static_cast<size_t>(features));
  for (int64_t f = 0; f < features; ++f) (*row)[static_cast<size_t>(f)] = x.as_double(r * features + f);
}

}  // namespace hi::ops
