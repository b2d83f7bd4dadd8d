// Every op of the GPU kernel table that takes plain tensors (no attribute, index or extra input
// that the node must carry: the unary, binary, variadic, comparison, logic, predicate, Clip,
// softmax, reduction, Shape/Size, ArgMax/ArgMin, Trilu and global pooling families), in the
// manner of ggml's test-backend-ops: for each element type and each
// awkward shape (odd sizes, broadcasting, one-element, empty and scalar tensors) that the
// table's own support check claims, a one-node model on the GPU against the CPU reference op.
// Ops whose nodes need more (Reshape's shape, Gather's indices, convolutions' weights) have their
// own tests; this one covers the element types and shapes those leave out.
#include <gtest/gtest.h>

#include <random>
#include <set>

#include "backends/gpu/ops/ops.h"
#include "gpu/gpu_skip.h"
#include "gpu/session_check.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const DType kTypes[] = {DType::kFloat32, DType::kFloat16, DType::kInt32, DType::kInt64,
                        DType::kInt8,    DType::kUInt8,   DType::kBool};

// Input shapes by arity: odd sizes, broadcasting both ways, one element, empty, scalar.
const std::vector<std::vector<Shape>>& shapes_for(size_t arity) {
  static const std::vector<std::vector<Shape>> one = {{{37}}, {{3, 5, 7}}, {{1}}, {{0, 4}}, {{}}};
  static const std::vector<std::vector<Shape>> two = {{{3, 5, 7}, {3, 5, 7}}, {{3, 1, 7}, {5, 1}}, {{1}, {2, 3}},
                                                      {{0, 5}, {5}},          {{}, {4, 1}},        {{2, 0, 3}, {1, 3}}};
  static const std::vector<std::vector<Shape>> three = {{{3, 1, 7}, {5, 1}, {7}}, {{0, 2}, {2}, {1}}, {{4}, {4}, {4}}};
  return arity == 1 ? one : arity == 2 ? two : three;
}

// Values every op is defined on in both engines the same way: no NaN (whose sign and payload
// engines treat differently), ties for the rounding ops, small integers whose sums and products
// stay in range.
Tensor values(DType t, const Shape& shape, uint32_t seed) {
  Tensor x = Tensor::empty(t, shape);
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 1.5f);
  std::uniform_int_distribution<int> small(-20, 20);
  const float specials[] = {0.f, -0.f, 1.f, -1.f, 0.5f, 2.5f, -2.5f, 100.f};
  for (int64_t i = 0; i < x.numel(); ++i) {
    const size_t k = static_cast<size_t>(i);
    const float f = k < std::size(specials) ? specials[k] : normal(rng);
    const int n = small(rng);
    switch (t) {
      case DType::kFloat32: x.data<float>()[i] = f; break;
      case DType::kFloat16: x.data<Float16>()[i] = Float16(f); break;
      case DType::kInt32: x.data<int32_t>()[i] = n; break;
      case DType::kInt64: x.data<int64_t>()[i] = n; break;
      case DType::kInt8: x.data<int8_t>()[i] = static_cast<int8_t>(n); break;
      case DType::kUInt8: x.data<uint8_t>()[i] = static_cast<uint8_t>(n + 20); break;
      case DType::kBool: x.data<bool>()[i] = (n & 1) != 0; break;
      default: ADD_FAILURE() << "no values for " << dtype_name(t);
    }
  }
  return x;
}

// The one-node model at the first opset where the CPU builds it, or null when none does (the
// node needs attributes or inputs this test does not give).
std::unique_ptr<ModelBuilder> model_for(const std::string& op, DType t, const std::vector<Shape>& shapes) {
  for (int opset : {17, 13, 9, 21}) {
    auto b = std::make_unique<ModelBuilder>(opset);
    std::vector<std::string> names;
    for (size_t i = 0; i < shapes.size(); ++i) {
      std::string name = "x";  // (appended, not "x" + ...: GCC 12 warns falsely, -Wrestrict)
      name += std::to_string(i);
      names.push_back(name);
      b->input(names.back(), static_cast<int32_t>(t), dims(shapes[i]));
    }
    b->output("y", onnx::TensorProto::UNDEFINED);
    b->node(op, names, {"y"});
    const std::string bytes = b->bytes();
    SessionOptions o;
    o.devices = {"cpu"};
    o.optimization_level = 0;
    if (Session::create_from_bytes(bytes.data(), bytes.size(), o).is_ok()) return b;
  }
  return nullptr;
}

// The kernel families whose nodes need nothing but their tensors.
bool plain(const GpuOpEntry& e) {
  using WhyNot = std::string (*)(const ir::Node&, const std::vector<ir::ValueType>&);
  for (WhyNot f :
       {&unary_why_not, &binary_why_not, &compare_why_not, &predicate_why_not, &clip_why_not, &softmax_why_not,
        &reduce_why_not, &shape_why_not, &arg_reduce_why_not, &trilu_why_not, &global_pool_why_not})
    if (e.why_not == f) return true;
  return false;
}

TEST(HI_GPU_TEST_SUITE, EveryPlainOpInEveryClaimedTypeAndAwkwardShapeMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  std::set<std::string> tested_ops;
  int64_t cases = 0;
  uint32_t seed = 1;
  for (const GpuOpEntry& e : gpu_op_list()) {
    // Internal ops come from passes, with their own tests.
    if (std::string(e.domain) != "" || !plain(e)) continue;
    for (size_t arity = 1; arity <= 3; ++arity)
      for (DType t : kTypes)
        for (const std::vector<Shape>& shapes : shapes_for(arity)) {
          std::vector<std::string> in;
          std::vector<ir::ValueType> types;
          for (size_t i = 0; i < arity; ++i) {
            std::string name = "x";
            name += std::to_string(i);
            in.push_back(name);
            types.push_back(ir::ValueType::concrete(t, shapes[i]));
          }
          if (!e.why_not(make_node(e.op_type, in), types).empty()) continue;  // not claimed
          const std::unique_ptr<ModelBuilder> b = model_for(e.op_type, t, shapes);
          if (!b) continue;
          TensorMap feeds;
          for (size_t i = 0; i < arity; ++i) feeds[in[i]] = values(t, shapes[i], seed++);
          std::string what = e.op_type;
          what += " ";
          what += dtype_name(t);
          for (const Shape& s : shapes) {
            what += " ";
            what += shape_to_string(s);
          }
          check(*b, feeds, what, 1e-6);
          tested_ops.insert(e.op_type);
          ++cases;
        }
  }
  // The table's plain ops: 42 unary kinds, 11 binary and variadic, 6 comparisons, 3 logic, Not,
  // IsNaN, IsInf and more; a refactoring that loses them from this test must show.
  EXPECT_GE(tested_ops.size(), 60u);
  std::string list;
  for (const std::string& op : tested_ops) {
    list += " ";
    list += op;
  }
  std::printf("%lld cases over %zu ops:%s\n", static_cast<long long>(cases), tested_ops.size(), list.c_str());
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
