#include "ops/internal.h"

namespace hi::ops {

void parse_fused_epilogue(InitContext& ctx, Activation* activation, bool* bf16) {
  const std::string act = ctx.get_string("activation", "");
  if (!Activation::parse(act, ctx.get_floats("activation_params"), activation))
    (void)ctx.fail(StatusCode::kInvalidModel, "unknown activation '", act, "' or wrong number of activation_params");
  const std::string precision = ctx.get_string("precision", "fp32");
  if (precision != "fp32" && precision != "bf16")
    (void)ctx.fail(StatusCode::kInvalidModel, "precision must be fp32 or bf16, got '", precision, "'");
  *bf16 = precision == "bf16";
}

}  // namespace hi::ops
