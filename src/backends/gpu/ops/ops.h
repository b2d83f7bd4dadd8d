// Each GPU op's support check and kernel factory, defined in its file in this folder and listed
// once in op_list.cc.
#pragma once

#include "backends/gpu/gpu_op.h"

namespace hi::gpu::HI_GPU_NS {

#define HI_GPU_OP(name)                                                                       \
  std::string name##_why_not(const ir::Node& node, const std::vector<ir::ValueType>& inputs); \
  std::unique_ptr<GpuKernel> make_##name(const ir::Node& node);

HI_GPU_OP(unary)            // unary.cc: Relu, Sigmoid, Exp, Sin, Round, ... (one kernel, a kind per op)
HI_GPU_OP(binary)           // binary.cc: Add, Sub, Mul, Div, Pow, PRelu, Mod; Sum, Mean, Max, Min of any arity
HI_GPU_OP(compare)          // compare.cc: Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor
HI_GPU_OP(predicate)        // predicate.cc: Not, IsNaN, IsInf
HI_GPU_OP(shape)            // shape.cc: Shape, Size
HI_GPU_OP(arg_reduce)       // arg_reduce.cc: ArgMax, ArgMin
HI_GPU_OP(trilu)            // trilu.cc
HI_GPU_OP(cumulative)       // cumulative.cc: CumSum, CumProd
HI_GPU_OP(depth_to_space)   // depth_to_space.cc: DepthToSpace, SpaceToDepth
HI_GPU_OP(scatter_gather)   // scatter_gather.cc: GatherElements, ScatterElements, ScatterND
HI_GPU_OP(quantize)         // quantize.cc: QuantizeLinear, DequantizeLinear
HI_GPU_OP(softmax)          // softmax.cc: Softmax, LogSoftmax, Hardmax
HI_GPU_OP(layer_norm)       // layer_norm.cc: LayerNormalization, RMSNormalization
HI_GPU_OP(matmul)           // matmul.cc: MatMul, Gemm, FusedMatMul
HI_GPU_OP(conv)             // conv.cc: Conv, FusedConv
HI_GPU_OP(pool)             // pool.cc: MaxPool, AveragePool
HI_GPU_OP(global_pool)      // pool.cc: GlobalAveragePool, GlobalMaxPool
HI_GPU_OP(reshape)          // reshape.cc: Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout
HI_GPU_OP(transpose)        // transpose.cc
HI_GPU_OP(gather)           // gather.cc
HI_GPU_OP(concat)           // concat.cc
HI_GPU_OP(fused_attention)  // fused_attention.cc: com.hipinfer.FusedAttention
HI_GPU_OP(attention)        // attention.cc: ONNX Attention (no KV cache)
HI_GPU_OP(slice)            // slice.cc
HI_GPU_OP(expand)           // expand.cc
HI_GPU_OP(split)            // split.cc
HI_GPU_OP(tile)             // tile.cc
HI_GPU_OP(pad)              // pad.cc: constant, reflect, edge, wrap
HI_GPU_OP(cast)             // cast.cc: Cast, CastLike
HI_GPU_OP(where)            // where.cc
HI_GPU_OP(clip)             // clip.cc
HI_GPU_OP(batch_norm)       // batch_norm.cc: BatchNormalization, inference mode
HI_GPU_OP(reduce)           // reduce.cc: ReduceSum, ReduceMean, ReduceMax, ... over any axes
HI_GPU_OP(resize)           // resize.cc: nearest and linear

#undef HI_GPU_OP

}  // namespace hi::gpu::HI_GPU_NS
