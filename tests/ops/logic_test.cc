// Comparison and logical ops (Equal, Less, Greater, LessOrEqual, GreaterOrEqual, And, Or, Xor,
// Not): truth tables, types, broadcasting edge cases, errors, and a random check.
#include <cmath>
#include <limits>

#include "ops/tensor_builders.h"

namespace hi::test {
namespace {

Tensor run_ok(const OpCase& c) {
  auto r = run_op(c);
  EXPECT_TRUE(r.is_ok()) << c.op_type << ": " << r.status().to_string();
  return r.is_ok() ? r.value()[0] : Tensor();
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

TEST(Compare, FloatTruthTablesWithNaN) {
  Tensor a = f32({4}, {1, 2, 3, kNaN});
  Tensor b = f32({4}, {2, 2, 2, kNaN});
  expect_tensor_eq(run_ok({"Equal", "", 13, {}, {a, b}}), bools({4}, {0, 1, 0, 0}));
  expect_tensor_eq(run_ok({"Less", "", 13, {}, {a, b}}), bools({4}, {1, 0, 0, 0}));
  expect_tensor_eq(run_ok({"Greater", "", 13, {}, {a, b}}), bools({4}, {0, 0, 1, 0}));
  expect_tensor_eq(run_ok({"LessOrEqual", "", 16, {}, {a, b}}), bools({4}, {1, 1, 0, 0}));
  expect_tensor_eq(run_ok({"GreaterOrEqual", "", 16, {}, {a, b}}), bools({4}, {0, 1, 1, 0}));
}

TEST(Compare, IntegerTypesAndFloat16) {
  expect_tensor_eq(run_ok({"Less", "", 13, {}, {make<uint8_t>({2}, {0, 255}), make<uint8_t>({1}, {128})}}),
                   bools({2}, {1, 0}));
  expect_tensor_eq(run_ok({"Greater", "", 13, {}, {make<int8_t>({2}, {-128, 127}), make<int8_t>({}, {0})}}),
                   bools({2}, {0, 1}));
  const uint64_t big = std::numeric_limits<uint64_t>::max();
  expect_tensor_eq(run_ok({"Equal", "", 13, {}, {make<uint64_t>({2}, {big, big - 1}), make<uint64_t>({1}, {big})}}),
                   bools({2}, {1, 0}));
  expect_tensor_eq(run_ok({"GreaterOrEqual", "", 16, {}, {f16({2}, {0.5f, -1.f}), f16({2}, {0.5f, 1.f})}}),
                   bools({2}, {1, 0}));
  expect_tensor_eq(run_ok({"Equal", "", 13, {}, {bools({2}, {1, 0}), bools({2}, {1, 1})}}), bools({2}, {1, 0}));
  expect_tensor_eq(run_ok({"LessOrEqual", "", 16, {}, {i64({3}, {-5, 0, 5}), i64({}, {0})}}), bools({3}, {1, 1, 0}));
}

TEST(Compare, StringEquality) {
  expect_tensor_eq(run_ok({"Equal", "", 19, {}, {strs({2, 2}, {"a", "b", "c", "a"}), strs({2}, {"a", "x"})}}),
                   bools({2, 2}, {1, 0, 0, 0}));
}

TEST(Compare, BroadcastEdgeCases) {
  // Scalar against rank 3, rank mismatch, and zero-size dims.
  Tensor y = run_ok({"Less", "", 13, {}, {f32({}, {0.5f}), f32({2, 1, 2}, {0, 1, 2, -1})}});
  expect_tensor_eq(y, bools({2, 1, 2}, {0, 1, 1, 0}));
  EXPECT_EQ(run_ok({"Equal", "", 13, {}, {i64({3, 0}, {}), i64({1}, {1})}}).shape(), (Shape{3, 0}));
  EXPECT_EQ(run_ok({"Greater", "", 13, {}, {i64({0, 1}, {}), i64({4}, {1, 2, 3, 4})}}).shape(), (Shape{0, 4}));
}

TEST(Compare, Errors) {
  expect_error({"Less", "", 13, {}, {f32({1}, {1}), i64({1}, {1})}}, {"different types", "float32", "int64"});
  expect_error({"Less", "", 13, {}, {bools({1}, {1}), bools({1}, {1})}}, {"does not support", "bool"});
  expect_error({"Greater", "", 13, {}, {strs({1}, {"a"}), strs({1}, {"b"})}}, {"string"});
  expect_error({"Equal", "", 13, {}, {f32({2}, {1, 2}), f32({3}, {1, 2, 3})}}, {"cannot be broadcast"});
  EXPECT_EQ(inferred("Equal", 13, {}, {sym(DType::kInt64, {"b", "1"}), sym(DType::kInt64, {"4"})}), "bool[b, 4]");
}

TEST(Logic, TruthTables) {
  Tensor a = bools({4}, {0, 0, 1, 1});
  Tensor b = bools({4}, {0, 1, 0, 1});
  expect_tensor_eq(run_ok({"And", "", 7, {}, {a, b}}), bools({4}, {0, 0, 0, 1}));
  expect_tensor_eq(run_ok({"Or", "", 7, {}, {a, b}}), bools({4}, {0, 1, 1, 1}));
  expect_tensor_eq(run_ok({"Xor", "", 7, {}, {a, b}}), bools({4}, {0, 1, 1, 0}));
  expect_tensor_eq(run_ok({"Not", "", 1, {}, {a}}), bools({4}, {1, 1, 0, 0}));
}

TEST(Logic, BroadcastAndErrors) {
  expect_tensor_eq(run_ok({"And", "", 7, {}, {bools({2, 1}, {1, 0}), bools({3}, {1, 0, 1})}}),
                   bools({2, 3}, {1, 0, 1, 0, 0, 0}));
  expect_tensor_eq(run_ok({"Or", "", 7, {}, {bools({}, {0}), bools({2}, {0, 1})}}), bools({2}, {0, 1}));
  EXPECT_EQ(run_ok({"Xor", "", 7, {}, {bools({0}, {}), bools({1}, {1})}}).shape(), (Shape{0}));
  expect_error({"And", "", 7, {}, {f32({1}, {1}), f32({1}, {1})}}, {"does not support", "float32"});
  expect_error({"Not", "", 1, {}, {i64({1}, {1})}}, {"does not support", "int64"});
}

TEST(Logic, RandomAwkwardAgainstDirectComputation) {
  Tensor a = random_f32({3, 1, 7}, 1), b = random_f32({5, 1}, 2);
  Tensor lt = run_ok({"Less", "", 13, {}, {a, b}});
  Tensor ge = run_ok({"GreaterOrEqual", "", 16, {}, {a, b}});
  Tensor x = run_ok({"Xor", "", 7, {}, {lt, ge}});
  ASSERT_EQ(lt.shape(), (Shape{3, 5, 7}));
  for (int64_t i = 0; i < 3; ++i)
    for (int64_t j = 0; j < 5; ++j)
      for (int64_t k = 0; k < 7; ++k) {
        const int64_t o = (i * 5 + j) * 7 + k;
        const float av = a.data<float>()[i * 7 + k], bv = b.data<float>()[j];
        ASSERT_EQ(lt.data<bool>()[o], av < bv);
        ASSERT_EQ(ge.data<bool>()[o], av >= bv);
        ASSERT_TRUE(x.data<bool>()[o]);  // exactly one of < and >= holds for non-NaN values
      }
}

}  // namespace
}  // namespace hi::test
