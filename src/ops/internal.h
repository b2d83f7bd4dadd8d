// hipinfer's own ops (domain com.hipinfer): made by the graph passes (src/passes/), never
// expected in a model file, though a model may use them.
#pragma once

#include "core/activation.h"
#include "ops/op.h"

namespace hi::ops {

inline constexpr const char* kInternalDomain = "com.hipinfer";

// The fused epilogue the fusion passes give FusedConv and FusedMatMul: `activation` with its
// `activation_params`, and `precision` ("fp32", or "bf16": products in bfloat16). Problems are
// recorded in ctx.
void parse_fused_epilogue(InitContext& ctx, Activation* activation, bool* bf16);

}  // namespace hi::ops
