// The bitwise ops, BitShift, Mod, Shrink, Swish, Trilu, CumSum/CumProd, EyeLike, NonZero, OneHot,
// Compress, ReverseSequence, Tile, DepthToSpace/SpaceToDepth and the window ops. Expected values
// are worked out by hand (or with numpy where noted) from the ONNX spec.
#include <cmath>
#include <limits>

#include "ops/op_test_util.h"
#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

using Attrs = std::map<std::string, ir::Attribute>;

// Any numeric tensor's values as float32 (to compare 16-bit float results).
Tensor to_f32(const Tensor& t) {
  Tensor out = Tensor::empty(DType::kFloat32, t.shape());
  for (int64_t i = 0; i < t.numel(); ++i) out.data<float>()[i] = static_cast<float>(t.as_double(i));
  return out;
}

std::vector<Tensor> run_n(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value() : std::vector<Tensor>(static_cast<size_t>(c.num_outputs));
}
Tensor run1(const OpCase& c) { return run_n(c)[0]; }

Tensor u8(const Shape& s, const std::vector<uint8_t>& v) { return make<uint8_t>(s, v); }
Tensor i8(const Shape& s, const std::vector<int8_t>& v) { return make<int8_t>(s, v); }

// ---- bitwise -------------------------------------------------------------------------------

TEST(Bitwise, AndOrXorWithBroadcast) {
  const Tensor a = i32({2, 2}, {12, -1, 5, 0});
  const Tensor b = i32({2}, {10, 6});
  expect_tensor_eq(run1({"BitwiseAnd", "", 18, {}, {a, b}}), i32({2, 2}, {8, 6, 0, 0}));
  expect_tensor_eq(run1({"BitwiseOr", "", 18, {}, {a, b}}), i32({2, 2}, {14, -1, 15, 6}));
  expect_tensor_eq(run1({"BitwiseXor", "", 18, {}, {a, b}}), i32({2, 2}, {6, -7, 15, 6}));
  expect_tensor_eq(run1({"BitwiseXor", "", 18, {}, {make<uint64_t>({1}, {~uint64_t{0}}), make<uint64_t>({1}, {1})}}),
                   make<uint64_t>({1}, {~uint64_t{0} - 1}));
}

TEST(Bitwise, Not) {
  expect_tensor_eq(run1({"BitwiseNot", "", 18, {}, {u8({3}, {0, 1, 255})}}), u8({3}, {255, 254, 0}));
  expect_tensor_eq(run1({"BitwiseNot", "", 18, {}, {i32({2}, {0, -6})}}), i32({2}, {-1, 5}));
}

TEST(Bitwise, Errors) {
  expect_error({"BitwiseAnd", "", 18, {}, {f32({1}, {1}), f32({1}, {1})}}, {"float32"});
  expect_error({"BitwiseOr", "", 18, {}, {i32({1}, {1}), i64({1}, {1})}}, {"different types"});
  expect_error({"BitwiseNot", "", 18, {}, {bools({1}, {1})}}, {"bool"});
  expect_error({"BitwiseAnd", "", 18, {}, {i32({2}, {1, 2}), i32({3}, {1, 2, 3})}}, {"broadcast"});
}

TEST(BitShift, UnsignedLeftAndRight) {
  const Attrs left = {{"direction", attr_string("LEFT")}}, right = {{"direction", attr_string("RIGHT")}};
  expect_tensor_eq(run1({"BitShift", "", 11, left, {u8({4}, {1, 2, 255, 1}), u8({4}, {1, 2, 1, 8})}}),
                   u8({4}, {2, 8, 254, 0}));
  expect_tensor_eq(run1({"BitShift", "", 11, right, {u8({4}, {16, 4, 255, 128}), u8({4}, {1, 2, 7, 200})}}),
                   u8({4}, {8, 1, 1, 0}));
  expect_tensor_eq(run1({"BitShift", "", 11, left, {make<uint64_t>({1}, {1}), make<uint64_t>({1}, {63})}}),
                   make<uint64_t>({1}, {uint64_t{1} << 63}));
}

TEST(BitShift, SignedFromOpset28) {
  const Attrs left = {{"direction", attr_string("LEFT")}}, right = {{"direction", attr_string("RIGHT")}};
  // Arithmetic right shift; out-of-range amounts give the sign fill (-1 or 0).
  expect_tensor_eq(run1({"BitShift", "", 28, right, {i8({4}, {-8, -8, 8, -1}), i8({4}, {1, 9, 9, -1})}}),
                   i8({4}, {-4, -1, 0, -1}));
  // Left shift moves bits through the sign bit.
  expect_tensor_eq(run1({"BitShift", "", 28, left, {i8({3}, {64, -1, 3}), i8({3}, {1, 7, -2})}}),
                   i8({3}, {-128, -128, 0}));
}

TEST(BitShift, Errors) {
  expect_error({"BitShift", "", 11, {{"direction", attr_string("UP")}}, {u8({1}, {1}), u8({1}, {1})}},
               {"direction", "UP"});
  expect_error({"BitShift", "", 11, {}, {u8({1}, {1}), u8({1}, {1})}}, {"direction"});
  expect_error({"BitShift", "", 11, {{"direction", attr_string("LEFT")}}, {i8({1}, {1}), i8({1}, {1})}}, {"int8"});
}

// ---- Mod -----------------------------------------------------------------------------------

TEST(Mod, IntegerSignRules) {
  const Tensor a = i32({6}, {-4, 7, 5, 4, -7, 8});
  const Tensor b = i32({6}, {2, -3, 8, -2, 3, 5});
  // fmod=0: the divisor's sign (Python %).
  expect_tensor_eq(run1({"Mod", "", 13, {}, {a, b}}), i32({6}, {0, -2, 5, 0, 2, 3}));
  // fmod=1: the dividend's sign (C fmod).
  expect_tensor_eq(run1({"Mod", "", 13, {{"fmod", attr_int(1)}}, {a, b}}), i32({6}, {0, 1, 5, 0, -1, 3}));
  // lowest() % -1 has no overflow.
  expect_tensor_eq(run1({"Mod", "", 13, {}, {i8({2}, {-128, -128}), i8({2}, {-1, 3})}}), i8({2}, {0, 1}));
  expect_tensor_eq(run1({"Mod", "", 13, {}, {u8({3}, {7, 200, 3}), u8({1}, {5})}}), u8({3}, {2, 0, 3}));
}

TEST(Mod, FloatFmod) {
  const Attrs fmod = {{"fmod", attr_int(1)}};
  expect_tensor_near(run1({"Mod", "", 13, fmod, {f32({4}, {5.5f, -5.5f, 5.5f, 1}), f32({4}, {2, 2, -2, 0})}}),
                     f32({4}, {1.5f, -1.5f, 1.5f, std::nanf("")}));
  const Tensor h = run1({"Mod", "", 13, fmod, {f16({2}, {7.5f, -3}), f16({2}, {2, 2})}});
  expect_tensor_near(to_f32(h), f32({2}, {1.5f, -1}));
}

TEST(Mod, Errors) {
  expect_error({"Mod", "", 13, {}, {i32({2}, {1, 2}), i32({2}, {1, 0})}}, {"division by zero", "element 1"});
  expect_error({"Mod", "", 13, {}, {f32({1}, {1}), f32({1}, {1})}}, {"fmod=1"});
  expect_error({"Mod", "", 13, {{"fmod", attr_int(2)}}, {i32({1}, {1}), i32({1}, {1})}}, {"fmod", "2"});
}

// ---- Shrink, Swish -------------------------------------------------------------------------

TEST(Shrink, SoftHardAndInteger) {
  const Tensor x = f32({5}, {-2, -1, 0, 1, 2});
  expect_tensor_near(run1({"Shrink", "", 9, {{"lambd", attr_float(1.5f)}, {"bias", attr_float(1.5f)}}, {x}}),
                     f32({5}, {-0.5f, 0, 0, 0, 0.5f}));
  expect_tensor_near(run1({"Shrink", "", 9, {{"lambd", attr_float(1.5f)}}, {x}}), f32({5}, {-2, 0, 0, 0, 2}));
  expect_tensor_near(run1({"Shrink", "", 9, {}, {x}}), f32({5}, {-2, -1, 0, 1, 2}));  // lambd 0.5
  expect_tensor_eq(run1({"Shrink", "", 9, {{"lambd", attr_float(1)}, {"bias", attr_float(1)}}, {i32({3}, {-3, 1, 3})}}),
                   i32({3}, {-2, 0, 2}));
}

TEST(Swish, Values) {
  expect_tensor_near(run1({"Swish", "", 24, {}, {f32({3}, {-1, 0, 1})}}), f32({3}, {-0.268941421f, 0, 0.731058579f}));
  expect_tensor_near(run1({"Swish", "", 24, {{"alpha", attr_float(2)}}, {f32({2}, {1, -100})}}),
                     f32({2}, {0.880797078f, 0}));
  const Tensor d = run1({"Swish", "", 24, {}, {f64({1}, {2})}});
  expect_tensor_near(d, f64({1}, {1.76159415595576}), 1e-12, 0);
  expect_error({"Swish", "", 24, {}, {i32({1}, {1})}}, {"int32"});
  expect_error({"Swish", "", 23, {}, {f32({1}, {1})}}, {"Swish"});
}

// ---- Trilu ---------------------------------------------------------------------------------

TEST(Trilu, UpperLowerAndK) {
  const Tensor x = i64({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  expect_tensor_eq(run1({"Trilu", "", 14, {}, {x}}), i64({3, 4}, {1, 2, 3, 4, 0, 6, 7, 8, 0, 0, 11, 12}));
  expect_tensor_eq(run1({"Trilu", "", 14, {{"upper", attr_int(0)}}, {x}}),
                   i64({3, 4}, {1, 0, 0, 0, 5, 6, 0, 0, 9, 10, 11, 0}));
  expect_tensor_eq(run1({"Trilu", "", 14, {}, {x, i64({}, {2})}}), i64({3, 4}, {0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0}));
  expect_tensor_eq(run1({"Trilu", "", 14, {{"upper", attr_int(0)}}, {x, i64({}, {-1})}}),
                   i64({3, 4}, {0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  // k far outside the matrix keeps all or nothing.
  expect_tensor_eq(run1({"Trilu", "", 14, {}, {x, i64({}, {-100})}}), x);
  expect_tensor_eq(run1({"Trilu", "", 14, {}, {x, i64({}, {std::numeric_limits<int64_t>::max()})}}),
                   i64({3, 4}, std::vector<int64_t>(12, 0)));
}

TEST(Trilu, BatchedStringsAndEmpty) {
  const Tensor s = strs({2, 2, 2}, {"a", "b", "c", "d", "e", "f", "g", "h"});
  expect_tensor_eq(run1({"Trilu", "", 14, {}, {s}}), strs({2, 2, 2}, {"a", "b", "", "d", "e", "f", "", "h"}));
  EXPECT_EQ(run1({"Trilu", "", 14, {}, {i64({3, 0, 5}, {})}}).shape(), (Shape{3, 0, 5}));
}

TEST(Trilu, Errors) {
  expect_error({"Trilu", "", 14, {}, {i64({3}, {1, 2, 3})}}, {"rank >= 2"});
  expect_error({"Trilu", "", 14, {}, {i64({2, 2}, {1, 2, 3, 4}), f32({}, {1})}}, {"'k'", "float32"});
  expect_error({"Trilu", "", 14, {}, {i64({2, 2}, {1, 2, 3, 4}), i64({2}, {1, 1})}}, {"'k'", "one value"});
  expect_error({"Trilu", "", 14, {{"upper", attr_int(3)}}, {i64({2, 2}, {1, 2, 3, 4})}}, {"upper"});
}

// ---- CumSum, CumProd -----------------------------------------------------------------------

TEST(CumSum, ExclusiveReverse) {
  const Tensor x = f64({5}, {1, 2, 3, 4, 5});
  const Tensor axis = i32({}, {0});
  expect_tensor_eq(run1({"CumSum", "", 14, {}, {x, axis}}), f64({5}, {1, 3, 6, 10, 15}));
  expect_tensor_eq(run1({"CumSum", "", 14, {{"exclusive", attr_int(1)}}, {x, axis}}), f64({5}, {0, 1, 3, 6, 10}));
  expect_tensor_eq(run1({"CumSum", "", 14, {{"reverse", attr_int(1)}}, {x, axis}}), f64({5}, {15, 14, 12, 9, 5}));
  expect_tensor_eq(run1({"CumSum", "", 14, {{"reverse", attr_int(1)}, {"exclusive", attr_int(1)}}, {x, axis}}),
                   f64({5}, {14, 12, 9, 5, 0}));
}

TEST(CumSum, AxesAndTypes) {
  const Tensor x = i32({2, 3}, {1, 2, 3, 4, 5, 6});
  expect_tensor_eq(run1({"CumSum", "", 14, {}, {x, i64({}, {0})}}), i32({2, 3}, {1, 2, 3, 5, 7, 9}));
  expect_tensor_eq(run1({"CumSum", "", 14, {}, {x, i64({1}, {-1})}}), i32({2, 3}, {1, 3, 6, 4, 9, 15}));
  expect_tensor_near(to_f32(run1({"CumSum", "", 14, {}, {f16({3}, {0.5f, 0.25f, 1}), i32({}, {0})}})),
                     f32({3}, {0.5f, 0.75f, 1.75f}));
  // int32 wraps like numpy.
  expect_tensor_eq(run1({"CumSum", "", 14, {}, {i32({2}, {std::numeric_limits<int32_t>::max(), 1}), i32({}, {0})}}),
                   i32({2}, {std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min()}));
}

TEST(CumProd, ExclusiveReverse) {
  const Tensor x = f64({5}, {1, 2, 3, 4, 5});
  const Tensor axis = i32({}, {0});
  expect_tensor_eq(run1({"CumProd", "", 26, {}, {x, axis}}), f64({5}, {1, 2, 6, 24, 120}));
  expect_tensor_eq(run1({"CumProd", "", 26, {{"exclusive", attr_int(1)}}, {x, axis}}), f64({5}, {1, 1, 2, 6, 24}));
  expect_tensor_eq(run1({"CumProd", "", 26, {{"reverse", attr_int(1)}}, {x, axis}}), f64({5}, {120, 120, 60, 20, 5}));
  expect_tensor_eq(run1({"CumProd", "", 26, {{"reverse", attr_int(1)}, {"exclusive", attr_int(1)}}, {x, axis}}),
                   f64({5}, {120, 60, 20, 5, 1}));
  expect_tensor_eq(run1({"CumProd", "", 26, {}, {i64({2, 2}, {2, 3, 4, 5}), i64({}, {0})}}),
                   i64({2, 2}, {2, 3, 8, 15}));
}

TEST(Cumulative, Errors) {
  const Tensor x = f32({2, 2}, {1, 2, 3, 4});
  expect_error({"CumSum", "", 14, {}, {x, i32({}, {2})}}, {"axis 2", "rank 2"});
  expect_error({"CumSum", "", 14, {}, {x, i32({2}, {0, 1})}}, {"axis", "one value"});
  expect_error({"CumSum", "", 14, {}, {x, f32({}, {0})}}, {"axis", "float32"});
  expect_error({"CumProd", "", 26, {}, {i8({1}, {1}), i32({}, {0})}}, {"int8"});
  expect_error({"CumSum", "", 14, {{"exclusive", attr_int(5)}}, {x, i32({}, {0})}}, {"exclusive"});
  expect_error({"CumSum", "", 14, {}, {f32({}, {1}), i32({}, {0})}}, {"rank >= 1"});
}

// ---- EyeLike, NonZero ----------------------------------------------------------------------

TEST(EyeLike, DiagonalsAndTypes) {
  const Tensor x = i32({3, 4}, std::vector<int32_t>(12, 7));
  expect_tensor_eq(run1({"EyeLike", "", 22, {}, {x}}), i32({3, 4}, {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0}));
  expect_tensor_eq(run1({"EyeLike", "", 22, {{"k", attr_int(1)}, {"dtype", attr_int(1)}}, {x}}),
                   f32({3, 4}, {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1}));
  expect_tensor_eq(run1({"EyeLike", "", 22, {{"k", attr_int(-2)}, {"dtype", attr_int(9)}}, {x}}),
                   bools({3, 4}, {0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}));
  expect_tensor_eq(run1({"EyeLike", "", 22, {{"k", attr_int(9)}}, {x}}), i32({3, 4}, std::vector<int32_t>(12, 0)));
}

TEST(EyeLike, Errors) {
  expect_error({"EyeLike", "", 22, {}, {i32({3}, {1, 2, 3})}}, {"2-D"});
  expect_error({"EyeLike", "", 22, {{"dtype", attr_int(8)}}, {i32({1, 1}, {1})}}, {"dtype", "string"});
}

TEST(NonZero, Coordinates) {
  expect_tensor_eq(run1({"NonZero", "", 13, {}, {bools({2, 2}, {1, 0, 1, 1})}}), i64({2, 3}, {0, 1, 1, 0, 0, 1}));
  expect_tensor_eq(run1({"NonZero", "", 13, {}, {f32({3}, {0, -0.f, std::nanf("")})}}), i64({1, 1}, {2}));
  EXPECT_EQ(run1({"NonZero", "", 13, {}, {i32({2, 3}, {0, 0, 0, 0, 0, 0})}}).shape(), (Shape{2, 0}));
  expect_tensor_eq(run1({"NonZero", "", 13, {}, {i32({}, {5})}}), i64({1, 1}, {0}));
  EXPECT_EQ(inferred("NonZero", 13, {}, {sym(DType::kFloat32, {"N", "3", "4"})}), "int64[3, ?]");
}

// ---- OneHot --------------------------------------------------------------------------------

TEST(OneHot, AxesAndNegativeIndices) {
  const Tensor values = f32({2}, {0, 1});
  // -1 counts from the end (opset 11); 5 is out of range: all off.
  expect_tensor_eq(run1({"OneHot", "", 11, {}, {i64({3}, {1, -1, 5}), f32({}, {3}), values}}),
                   f32({3, 3}, {0, 1, 0, 0, 0, 1, 0, 0, 0}));
  expect_tensor_eq(run1({"OneHot", "", 11, {{"axis", attr_int(0)}}, {i64({3}, {1, -1, 5}), f32({}, {3}), values}}),
                   f32({3, 3}, {0, 0, 0, 1, 0, 0, 0, 1, 0}));
  // Opset 9 has no negative indices; float indices truncate; int32 values with off = -1.
  expect_tensor_eq(run1({"OneHot", "", 9, {}, {f32({2}, {-1, 1.7f}), i64({1}, {2}), i32({2}, {-1, 4})}}),
                   i32({2, 2}, {-1, -1, -1, 4}));
  // axis in the middle of a 2-D indices tensor.
  const Tensor y =
      run1({"OneHot", "", 11, {{"axis", attr_int(-2)}}, {i64({2, 2}, {0, 1, 1, 0}), i32({}, {2}), values}});
  expect_tensor_eq(y, f32({2, 2, 2}, {1, 0, 0, 1, 0, 1, 1, 0}));
}

TEST(OneHot, InferenceAndErrors) {
  EXPECT_EQ(
      inferred("OneHot", 11, {}, {sym(DType::kInt64, {"N"}), constant(i64({}, {4})), sym(DType::kFloat32, {"2"})}),
      "float32[N, 4]");
  EXPECT_EQ(
      inferred("OneHot", 11, {}, {sym(DType::kInt64, {"N"}), sym(DType::kInt64, {}), sym(DType::kFloat32, {"2"})}),
      "float32[N, ?]");
  expect_error({"OneHot", "", 11, {}, {i64({1}, {0}), i64({}, {0}), f32({2}, {0, 1})}}, {"depth", "positive"});
  expect_error({"OneHot", "", 11, {}, {i64({1}, {0}), i64({}, {2}), f32({3}, {0, 1, 2})}}, {"values", "[2]"});
  expect_error({"OneHot", "", 11, {{"axis", attr_int(3)}}, {i64({1}, {0}), i64({}, {2}), f32({2}, {0, 1})}}, {"axis"});
}

// ---- Compress, ReverseSequence -------------------------------------------------------------

TEST(Compress, AxisAndFlattened) {
  const Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  expect_tensor_eq(run1({"Compress", "", 11, {{"axis", attr_int(0)}}, {x, bools({3}, {0, 1, 1})}}),
                   f32({2, 2}, {3, 4, 5, 6}));
  expect_tensor_eq(run1({"Compress", "", 11, {{"axis", attr_int(-1)}}, {x, bools({2}, {0, 1})}}),
                   f32({3, 1}, {2, 4, 6}));
  // Shorter condition: the rest counts as false; no axis flattens.
  expect_tensor_eq(run1({"Compress", "", 11, {}, {x, bools({5}, {0, 1, 0, 0, 1})}}), f32({2}, {2, 5}));
  expect_tensor_eq(run1({"Compress", "", 11, {{"axis", attr_int(0)}}, {strs({2}, {"a", "b"}), bools({3}, {0, 1, 0})}}),
                   strs({1}, {"b"}));
  EXPECT_EQ(inferred("Compress", 11, {{"axis", attr_int(1)}},
                     {sym(DType::kFloat32, {"N", "4"}), constant(bools({4}, {1, 0, 1, 1}))}),
            "float32[N, 3]");
}

TEST(Compress, Errors) {
  const Tensor x = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  expect_error({"Compress", "", 11, {{"axis", attr_int(1)}}, {x, bools({3}, {0, 0, 1})}}, {"index 2", "length 2"});
  expect_error({"Compress", "", 11, {{"axis", attr_int(2)}}, {x, bools({1}, {1})}}, {"axis"});
  expect_error({"Compress", "", 11, {}, {x, i64({1}, {1})}}, {"condition", "bool"});
}

TEST(ReverseSequence, TimeAndBatchMajor) {
  // The spec's examples.
  const Tensor x = f32({4, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
  expect_tensor_eq(run1({"ReverseSequence",
                         "",
                         10,
                         {{"time_axis", attr_int(0)}, {"batch_axis", attr_int(1)}},
                         {x, i64({4}, {4, 3, 2, 1})}}),
                   f32({4, 4}, {12, 9, 6, 3, 8, 5, 2, 7, 4, 1, 10, 11, 0, 13, 14, 15}));
  expect_tensor_eq(run1({"ReverseSequence",
                         "",
                         10,
                         {{"time_axis", attr_int(1)}, {"batch_axis", attr_int(0)}},
                         {x, i64({4}, {1, 2, 3, 4})}}),
                   f32({4, 4}, {0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
  // Trailing dims move together; a length of 0 leaves the entry alone.
  expect_tensor_eq(run1({"ReverseSequence", "", 10, {}, {i32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), i64({2}, {2, 0})}}),
                   i32({2, 2, 2}, {5, 6, 3, 4, 1, 2, 7, 8}));
}

TEST(ReverseSequence, Errors) {
  const Tensor x = f32({2, 2}, {1, 2, 3, 4});
  expect_error({"ReverseSequence", "", 10, {}, {x, i64({2}, {3, 1})}}, {"sequence_lens[0] = 3", "[0, 2]"});
  expect_error({"ReverseSequence", "", 10, {}, {x, i64({3}, {1, 1, 1})}}, {"one entry per batch"});
  expect_error({"ReverseSequence", "", 10, {{"batch_axis", attr_int(0)}}, {x, i64({2}, {1, 1})}}, {"batch_axis"});
  expect_error({"ReverseSequence", "", 10, {}, {x, i32({2}, {1, 1})}}, {"int64"});
}

// ---- Tile ----------------------------------------------------------------------------------

TEST(Tile, Repeats) {
  const Tensor x = f32({2, 2}, {1, 2, 3, 4});
  expect_tensor_eq(run1({"Tile", "", 13, {}, {x, i64({2}, {2, 1})}}), f32({4, 2}, {1, 2, 3, 4, 1, 2, 3, 4}));
  expect_tensor_eq(run1({"Tile", "", 13, {}, {x, i64({2}, {1, 2})}}), f32({2, 4}, {1, 2, 1, 2, 3, 4, 3, 4}));
  EXPECT_EQ(run1({"Tile", "", 13, {}, {x, i64({2}, {0, 3})}}).shape(), (Shape{0, 6}));
  expect_tensor_eq(run1({"Tile", "", 13, {}, {bools({1}, {1}), i64({1}, {3})}}), bools({3}, {1, 1, 1}));
  expect_tensor_eq(run1({"Tile", "", 13, {}, {f32({}, {7}), i64({0}, {})}}), f32({}, {7}));
  // Opset 1: tiles and axis inputs.
  expect_tensor_eq(run1({"Tile", "", 1, {}, {x, i64({}, {2}), i64({}, {1})}}), f32({2, 4}, {1, 2, 1, 2, 3, 4, 3, 4}));
}

TEST(Tile, InferenceAndErrors) {
  EXPECT_EQ(inferred("Tile", 13, {}, {sym(DType::kFloat32, {"N", "3"}), constant(i64({2}, {1, 2}))}), "float32[N, 6]");
  EXPECT_EQ(inferred("Tile", 13, {}, {sym(DType::kFloat32, {"N", "3"}), sym(DType::kInt64, {"2"})}), "float32[?, ?]");
  const Tensor x = f32({2, 2}, {1, 2, 3, 4});
  expect_error({"Tile", "", 13, {}, {x, i64({1}, {2})}}, {"one entry per input dim"});
  expect_error({"Tile", "", 13, {}, {x, i64({2}, {1, -1})}}, {"negative"});
  expect_error({"Tile", "", 13, {}, {x, f32({2}, {1, 1})}}, {"repeats"});
}

// ---- DepthToSpace, SpaceToDepth ------------------------------------------------------------

TEST(DepthToSpace, DcrAndCrd) {
  const Tensor x = f32({1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
  const Attrs bs = {{"blocksize", attr_int(2)}};
  expect_tensor_eq(run1({"DepthToSpace", "", 13, bs, {x}}), f32({1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7}));
  Attrs crd = bs;
  crd["mode"] = attr_string("CRD");
  expect_tensor_eq(run1({"DepthToSpace", "", 13, crd, {x}}), f32({1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7}));
  // A 2x2 spatial input: each channel block fans out into a 2x2 tile of the output.
  const Tensor y = run1({"DepthToSpace", "", 13, bs, {i32({1, 4, 1, 2}, {0, 1, 2, 3, 4, 5, 6, 7})}});
  expect_tensor_eq(y, i32({1, 1, 2, 4}, {0, 2, 1, 3, 4, 6, 5, 7}));
}

TEST(SpaceToDepth, InverseOfDepthToSpace) {
  const Tensor x = random_f32({2, 3, 4, 6}, 7);
  for (const char* mode : {"DCR", "CRD"}) {
    SCOPED_TRACE(mode);
    const Attrs a = {{"blocksize", attr_int(2)}, {"mode", attr_string(mode)}};
    const Tensor s = run1({"SpaceToDepth", "", 28, a, {x}});
    EXPECT_EQ(s.shape(), (Shape{2, 12, 2, 3}));
    expect_tensor_eq(run1({"DepthToSpace", "", 13, a, {s}}), x);
  }
  // The spec's layout by hand: [1, 1, 2, 2] -> [1, 4, 1, 1].
  expect_tensor_eq(run1({"SpaceToDepth", "", 13, {{"blocksize", attr_int(2)}}, {f32({1, 1, 2, 2}, {1, 2, 3, 4})}}),
                   f32({1, 4, 1, 1}, {1, 2, 3, 4}));
}

TEST(DepthToSpace, InferenceAndErrors) {
  EXPECT_EQ(inferred("DepthToSpace", 13, {{"blocksize", attr_int(2)}}, {sym(DType::kFloat32, {"N", "8", "H", "3"})}),
            "float32[N, 2, ?, 6]");
  EXPECT_EQ(inferred("SpaceToDepth", 13, {{"blocksize", attr_int(2)}}, {sym(DType::kFloat32, {"N", "2", "4", "W"})}),
            "float32[N, 8, 2, ?]");
  expect_error({"DepthToSpace", "", 13, {{"blocksize", attr_int(2)}}, {f32({1, 6, 1, 1}, {0, 1, 2, 3, 4, 5})}},
               {"multiple of blocksize^2"});
  expect_error({"DepthToSpace", "", 13, {}, {f32({1, 4, 1, 1}, {0, 1, 2, 3})}}, {"blocksize"});
  expect_error({"DepthToSpace", "", 13, {{"blocksize", attr_int(0)}}, {f32({1, 4, 1, 1}, {0, 1, 2, 3})}}, {"positive"});
  expect_error({"DepthToSpace",
                "",
                13,
                {{"blocksize", attr_int(2)}, {"mode", attr_string("XYZ")}},
                {f32({1, 4, 1, 1}, {0, 1, 2, 3})}},
               {"mode"});
  expect_error({"SpaceToDepth", "", 13, {{"blocksize", attr_int(2)}}, {f32({1, 1, 3, 2}, {0, 1, 2, 3, 4, 5})}},
               {"multiples of blocksize"});
  expect_error({"SpaceToDepth", "", 13, {{"blocksize", attr_int(2)}}, {f32({4}, {0, 1, 2, 3})}}, {"4-D"});
}

// ---- windows -------------------------------------------------------------------------------

TEST(Window, PeriodicAndSymmetric) {
  const Tensor four = i64({}, {4});
  expect_tensor_near(run1({"HannWindow", "", 17, {}, {four}}), f32({4}, {0, 0.5f, 1, 0.5f}), 1e-6, 1e-7);
  expect_tensor_near(run1({"HannWindow", "", 17, {{"periodic", attr_int(0)}}, {i32({}, {3})}}), f32({3}, {0, 1, 0}),
                     1e-6, 1e-7);
  expect_tensor_near(run1({"HammingWindow", "", 17, {}, {four}}), f32({4}, {4.f / 46, 25.f / 46, 1, 25.f / 46}), 1e-6,
                     1e-7);
  expect_tensor_near(run1({"BlackmanWindow", "", 17, {}, {four}}), f32({4}, {0, 0.34f, 1, 0.34f}), 1e-6, 1e-7);
  expect_tensor_near(run1({"BlackmanWindow", "", 17, {{"periodic", attr_int(0)}}, {i32({}, {3})}}), f32({3}, {0, 1, 0}),
                     1e-6, 1e-7);
  // Types and sizes at the edges.
  expect_tensor_near(run1({"HannWindow", "", 17, {{"output_datatype", attr_int(11)}}, {four}}),
                     f64({4}, {0, 0.5, 1, 0.5}), 1e-12, 1e-15);
  expect_tensor_eq(run1({"HannWindow", "", 17, {{"output_datatype", attr_int(7)}}, {four}}), i64({4}, {0, 0, 1, 0}));
  expect_tensor_eq(run1({"HammingWindow", "", 17, {{"periodic", attr_int(0)}}, {i32({}, {1})}}), f32({1}, {1}));
  EXPECT_EQ(run1({"HannWindow", "", 17, {}, {i32({}, {0})}}).shape(), (Shape{0}));
}

TEST(Window, InferenceAndErrors) {
  EXPECT_EQ(inferred("HannWindow", 17, {}, {constant(i32({}, {10}))}), "float32[10]");
  EXPECT_EQ(inferred("HannWindow", 17, {{"output_datatype", attr_int(10)}}, {sym(DType::kInt64, {})}), "float16[?]");
  expect_error({"HannWindow", "", 17, {}, {i32({}, {-1})}}, {"size", ">= 0"});
  expect_error({"HannWindow", "", 17, {}, {f32({}, {4})}}, {"size", "float32"});
  expect_error({"HammingWindow", "", 17, {{"output_datatype", attr_int(8)}}, {i32({}, {4})}}, {"output_datatype"});
  expect_error({"BlackmanWindow", "", 17, {{"periodic", attr_int(2)}}, {i32({}, {4})}}, {"periodic"});
}

}  // namespace
}  // namespace hi::test
