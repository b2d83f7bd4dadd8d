// Runs a single ONNX node through the real executor, for op tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "hipinfer/tensor.h"
#include "ir/graph.h"

namespace hi::test {

struct OpCase {
  std::string op_type;
  std::string domain;  // "" = ai.onnx
  int64_t opset = 17;
  std::map<std::string, ir::Attribute> attrs;
  std::vector<Tensor> inputs;  // a default-constructed Tensor() marks an absent optional input
  int num_outputs = 1;
};

// Runs the case twice: inputs as graph inputs (shapes inferred statically, kernel at run time)
// and inputs as initializers (the session folds the node at build time). Fails the current
// test if the two disagree; returns the first run's outputs or the error.
Result<std::vector<Tensor>> run_op(const OpCase& c);
// One variant alone (for ops whose build-time folding is not wanted). `backend_ops` false runs the
// op's reference kernel instead of the CPU backend's implementation.
Result<std::vector<Tensor>> run_op_once(const OpCase& c, bool inputs_as_constants, bool backend_ops = true);

ir::Attribute attr_int(int64_t v);
ir::Attribute attr_float(float v);
ir::Attribute attr_string(const std::string& v);
ir::Attribute attr_ints(const std::vector<int64_t>& v);
ir::Attribute attr_floats(const std::vector<float>& v);
ir::Attribute attr_tensor(const Tensor& t);

template <typename T>
Tensor make(const Shape& shape, const std::vector<T>& values) {
  Tensor t = Tensor::empty(dtype_of<T>, shape);
  EXPECT_EQ(static_cast<int64_t>(values.size()), t.numel()) << "test data size";
  for (int64_t i = 0; i < t.numel() && i < static_cast<int64_t>(values.size()); ++i)
    t.data<T>()[i] = values[static_cast<size_t>(i)];
  return t;
}
inline Tensor f32(const Shape& shape, const std::vector<float>& v) { return make<float>(shape, v); }
inline Tensor i64(const Shape& shape, const std::vector<int64_t>& v) { return make<int64_t>(shape, v); }
// Deterministic uniform values in [lo, hi) for awkward-size tests.
Tensor random_f32(const Shape& shape, uint64_t seed, float lo = -1.f, float hi = 1.f);

// Checks dtype, shape and values (|a - e| <= atol + rtol * |e|; NaN matches NaN).
void expect_tensor_near(const Tensor& actual, const Tensor& expected, double rtol = 1e-5, double atol = 1e-6);
void expect_tensor_eq(const Tensor& actual, const Tensor& expected);

}  // namespace hi::test
