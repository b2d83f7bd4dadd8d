// Elementwise ops: hand-computed cases and broadcasting edge cases.
#include "ops/tensor_builders.h"  // op_test_util.h and i32()
#include "ops/shape_util.h"

namespace hi::test {
namespace {

TEST(Add, BroadcastsRowAndColumn) {
  auto r = run_op({"Add", "", 17, {}, {f32({2, 1}, {1, 2}), f32({3}, {10, 20, 30})}});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  expect_tensor_eq(r.value()[0], f32({2, 3}, {11, 21, 31, 12, 22, 32}));
}

TEST(Add, ScalarAndZeroSize) {
  auto r = run_op({"Add", "", 17, {}, {f32({}, {1}), f32({2, 0}, {})}});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r.value()[0].shape(), (Shape{2, 0}));
}

TEST(Add, IncompatibleShapesFailWithBothShapes) {
  auto r = run_op_once({"Add", "", 17, {}, {f32({2, 3}, {1, 2, 3, 4, 5, 6}), f32({2}, {1, 2})}}, false);
  ASSERT_FALSE(r.is_ok());
  EXPECT_NE(r.status().message().find("under_test"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("[2, 3]"), std::string::npos) << r.status().message();
}

TEST(Sub, MiddleDimBroadcast) {
  auto a = random_f32({3, 1, 5}, 1), b = random_f32({1, 4, 1}, 2);
  auto r = run_op({"Sub", "", 17, {}, {a, b}});
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  const Tensor& y = r.value()[0];
  ASSERT_EQ(y.shape(), (Shape{3, 4, 5}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 5; ++k)
        EXPECT_EQ(y.data<float>()[(i * 4 + j) * 5 + k], a.data<float>()[i * 5 + k] - b.data<float>()[j]);
}

// Every way the row loop can see its operands (both advancing, one held per row, one element,
// rank-broadcast, both held), small and large enough to be shared among threads (one long row
// and many rows), against an index-by-index reference.
TEST(Binary, BroadcastsMatchAPlainLoopAtEverySize) {
  struct Case {
    Shape a, b;
  };
  const Case cases[] = {{{2, 3, 4, 5}, {1, 3, 1, 5}},
                        {{2, 3, 4, 5}, {2, 3, 4, 1}},
                        {{7}, {2, 3, 7}},
                        {{3, 1}, {1, 11}},
                        {{2, 1, 1}, {2, 1, 1}},
                        {{4, 300, 70}, {}},
                        {{1}, {4, 300, 70}},
                        {{8, 40, 30, 24}, {8, 1, 1, 24}},
                        {{70001}, {70001}},
                        {{9, 1000, 11}, {9, 1000, 1}},
                        {{5, 1, 33}, {5, 4000, 1}}};
  uint64_t seed = 3;
  for (const Case& c : cases) {
    const Tensor a = random_f32(c.a, seed++), b = random_f32(c.b, seed++, 0.5f, 2.f);
    for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
      auto r = run_op({op, "", 17, {}, {a, b}});
      ASSERT_TRUE(r.is_ok()) << op << " " << r.status().to_string();
      const Tensor& y = r.value()[0];
      const Shape out = ops::broadcast_shapes(c.a, c.b).value();
      ASSERT_EQ(y.shape(), out) << op;
      // Output element o's coordinates, read back in a and b with size-1 dims held.
      auto offset = [&](const Shape& in, int64_t o) {
        int64_t off = 0, stride = 1;
        for (size_t k = out.size(); k-- > 0;) {
          const int64_t coord = o % out[k];
          o /= out[k];
          const size_t from_end = out.size() - 1 - k;
          if (from_end < in.size()) {
            const int64_t d = in[in.size() - 1 - from_end];
            off += (d == 1 ? 0 : coord) * stride;
            stride *= d;
          }
        }
        return off;
      };
      for (int64_t o = 0; o < y.numel(); ++o) {
        const float x = a.data<float>()[offset(c.a, o)], z = b.data<float>()[offset(c.b, o)];
        const float want = op[0] == 'A' ? x + z : op[0] == 'S' ? x - z : op[0] == 'M' ? x * z : x / z;
        ASSERT_EQ(y.data<float>()[o], want)
            << op << " " << shape_to_string(c.a) << " " << shape_to_string(c.b) << " at " << o;
      }
    }
  }
}

TEST(Mul, Int64) {
  auto r = run_op({"Mul", "", 17, {}, {i64({3}, {1, -2, 3}), i64({1}, {4})}});
  ASSERT_TRUE(r.is_ok());
  expect_tensor_eq(r.value()[0], i64({3}, {4, -8, 12}));
}

TEST(Div, IntegerTruncatesAndRejectsZero) {
  auto r = run_op({"Div", "", 17, {}, {i64({2}, {7, -7}), i64({2}, {2, 2})}});
  ASSERT_TRUE(r.is_ok());
  expect_tensor_eq(r.value()[0], i64({2}, {3, -3}));
  auto z = run_op_once({"Div", "", 17, {}, {i64({1}, {1}), i64({1}, {0})}}, false);
  EXPECT_FALSE(z.is_ok());
}

// The lowest int32 / int64 divided by -1 traps on x86 (SIGFPE): an error naming the overflow,
// through the kernel and through constant folding; other divisions by -1 stay exact.
TEST(Div, LowestIntegerByMinusOneIsAnErrorNotATrap) {
  for (bool fold : {false, true}) {
    auto r64 =
        run_op_once({"Div", "", 17, {}, {i64({2}, {5, std::numeric_limits<int64_t>::min()}), i64({1}, {-1})}}, fold);
    ASSERT_FALSE(r64.is_ok());
    EXPECT_NE(r64.status().message().find("integer division overflow"), std::string::npos) << r64.status().message();
    auto r32 =
        run_op_once({"Div", "", 17, {}, {i32({1}, {std::numeric_limits<int32_t>::min()}), i32({1}, {-1})}}, fold);
    ASSERT_FALSE(r32.is_ok());
    EXPECT_NE(r32.status().message().find("int32"), std::string::npos) << r32.status().message();
  }
  auto ok = run_op({"Div", "", 17, {}, {i32({2}, {std::numeric_limits<int32_t>::max(), -7}), i32({1}, {-1})}});
  ASSERT_TRUE(ok.is_ok());
  expect_tensor_eq(ok.value()[0], i32({2}, {-std::numeric_limits<int32_t>::max(), 7}));
}

TEST(Unary, FloatFunctions) {
  auto x = f32({4}, {-1.5f, 0.f, 0.5f, 2.f});
  auto relu = run_op({"Relu", "", 17, {}, {x}});
  ASSERT_TRUE(relu.is_ok());
  expect_tensor_eq(relu.value()[0], f32({4}, {0, 0, 0.5f, 2}));
  auto sig = run_op({"Sigmoid", "", 17, {}, {x}});
  ASSERT_TRUE(sig.is_ok());
  expect_tensor_near(sig.value()[0], f32({4}, {0.18242552f, 0.5f, 0.62245933f, 0.88079708f}));
  auto erf = run_op({"Erf", "", 17, {}, {x}});
  ASSERT_TRUE(erf.is_ok());
  expect_tensor_near(erf.value()[0], f32({4}, {-0.96610515f, 0.f, 0.52049988f, 0.99532227f}));
}

TEST(Unary, RejectsIntegerWhereFloatOnly) {
  auto r = run_op_once({"Sqrt", "", 17, {}, {i64({1}, {4})}}, false);
  ASSERT_FALSE(r.is_ok());
  EXPECT_EQ(r.status().code(), StatusCode::kUnsupported);
  EXPECT_NE(r.status().message().find("int64"), std::string::npos);
}

TEST(Float16, AddRoundsOnce) {
  Tensor a = Tensor::empty(DType::kFloat16, {2}), b = Tensor::empty(DType::kFloat16, {2});
  a.data<Float16>()[0] = Float16(1.f), a.data<Float16>()[1] = Float16(2048.f);
  b.data<Float16>()[0] = Float16(0.5f), b.data<Float16>()[1] = Float16(1.f);
  auto r = run_op({"Add", "", 17, {}, {a, b}});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(static_cast<float>(r.value()[0].data<Float16>()[0]), 1.5f);
  EXPECT_EQ(static_cast<float>(r.value()[0].data<Float16>()[1]), 2048.f);  // 2049 ties to even
}

}  // namespace
}  // namespace hi::test
