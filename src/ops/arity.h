// Input and output counts checked at inference, so a malformed node (a required input missing
// or empty, too many inputs or outputs) is a clear error when the session is built instead of a
// failed assertion when a kernel reaches for an input that is not there. The check itself is
// ops/op_checks.h's check_arity (one definition); this header adds the common default of one
// output and a variadic form. The shared elementwise templates (ops/elementwise.h) check their own.
#pragma once

#include <cstddef>

#include "ops/op_checks.h"

namespace hi::ops {

// Redeclared with a default: most ops have exactly one output.
Status check_arity(const InferContext& ctx, size_t min_inputs, size_t max_inputs, size_t max_outputs = 1);

// A variadic op: at least one input, every listed input present, one output.
inline Status check_variadic_arity(const InferContext& ctx) {
  if (ctx.num_inputs() == 0)
    return error(StatusCode::kInvalidModel, ctx.node().op_type, " needs at least one input, the node has none");
  return check_arity(ctx, ctx.num_inputs(), ctx.num_inputs());
}

}  // namespace hi::ops
