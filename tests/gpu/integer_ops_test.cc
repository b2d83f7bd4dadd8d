// The GPU ops on integer and bool tensors, and the comparisons that make bools, end to end through
// GPU-only sessions against the CPU (gpu/session_check.h): Cast between every pair of the GPU's
// types (NaN, infinities and out-of-range values included), comparisons and logic with
// broadcasting, Not/IsNaN/IsInf, Shape/Size, integer arithmetic that overflows, data movement of
// int64/bool/uint8 tensors, and the attention-mask arithmetic of an encoder. Needs a GPU; skips
// without one.
#include <cmath>
#include <limits>
#include <random>

#include "gpu/gpu_skip.h"
#include "gpu/session_check.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

int32_t code(DType t) { return static_cast<int32_t>(t); }  // DType values are the ONNX codes

// Random values of any GPU type; floats include NaN, +-inf, halves and values beyond int32's
// range, integers their extremes.
Tensor random_of(DType dtype, const Shape& shape, uint32_t seed) {
  Tensor t = Tensor::empty(dtype, shape);
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> any(std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max());
  std::normal_distribution<float> normal(0.f, 100.f);
  const float specials[] = {NAN, INFINITY, -INFINITY, 0.5f, -0.5f, 3e9f, -3e9f, 70000.f, 255.5f, -129.f, 0.f, -0.f};
  for (int64_t i = 0; i < t.numel(); ++i) {
    const size_t k = static_cast<size_t>(i);
    const float f = k < std::size(specials) ? specials[k] : normal(rng);
    const int64_t n =
        k < 4 ? (k % 2 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min()) : any(rng);
    switch (dtype) {
      case DType::kFloat32: t.data<float>()[i] = f; break;
      case DType::kFloat16: t.data<Float16>()[i] = Float16(f); break;
      case DType::kInt64: t.data<int64_t>()[i] = n % (i % 3 ? 1000 : std::numeric_limits<int64_t>::max()); break;
      case DType::kInt32:
        t.data<int32_t>()[i] = static_cast<int32_t>(n % (i % 3 ? 1000 : std::numeric_limits<int32_t>::max()));
        break;
      case DType::kInt8: t.data<int8_t>()[i] = static_cast<int8_t>(n); break;
      case DType::kUInt8: t.data<uint8_t>()[i] = static_cast<uint8_t>(n); break;
      case DType::kBool: t.data<bool>()[i] = (n & 1) != 0; break;
      default: ADD_FAILURE() << "random_of: no values for " << dtype_name(dtype);
    }
  }
  return t;
}

const DType kTypes[] = {DType::kFloat32, DType::kFloat16, DType::kInt64, DType::kInt32,
                        DType::kInt8,    DType::kUInt8,   DType::kBool};

TEST(HI_GPU_TEST_SUITE, CastBetweenEveryPairMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 1;
  for (DType from : kTypes)
    for (DType to : kTypes) {
      ModelBuilder b(19);
      b.input("x", code(from), {37});
      b.output("y", code(to));
      ModelBuilder::set_int(b.node("Cast", {"x"}, {"y"}), "to", code(to));
      check(b, {{"x", random_of(from, {37}, seed++)}},
            std::string("Cast ") + dtype_name(from) + " -> " + dtype_name(to));
    }
  ModelBuilder like(19);  // CastLike: the target is the second input's type
  like.input("x", code(DType::kFloat32), {5, 3});
  like.input("t", code(DType::kInt8), {1});
  like.output("y", code(DType::kInt8));
  like.node("CastLike", {"x", "t"}, {"y"});
  check(like, {{"x", random_of(DType::kFloat32, {5, 3}, 99)}, {"t", random_of(DType::kInt8, {1}, 98)}}, "CastLike");
}

TEST(HI_GPU_TEST_SUITE, ComparisonsAndLogicMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::pair<Shape, Shape>> shapes = {{{13}, {13}}, {{3, 1, 5}, {4, 1}}, {{2, 7}, {}}};
  uint32_t seed = 100;
  for (const char* op : {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"})
    for (DType t : kTypes) {
      if (t == DType::kBool && std::string(op) != "Equal") continue;
      for (const auto& [sa, sb] : shapes) {
        ModelBuilder b(19);
        b.input("a", code(t), dims(sa));
        b.input("b", code(t), dims(sb));
        b.output("y", code(DType::kBool));
        b.node(op, {"a", "b"}, {"y"});
        Tensor a = random_of(t, sa, seed++);
        Tensor c = random_of(t, sb, seed++);
        if (c.numel() > 0 && a.numel() > 4) std::memcpy(a.raw(), c.raw(), dtype_size(t));  // one equal pair
        check(b, {{"a", a}, {"b", c}},
              std::string(op) + " " + dtype_name(t) + " " + shape_to_string(sa) + " " + shape_to_string(sb));
      }
    }
  for (const char* op : {"And", "Or", "Xor"})
    for (const auto& [sa, sb] : shapes) {
      ModelBuilder b(19);
      b.input("a", code(DType::kBool), dims(sa));
      b.input("b", code(DType::kBool), dims(sb));
      b.output("y", code(DType::kBool));
      b.node(op, {"a", "b"}, {"y"});
      check(b, {{"a", random_of(DType::kBool, sa, seed++)}, {"b", random_of(DType::kBool, sb, seed++)}}, op);
    }
}

TEST(HI_GPU_TEST_SUITE, NotIsNaNIsInfShapeAndSizeMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  {
    ModelBuilder b(19);
    b.input("x", code(DType::kBool), {3, 7});
    b.output("y", code(DType::kBool));
    b.node("Not", {"x"}, {"y"});
    check(b, {{"x", random_of(DType::kBool, {3, 7}, 1)}}, "Not");
  }
  for (DType t : {DType::kFloat32, DType::kFloat16}) {
    for (int pos = 0; pos < 2; ++pos)
      for (int neg = 0; neg < 2; ++neg) {
        ModelBuilder b(20);
        b.input("x", code(t), {29});
        b.output("nan", code(DType::kBool));
        b.output("inf", code(DType::kBool));
        b.node("IsNaN", {"x"}, {"nan"});
        auto& n = b.node("IsInf", {"x"}, {"inf"});
        ModelBuilder::set_int(n, "detect_positive", pos);
        ModelBuilder::set_int(n, "detect_negative", neg);
        check(b, {{"x", random_of(t, {29}, 2)}}, std::string("IsNaN/IsInf ") + dtype_name(t));
      }
  }
  // Shape's output is also data here (added to a value), so it runs on the GPU.
  for (const auto& [start, end] : std::vector<std::pair<int64_t, int64_t>>{{0, 99}, {1, -1}, {-2, 3}, {3, 1}}) {
    ModelBuilder b(19);
    b.input("x", code(DType::kFloat16), {2, 3, 5, 7});
    b.output("y", code(DType::kInt64));
    b.output("n", code(DType::kInt64));
    auto& s = b.node("Shape", {"x"}, {"s"});
    ModelBuilder::set_int(s, "start", start);
    ModelBuilder::set_int(s, "end", end);
    b.initializer_i64("one", {1}, {1});
    b.node("Add", {"s", "one"}, {"y"});
    b.node("Size", {"x"}, {"n"});
    check(b, {{"x", random_of(DType::kFloat16, {2, 3, 5, 7}, 3)}},
          "Shape start " + std::to_string(start) + " end " + std::to_string(end));
  }
}

TEST(HI_GPU_TEST_SUITE, IntegerArithmeticWrapsAsOnTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 200;
  for (const char* op : {"Add", "Sub", "Mul", "Max", "Min"})  // ONNX's Sum takes floats only
    for (DType t : {DType::kInt64, DType::kInt32}) {
      ModelBuilder b(13);
      b.input("a", code(t), {4, 1, 9});
      b.input("b", code(t), {3, 9});
      b.output("y", code(t));
      b.node(op, {"a", "b"}, {"y"});
      check(b, {{"a", random_of(t, {4, 1, 9}, seed++)}, {"b", random_of(t, {3, 9}, seed++)}},
            std::string(op) + " " + dtype_name(t));
    }
}

TEST(HI_GPU_TEST_SUITE, DataMovementOfIntegerAndBoolTensorsMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 300;
  for (DType t : {DType::kInt64, DType::kBool, DType::kUInt8, DType::kInt32}) {
    ModelBuilder b(13);
    b.input("x", code(t), {3, 5, 4});
    b.input("c", code(DType::kBool), {5, 1});
    for (const char* out : {"cat", "p", "w"}) b.output(out, code(t));
    b.initializer_i64("idx", {2}, {2, 0});
    b.initializer_i64("starts", {1}, {1});
    b.initializer_i64("ends", {1}, {4});
    b.initializer_i64("axes", {1}, {2});
    b.initializer_i64("pads", {6}, {0, 1, 0, 0, 2, 1});
    ModelBuilder::set_ints(b.node("Transpose", {"x"}, {"t"}), "perm", {2, 0, 1});  // [4, 3, 5]
    ModelBuilder::set_int(b.node("Gather", {"t", "idx"}, {"g"}), "axis", 0);       // [2, 3, 5]
    ModelBuilder::set_int(b.node("Concat", {"g", "g"}, {"cat"}), "axis", 1);       // [2, 6, 5]
    b.node("Slice", {"x", "starts", "ends", "axes"}, {"s"});                       // [3, 5, 3]
    b.node("Pad", {"s", "pads"}, {"p"});                                           // [3, 8, 4]
    b.input("x2", code(t), {4});
    b.node("Where", {"c", "x", "x2"}, {"w"});  // [3, 5, 4]
    check(b,
          {{"x", random_of(t, {3, 5, 4}, seed++)},
           {"c", random_of(DType::kBool, {5, 1}, seed++)},
           {"x2", random_of(t, {4}, seed++)}},
          std::string("data movement ") + dtype_name(t));
  }
}

// BERT's padding mask: int64 [batch, keys] -> Unsqueeze -> Cast -> (1 - m) * -10000 -> added to
// the scores, all of it on the GPU now.
TEST(HI_GPU_TEST_SUITE, AttentionMaskArithmeticRunsOnTheGpu) {
  SKIP_WITHOUT_GPU();
  ModelBuilder b(13);
  b.input("mask", code(DType::kInt64), {2, 7});
  b.input("scores", code(DType::kFloat32), {2, 3, 5, 7});
  b.output("y", code(DType::kFloat32));
  b.initializer_i64("axes", {2}, {1, 2});
  b.initializer_f32("one", {}, {1.f});
  b.initializer_f32("big", {}, {-10000.f});
  b.node("Unsqueeze", {"mask", "axes"}, {"m4"});
  ModelBuilder::set_int(b.node("Cast", {"m4"}, {"mf"}), "to", code(DType::kFloat32));
  b.node("Sub", {"one", "mf"}, {"inv"});
  b.node("Mul", {"inv", "big"}, {"bias"});
  b.node("Add", {"scores", "bias"}, {"y"});
  Tensor mask = Tensor::zeros(DType::kInt64, {2, 7});
  for (int64_t i = 0; i < mask.numel(); ++i) mask.data<int64_t>()[i] = (i % 7) < 5 - i / 7;
  check(b, {{"mask", mask}, {"scores", random_tensor(DType::kFloat32, {2, 3, 5, 7}, 7, false)}}, "attention mask");
}

// Element types the other tests leave out, so that every kernel instantiation runs at least once
// (the emulated GPU's coverage check, check_kernel_coverage.py, names any that none launches).
TEST(HI_GPU_TEST_SUITE, EveryElementTypeOfTheArgAndIndexKernelsMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 700;
  const Shape shape = {4, 6, 9};
  auto small_ints = [&](DType t, const Shape& s) {  // sums of them stay in range
    Tensor x = Tensor::empty(t, s);
    std::mt19937 rng(seed++);
    std::uniform_int_distribution<int> v(-50, 50);
    for (int64_t i = 0; i < x.numel(); ++i) {
      if (t == DType::kInt32) x.data<int32_t>()[i] = v(rng);
      else if (t == DType::kInt64) x.data<int64_t>()[i] = v(rng);
      else x.data<uint8_t>()[i] = static_cast<uint8_t>(v(rng) + 50);
    }
    return x;
  };
  auto values_of = [&](DType t, const Shape& s) {
    return t == DType::kFloat32 || t == DType::kFloat16 ? random_tensor(t, s, seed++, false) : small_ints(t, s);
  };
  for (const char* op : {"ArgMax", "ArgMin"})  // float16, with its ties, in ops_session_test.cc
    for (DType t : {DType::kFloat32, DType::kInt32, DType::kInt64}) {
      ModelBuilder b(13);
      b.input("x", code(t), dims(shape));
      b.output("y", onnx::TensorProto::INT64);
      ModelBuilder::set_int(b.node(op, {"x"}, {"y"}), "axis", 1);
      check(b, {{"x", values_of(t, shape)}}, std::string(op) + " " + dtype_name(t));
    }
  {
    ModelBuilder b(14);
    b.input("x", code(DType::kInt32), dims(shape));
    b.output("y", code(DType::kInt32));
    b.initializer_i64("axis", {}, {-1});
    b.node("CumSum", {"x", "axis"}, {"y"});
    check(b, {{"x", small_ints(DType::kInt32, shape)}}, "CumSum int32");
  }
  {
    ModelBuilder b(13);
    b.input("x", code(DType::kInt32), dims(shape));
    b.input("s", onnx::TensorProto::FLOAT, {});
    b.output("y", onnx::TensorProto::FLOAT);
    b.node("DequantizeLinear", {"x", "s"}, {"y"});
    Tensor scale = Tensor::empty(DType::kFloat32, {});
    scale.data<float>()[0] = 0.03125f;
    check(b, {{"x", small_ints(DType::kInt32, shape)}, {"s", scale}}, "DequantizeLinear int32");
  }
  // 1-, 2- and 8-byte elements of GatherElements, ScatterElements and Trilu; 1, 2 and 4 of ScatterND.
  const Shape idx = {4, 2, 9};
  Tensor gi = Tensor::empty(DType::kInt64, idx), si = Tensor::empty(DType::kInt64, idx);
  for (int64_t e = 0; e < gi.numel(); ++e) {
    gi.data<int64_t>()[e] = e * 5 % 12 - 6;             // [-6, 6) along axis 1
    si.data<int64_t>()[e] = (e / 9) % 2 == 0 ? 1 : -1;  // distinct targets: slots 1 and -1
  }
  for (DType t : {DType::kUInt8, DType::kFloat16, DType::kInt64}) {
    ModelBuilder b(18);
    b.input("x", code(t), dims(shape)).input("gi", onnx::TensorProto::INT64, dims(idx));
    b.input("si", onnx::TensorProto::INT64, dims(idx)).input("u", code(t), dims(idx));
    b.output("g", code(t)).output("s", code(t)).output("t", code(t));
    ModelBuilder::set_int(b.node("GatherElements", {"x", "gi"}, {"g"}), "axis", 1);
    ModelBuilder::set_int(b.node("ScatterElements", {"x", "si", "u"}, {"s"}), "axis", 1);
    b.initializer_i64("k", {}, {1});
    b.node("Trilu", {"x", "k"}, {"t"});
    check(b, {{"x", values_of(t, shape)}, {"gi", gi}, {"si", si}, {"u", values_of(t, idx)}},
          std::string("GatherElements / ScatterElements / Trilu ") + dtype_name(t));
  }
  for (DType t : {DType::kUInt8, DType::kFloat16, DType::kFloat32}) {
    Tensor i = Tensor::empty(DType::kInt64, {2, 1});
    i.data<int64_t>()[0] = 3;
    i.data<int64_t>()[1] = -4;  // rows 3 and 0
    ModelBuilder b(16);
    b.input("x", code(t), dims(shape)).input("i", onnx::TensorProto::INT64, {2, 1}).input("u", code(t), {2, 6, 9});
    b.output("y", code(t));
    b.node("ScatterND", {"x", "i", "u"}, {"y"});
    check(b, {{"x", values_of(t, shape)}, {"i", i}, {"u", values_of(t, {2, 6, 9})}},
          std::string("ScatterND ") + dtype_name(t));
  }
}

// ONNX's experimental ScaledTanh and Affine (opsets 1-9), which the kernel table claims too.
TEST(HI_GPU_TEST_SUITE, ScaledTanhAndAffineMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 800;
  for (const char* op : {"ScaledTanh", "Affine"})
    for (DType t : {DType::kFloat32, DType::kFloat16}) {
      ModelBuilder b(9);
      b.input("x", code(t), {3, 37});
      b.output("y", code(t));
      auto& n = b.node(op, {"x"}, {"y"});
      ModelBuilder::set_float(n, "alpha", 0.75f);
      ModelBuilder::set_float(n, "beta", 1.5f);
      check(b, {{"x", random_tensor(t, {3, 37}, seed++, false)}}, std::string(op) + " " + dtype_name(t));
    }
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
