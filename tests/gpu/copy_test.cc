// Data movement kernels against the CPU reference ops: Transpose, Slice (steps of both signs,
// clamped and negative bounds), Expand, Concat (two strided copies into one output) and Gather
// (negative indices; an out-of-range one raises the flag). The copy plans are also applied on
// the host, so their index arithmetic is checked in every build, GPU or not.
#include <cstring>
#include <limits>

#include "backends/gpu/kernels/copy.h"
#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

// What strided_copy does, on the host.
void apply_on_host(const StridedCopy& c, const Tensor& src, Tensor& dst) {
  const size_t es = dtype_size(src.dtype());
  const auto* s = static_cast<const unsigned char*>(src.raw());
  auto* d = static_cast<unsigned char*>(dst.raw());
  for (int64_t i = 0; i < c.numel(); ++i) {
    int64_t so = c.src_offset, dof = c.dst_offset, rest = i;
    for (int k = c.rank - 1; k >= 0; --k) {
      const int64_t coord = rest % c.dims[k];
      rest /= c.dims[k];
      so += coord * c.src_strides[k];
      dof += coord * c.dst_strides[k];
    }
    std::memcpy(d + dof * static_cast<int64_t>(es), s + so * static_cast<int64_t>(es), es);
  }
}

Tensor random_of(DType dtype, const Shape& shape, uint32_t seed) {
  if (dtype == DType::kFloat32 || dtype == DType::kFloat16) return random_tensor(dtype, shape, seed, false);
  Tensor t = Tensor::empty(dtype, shape);
  std::mt19937 rng(seed);
  auto* p = static_cast<unsigned char*>(t.raw());
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<unsigned char>(rng());
  if (dtype == DType::kBool)
    for (size_t i = 0; i < t.nbytes(); ++i) p[i] &= 1;
  return t;
}

int32_t onnx_code(DType t) {
  switch (t) {
    case DType::kFloat16: return onnx::TensorProto::FLOAT16;
    case DType::kInt64: return onnx::TensorProto::INT64;
    case DType::kUInt8: return onnx::TensorProto::UINT8;
    case DType::kBool: return onnx::TensorProto::BOOL;
    default: return onnx::TensorProto::FLOAT;
  }
}

void expect_same_bytes(const Tensor& want, const Tensor& got, const std::string& what) {
  ASSERT_EQ(want.shape(), got.shape()) << what;
  EXPECT_EQ(std::memcmp(want.raw(), got.raw(), want.nbytes()), 0) << what;
}

// Runs `copy` on the host and, with a GPU, on the device; both must equal `want`.
void check_copy(const StridedCopy& c, const Tensor& x, const Tensor& want, const std::string& what) {
  Tensor host = Tensor::empty(x.dtype(), want.shape());
  apply_on_host(c, x, host);
  expect_same_bytes(want, host, what + " (host)");
  if (!no_gpu_reason().empty()) return;
  const Tensor got = run_on_gpu({&x}, x.dtype(), want.shape(), [&](const std::vector<void*>& in, void* y) {
    return strided_copy(c, static_cast<int>(dtype_size(x.dtype())), in[0], y, nullptr);
  });
  expect_same_bytes(want, got, what + " (GPU)");
}

const std::vector<DType>& copy_dtypes() {
  static const std::vector<DType> t = {DType::kFloat32, DType::kFloat16, DType::kInt64, DType::kUInt8, DType::kBool};
  return t;
}

TEST(HI_GPU_TEST_SUITE, TransposeMatchesTheCpuReference) {
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {{{7}, {0}},
                                                                     {{3, 5}, {1, 0}},
                                                                     {{2, 3, 4}, {2, 0, 1}},
                                                                     {{2, 1, 33, 5}, {0, 2, 1, 3}},
                                                                     {{4, 3, 2, 5, 3}, {4, 3, 2, 1, 0}},
                                                                     {{0, 4}, {1, 0}}};
  if (no_gpu_reason().empty()) {
    ASSERT_TRUE(set_device(0).is_ok());
  }
  uint32_t seed = 1;
  for (DType dtype : copy_dtypes())
    for (const auto& [shape, perm] : cases) {
      ModelBuilder b(17);
      b.input("x", onnx_code(dtype), std::vector<int64_t>(shape.begin(), shape.end()));
      b.output("y", onnx_code(dtype));
      auto& node = b.node("Transpose", {"x"}, {"y"});
      auto* a = node.add_attribute();
      a->set_name("perm");
      a->set_type(onnx::AttributeProto::INTS);
      for (int64_t p : perm) a->add_ints(p);
      const Tensor x = random_of(dtype, shape, seed++);
      const Tensor want = run_on_cpu(b, {{"x", x}});
      auto c = transpose_copy(shape, perm);
      ASSERT_TRUE(c.is_ok()) << c.status().to_string();
      check_copy(c.value(), x, want, std::string("Transpose ") + dtype_name(dtype));
    }
  auto bad = transpose_copy({2, 3}, {0, 0});
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("perm [0, 0] is not a permutation"), std::string::npos)
      << bad.status().message();
}

struct SliceCase {
  Shape shape;
  std::vector<int64_t> starts, ends, axes, steps;
};

TEST(HI_GPU_TEST_SUITE, SliceMatchesTheCpuReference) {
  const int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  const std::vector<SliceCase> cases = {{{10}, {2}, {9}, {0}, {3}},
                                        {{10}, {-1}, {kMin}, {0}, {-1}},  // reversed
                                        {{5, 7}, {1, -5}, {kMax, -1}, {0, 1}, {2, 1}},
                                        {{4, 6, 5}, {3, 0}, {0, 6}, {0, -1}, {-2, 2}},
                                        {{3, 4}, {5}, {9}, {1}, {1}},  // empty: start clamped past the end
                                        {{2, 3, 4, 5}, {1, 1, 1, 1}, {2, 3, 4, 5}, {}, {}}};
  if (no_gpu_reason().empty()) {
    ASSERT_TRUE(set_device(0).is_ok());
  }
  uint32_t seed = 50;
  for (DType dtype : {DType::kFloat32, DType::kInt64})
    for (const SliceCase& sc : cases) {
      ModelBuilder b(13);
      b.input("x", onnx_code(dtype), std::vector<int64_t>(sc.shape.begin(), sc.shape.end()));
      b.output("y", onnx_code(dtype));
      const int64_t n = static_cast<int64_t>(sc.starts.size());
      b.initializer_i64("starts", {n}, sc.starts);
      b.initializer_i64("ends", {n}, sc.ends);
      std::vector<std::string> inputs = {"x", "starts", "ends"};
      if (!sc.axes.empty()) {
        b.initializer_i64("axes", {n}, sc.axes);
        inputs.push_back("axes");
      }
      if (!sc.steps.empty()) {
        b.initializer_i64("steps", {n}, sc.steps);
        inputs.push_back("steps");
      }
      b.node("Slice", inputs, {"y"});
      const Tensor x = random_of(dtype, sc.shape, seed++);
      const Tensor want = run_on_cpu(b, {{"x", x}});
      auto c = slice_copy(sc.shape, sc.starts, sc.ends, sc.axes, sc.steps);
      ASSERT_TRUE(c.is_ok()) << c.status().to_string();
      check_copy(c.value(), x, want, std::string("Slice ") + dtype_name(dtype) + " " + shape_to_string(sc.shape));
    }
  EXPECT_EQ(slice_copy({4}, {0}, {4}, {0}, {0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(slice_copy({4}, {0}, {4}, {1}, {1}).status().code(), StatusCode::kInvalidArgument);
}

TEST(HI_GPU_TEST_SUITE, ExpandAndConcatAreStridedCopies) {
  if (no_gpu_reason().empty()) {
    ASSERT_TRUE(set_device(0).is_ok());
  }
  // Expand [3, 1] to [2, 3, 4]: stride 0 along the new and the broadcast dims.
  {
    ModelBuilder b(13);
    b.input("x", onnx::TensorProto::FLOAT, {3, 1});
    b.output("y", onnx::TensorProto::FLOAT);
    b.initializer_i64("shape", {3}, {2, 3, 4});
    b.node("Expand", {"x", "shape"}, {"y"});
    const Tensor x = random_of(DType::kFloat32, {3, 1}, 9);
    const Tensor want = run_on_cpu(b, {{"x", x}});
    StridedCopy c;
    c.rank = 3;
    const int64_t dims[3] = {2, 3, 4}, src[3] = {0, 1, 0}, dst[3] = {12, 4, 1};
    for (int k = 0; k < 3; ++k) {
      c.dims[k] = dims[k];
      c.src_strides[k] = src[k];
      c.dst_strides[k] = dst[k];
    }
    check_copy(c, x, want, "Expand");
  }
  // Concat [2, 3, 5] and [2, 4, 5] along axis 1: each input a block of the [2, 7, 5] output.
  ModelBuilder b(13);
  b.input("a", onnx::TensorProto::FLOAT, {2, 3, 5});
  b.input("b", onnx::TensorProto::FLOAT, {2, 4, 5});
  b.output("y", onnx::TensorProto::FLOAT);
  ModelBuilder::set_int(b.node("Concat", {"a", "b"}, {"y"}), "axis", 1);
  const Tensor a = random_of(DType::kFloat32, {2, 3, 5}, 10), bt = random_of(DType::kFloat32, {2, 4, 5}, 11);
  const Tensor want = run_on_cpu(b, {{"a", a}, {"b", bt}});
  auto block = [](const Shape& in, int64_t offset) {
    StridedCopy c;
    c.rank = 3;
    contiguous_strides(in, c.src_strides);
    contiguous_strides({2, 7, 5}, c.dst_strides);
    for (int k = 0; k < 3; ++k) c.dims[k] = in[static_cast<size_t>(k)];
    c.dst_offset = offset * 5;
    return c;
  };
  Tensor host = Tensor::zeros(DType::kFloat32, {2, 7, 5});
  apply_on_host(block({2, 3, 5}, 0), a, host);
  apply_on_host(block({2, 4, 5}, 3), bt, host);
  expect_same_bytes(want, host, "Concat (host)");
  if (!no_gpu_reason().empty()) return;
  const Tensor got = run_on_gpu({&a, &bt}, DType::kFloat32, {2, 7, 5}, [&](const std::vector<void*>& in, void* y) {
    HI_RETURN_IF_ERROR(strided_copy(block({2, 3, 5}, 0), 4, in[0], y, nullptr));
    return strided_copy(block({2, 4, 5}, 3), 4, in[1], y, nullptr);
  });
  expect_same_bytes(want, got, "Concat (GPU)");
}

TEST(HI_GPU_TEST_SUITE, GatherMatchesTheCpuReference) {
  SKIP_WITHOUT_GPU();
  ASSERT_TRUE(set_device(0).is_ok());
  const std::vector<int64_t> idx = {0, -1, 2, 2, -4, 1, 3};
  for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kInt64, DType::kUInt8})
    for (int64_t axis : {0, 1, 2}) {
      const Shape shape = {4, 4, 5};
      ModelBuilder b(13);
      b.input("x", onnx_code(dtype), {4, 4, 5});
      b.output("y", onnx_code(dtype));
      b.initializer_i64("i", {static_cast<int64_t>(idx.size())}, idx);
      ModelBuilder::set_int(b.node("Gather", {"x", "i"}, {"y"}), "axis", axis);
      const Tensor x = random_of(dtype, shape, static_cast<uint32_t>(axis) + 20);
      const Tensor want = run_on_cpu(b, {{"x", x}});
      int64_t outer = 1, inner = 1;
      for (int64_t k = 0; k < axis; ++k) outer *= shape[static_cast<size_t>(k)];
      for (int64_t k = axis + 1; k < 3; ++k) inner *= shape[static_cast<size_t>(k)];
      const Tensor indices = Tensor::from_vector<int64_t>(idx, {static_cast<int64_t>(idx.size())});
      const Tensor got = run_on_gpu({&x, &indices}, dtype, want.shape(), [&](const std::vector<void*>& in, void* y) {
        return gather(static_cast<int>(dtype_size(dtype)), in[0], static_cast<const int64_t*>(in[1]), y, outer,
                      shape[static_cast<size_t>(axis)], inner, static_cast<int64_t>(idx.size()), nullptr, nullptr);
      });
      expect_same_bytes(want, got, std::string("Gather ") + dtype_name(dtype) + " axis " + std::to_string(axis));
    }
  // An index out of range raises the flag.
  const Tensor x = random_of(DType::kFloat32, {3, 2}, 5);
  const Tensor indices = Tensor::from_vector<int64_t>({1, 3}, {2});
  const Tensor flag = Tensor::zeros(DType::kInt32, {1});
  const Tensor got = run_on_gpu({&x, &indices, &flag}, DType::kInt32, {1}, [&](const std::vector<void*>& in, void* y) {
    void* out = nullptr;
    HI_RETURN_IF_ERROR(device_malloc(&out, 4 * sizeof(float)));
    HI_RETURN_IF_ERROR(
        gather(4, in[0], static_cast<const int64_t*>(in[1]), out, 1, 3, 2, 2, static_cast<int*>(in[2]), nullptr));
    HI_RETURN_IF_ERROR(synchronize(nullptr));
    HI_RETURN_IF_ERROR(device_free(out));
    return copy_async(y, in[2], sizeof(int), CopyKind::kDeviceToDevice, nullptr);
  });
  EXPECT_EQ(got.data<int32_t>()[0], 1);
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
