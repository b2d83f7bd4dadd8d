// Input and output count and broadcasting checks shared by ops.
#include "ops/op_checks.h"

namespace hi::ops {

Status check_input_counts(const InferContext& ctx, size_t min_inputs, size_t max_inputs, size_t max_outputs) {
  const ir::Node& n = ctx.node();
  if (ctx.num_inputs() > max_inputs)
    return error(StatusCode::kInvalidModel, n.op_type, " takes at most ", max_inputs, " input",
                 max_inputs == 1 ? "" : "s", ", got ", ctx.num_inputs());
  for (size_t i = 0; i < min_inputs; ++i)
    if (!ctx.has_input(i))
      return error(StatusCode::kInvalidModel, n.op_type, " needs ", min_inputs, " input", min_inputs == 1 ? "" : "s",
                   ", but input ", i, " is ", i < ctx.num_inputs() ? "empty" : "missing");
  if (ctx.num_outputs() == 0) return error(StatusCode::kInvalidModel, n.op_type, " has no outputs");
  if (ctx.num_outputs() > max_outputs)
    return error(StatusCode::kInvalidModel, n.op_type, " has at most ", max_outputs, " output",
                 max_outputs == 1 ? "" : "s", ", got ", ctx.num_outputs());
  return Status::ok();
}

Status check_arity(const InferContext& ctx, size_t min_inputs, size_t max_inputs, size_t max_outputs) {
  HI_RETURN_IF_ERROR(check_input_counts(ctx, min_inputs, max_inputs, max_outputs));
  // An input of unknown kind passes: subgraph inputs may be declared without a type (a Loop
  // body's carried values), and the kernel checks the value it gets.
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    if (ctx.has_input(i) && ctx.input_type(i).kind != ir::ValueKind::kTensor &&
        ctx.input_type(i).kind != ir::ValueKind::kUnknown)
      return error(StatusCode::kInvalidModel, ctx.node().op_type, " input ", i, " must be a tensor, got ",
                   ctx.input_type(i).to_string());
  return Status::ok();
}

namespace {
std::string dims_string(const std::vector<ir::Dim>& d) {
  std::string s = "[";
  for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + d[i].to_string();
  return s + "]";
}
}  // namespace

Status check_unidirectional(const ir::ValueType& from, const std::vector<ir::Dim>& to, const char* what_from,
                            const char* what_to) {
  if (!from.has_rank()) return Status::ok();
  const auto& f = *from.shape;
  bool ok = f.size() <= to.size();
  for (size_t i = 0; ok && i < f.size(); ++i) {
    const ir::Dim& a = f[i];
    const ir::Dim& b = to[i + to.size() - f.size()];
    if (a.is_known() && a.value != 1 && b.is_known() && a.value != b.value) ok = false;
  }
  if (!ok)
    return error(StatusCode::kInvalidModel, what_from, " ", from.to_string(), " does not broadcast to ", what_to, " ",
                 dims_string(to));
  return Status::ok();
}

Status check_unidirectional(const Shape& from, const Shape& to, const char* what_from, const char* what_to) {
  bool ok = from.size() <= to.size();
  for (size_t i = 0; ok && i < from.size(); ++i)
    if (from[i] != 1 && from[i] != to[i + to.size() - from.size()]) ok = false;
  if (!ok)
    return error(StatusCode::kInvalidArgument, what_from, " ", shape_to_string(from), " does not broadcast to ",
                 what_to, " ", shape_to_string(to));
  return Status::ok();
}

}  // namespace hi::ops
