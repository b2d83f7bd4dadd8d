// The GPU ops added for Slice, Expand, Split, Tile, Pad, Cast, Where, Clip, BatchNormalization,
// the Reduce* family, Resize and the extra unary kinds, checked without a GPU: the kernel table's
// answers (what placement is told, with the reasons for what is not covered), and the kernels'
// plans and per-element index arithmetic (the same HI_HOST_DEVICE code the kernels run) applied
// on the host against the CPU reference ops through one-node sessions. Runs in every build.
#include <cstring>
#include <limits>

#include "backends/gpu/gpu_partition.h"
#include "backends/gpu/kernels/copy.h"
#include "backends/gpu/kernels/elementwise.h"
#include "backends/gpu/kernels/convert.h"
#include "backends/gpu/kernels/pad.h"
#include "backends/gpu/kernels/reduce.h"
#include "backends/gpu/kernels/resize.h"
#include "gpu/kernel_harness.h"
#include "ops/convert.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

ir::ValueType vt(DType t, const Shape& shape) { return ir::ValueType::concrete(t, shape); }
ir::ValueType f32(const Shape& shape) { return vt(DType::kFloat32, shape); }
ir::ValueType i64(const Shape& shape) { return vt(DType::kInt64, shape); }

// Expects the kernel table to take the node ("") or to refuse it with a reason containing `want`.
void expect_support(const ir::Node& n, const std::vector<ir::ValueType>& in, const std::string& want) {
  const std::string got = partition_support(n, in);
  if (want.empty()) EXPECT_EQ(got, "") << n.op_type;
  else EXPECT_NE(got.find(want), std::string::npos) << n.op_type << ": '" << got << "' lacks '" << want << "'";
}

TEST(HI_GPU_TEST_SUITE, KernelTableCoversTheDataMovementOps) {
  // Any element type the copies can move (1, 2, 4 or 8 bytes); not strings.
  for (const char* op : {"Slice", "Expand", "Split", "Tile", "Pad"}) {
    std::vector<std::string> ins = {"x", "a"};
    if (std::string(op) == "Slice") ins = {"x", "s", "e"};
    const ir::Node n = make_node(op, ins);
    std::vector<ir::ValueType> types = {f32({4, 6}), i64({2})};
    if (std::string(op) == "Slice") types = {f32({4, 6}), i64({1}), i64({1})};
    expect_support(n, types, "");
    types[0] = i64({4, 6});
    expect_support(n, types, "");
    types[0] = vt(DType::kBool, {4, 6});
    expect_support(n, types, "");
    types[0] = vt(DType::kString, {4, 6});
    expect_support(n, types, std::string("no GPU kernel for ") + op + " on string");
  }
  // Ranks: 8 for the strided copies, 4 for Tile (two copy dims per repeated dim).
  expect_support(make_node("Slice", {"x", "s", "e"}), {f32(Shape(9, 2)), i64({1}), i64({1})}, "Slice above rank 8");
  expect_support(make_node("Tile", {"x", "r"}), {vt(DType::kFloat16, {2, 2, 2, 2}), i64({4})}, "");
  expect_support(make_node("Tile", {"x", "r"}), {f32({2, 2, 2, 2, 2}), i64({5})}, "Tile above rank 4");
  expect_support(make_node("Tile", {"x", "t", "a"}), {f32({2, 3}), i64({}), i64({})}, "Tile-1");
  expect_support(make_node("Expand", {"x", "s"}), {f32({3, 1}), i64({9})}, "Expand above rank 8");
  expect_support(make_node("Expand", {"x", "s"}), {f32({3, 1}), ir::ValueType::tensor_unknown_shape(DType::kInt64)},
                 "shape of unknown length");
  expect_support(make_node("Split", {"x"}, {"a", "", "c"}), {f32({6, 2})}, "unnamed output");
  ir::Node pad = make_node("Pad", {"x", "p"});
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    set_string_attr(pad, "mode", mode);
    expect_support(pad, {f32({3, 4}), i64({4})}, "");
  }
  set_string_attr(pad, "mode", "mirror");
  expect_support(pad, {f32({3, 4}), i64({4})}, "no GPU kernel for Pad with mode mirror");
}

TEST(HI_GPU_TEST_SUITE, KernelTableCoversCastWhereClipAndBatchNorm) {
  ir::Node cast = make_node("Cast", {"x"});
  set_int_attr(cast, "to", 10);
  expect_support(cast, {f32({3})}, "");
  set_int_attr(cast, "to", 1);
  expect_support(cast, {vt(DType::kFloat16, {3})}, "");
  expect_support(cast, {i64({3})}, "");
  set_int_attr(cast, "to", 7);
  expect_support(cast, {f32({3})}, "");
  set_int_attr(cast, "to", 9);
  expect_support(cast, {vt(DType::kUInt8, {3})}, "");
  set_int_attr(cast, "to", 11);
  expect_support(cast, {f32({3})},
                 "no GPU kernel for Cast from float32 to float64 (float32, float16, int64, int32, int8, uint8, bool)");
  set_int_attr(cast, "to", 1);
  expect_support(cast, {vt(DType::kBFloat16, {3})}, "no GPU kernel for Cast from bfloat16 to float32");
  ir::Node cast_name = make_node("Cast", {"x"});  // opset 1 names the type
  set_string_attr(cast_name, "to", "INT32");
  expect_support(cast_name, {f32({3})}, "");
  expect_support(make_node("CastLike", {"x", "like"}), {f32({3}), vt(DType::kInt8, {})}, "");
  expect_support(make_node("CastLike", {"x", "like"}), {f32({3}), vt(DType::kString, {})}, "to string");

  const ir::Node where = make_node("Where", {"c", "x", "y"});
  expect_support(where, {vt(DType::kBool, {2, 1}), f32({3}), f32({2, 3})}, "");
  expect_support(where, {vt(DType::kBool, {2, 1}), i64({3}), i64({2, 3})}, "");
  expect_support(where, {vt(DType::kBool, {2, 1}), i64({3}), f32({2, 3})},
                 "no GPU kernel for Where on int64 and float32");
  expect_support(where, {f32({2}), f32({2}), f32({2})}, "float32 condition (bool)");

  expect_support(make_node("Clip", {"x", "lo", "hi"}), {f32({5}), f32({}), f32({})}, "");
  expect_support(make_node("Clip", {"x", "", "hi"}),
                 {vt(DType::kFloat16, {5}), ir::ValueType{}, vt(DType::kFloat16, {})}, "");
  expect_support(make_node("Clip", {"x", "lo"}), {i64({5}), i64({})}, "on int64");

  const std::vector<ir::ValueType> bn = {f32({2, 3, 4, 4}), f32({3}), f32({3}), f32({3}), f32({3})};
  expect_support(make_node("BatchNormalization", {"x", "s", "b", "m", "v"}), bn, "");
  expect_support(make_node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y", "rm", "rv"}), bn, "one output");
  ir::Node training = make_node("BatchNormalization", {"x", "s", "b", "m", "v"});
  set_int_attr(training, "training_mode", 1);
  expect_support(training, bn, "training mode");
}

TEST(HI_GPU_TEST_SUITE, KernelTableCoversReductionsResizeAndMoreUnaryOps) {
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                         "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp"}) {
    expect_support(make_node(op, {"x", "axes"}), {f32({2, 3, 4}), i64({2})}, "");
    expect_support(make_node(op, {"x"}), {vt(DType::kInt32, {2, 3})}, "on int32");
    expect_support(make_node(op, {"x"}), {f32(Shape(9, 1))}, "above rank 8");
  }
  ir::Node resize = make_node("Resize", {"x", "", "scales"});
  expect_support(resize, {f32({1, 3, 8, 8}), ir::ValueType{}, f32({4})}, "");
  set_string_attr(resize, "mode", "linear");
  expect_support(resize, {vt(DType::kFloat16, {1, 3, 8, 8}), ir::ValueType{}, f32({4})}, "");
  set_int_attr(resize, "antialias", 1);
  expect_support(resize, {f32({1, 3, 8, 8}), ir::ValueType{}, f32({4})}, "no GPU kernel for Resize with antialias");
  set_int_attr(resize, "antialias", 0);
  set_string_attr(resize, "coordinate_transformation_mode", "tf_crop_and_resize");
  expect_support(resize, {f32({1, 3, 8, 8}), ir::ValueType{}, f32({4})},
                 "no GPU kernel for Resize with coordinate_transformation_mode tf_crop_and_resize");
  set_string_attr(resize, "coordinate_transformation_mode", "align_corners");
  set_string_attr(resize, "mode", "cubic");
  expect_support(resize, {f32({1, 3, 8, 8}), ir::ValueType{}, f32({4})}, "no GPU kernel for Resize with mode cubic");
  expect_support(make_node("Resize", {"x", "", "scales"}), {i64({1, 3, 8, 8}), ir::ValueType{}, f32({4})}, "on int64");

  for (const char* op : {"Sin", "Cos", "Floor", "Ceil", "Round", "Sign"}) {
    expect_support(make_node(op, {"x"}), {f32({7})}, "");
    expect_support(make_node(op, {"x"}), {vt(DType::kFloat64, {7})}, "on float64");
  }
  ir::Node gelu = make_node("Gelu", {"x"});
  set_string_attr(gelu, "approximate", "tanh");
  expect_support(gelu, {f32({7})}, "");
  for (const char* op : {"Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Softsign", "Celu",
                         "Mish", "ThresholdedRelu", "Shrink", "Affine", "Swish", "ScaledTanh"}) {
    expect_support(make_node(op, {"x"}), {vt(DType::kFloat16, {7})}, "");
    expect_support(make_node(op, {"x"}), {i64({7})}, "on int64");
  }
}

TEST(HI_GPU_TEST_SUITE, KernelTableCoversComparisonsLogicAndIntegerArithmetic) {
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"}) {
    for (DType t : {DType::kFloat32, DType::kFloat16, DType::kInt64, DType::kInt32, DType::kInt8, DType::kUInt8})
      expect_support(make_node(op, {"a", "b"}), {vt(t, {2, 3}), vt(t, {3})}, "");
    expect_support(make_node(op, {"a", "b"}), {f32({3}), i64({3})},
                   std::string("no GPU kernel for ") + op + " on float32");
    expect_support(make_node(op, {"a", "b"}), {vt(DType::kFloat64, {3}), vt(DType::kFloat64, {3})}, "on float64");
  }
  expect_support(make_node("Equal", {"a", "b"}), {vt(DType::kBool, {3}), vt(DType::kBool, {3})}, "");
  expect_support(make_node("Less", {"a", "b"}), {vt(DType::kBool, {3}), vt(DType::kBool, {3})}, "on bool");
  for (const char* op : {"And", "Or", "Xor"}) {
    expect_support(make_node(op, {"a", "b"}), {vt(DType::kBool, {4, 1}), vt(DType::kBool, {5})}, "");
    expect_support(make_node(op, {"a", "b"}), {i64({3}), i64({3})}, "on int64 (bool)");
  }
  expect_support(make_node("Not", {"x"}), {vt(DType::kBool, {3})}, "");
  expect_support(make_node("Not", {"x"}), {f32({3})}, "Not on float32 (bool)");
  expect_support(make_node("IsNaN", {"x"}), {vt(DType::kFloat16, {3})}, "");
  expect_support(make_node("IsInf", {"x"}), {i64({3})}, "on int64");
  expect_support(make_node("Shape", {"x"}), {f32({2, 3})}, "");
  expect_support(make_node("Size", {"x"}), {vt(DType::kBool, {2, 3})}, "");
  expect_support(make_node("Shape", {"x"}), {f32(Shape(17, 1))}, "Shape above rank 16");

  for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"}) {
    expect_support(make_node(op, {"a", "b"}), {i64({2, 3}), i64({3})}, "");
    expect_support(make_node(op, {"a", "b"}), {vt(DType::kInt32, {3}), vt(DType::kInt32, {3})}, "");
    expect_support(make_node(op, {"a", "b"}), {vt(DType::kInt16, {3}), vt(DType::kInt16, {3})},
                   "(float32, float16, int32, int64)");
  }
  // An integer division by zero is an error the CPU reports; the GPU could not without waiting.
  expect_support(make_node("Div", {"a", "b"}), {i64({3}), i64({3})},
                 "no GPU kernel for Div on int64 (float32, float16)");
  expect_support(make_node("Pow", {"a", "b"}), {f32({3}), i64({3})}, "no GPU kernel for Pow of float32 and int64");
  for (const char* op : {"Sum", "Mean", "Max", "Min"}) {
    expect_support(make_node(op, {"a", "b", "c"}), {f32({2, 1}), f32({3}), f32({2, 3})}, "");
    expect_support(make_node(op, {"a"}), {vt(DType::kFloat16, {4})}, "");
  }
  expect_support(make_node("Mean", {"a", "b"}), {i64({3}), i64({3})},
                 "no GPU kernel for Mean on int64 (float32, float16)");
  expect_support(make_node("Sum", {"a", "b"}), {i64({3}), i64({3})},
                 "no GPU kernel for Sum on int64 (float32, float16)");
  expect_support(make_node("PRelu", {"x", "slope"}), {f32({2, 3, 4}), f32({3, 1})}, "");
  expect_support(make_node("GlobalMaxPool", {"x"}), {f32({2, 3, 4, 5})}, "");
  expect_support(make_node("Dropout", {"x", "ratio"}), {f32({2, 3}), f32({})}, "");
  expect_support(make_node("Dropout", {"x"}, {"y", "mask"}), {f32({2, 3})}, "Dropout's mask output");
  expect_support(make_node("Dropout", {"x", "r", "t"}), {f32({2, 3}), f32({}), vt(DType::kBool, {})}, "training_mode");
}

TEST(HI_GPU_TEST_SUITE, KernelTableCoversNormalisationsOverAnyAxisArgReductionsAndTrilu) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    ir::Node n = make_node(op, {"x"});
    set_int_attr(n, "axis", 0);
    expect_support(n, {vt(DType::kFloat16, {3, 4, 5})}, "");
    expect_support(n, {i64({3})}, "on int64");
  }
  for (const char* op : {"LayerNormalization", "RMSNormalization"}) {
    ir::Node n = make_node(op, {"x", "scale", "bias"});
    set_int_attr(n, "axis", -2);
    const ir::ValueType x =
        ir::ValueType::tensor(DType::kFloat32, {ir::Dim::named("batch"), ir::Dim::known(5), ir::Dim::known(6)});
    expect_support(n, {x, f32({5, 6}), f32({5, 6})}, "");
    expect_support(n, {x, f32({6}), f32({5, 6})}, "scale or bias broadcast within the normalised shape");
    set_int_attr(n, "axis", 0);
    expect_support(n, {x, f32({5, 6}), f32({5, 6})}, "over dims of unknown size");
    expect_support(make_node(op, {"x", "scale"}, {"y", "mean", "inv_std"}), {f32({2, 3}), f32({3})}, "");
    ir::Node stash = make_node(op, {"x", "scale"});
    set_int_attr(stash, "stash_type", 10);
    expect_support(stash, {f32({2, 3}), f32({3})}, "stash_type other than float32");
  }
  for (const char* op : {"ArgMax", "ArgMin"}) {
    for (DType t : {DType::kFloat32, DType::kFloat16, DType::kInt64, DType::kInt32})
      expect_support(make_node(op, {"x"}), {vt(t, {3, 4})}, "");
    expect_support(make_node(op, {"x"}), {vt(DType::kUInt8, {3, 4})}, "on uint8 (float32, float16, int64, int32)");
  }
  expect_support(make_node("Trilu", {"x", "k"}), {vt(DType::kBool, {3, 4}), i64({})}, "");
  expect_support(make_node("Trilu", {"x"}), {vt(DType::kString, {3, 4})}, "on string");
  ir::Node conv = make_node("Conv", {"x", "w"});
  set_string_attr(conv, "auto_pad", "SAME_LOWER");
  expect_support(conv, {f32({1, 2, 5, 5}), f32({3, 2, 3, 3})}, "");
  for (const char* op : {"MaxPool", "AveragePool"}) {
    ir::Node pool = make_node(op, {"x"});
    set_string_attr(pool, "auto_pad", "SAME_UPPER");
    expect_support(pool, {f32({1, 2, 5, 5})}, "");
    expect_support(pool, {f32({1, 2, 5})}, "");
    expect_support(pool, {f32({1, 2, 5, 5, 5})}, "other than 1-D and 2-D");
  }
  const std::vector<ir::ValueType> qkv = {f32({2, 4, 5, 8}), f32({2, 2, 7, 8}), f32({2, 2, 7, 6})};
  expect_support(make_node("Attention", {"q", "k", "v"}), qkv, "");
  expect_support(make_node("Attention", {"q", "k", "v", "m"}), {qkv[0], qkv[1], qkv[2], vt(DType::kBool, {5, 7})}, "");
  expect_support(make_node("Attention", {"q", "k", "v", "", "pk", "pv"}),
                 {qkv[0], qkv[1], qkv[2], {}, f32({2, 2, 3, 8}), f32({2, 2, 3, 6})}, "KV cache");
  expect_support(make_node("Attention", {"q", "k", "v"}, {"y", "present_k"}), qkv, "present_key");
  expect_support(make_node("Attention", {"q", "k", "v"}), {vt(DType::kFloat16, {2, 4, 5, 8}), qkv[1], qkv[2]},
                 "on float16");
  expect_support(make_node("Attention", {"q", "k", "v"}), {f32({2, 5, 32}), qkv[1], qkv[2]}, "all 3-D or all 4-D");
  for (const char* op : {"CumSum", "CumProd"}) {
    expect_support(make_node(op, {"x", "axis"}), {vt(DType::kFloat16, {3, 4}), i64({})}, "");
    expect_support(make_node(op, {"x", "axis"}), {vt(DType::kUInt8, {3, 4}), i64({})}, "on uint8");
  }
  for (const char* op : {"DepthToSpace", "SpaceToDepth"}) {
    expect_support(make_node(op, {"x"}), {vt(DType::kInt64, {1, 8, 2, 2})}, "");
    expect_support(make_node(op, {"x"}), {f32({8, 2, 2})}, "other than 4-D");
  }
  expect_support(make_node("GatherElements", {"x", "i"}), {vt(DType::kBool, {3, 4}), i64({3, 2})}, "");
  expect_support(make_node("GatherElements", {"x", "i"}), {f32({3, 4}), vt(DType::kInt32, {3, 2})},
                 "int32 indices (int64)");
  expect_support(make_node("ScatterND", {"x", "i", "u"}), {f32({4, 5}), i64({2, 1}), f32({2, 5})}, "");
  ir::Node add = make_node("ScatterElements", {"x", "i", "u"});
  set_string_attr(add, "reduction", "add");
  expect_support(add, {f32({4, 5}), i64({2, 5}), f32({2, 5})}, "ScatterElements with reduction add");
  expect_support(make_node("MatMul", {"a", "b"}), {f32({7}), f32({2, 7, 3})}, "");
  expect_support(make_node("MatMul", {"a", "b"}), {f32({2, 5, 7}), f32({7})}, "");
  expect_support(make_node("Gemm", {"a", "b"}), {f32({7}), f32({7, 3})}, "Gemm of rank-1 operands");
  expect_support(make_node("MatMul", {"a", "b"}), {f32({2, 1, 5, 7}), f32({1, 3, 7, 4})}, "broadcasting batch dims");
  expect_support(make_node("MatMul", {"a", "b"}), {f32({2, 3, 5, 7}), f32({1, 1, 7, 4})}, "");
  expect_support(make_node("QuantizeLinear", {"x", "s", "z"}),
                 {vt(DType::kFloat16, {2, 3}), f32({3}), vt(DType::kInt8, {3})}, "");
  expect_support(make_node("QuantizeLinear", {"x", "s"}), {f32({2, 3}), f32({})}, "");
  expect_support(make_node("QuantizeLinear", {"x", "s", "z"}), {f32({2, 3}), f32({}), vt(DType::kInt16, {})},
                 "to int16");
  expect_support(make_node("DequantizeLinear", {"x", "s", "z"}),
                 {vt(DType::kUInt8, {2, 3}), f32({}), vt(DType::kUInt8, {})}, "");
  expect_support(make_node("DequantizeLinear", {"x", "s"}), {vt(DType::kInt8, {2, 3}), vt(DType::kFloat16, {})},
                 "float16 scale");
  ir::Node blocked = make_node("DequantizeLinear", {"x", "s"});
  set_int_attr(blocked, "block_size", 2);
  expect_support(blocked, {vt(DType::kInt8, {2, 4}), f32({2, 2})}, "blocked DequantizeLinear");
  ir::Node mod = make_node("Mod", {"a", "b"});
  expect_support(mod, {f32({3}), f32({3})}, "fmod=0");
  set_int_attr(mod, "fmod", 1);
  expect_support(mod, {vt(DType::kFloat16, {3}), vt(DType::kFloat16, {1})}, "");
  expect_support(mod, {i64({3}), i64({3})}, "no GPU kernel for Mod on int64");
}

// ---- Plans and index arithmetic on the host ---------------------------------------------------

// Cast's conversions without float16 (kernels/convert.h, the code the kernel runs) against the
// CPU's, on the values where they are easiest to get wrong.
template <typename D, typename S>
void expect_same_conversions(const std::vector<S>& values, const char* what) {
  for (S v : values) {
    const D gpu = convert_plain<D>(v), cpu = hi::ops::convert_value<D>(v);
    if constexpr (std::is_floating_point_v<D>)
      EXPECT_TRUE(gpu == cpu || (gpu != gpu && cpu != cpu)) << what << " " << +v;
    else EXPECT_EQ(+gpu, +cpu) << what << " of " << +v;
  }
}

TEST(HI_GPU_TEST_SUITE, CastConversionsMatchTheCpuOnTheHost) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> floats = {
      NAN,    inf,    -inf,  0.f,          -0.f,         0.5f,          -0.5f,   1.5f,          -1.99f,   127.9f, 128.f,
      -129.f, 255.5f, 256.f, 2147483520.f, 2147483648.f, -2147483904.f, 9.3e18f, 9.2233720e18f, -9.3e18f, 1e30f};
  expect_same_conversions<int8_t>(floats, "float -> int8");
  expect_same_conversions<uint8_t>(floats, "float -> uint8");
  expect_same_conversions<int32_t>(floats, "float -> int32");
  expect_same_conversions<int64_t>(floats, "float -> int64");
  expect_same_conversions<bool>(floats, "float -> bool");
  const std::vector<int64_t> longs = {0,
                                      1,
                                      -1,
                                      127,
                                      128,
                                      255,
                                      256,
                                      -129,
                                      2147483647,
                                      2147483648LL,
                                      -2147483649LL,
                                      std::numeric_limits<int64_t>::max(),
                                      std::numeric_limits<int64_t>::min(),
                                      16777217};
  expect_same_conversions<int8_t>(longs, "int64 -> int8");
  expect_same_conversions<uint8_t>(longs, "int64 -> uint8");
  expect_same_conversions<int32_t>(longs, "int64 -> int32");
  expect_same_conversions<bool>(longs, "int64 -> bool");
  expect_same_conversions<float>(longs, "int64 -> float");
  const std::vector<int8_t> bytes = {0, 1, -1, 127, -128};
  expect_same_conversions<uint8_t>(bytes, "int8 -> uint8");
  expect_same_conversions<int64_t>(bytes, "int8 -> int64");
  expect_same_conversions<float>(std::vector<bool>{true, false}, "bool -> float");
  expect_same_conversions<int32_t>(std::vector<bool>{true, false}, "bool -> int32");
}

// What strided_copy does, on the host.
Tensor apply_copy(const StridedCopy& c, const Tensor& src, const Shape& out_shape) {
  Tensor dst = Tensor::zeros(src.dtype(), out_shape);
  const size_t es = dtype_size(src.dtype());
  for (int64_t i = 0; i < c.numel(); ++i) {
    int64_t so = c.src_offset, dof = c.dst_offset, rest = i;
    for (int k = c.rank - 1; k >= 0; --k) {
      const int64_t coord = rest % c.dims[k];
      rest /= c.dims[k];
      so += coord * c.src_strides[k];
      dof += coord * c.dst_strides[k];
    }
    std::memcpy(static_cast<char*>(dst.raw()) + dof * static_cast<int64_t>(es),
                static_cast<const char*>(src.raw()) + so * static_cast<int64_t>(es), es);
  }
  return dst;
}

void expect_same(const Tensor& want, const Tensor& got, const std::string& what) {
  ASSERT_EQ(want.shape(), got.shape()) << what;
  EXPECT_EQ(std::memcmp(want.raw(), got.raw(), want.nbytes()), 0) << what;
}

TEST(HI_GPU_TEST_SUITE, ExpandAndTileCopiesMatchTheCpuOnTheHost) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> expand = {
      {{3, 1}, {2, 3, 4}}, {{1}, {5}}, {{2, 1, 3}, {1, 4, 1}}, {{4}, {2, 1, 4}}, {{1, 1}, {3, 0}}};
  uint32_t seed = 1;
  for (const auto& [shape, to] : expand) {
    ModelBuilder b(13);
    b.input("x", onnx::TensorProto::FLOAT, std::vector<int64_t>(shape.begin(), shape.end()));
    b.output("y", onnx::TensorProto::FLOAT);
    b.initializer_i64("shape", {static_cast<int64_t>(to.size())}, to);
    b.node("Expand", {"x", "shape"}, {"y"});
    const Tensor x = random_tensor(DType::kFloat32, shape, seed++, false);
    const Tensor want = run_on_cpu(b, {{"x", x}});
    auto c = expand_copy(shape, want.shape());
    ASSERT_TRUE(c.is_ok()) << c.status().to_string();
    expect_same(want, apply_copy(c.value(), x, want.shape()), "Expand " + shape_to_string(shape));
  }
  EXPECT_EQ(expand_copy({3, 2}, {3, 4}).status().code(), StatusCode::kInvalidArgument);

  const std::vector<std::pair<Shape, std::vector<int64_t>>> tile = {
      {{3}, {4}},      {{2, 3}, {1, 2}}, {{1, 5}, {3, 1}}, {{2, 1, 3}, {2, 3, 2}}, {{2, 3, 1, 2}, {3, 2, 4, 1}},
      {{2, 2}, {0, 3}}};
  for (const auto& [shape, reps] : tile) {
    ModelBuilder b(13);
    b.input("x", onnx::TensorProto::FLOAT, std::vector<int64_t>(shape.begin(), shape.end()));
    b.output("y", onnx::TensorProto::FLOAT);
    b.initializer_i64("r", {static_cast<int64_t>(reps.size())}, reps);
    b.node("Tile", {"x", "r"}, {"y"});
    const Tensor x = random_tensor(DType::kFloat32, shape, seed++, false);
    const Tensor want = run_on_cpu(b, {{"x", x}});
    auto c = tile_copy(shape, reps);
    ASSERT_TRUE(c.is_ok()) << c.status().to_string();
    expect_same(want, apply_copy(c.value(), x, want.shape()), "Tile " + shape_to_string(shape));
  }
  EXPECT_EQ(tile_copy({2, 3}, {1}).status().code(), StatusCode::kInvalidArgument);
}

TEST(HI_GPU_TEST_SUITE, SliceCopyHandlesHugeStepsAndEmptyAxes) {
  const int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  auto c = slice_copy({5, 4}, {1, -1}, {kMax, kMin}, {0, 1}, {kMax, kMin});
  ASSERT_TRUE(c.is_ok()) << c.status().to_string();
  EXPECT_EQ(c.value().dims[0], 1);
  EXPECT_EQ(c.value().dims[1], 1);
  EXPECT_EQ(c.value().src_offset, 1 * 4 + 3);
  EXPECT_EQ(c.value().src_strides[0], 0);  // one element: the step is never taken
  auto empty = slice_copy({3, 0}, {0, -1}, {2, kMin}, {0, 1}, {1, -1});
  ASSERT_TRUE(empty.is_ok()) << empty.status().to_string();
  EXPECT_EQ(empty.value().dims[0], 2);
  EXPECT_EQ(empty.value().dims[1], 0);
}

TEST(HI_GPU_TEST_SUITE, PadSourceIndexMatchesTheCpuOnTheHost) {
  struct PadCase {
    Shape shape;
    std::vector<int64_t> pads;
  };
  const std::vector<PadCase> cases = {
      {{5}, {2, 3}}, {{3, 5, 4}, {1, 0, 2, 2, 3, 1}}, {{6}, {9, 7}}, {{4, 3}, {-1, 2, 1, -2}}, {{1, 3}, {2, 1, 2, 1}}};
  const std::vector<std::pair<const char*, PadMode>> modes = {{"constant", PadMode::kConstant},
                                                              {"reflect", PadMode::kReflect},
                                                              {"edge", PadMode::kEdge},
                                                              {"wrap", PadMode::kWrap}};
  uint32_t seed = 40;
  for (const auto& [name, mode] : modes)
    for (const PadCase& pc : cases) {
      ModelBuilder b(19);
      b.input("x", onnx::TensorProto::FLOAT, std::vector<int64_t>(pc.shape.begin(), pc.shape.end()));
      b.output("y", onnx::TensorProto::FLOAT);
      b.initializer_i64("pads", {static_cast<int64_t>(pc.pads.size())}, pc.pads);
      b.initializer_f32("value", {}, {0.75f});
      ModelBuilder::set_string(b.node("Pad", {"x", "pads", "value"}, {"y"}), "mode", name);
      const Tensor x = random_tensor(DType::kFloat32, pc.shape, seed++, false);
      const Tensor want = run_on_cpu(b, {{"x", x}});
      auto d = make_pad_desc(pc.shape, pc.pads, mode);
      ASSERT_TRUE(d.is_ok()) << d.status().to_string();
      ASSERT_EQ(Shape(d.value().out_dims, d.value().out_dims + d.value().rank), want.shape());
      Tensor got = Tensor::empty(DType::kFloat32, want.shape());
      for (int64_t i = 0; i < got.numel(); ++i) {
        const int64_t s = pad_source(d.value(), i);
        got.data<float>()[i] = s < 0 ? 0.75f : x.data<float>()[s];
      }
      expect_same(want, got, std::string("Pad ") + name + " " + shape_to_string(pc.shape));
    }
  EXPECT_EQ(make_pad_desc({3}, {-2, -2}, PadMode::kConstant).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(make_pad_desc({2}, {-2, 1}, PadMode::kEdge).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(make_pad_desc({2}, {-2, 1}, PadMode::kConstant).is_ok());
}

TEST(HI_GPU_TEST_SUITE, ResizeTapsMatchTheCpuOnTheHost) {
  struct Mode {
    const char* mode;
    const char* coord;
    const char* nearest;
    ResizeCoordMode c;
    ResizeNearestMode n;
  };
  using C = ResizeCoordMode;
  using N = ResizeNearestMode;
  const std::vector<Mode> modes = {
      {"nearest", "half_pixel", "round_prefer_floor", C::kHalfPixel, N::kRoundPreferFloor},
      {"nearest", "asymmetric", "floor", C::kAsymmetric, N::kFloor},
      {"nearest", "align_corners", "round_prefer_ceil", C::kAlignCorners, N::kRoundPreferCeil},
      {"nearest", "pytorch_half_pixel", "ceil", C::kPytorchHalfPixel, N::kCeil},
      {"nearest", "tf_half_pixel_for_nn", "round_prefer_floor", C::kTfHalfPixelForNN, N::kRoundPreferFloor},
      {"linear", "half_pixel", "round_prefer_floor", C::kHalfPixel, N::kRoundPreferFloor},
      {"linear", "asymmetric", "round_prefer_floor", C::kAsymmetric, N::kRoundPreferFloor},
      {"linear", "align_corners", "round_prefer_floor", C::kAlignCorners, N::kRoundPreferFloor},
      {"linear", "pytorch_half_pixel", "round_prefer_floor", C::kPytorchHalfPixel, N::kRoundPreferFloor},
  };
  // Upsampling, downsampling, mixed, and a channel axis scaled too.
  const std::vector<std::vector<float>> scales = {{1, 1, 2, 2}, {1, 1, 0.5f, 0.6f}, {1, 1, 1.7f, 0.45f}, {1, 2, 1, 3}};
  const Shape shape = {2, 3, 5, 7};
  uint32_t seed = 70;
  for (const Mode& m : modes)
    for (const auto& s : scales) {
      ModelBuilder b(12);
      b.input("x", onnx::TensorProto::FLOAT, std::vector<int64_t>(shape.begin(), shape.end()));
      b.output("y", onnx::TensorProto::FLOAT);
      b.initializer_f32("roi", {0}, {});
      b.initializer_f32("scales", {4}, s);
      auto& n = b.node("Resize", {"x", "roi", "scales"}, {"y"});
      ModelBuilder::set_string(n, "mode", m.mode);
      ModelBuilder::set_string(n, "coordinate_transformation_mode", m.coord);
      ModelBuilder::set_string(n, "nearest_mode", m.nearest);
      const Tensor x = random_tensor(DType::kFloat32, shape, seed++, false);
      const Tensor want = run_on_cpu(b, {{"x", x}});
      std::vector<double> per_axis(s.begin(), s.end());
      auto d = make_resize_desc(shape, want.shape(), per_axis, std::string(m.mode) == "linear", m.c, m.n);
      ASSERT_TRUE(d.is_ok()) << d.status().to_string();
      Tensor got = Tensor::empty(DType::kFloat32, want.shape());
      const float* px = x.data<float>();
      const auto load = [px](int64_t i) { return px[i]; };
      for (int64_t i = 0; i < got.numel(); ++i) got.data<float>()[i] = resize_element(d.value(), load, i);
      expect_close(want, got,
                   std::string("Resize ") + m.mode + " " + m.coord + " " + m.nearest + " scale " +
                       std::to_string(s[2]) + "x" + std::to_string(s[3]));
    }
  EXPECT_EQ(make_resize_desc({0, 2}, {3, 2}, {2, 1}, false, C::kHalfPixel, N::kFloor).status().code(),
            StatusCode::kInvalidArgument);
}

// The plan's walk, on the host, summing: what the reduce kernels add up for each output.
std::vector<double> sum_by_plan(const ReducePlan& p, const float* x) {
  std::vector<double> y(static_cast<size_t>(p.outputs()), 0.0);
  for (int64_t o = 0; o < p.outputs(); ++o) {
    if (p.contiguous) {
      const int64_t oi = o / p.inner, ii = o % p.inner;
      for (int64_t j = 0; j < p.r; ++j) y[static_cast<size_t>(o)] += x[(oi * p.r + j) * p.inner + ii];
      continue;
    }
    int64_t base = 0, rest = o;
    for (int k = p.kept_rank - 1; k >= 0; --k) {
      base += (rest % p.kept_dims[k]) * p.kept_strides[k];
      rest /= p.kept_dims[k];
    }
    for (int64_t j = 0; j < p.reduced(); ++j) {
      int64_t off = base, r = j;
      for (int k = p.reduced_rank - 1; k >= 0; --k) {
        off += (r % p.reduced_dims[k]) * p.reduced_strides[k];
        r /= p.reduced_dims[k];
      }
      y[static_cast<size_t>(o)] += x[off];
    }
  }
  return y;
}

TEST(HI_GPU_TEST_SUITE, ReducePlansMatchTheCpuOnTheHost) {
  const Shape shape = {3, 1, 4, 5, 2};
  const std::vector<std::vector<int64_t>> axes = {{0},      {2},       {4},    {0, 2}, {0, 4},         {1, 3},
                                                  {-1, -3}, {0, 2, 4}, {2, 3}, {},     {0, 1, 2, 3, 4}};
  uint32_t seed = 90;
  for (const auto& a : axes)
    for (int64_t keepdims : {0, 1}) {
      ModelBuilder b(18);
      b.input("x", onnx::TensorProto::FLOAT, std::vector<int64_t>(shape.begin(), shape.end()));
      b.output("y", onnx::TensorProto::FLOAT);
      b.initializer_i64("axes", {static_cast<int64_t>(a.size())}, a);
      ModelBuilder::set_int(b.node("ReduceSum", {"x", "axes"}, {"y"}), "keepdims", keepdims);
      const Tensor x = random_tensor(DType::kFloat32, shape, seed++, false);
      const Tensor want = run_on_cpu(b, {{"x", x}});
      std::vector<bool> mask(shape.size(), a.empty());
      for (int64_t ax : a) mask[static_cast<size_t>(ax < 0 ? ax + 5 : ax)] = true;
      auto p = plan_reduce(shape, mask);
      ASSERT_TRUE(p.is_ok()) << p.status().to_string();
      ASSERT_EQ(p.value().outputs(), want.numel()) << shape_to_string(a);
      const std::vector<double> sums = sum_by_plan(p.value(), x.data<float>());
      Tensor got = Tensor::empty(DType::kFloat32, want.shape());
      for (int64_t i = 0; i < got.numel(); ++i) got.data<float>()[i] = static_cast<float>(sums[static_cast<size_t>(i)]);
      expect_close(want, got, "ReduceSum axes " + shape_to_string(a) + " keepdims " + std::to_string(keepdims), 1e-5);
    }
  // Neighbouring reduced dims are one run, so [.., r, ..] suffices; separated ones walk strides.
  auto run = plan_reduce({3, 4, 5}, {false, true, true});
  ASSERT_TRUE(run.is_ok());
  EXPECT_TRUE(run.value().contiguous);
  EXPECT_EQ(run.value().outer, 3);
  EXPECT_EQ(run.value().r, 20);
  auto split = plan_reduce({3, 4, 5}, {true, false, true});
  ASSERT_TRUE(split.is_ok());
  EXPECT_FALSE(split.value().contiguous);
  EXPECT_EQ(split.value().reduced(), 15);
  auto none = plan_reduce({3, 4}, {false, false});  // noop_with_empty_axes: each element alone
  ASSERT_TRUE(none.is_ok());
  EXPECT_EQ(none.value().r, 1);
  EXPECT_EQ(none.value().outputs(), 12);
  EXPECT_EQ(plan_reduce({3, 4}, {true}).status().code(), StatusCode::kInvalidArgument);
}

TEST(HI_GPU_TEST_SUITE, WhereIndexMatchesTheCpuOnTheHost) {
  struct WhereCase {
    Shape c, x, y;
  };
  const std::vector<WhereCase> cases = {
      {{4, 1, 3}, {1, 5, 1}, {3}}, {{6}, {6}, {6}}, {{1}, {2, 3}, {1, 1}}, {{2, 1}, {}, {2, 7}}};
  uint32_t seed = 120;
  for (const WhereCase& wc : cases) {
    ModelBuilder b(17);
    b.input("c", onnx::TensorProto::BOOL, std::vector<int64_t>(wc.c.begin(), wc.c.end()));
    b.input("x", onnx::TensorProto::FLOAT, std::vector<int64_t>(wc.x.begin(), wc.x.end()));
    b.input("e", onnx::TensorProto::FLOAT, std::vector<int64_t>(wc.y.begin(), wc.y.end()));
    b.output("y", onnx::TensorProto::FLOAT);
    b.node("Where", {"c", "x", "e"}, {"y"});
    Tensor c = Tensor::empty(DType::kBool, wc.c);
    std::mt19937 rng(seed++);
    for (int64_t i = 0; i < c.numel(); ++i) c.data<bool>()[i] = (rng() & 1) != 0;
    const Tensor x = random_tensor(DType::kFloat32, wc.x, seed++, false);
    const Tensor e = random_tensor(DType::kFloat32, wc.y, seed++, false);
    const Tensor want = run_on_cpu(b, {{"c", c}, {"x", x}, {"e", e}});
    auto index = make_where_index(wc.c, wc.x, wc.y);
    ASSERT_TRUE(index.is_ok()) << index.status().to_string();
    ASSERT_EQ(Shape(index.value().dims, index.value().dims + index.value().rank), want.shape());
    Tensor got = Tensor::empty(DType::kFloat32, want.shape());
    for (int64_t i = 0; i < got.numel(); ++i) {
      int64_t off[3] = {0, 0, 0}, rest = i;
      for (int d = index.value().rank - 1; d >= 0; --d) {
        const int64_t coord = rest % index.value().dims[d];
        rest /= index.value().dims[d];
        for (int t = 0; t < 3; ++t) off[t] += coord * index.value().strides[t][d];
      }
      got.data<float>()[i] = c.data<bool>()[off[0]] ? x.data<float>()[off[1]] : e.data<float>()[off[2]];
    }
    expect_same(want, got,
                "Where " + shape_to_string(wc.c) + " " + shape_to_string(wc.x) + " " + shape_to_string(wc.y));
  }
  EXPECT_EQ(make_where_index({2}, {3}, {1}).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
