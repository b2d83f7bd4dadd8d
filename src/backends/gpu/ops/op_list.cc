// The one list of ops the GPU executor runs: (domain, op type) -> support check and kernel.
#include "backends/gpu/ops/ops.h"
#include "ops/internal.h"

namespace hi::gpu::HI_GPU_NS {

const std::vector<GpuOpEntry>& gpu_op_list() {
  using ops::kInternalDomain;
#define HI_ENTRY(domain, op, name) GpuOpEntry{domain, op, name##_why_not, make_##name}
  static const std::vector<GpuOpEntry> list = {
      HI_ENTRY("", "Relu", unary),          HI_ENTRY("", "LeakyRelu", unary),
      HI_ENTRY("", "Sigmoid", unary),       HI_ENTRY("", "Tanh", unary),
      HI_ENTRY("", "Exp", unary),           HI_ENTRY("", "Log", unary),
      HI_ENTRY("", "Sqrt", unary),          HI_ENTRY("", "Reciprocal", unary),
      HI_ENTRY("", "Neg", unary),           HI_ENTRY("", "Abs", unary),
      HI_ENTRY("", "Erf", unary),           HI_ENTRY("", "Gelu", unary),
      HI_ENTRY("", "HardSigmoid", unary),   HI_ENTRY("", "HardSwish", unary),
      HI_ENTRY(kInternalDomain, "HardSwish", unary),  // fuse_hard_swish's, for opsets before 14
      HI_ENTRY("", "Softplus", unary),      HI_ENTRY("", "Elu", unary),
      HI_ENTRY("", "Selu", unary),          HI_ENTRY("", "Sin", unary),
      HI_ENTRY("", "Cos", unary),           HI_ENTRY("", "Floor", unary),
      HI_ENTRY("", "Ceil", unary),          HI_ENTRY("", "Round", unary),
      HI_ENTRY("", "Sign", unary),          HI_ENTRY("", "Tan", unary),
      HI_ENTRY("", "Asin", unary),          HI_ENTRY("", "Acos", unary),
      HI_ENTRY("", "Atan", unary),          HI_ENTRY("", "Sinh", unary),
      HI_ENTRY("", "Cosh", unary),          HI_ENTRY("", "Asinh", unary),
      HI_ENTRY("", "Acosh", unary),         HI_ENTRY("", "Atanh", unary),
      HI_ENTRY("", "Softsign", unary),      HI_ENTRY("", "Celu", unary),
      HI_ENTRY("", "Mish", unary),          HI_ENTRY("", "ThresholdedRelu", unary),
      HI_ENTRY("", "Shrink", unary),        HI_ENTRY("", "Affine", unary),
      HI_ENTRY("", "Swish", unary),         HI_ENTRY("", "ScaledTanh", unary),
      HI_ENTRY("", "Clip", clip),
      HI_ENTRY("", "Add", binary),          HI_ENTRY("", "Sub", binary),
      HI_ENTRY("", "Mul", binary),          HI_ENTRY("", "Div", binary),
      HI_ENTRY("", "Pow", binary),          HI_ENTRY("", "Max", binary),
      HI_ENTRY("", "Min", binary),          HI_ENTRY("", "PRelu", binary),
      HI_ENTRY("", "Sum", binary),          HI_ENTRY("", "Mean", binary),
      HI_ENTRY("", "Mod", binary),
      HI_ENTRY("", "Equal", compare),       HI_ENTRY("", "Less", compare),
      HI_ENTRY("", "Greater", compare),     HI_ENTRY("", "LessOrEqual", compare),
      HI_ENTRY("", "GreaterOrEqual", compare), HI_ENTRY("", "And", compare),
      HI_ENTRY("", "Or", compare),          HI_ENTRY("", "Xor", compare),
      HI_ENTRY("", "Not", predicate),       HI_ENTRY("", "IsNaN", predicate),
      HI_ENTRY("", "IsInf", predicate),
      HI_ENTRY("", "Shape", shape),         HI_ENTRY("", "Size", shape),
      HI_ENTRY("", "ArgMax", arg_reduce),   HI_ENTRY("", "ArgMin", arg_reduce),
      HI_ENTRY("", "Trilu", trilu),
      HI_ENTRY("", "CumSum", cumulative),   HI_ENTRY("", "CumProd", cumulative),
      HI_ENTRY("", "DepthToSpace", depth_to_space), HI_ENTRY("", "SpaceToDepth", depth_to_space),
      HI_ENTRY("", "GatherElements", scatter_gather), HI_ENTRY("", "ScatterElements", scatter_gather),
      HI_ENTRY("", "ScatterND", scatter_gather),
      HI_ENTRY("", "QuantizeLinear", quantize), HI_ENTRY("", "DequantizeLinear", quantize),
      HI_ENTRY("", "Softmax", softmax),     HI_ENTRY("", "LogSoftmax", softmax),
      HI_ENTRY("", "Hardmax", softmax),
      HI_ENTRY("", "LayerNormalization", layer_norm), HI_ENTRY(kInternalDomain, "LayerNormalization", layer_norm),
      HI_ENTRY("", "RMSNormalization", layer_norm),
      HI_ENTRY("", "MatMul", matmul),       HI_ENTRY("", "Gemm", matmul),
      HI_ENTRY(kInternalDomain, "FusedMatMul", matmul),
      HI_ENTRY("", "Conv", conv),           HI_ENTRY(kInternalDomain, "FusedConv", conv),
      HI_ENTRY(kInternalDomain, "FusedAttention", fused_attention),
      HI_ENTRY("", "Attention", attention),
      HI_ENTRY("", "MaxPool", pool),        HI_ENTRY("", "AveragePool", pool),
      HI_ENTRY("", "GlobalAveragePool", global_pool), HI_ENTRY("", "GlobalMaxPool", global_pool),
      HI_ENTRY("", "Reshape", reshape),     HI_ENTRY("", "Flatten", reshape),
      HI_ENTRY("", "Squeeze", reshape),     HI_ENTRY("", "Unsqueeze", reshape),
      HI_ENTRY("", "Identity", reshape),    HI_ENTRY("", "Dropout", reshape),
      HI_ENTRY("", "Transpose", transpose), HI_ENTRY("", "Gather", gather),
      HI_ENTRY("", "Concat", concat),       HI_ENTRY("", "Slice", slice),
      HI_ENTRY("", "Expand", expand),       HI_ENTRY("", "Split", split),
      HI_ENTRY("", "Tile", tile),           HI_ENTRY("", "Pad", pad),
      HI_ENTRY("", "Cast", cast),           HI_ENTRY("", "CastLike", cast),
      HI_ENTRY("", "Where", where),
      HI_ENTRY("", "BatchNormalization", batch_norm),
      HI_ENTRY("", "ReduceSum", reduce),    HI_ENTRY("", "ReduceMean", reduce),
      HI_ENTRY("", "ReduceMax", reduce),    HI_ENTRY("", "ReduceMin", reduce),
      HI_ENTRY("", "ReduceProd", reduce),   HI_ENTRY("", "ReduceSumSquare", reduce),
      HI_ENTRY("", "ReduceL1", reduce),     HI_ENTRY("", "ReduceL2", reduce),
      HI_ENTRY("", "ReduceLogSum", reduce), HI_ENTRY("", "ReduceLogSumExp", reduce),
      HI_ENTRY("", "Resize", resize),
  };
#undef HI_ENTRY
  return list;
}

}  // namespace hi::gpu::HI_GPU_NS
