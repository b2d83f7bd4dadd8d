// The GPU ops for Slice, Expand, Split, Tile, Pad, Cast, Where, Clip, BatchNormalization, the
// Reduce* family, Resize and the extra unary kinds, end to end: each case is a one-node model run
// by a session that may use only this GPU backend (so the node must be placed there: support
// check, attributes, inputs read on the host, launch, graph capture and replay), against the same
// model on the CPU. float32 at rtol 1e-4, float16 at 2 ulps (expect_close). Needs a GPU; skips
// without one.
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "gpu/gpu_skip.h"
#include "gpu/kernel_harness.h"
#include "gpu/session_check.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

const std::vector<DType>& float_types() {
  static const std::vector<DType> t = {DType::kFloat32, DType::kFloat16};
  return t;
}

// A float scalar of x's type as a graph input (float16 initializers are not in ModelBuilder).
Tensor scalar_of(DType dtype, float v) {
  Tensor t = Tensor::empty(dtype, {});
  if (dtype == DType::kFloat16) t.data<Float16>()[0] = Float16(v);
  else t.data<float>()[0] = v;
  return t;
}

TEST(HI_GPU_TEST_SUITE, SliceOnTheGpuMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  const int64_t kMin = std::numeric_limits<int64_t>::min(), kMax = std::numeric_limits<int64_t>::max();
  struct SliceCase {
    Shape shape;
    std::vector<int64_t> starts, ends, axes, steps;
  };
  const std::vector<SliceCase> cases = {{{11}, {-1}, {kMin}, {0}, {-1}},  // reversed
                                        {{5, 7}, {1, -5}, {kMax, -1}, {0, 1}, {2, 1}},
                                        {{4, 9, 5}, {3, 8}, {0, 0}, {0, -2}, {-2, -3}},  // negative steps on two axes
                                        {{3, 4}, {5}, {9}, {1}, {1}},                    // empty
                                        {{2, 3, 5, 7}, {1, 1, 1, 1}, {2, 3, 4, 6}, {}, {}},
                                        {{6, 5}, {-2}, {kMax}, {}, {kMax}}};  // one element, a huge step
  uint32_t seed = 1;
  for (DType dtype : float_types())
    for (const SliceCase& sc : cases) {
      ModelBuilder b(13);
      b.input("x", onnx_type(dtype), dims(sc.shape));
      b.output("y", onnx_type(dtype));
      const int64_t n = static_cast<int64_t>(sc.starts.size());
      b.initializer_i64("starts", {n}, sc.starts);
      b.initializer_i64("ends", {n}, sc.ends);
      std::vector<std::string> in = {"x", "starts", "ends"};
      if (!sc.axes.empty() || !sc.steps.empty()) {
        std::vector<int64_t> axes = sc.axes;
        for (int64_t i = 0; axes.empty() && i < n; ++i) axes.push_back(i);
        b.initializer_i64("axes", {n}, axes);
        in.push_back("axes");
      }
      if (!sc.steps.empty()) {
        b.initializer_i64("steps", {n}, sc.steps);
        in.push_back("steps");
      }
      b.node("Slice", in, {"y"});
      check(b, {{"x", random_tensor(dtype, sc.shape, seed++, false)}},
            std::string("Slice ") + dtype_name(dtype) + " " + shape_to_string(sc.shape));
    }
  // Opset 1: attributes.
  ModelBuilder b(9);
  b.input("x", onnx::TensorProto::FLOAT, {6, 7});
  b.output("y", onnx::TensorProto::FLOAT);
  auto& node = b.node("Slice", {"x"}, {"y"});
  ModelBuilder::set_ints(node, "starts", {1, -4});
  ModelBuilder::set_ints(node, "ends", {5, 1000});
  ModelBuilder::set_ints(node, "axes", {0, 1});
  check(b, {{"x", random_tensor(DType::kFloat32, {6, 7}, 99, false)}}, "Slice-9");
}

TEST(HI_GPU_TEST_SUITE, ExpandSplitAndTileOnTheGpuMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 20;
  const std::vector<std::pair<Shape, std::vector<int64_t>>> expand = {
      {{3, 1}, {2, 3, 5}}, {{1}, {7}}, {{2, 1, 3}, {1, 5, 1}}, {{5}, {3, 1, 5}}, {{1, 1}, {4, 0}}};
  for (DType dtype : float_types())
    for (const auto& [shape, to] : expand) {
      ModelBuilder b(13);
      b.input("x", onnx_type(dtype), dims(shape));
      b.output("y", onnx_type(dtype));
      b.initializer_i64("shape", {static_cast<int64_t>(to.size())}, to);
      b.node("Expand", {"x", "shape"}, {"y"});
      check(b, {{"x", random_tensor(dtype, shape, seed++, false)}},
            std::string("Expand ") + dtype_name(dtype) + " " + shape_to_string(shape));
    }
  for (DType dtype : float_types()) {
    // Sizes from the input (opset 13), equal parts, and opset 18's uneven num_outputs.
    {
      ModelBuilder b(13);
      b.input("x", onnx_type(dtype), {3, 11, 2});
      for (const char* o : {"y", "y1", "y2"}) b.output(o, onnx_type(dtype));
      b.initializer_i64("split", {3}, {4, 0, 7});
      ModelBuilder::set_int(b.node("Split", {"x", "split"}, {"y", "y1", "y2"}), "axis", -2);
      check(b, {{"x", random_tensor(dtype, {3, 11, 2}, seed++, false)}},
            std::string("Split sizes ") + dtype_name(dtype));
    }
    {
      ModelBuilder b(13);
      b.input("x", onnx_type(dtype), {6, 5});
      for (const char* o : {"y", "y1", "y2"}) b.output(o, onnx_type(dtype));
      b.node("Split", {"x"}, {"y", "y1", "y2"});
      check(b, {{"x", random_tensor(dtype, {6, 5}, seed++, false)}}, std::string("Split equal ") + dtype_name(dtype));
    }
    {
      ModelBuilder b(18);
      b.input("x", onnx_type(dtype), {2, 3, 7});
      for (const char* o : {"y", "y1", "y2"}) b.output(o, onnx_type(dtype));
      auto& n = b.node("Split", {"x"}, {"y", "y1", "y2"});
      ModelBuilder::set_int(n, "axis", 2);
      ModelBuilder::set_int(n, "num_outputs", 3);
      check(b, {{"x", random_tensor(dtype, {2, 3, 7}, seed++, false)}}, std::string("Split-18 ") + dtype_name(dtype));
    }
  }
  const std::vector<std::pair<Shape, std::vector<int64_t>>> tile = {
      {{3}, {5}},      {{2, 3}, {1, 3}}, {{1, 5}, {3, 1}}, {{2, 1, 3}, {2, 3, 2}}, {{3, 2, 1, 5}, {2, 3, 4, 1}},
      {{2, 2}, {0, 3}}};
  for (DType dtype : float_types())
    for (const auto& [shape, reps] : tile) {
      ModelBuilder b(13);
      b.input("x", onnx_type(dtype), dims(shape));
      b.output("y", onnx_type(dtype));
      b.initializer_i64("r", {static_cast<int64_t>(reps.size())}, reps);
      b.node("Tile", {"x", "r"}, {"y"});
      check(b, {{"x", random_tensor(dtype, shape, seed++, false)}},
            std::string("Tile ") + dtype_name(dtype) + " " + shape_to_string(shape));
    }
}

TEST(HI_GPU_TEST_SUITE, PadOnTheGpuMatchesTheCpuInEveryMode) {
  SKIP_WITHOUT_GPU();
  struct PadCase {
    Shape shape;
    std::vector<int64_t> pads, axes;
  };
  const std::vector<PadCase> cases = {
      {{5}, {2, 3}, {}},
      {{3, 5, 4}, {1, 0, 2, 2, 3, 1}, {}},
      {{6}, {9, 7}, {}},                      // wider than the axis: reflect and wrap go round
      {{4, 3}, {-1, 2, 1, -2}, {}},           // crops
      {{2, 3, 7, 5}, {1, 2, 3, 0}, {-1, 2}},  // opset 18's axes
  };
  uint32_t seed = 50;
  for (const char* mode : {"constant", "reflect", "edge", "wrap"})
    for (DType dtype : float_types())
      for (const PadCase& pc : cases) {
        ModelBuilder b(19);
        b.input("x", onnx_type(dtype), dims(pc.shape));
        b.input("value", onnx_type(dtype), {});
        b.output("y", onnx_type(dtype));
        b.initializer_i64("pads", {static_cast<int64_t>(pc.pads.size())}, pc.pads);
        std::vector<std::string> in = {"x", "pads", "value"};
        if (!pc.axes.empty()) {
          b.initializer_i64("axes", {static_cast<int64_t>(pc.axes.size())}, pc.axes);
          in.push_back("axes");
        }
        ModelBuilder::set_string(b.node("Pad", in, {"y"}), "mode", mode);
        check(b, {{"x", random_tensor(dtype, pc.shape, seed++, false)}, {"value", scalar_of(dtype, -1.5f)}},
              std::string("Pad ") + mode + " " + dtype_name(dtype) + " " + shape_to_string(pc.shape));
      }
  // Opset 2: pads and value as attributes.
  ModelBuilder b(2);
  b.input("x", onnx::TensorProto::FLOAT, {3, 4});
  b.output("y", onnx::TensorProto::FLOAT);
  auto& n = b.node("Pad", {"x"}, {"y"});
  ModelBuilder::set_ints(n, "pads", {1, 2, 0, 3});
  ModelBuilder::set_float(n, "value", 2.5f);
  check(b, {{"x", random_tensor(DType::kFloat32, {3, 4}, 77, false)}}, "Pad-2");
}

TEST(HI_GPU_TEST_SUITE, CastWhereClipAndBatchNormOnTheGpuMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 100;
  for (DType from : float_types())
    for (DType to : float_types()) {
      ModelBuilder b(19);
      b.input("x", onnx_type(from), {3, 257});
      b.output("y", onnx_type(to));
      ModelBuilder::set_int(b.node("Cast", {"x"}, {"y"}), "to", onnx_type(to));
      check(b, {{"x", random_tensor(from, {3, 257}, seed++, false)}},
            std::string("Cast ") + dtype_name(from) + " to " + dtype_name(to));
    }
  struct WhereCase {
    Shape c, x, y;
  };
  const std::vector<WhereCase> where = {{{4, 1, 3}, {1, 5, 1}, {3}}, {{257}, {257}, {257}}, {{2, 1}, {}, {2, 7}}};
  for (DType dtype : float_types())
    for (const WhereCase& wc : where) {
      ModelBuilder b(17);
      b.input("c", onnx::TensorProto::BOOL, dims(wc.c));
      b.input("x", onnx_type(dtype), dims(wc.x));
      b.input("e", onnx_type(dtype), dims(wc.y));
      b.output("y", onnx_type(dtype));
      b.node("Where", {"c", "x", "e"}, {"y"});
      Tensor c = Tensor::empty(DType::kBool, wc.c);
      std::mt19937 rng(seed++);
      for (int64_t i = 0; i < c.numel(); ++i) c.data<bool>()[i] = (rng() & 1) != 0;
      check(b,
            {{"c", c},
             {"x", random_tensor(dtype, wc.x, seed++, false)},
             {"e", random_tensor(dtype, wc.y, seed++, false)}},
            std::string("Where ") + dtype_name(dtype) + " " + shape_to_string(wc.c));
    }
  for (DType dtype : float_types()) {
    // Both bounds, only max (min absent), and min above max (every element becomes max).
    const std::vector<std::pair<float, float>> bounds = {{-0.5f, 1.25f}, {std::nanf(""), 0.3f}, {2.f, -1.f}};
    for (const auto& [lo, hi] : bounds) {
      ModelBuilder b(13);
      b.input("x", onnx_type(dtype), {1001});
      b.output("y", onnx_type(dtype));
      TensorMap feeds{{"x", random_tensor(dtype, {1001}, seed++, false)}};
      std::vector<std::string> in = {"x", std::isnan(lo) ? "" : "lo", "hi"};
      if (!std::isnan(lo)) {
        b.input("lo", onnx_type(dtype), {});
        feeds["lo"] = scalar_of(dtype, lo);
      }
      b.input("hi", onnx_type(dtype), {});
      feeds["hi"] = scalar_of(dtype, hi);
      b.node("Clip", in, {"y"});
      check(b, feeds, std::string("Clip ") + dtype_name(dtype));
    }
  }
  ModelBuilder clip6(6);
  clip6.input("x", onnx::TensorProto::FLOAT, {33});
  clip6.output("y", onnx::TensorProto::FLOAT);
  ModelBuilder::set_float(clip6.node("Clip", {"x"}, {"y"}), "max", 0.7f);
  check(clip6, {{"x", random_tensor(DType::kFloat32, {33}, 7, false)}}, "Clip-6");
  for (DType dtype : float_types())
    for (const Shape& shape : {Shape{2, 3, 5, 7}, Shape{4, 5}, Shape{9}}) {
      const int64_t c = shape.size() >= 2 ? shape[1] : 1;
      ModelBuilder b(15);
      b.input("x", onnx_type(dtype), dims(shape));
      for (const char* p : {"s", "b", "m", "v"}) b.input(p, onnx_type(dtype), {c});
      b.output("y", onnx_type(dtype));
      ModelBuilder::set_float(b.node("BatchNormalization", {"x", "s", "b", "m", "v"}, {"y"}), "epsilon", 1e-3f);
      check(b,
            {{"x", random_tensor(dtype, shape, seed++, false)},
             {"s", random_tensor(dtype, {c}, seed++, false)},
             {"b", random_tensor(dtype, {c}, seed++, false)},
             {"m", random_tensor(dtype, {c}, seed++, false)},
             {"v", random_tensor(dtype, {c}, seed++, true)}},
            std::string("BatchNormalization ") + dtype_name(dtype) + " " + shape_to_string(shape));
    }
}

TEST(HI_GPU_TEST_SUITE, ReductionsOverAnyAxesOnTheGpuMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const std::vector<const char*> ops = {"ReduceSum",    "ReduceMean",      "ReduceMax", "ReduceMin",
                                        "ReduceProd",   "ReduceSumSquare", "ReduceL1",  "ReduceL2",
                                        "ReduceLogSum", "ReduceLogSumExp"};
  // Contiguous runs and separated axes; a separated reduction long enough for the block kernel.
  const std::vector<std::pair<Shape, std::vector<int64_t>>> cases = {{{3, 5, 7}, {1}},           {{3, 5, 7}, {0, 2}},
                                                                     {{2, 1, 9, 5, 3}, {-1, 2}}, {{4, 3, 6}, {}},
                                                                     {{3, 33, 2, 17}, {1, 3}},   {{5, 6}, {0, 1}}};
  uint32_t seed = 200;
  for (const char* op : ops)
    for (DType dtype : float_types())
      for (const auto& [shape, axes] : cases)
        for (int64_t keepdims : {0, 1}) {
          ModelBuilder b(18);
          b.input("x", onnx_type(dtype), dims(shape));
          b.output("y", onnx_type(dtype));
          b.initializer_i64("axes", {static_cast<int64_t>(axes.size())}, axes);
          ModelBuilder::set_int(b.node(op, {"x", "axes"}, {"y"}), "keepdims", keepdims);
          const std::string name = op;
          Tensor x = random_tensor(dtype, shape, seed++, name == "ReduceLogSum");
          if (name == "ReduceProd")  // factors near 1: products stay finite on both sides
            for (int64_t i = 0; i < x.numel(); ++i) {
              const float v = 1.f + 0.01f * static_cast<float>(x.as_double(i));
              if (dtype == DType::kFloat16) x.data<Float16>()[i] = Float16(v);
              else x.data<float>()[i] = v;
            }
          check(b, {{"x", x}},
                name + " " + dtype_name(dtype) + " " + shape_to_string(shape) + " axes " + shape_to_string(axes) +
                    " keepdims " + std::to_string(keepdims),
                1e-6 * static_cast<double>(shape_numel(shape)));
        }
  // noop_with_empty_axes: each element alone (ReduceSumSquare squares it).
  ModelBuilder b(18);
  b.input("x", onnx::TensorProto::FLOAT, {4, 5});
  b.output("y", onnx::TensorProto::FLOAT);
  ModelBuilder::set_int(b.node("ReduceSumSquare", {"x"}, {"y"}), "noop_with_empty_axes", 1);
  check(b, {{"x", random_tensor(DType::kFloat32, {4, 5}, 9, false)}}, "ReduceSumSquare noop");
  // Opset 13: axes as an attribute.
  ModelBuilder a(13);
  a.input("x", onnx::TensorProto::FLOAT, {3, 4, 5});
  a.output("y", onnx::TensorProto::FLOAT);
  ModelBuilder::set_ints(a.node("ReduceMean", {"x"}, {"y"}), "axes", {0, -1});
  check(a, {{"x", random_tensor(DType::kFloat32, {3, 4, 5}, 10, false)}}, "ReduceMean-13");
}

TEST(HI_GPU_TEST_SUITE, ResizeOnTheGpuMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  struct Mode {
    const char* mode;
    const char* coord;
    const char* nearest;
  };
  const std::vector<Mode> modes = {
      {"nearest", "half_pixel", "round_prefer_floor"},   {"nearest", "asymmetric", "floor"},
      {"nearest", "align_corners", "round_prefer_ceil"}, {"nearest", "pytorch_half_pixel", "ceil"},
      {"linear", "half_pixel", "round_prefer_floor"},    {"linear", "asymmetric", "round_prefer_floor"},
      {"linear", "align_corners", "round_prefer_floor"}, {"linear", "pytorch_half_pixel", "round_prefer_floor"}};
  const std::vector<std::vector<float>> scales = {{1, 1, 2, 2}, {1, 1, 0.5f, 0.6f}, {1, 1, 1.7f, 0.45f}};
  const Shape shape = {2, 3, 9, 13};
  uint32_t seed = 300;
  for (const Mode& m : modes)
    for (DType dtype : float_types()) {
      for (const auto& s : scales) {
        ModelBuilder b(13);
        b.input("x", onnx_type(dtype), dims(shape));
        b.output("y", onnx_type(dtype));
        b.initializer_f32("scales", {4}, s);
        auto& n = b.node("Resize", {"x", "", "scales"}, {"y"});
        ModelBuilder::set_string(n, "mode", m.mode);
        ModelBuilder::set_string(n, "coordinate_transformation_mode", m.coord);
        ModelBuilder::set_string(n, "nearest_mode", m.nearest);
        check(b, {{"x", random_tensor(dtype, shape, seed++, false)}},
              std::string("Resize ") + m.mode + " " + m.coord + " " + dtype_name(dtype) + " scales " +
                  std::to_string(s[2]) + "x" + std::to_string(s[3]));
      }
      // sizes instead of scales.
      ModelBuilder b(13);
      b.input("x", onnx_type(dtype), dims(shape));
      b.output("y", onnx_type(dtype));
      b.initializer_i64("sizes", {4}, {2, 3, 20, 6});
      auto& n = b.node("Resize", {"x", "", "", "sizes"}, {"y"});
      ModelBuilder::set_string(n, "mode", m.mode);
      ModelBuilder::set_string(n, "coordinate_transformation_mode", m.coord);
      ModelBuilder::set_string(n, "nearest_mode", m.nearest);
      check(b, {{"x", random_tensor(dtype, shape, seed++, false)}},
            std::string("Resize sizes ") + m.mode + " " + m.coord + " " + dtype_name(dtype));
    }
  // Opset 18: axes and keep_aspect_ratio_policy.
  ModelBuilder b(18);
  b.input("x", onnx::TensorProto::FLOAT, dims(shape));
  b.output("y", onnx::TensorProto::FLOAT);
  b.initializer_i64("sizes", {2}, {20, 20});
  auto& n = b.node("Resize", {"x", "", "", "sizes"}, {"y"});
  ModelBuilder::set_ints(n, "axes", {2, 3});
  ModelBuilder::set_string(n, "mode", "linear");
  ModelBuilder::set_string(n, "keep_aspect_ratio_policy", "not_larger");
  check(b, {{"x", random_tensor(DType::kFloat32, shape, 5, false)}}, "Resize-18 not_larger");
}

TEST(HI_GPU_TEST_SUITE, MoreUnaryKindsOnTheGpuMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 400;
  for (const char* op : {"Sin", "Cos", "Floor", "Ceil", "Round", "Sign", "Gelu"})
    for (DType dtype : float_types()) {
      ModelBuilder b(20);
      b.input("x", onnx_type(dtype), {1001});
      b.output("y", onnx_type(dtype));
      auto& n = b.node(op, {"x"}, {"y"});
      if (std::string(op) == "Gelu") ModelBuilder::set_string(n, "approximate", "tanh");
      Tensor x = random_tensor(dtype, {1001}, seed++, false);
      // Halves and whole numbers, where Round, Floor and Ceil differ most.
      for (int64_t i = 0; i < 16; ++i) {
        const float v = static_cast<float>(i - 8) * 0.5f;
        if (dtype == DType::kFloat16) x.data<Float16>()[i] = Float16(v);
        else x.data<float>()[i] = v;
      }
      check(b, {{"x", x}}, std::string(op) + " " + dtype_name(dtype));
    }
}

// The unary kinds added with the integer ops, on inputs inside each function's domain.
TEST(HI_GPU_TEST_SUITE, TrigonometryAndActivationKindsOnTheGpuMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  struct Case {
    const char* op;
    float lo, hi;  // input range
  };
  const Case cases[] = {{"Tan", -1.4f, 1.4f},
                        {"Asin", -1.f, 1.f},
                        {"Acos", -1.f, 1.f},
                        {"Atan", -9.f, 9.f},
                        {"Sinh", -5.f, 5.f},
                        {"Cosh", -5.f, 5.f},
                        {"Asinh", -9.f, 9.f},
                        {"Acosh", 1.f, 9.f},
                        {"Atanh", -0.99f, 0.99f},
                        {"Softsign", -9.f, 9.f},
                        {"Celu", -5.f, 5.f},
                        {"Mish", -9.f, 9.f},
                        {"ThresholdedRelu", -3.f, 3.f},
                        {"Shrink", -3.f, 3.f},
                        {"Swish", -9.f, 9.f}};
  uint32_t seed = 500;
  for (const Case& c : cases)
    for (DType dtype : float_types()) {
      ModelBuilder b(24);
      b.input("x", onnx_type(dtype), {777});
      b.output("y", onnx_type(dtype));
      auto& n = b.node(c.op, {"x"}, {"y"});
      if (std::string(c.op) == "Celu" || std::string(c.op) == "ThresholdedRelu" || std::string(c.op) == "Swish")
        ModelBuilder::set_float(n, "alpha", 0.7f);
      if (std::string(c.op) == "Shrink") {
        ModelBuilder::set_float(n, "lambd", 0.8f);
        ModelBuilder::set_float(n, "bias", 0.3f);
      }
      Tensor x = Tensor::empty(dtype, {777});
      std::mt19937 rng(seed++);
      std::uniform_real_distribution<float> u(c.lo, c.hi);
      for (int64_t i = 0; i < x.numel(); ++i) {
        const float v = i == 0 ? c.lo : i == 1 ? c.hi : u(rng);
        if (dtype == DType::kFloat16) x.data<Float16>()[i] = Float16(v);
        else x.data<float>()[i] = v;
      }
      check(b, {{"x", x}}, std::string(c.op) + " " + dtype_name(dtype), 1e-5);
    }
}

// Sum, Mean, Max and Min of one to four inputs that broadcast to the output only together; PRelu
// with a per-channel slope; GlobalMaxPool; Dropout at inference.
TEST(HI_GPU_TEST_SUITE, VariadicOpsPReluGlobalMaxPoolAndDropoutOnTheGpuMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::vector<Shape>> arities = {
      {{3, 5}}, {{3, 1}, {5}}, {{2, 1, 5}, {3, 1}, {1, 5}}, {{4}, {3, 4}, {2, 1, 1}, {1}}};
  uint32_t seed = 600;
  for (const char* op : {"Sum", "Mean", "Max", "Min"})
    for (DType dtype : float_types())
      for (const auto& shapes : arities) {
        ModelBuilder b(13);
        std::vector<std::string> in;
        TensorMap feeds;
        for (size_t i = 0; i < shapes.size(); ++i) {
          in.push_back(str("x", i));
          b.input(in.back(), onnx_type(dtype), dims(shapes[i]));
          feeds[in.back()] = random_tensor(dtype, shapes[i], seed++, false);
        }
        b.output("y", onnx_type(dtype));
        b.node(op, in, {"y"});
        check(b, feeds, str(op, " of ", shapes.size(), " ", dtype_name(dtype)));
      }
  for (DType dtype : float_types()) {
    ModelBuilder b(16);
    b.input("x", onnx_type(dtype), {2, 3, 5, 7});
    b.input("slope", onnx_type(dtype), {3, 1, 1});
    b.output("y", onnx_type(dtype));
    b.output("g", onnx_type(dtype));
    b.output("d", onnx_type(dtype));
    b.node("PRelu", {"x", "slope"}, {"y"});
    b.node("GlobalMaxPool", {"x"}, {"g"});
    b.node("Dropout", {"x"}, {"d"});
    check(b,
          {{"x", random_tensor(dtype, {2, 3, 5, 7}, seed++, false)},
           {"slope", random_tensor(dtype, {3, 1, 1}, seed++, false)}},
          std::string("PRelu, GlobalMaxPool, Dropout ") + dtype_name(dtype));
  }
}

// Softmax, LogSoftmax and Hardmax along every axis, under opset 11 (the input as a matrix split at
// the axis) and 13 (one dim); ties and a leading NaN for Hardmax.
TEST(HI_GPU_TEST_SUITE, SoftmaxFamilyAlongAnyAxisMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  const Shape shape = {3, 5, 33, 2};
  uint32_t seed = 800;
  for (int64_t opset : {11, 13})
    for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"})
      for (int64_t axis = -4; axis < 4; ++axis)
        for (DType dtype : float_types()) {
          ModelBuilder b(opset);
          b.input("x", onnx_type(dtype), dims(shape));
          b.output("y", onnx_type(dtype));
          ModelBuilder::set_int(b.node(op, {"x"}, {"y"}), "axis", axis);
          Tensor x = random_tensor(dtype, shape, seed++, false);
          if (std::string(op) == "Hardmax") {  // ties with element 0 along every axis, then a NaN first
            const size_t es = dtype_size(dtype);
            for (int64_t i = 1; i < 80; i += 3) std::memcpy(static_cast<char*>(x.raw()) + i * es, x.raw(), es);
            if (dtype == DType::kFloat32) x.data<float>()[0] = NAN;
          }
          check(b, {{"x", x}}, str(op, "-", opset, " axis ", axis, " ", dtype_name(dtype)), 1e-6);
        }
}

// LayerNormalization and RMSNormalization over one, two and all dims.
TEST(HI_GPU_TEST_SUITE, NormalisationsOverTrailingDimsMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Shape shape = {2, 3, 7, 37};
  uint32_t seed = 900;
  for (const char* op : {"LayerNormalization", "RMSNormalization"})
    for (int64_t axis : {-1, 2, 1, 0})
      for (DType dtype : float_types()) {
        Shape norm(shape.begin() + (axis < 0 ? axis + 4 : axis), shape.end());
        ModelBuilder b(23);
        b.input("x", onnx_type(dtype), dims(shape));
        b.input("scale", onnx_type(dtype), dims(norm));
        b.input("bias", onnx_type(dtype), dims(norm));
        b.output("y", onnx_type(dtype));
        std::vector<std::string> in = {"x", "scale"}, out = {"y"};
        if (std::string(op) == "LayerNormalization") {
          in.push_back("bias");
          out = {"y", "mean", "inv_std"};
          b.output("mean", onnx::TensorProto::FLOAT).output("inv_std", onnx::TensorProto::FLOAT);
        }
        auto& n = b.node(op, in, out);
        ModelBuilder::set_int(n, "axis", axis);
        ModelBuilder::set_float(n, "epsilon", 1e-3f);
        check(b,
              {{"x", random_tensor(dtype, shape, seed++, false)},
               {"scale", random_tensor(dtype, norm, seed++, false)},
               {"bias", random_tensor(dtype, norm, seed++, false)}},
              str(op, " axis ", axis, " ", dtype_name(dtype)), 1e-5);
      }
}

// ArgMax / ArgMin on every axis, keepdims on and off, first and last of ties; Trilu both ways
// with k from -3 to 5 on a batch of non-square matrices.
TEST(HI_GPU_TEST_SUITE, ArgReductionsAndTriluMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Shape shape = {4, 6, 9};
  uint32_t seed = 1000;
  for (const char* op : {"ArgMax", "ArgMin"})
    for (int64_t axis = -3; axis < 3; ++axis)
      for (int64_t keep = 0; keep < 2; ++keep)
        for (int64_t last = 0; last < 2; ++last) {
          ModelBuilder b(13);
          b.input("x", onnx_type(DType::kFloat16), dims(shape));  // float16: many ties
          b.output("y", onnx::TensorProto::INT64);
          auto& n = b.node(op, {"x"}, {"y"});
          ModelBuilder::set_int(n, "axis", axis);
          ModelBuilder::set_int(n, "keepdims", keep);
          ModelBuilder::set_int(n, "select_last_index", last);
          Tensor x = random_tensor(DType::kFloat16, shape, seed++, false);
          for (int64_t i = 0; i < x.numel(); ++i)
            x.data<Float16>()[i] = Float16(std::round(static_cast<float>(x.data<Float16>()[i])));
          check(b, {{"x", x}}, str(op, " axis ", axis, " keepdims ", keep, " last ", last));
        }
  for (int64_t upper = 0; upper < 2; ++upper)
    for (int64_t k = -3; k <= 5; ++k) {
      ModelBuilder b(14);
      b.input("x", onnx_type(DType::kFloat32), {2, 3, 5, 7});
      b.output("y", onnx_type(DType::kFloat32));
      b.initializer_i64("k", {}, {k});
      ModelBuilder::set_int(b.node("Trilu", {"x", "k"}, {"y"}), "upper", upper);
      check(b, {{"x", random_tensor(DType::kFloat32, {2, 3, 5, 7}, seed++, false)}},
            str("Trilu upper ", upper, " k ", k));
    }
}

// Windows with auto_pad (SAME_UPPER, SAME_LOWER, VALID) for Conv and both poolings, odd sizes and
// strides that leave the pads asymmetric; 1-D pooling with explicit pads and ceil_mode.
TEST(HI_GPU_TEST_SUITE, AutoPadAndOneDimensionalPoolingMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  uint32_t seed = 1100;
  for (const char* pad : {"SAME_UPPER", "SAME_LOWER", "VALID"})
    for (int64_t stride : {1, 2, 3}) {
      ModelBuilder b(19);
      b.input("x", onnx_type(DType::kFloat32), {2, 3, 11, 8});
      b.input("w", onnx_type(DType::kFloat32), {4, 3, 3, 2});
      for (const char* out : {"c", "m", "a"}) b.output(out, onnx_type(DType::kFloat32));
      auto& conv = b.node("Conv", {"x", "w"}, {"c"});
      ModelBuilder::set_string(conv, "auto_pad", pad);
      ModelBuilder::set_ints(conv, "strides", {stride, stride});
      for (const char* op : {"MaxPool", "AveragePool"}) {
        auto& pool = b.node(op, {"x"}, {op == std::string("MaxPool") ? "m" : "a"});
        ModelBuilder::set_string(pool, "auto_pad", pad);
        ModelBuilder::set_ints(pool, "kernel_shape", {3, 2});
        ModelBuilder::set_ints(pool, "strides", {stride, stride});
      }
      check(b,
            {{"x", random_tensor(DType::kFloat32, {2, 3, 11, 8}, seed++, false)},
             {"w", random_tensor(DType::kFloat32, {4, 3, 3, 2}, seed++, false)}},
            str("auto_pad ", pad, " stride ", stride), 1e-5);
    }
  for (DType dtype : float_types())
    for (int64_t ceil = 0; ceil < 2; ++ceil) {
      ModelBuilder b(19);
      b.input("x", onnx_type(dtype), {2, 5, 17});
      b.output("m", onnx_type(dtype)).output("a", onnx_type(dtype));
      for (const char* op : {"MaxPool", "AveragePool"}) {
        auto& pool = b.node(op, {"x"}, {op == std::string("MaxPool") ? "m" : "a"});
        ModelBuilder::set_ints(pool, "kernel_shape", {4});
        ModelBuilder::set_ints(pool, "strides", {3});
        ModelBuilder::set_ints(pool, "pads", {1, 2});
        ModelBuilder::set_int(pool, "ceil_mode", ceil);
        if (op == std::string("AveragePool")) ModelBuilder::set_int(pool, "count_include_pad", 1 - ceil);
      }
      check(b, {{"x", random_tensor(dtype, {2, 5, 17}, seed++, false)}},
            str("1-D pooling ", dtype_name(dtype), " ceil ", ceil));
    }
  for (DType dtype : float_types()) {
    ModelBuilder b(13);
    b.input("a", onnx_type(dtype), {3, 1, 7});
    b.input("b", onnx_type(dtype), {5, 7});
    b.output("y", onnx_type(dtype));
    ModelBuilder::set_int(b.node("Mod", {"a", "b"}, {"y"}), "fmod", 1);
    check(b, {{"a", random_tensor(dtype, {3, 1, 7}, seed++, false)}, {"b", random_tensor(dtype, {5, 7}, seed++, true)}},
          str("Mod fmod=1 ", dtype_name(dtype)));
  }
}

// CumSum / CumProd along every axis with exclusive and reverse (float32, int64 that wraps), and
// DepthToSpace (both modes) / SpaceToDepth round trips on odd sizes.
TEST(HI_GPU_TEST_SUITE, CumulativeAndBlockShufflesMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Shape shape = {3, 37, 5};
  uint32_t seed = 1300;
  for (const char* op : {"CumSum", "CumProd"})
    for (DType dtype : {DType::kFloat32, DType::kFloat16, DType::kInt64})
      for (int64_t axis = -3; axis < 3; ++axis)
        for (int64_t flags = 0; flags < 4; ++flags) {
          ModelBuilder b(std::string(op) == "CumProd" ? 26 : 14);  // CumProd is new in opset 26
          b.input("x", dtype == DType::kInt64 ? onnx::TensorProto::INT64 : onnx_type(dtype), dims(shape));
          b.output("y", dtype == DType::kInt64 ? onnx::TensorProto::INT64 : onnx_type(dtype));
          b.initializer_i64("axis", {}, {axis});
          auto& n = b.node(op, {"x", "axis"}, {"y"});
          ModelBuilder::set_int(n, "exclusive", flags & 1);
          ModelBuilder::set_int(n, "reverse", flags >> 1);
          Tensor x = random_tensor(dtype == DType::kInt64 ? DType::kFloat32 : dtype, shape, seed++, false);
          if (dtype == DType::kInt64) {
            Tensor xi = Tensor::empty(DType::kInt64, shape);
            for (int64_t i = 0; i < x.numel(); ++i)
              xi.data<int64_t>()[i] = static_cast<int64_t>(x.data<float>()[i] * 1e6f);
            x = xi;
          } else if (std::string(op) == "CumProd") {  // factors near 1, so 37 of them stay in range
            for (int64_t i = 0; i < x.numel(); ++i) {
              const float v = 1.f + 0.05f * static_cast<float>(x.as_double(i));
              if (dtype == DType::kFloat16) x.data<Float16>()[i] = Float16(v);
              else x.data<float>()[i] = v;
            }
          }
          check(b, {{"x", x}}, str(op, " ", dtype_name(dtype), " axis ", axis, " flags ", flags), 1e-5);
        }
  for (const char* mode : {"DCR", "CRD"}) {
    ModelBuilder b(13);
    b.input("x", onnx_type(DType::kFloat32), {2, 18, 5, 7});
    b.output("y", onnx_type(DType::kFloat32)).output("back", onnx_type(DType::kFloat32));
    auto& d2s = b.node("DepthToSpace", {"x"}, {"y"});
    ModelBuilder::set_int(d2s, "blocksize", 3);
    ModelBuilder::set_string(d2s, "mode", mode);
    ModelBuilder::set_int(b.node("SpaceToDepth", {"y"}, {"back"}), "blocksize", 3);
    check(b, {{"x", random_tensor(DType::kFloat32, {2, 18, 5, 7}, seed++, false)}}, str("DepthToSpace ", mode));
  }
}

// GatherElements on every axis with negative indices; ScatterElements and ScatterND with distinct
// indices (duplicates are undefined), a KV-cache-style ScatterND that writes whole rows.
TEST(HI_GPU_TEST_SUITE, GatherElementsAndScattersMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Shape data = {4, 6, 5};
  uint32_t seed = 1400;
  for (int64_t axis = -3; axis < 3; ++axis) {
    const int64_t a = axis < 0 ? axis + 3 : axis;
    Shape idx = {3, 4, 5};
    idx[static_cast<size_t>(a)] = 2;
    Tensor gi = Tensor::empty(DType::kInt64, idx), si = Tensor::empty(DType::kInt64, idx);
    for (int64_t e = 0; e < gi.numel(); ++e) {
      const int64_t dim = data[static_cast<size_t>(a)];
      gi.data<int64_t>()[e] = (e * 7 % (2 * dim)) - dim;  // [-dim, dim)
    }
    // Distinct targets per position: along the axis, the two updates go to slots 1 and -1.
    int64_t inner = 1;
    for (size_t d = static_cast<size_t>(a) + 1; d < idx.size(); ++d) inner *= idx[d];
    for (int64_t e = 0; e < si.numel(); ++e) si.data<int64_t>()[e] = (e / inner) % 2 == 0 ? 1 : -1;
    ModelBuilder b(18);
    b.input("x", onnx_type(DType::kFloat32), dims(data));
    b.input("gi", onnx::TensorProto::INT64, dims(idx));
    b.input("si", onnx::TensorProto::INT64, dims(idx));
    b.input("u", onnx_type(DType::kFloat32), dims(idx));
    b.output("g", onnx_type(DType::kFloat32)).output("s", onnx_type(DType::kFloat32));
    ModelBuilder::set_int(b.node("GatherElements", {"x", "gi"}, {"g"}), "axis", axis);
    ModelBuilder::set_int(b.node("ScatterElements", {"x", "si", "u"}, {"s"}), "axis", axis);
    check(b,
          {{"x", random_tensor(DType::kFloat32, data, seed++, false)},
           {"gi", gi},
           {"si", si},
           {"u", random_tensor(DType::kFloat32, idx, seed++, false)}},
          str("GatherElements / ScatterElements axis ", axis));
  }
  for (const Shape& ishape : std::vector<Shape>{{2, 1}, {3, 2}, {2, 3}}) {  // k = 1, 2, 3
    const int64_t k = ishape.back();
    Tensor idx = Tensor::empty(DType::kInt64, ishape);
    for (int64_t t = 0; t < ishape[0]; ++t)
      for (int64_t j = 0; j < k; ++j) idx.data<int64_t>()[t * k + j] = t == 1 ? -1 - j % 2 : t + j % 2;
    Shape upd = {ishape[0]};
    for (size_t d = static_cast<size_t>(k); d < data.size(); ++d) upd.push_back(data[d]);
    ModelBuilder b(16);
    b.input("x", onnx::TensorProto::INT64, dims(data));
    b.input("i", onnx::TensorProto::INT64, dims(ishape));
    b.input("u", onnx::TensorProto::INT64, dims(upd));
    b.output("y", onnx::TensorProto::INT64);
    b.node("ScatterND", {"x", "i", "u"}, {"y"});
    Tensor x = Tensor::zeros(DType::kInt64, data), u = Tensor::empty(DType::kInt64, upd);
    for (int64_t e = 0; e < u.numel(); ++e) u.data<int64_t>()[e] = 1000 + e;
    check(b, {{"x", x}, {"i", idx}, {"u", u}}, str("ScatterND k=", k));
  }
}

// MatMul with rank-1 operands (numpy's promotion) on either side, and with a batch of ones.
TEST(HI_GPU_TEST_SUITE, MatMulOfVectorsAndBroadcastBatchesMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  const std::vector<std::pair<Shape, Shape>> cases = {{{37}, {37}},       {{37}, {37, 5}},
                                                      {{6, 37}, {37}},    {{37}, {2, 37, 5}},
                                                      {{2, 3, 37}, {37}}, {{2, 3, 4, 37}, {1, 1, 37, 5}}};
  uint32_t seed = 1500;
  for (const auto& [sa, sb] : cases) {
    ModelBuilder b(13);
    b.input("a", onnx_type(DType::kFloat32), dims(sa));
    b.input("b", onnx_type(DType::kFloat32), dims(sb));
    b.output("y", onnx_type(DType::kFloat32));
    b.node("MatMul", {"a", "b"}, {"y"});
    check(b,
          {{"a", random_tensor(DType::kFloat32, sa, seed++, false)},
           {"b", random_tensor(DType::kFloat32, sb, seed++, false)}},
          str("MatMul ", shape_to_string(sa), " x ", shape_to_string(sb)), 1e-5);
  }
}

// QuantizeLinear -> DequantizeLinear, per tensor and per axis, int8 and uint8, with values at the
// rounding ties, beyond the range, NaN and infinities.
TEST(HI_GPU_TEST_SUITE, QuantizeAndDequantizeMatchTheCpu) {
  SKIP_WITHOUT_GPU();
  const Shape shape = {2, 3, 7};
  uint32_t seed = 1600;
  for (int32_t q : {onnx::TensorProto::INT8, onnx::TensorProto::UINT8})
    for (int64_t axis : {-1, 0, 1, 2})  // -1: per tensor
      for (DType dtype : float_types()) {
        const Shape sshape = axis < 0 ? Shape{} : Shape{shape[static_cast<size_t>(axis)]};
        ModelBuilder b(23);  // a float32 scale with float16 x: opsets 19-22 want one type for both
        b.input("x", onnx_type(dtype), dims(shape));
        b.input("s", onnx::TensorProto::FLOAT, dims(sshape));
        b.input("z", q, dims(sshape));
        b.output("y", q).output("back", onnx::TensorProto::FLOAT);
        auto& qn = b.node("QuantizeLinear", {"x", "s", "z"}, {"y"});
        auto& dn = b.node("DequantizeLinear", {"y", "s", "z"}, {"back"});
        if (axis >= 0) {
          ModelBuilder::set_int(qn, "axis", axis);
          ModelBuilder::set_int(dn, "axis", axis);
        }
        Tensor x = random_tensor(dtype, shape, seed++, false);
        Tensor s = Tensor::empty(DType::kFloat32, sshape), z = Tensor::empty(static_cast<DType>(q), sshape);
        for (int64_t i = 0; i < s.numel(); ++i) {
          s.data<float>()[i] = 0.01f * static_cast<float>(i + 1);
          if (q == onnx::TensorProto::INT8) z.data<int8_t>()[i] = static_cast<int8_t>(i - 1);
          else z.data<uint8_t>()[i] = static_cast<uint8_t>(120 + i);
        }
        const float specials[] = {0.005f, 0.015f, -0.025f, 100.f, -100.f, NAN, INFINITY, -INFINITY};  // ties, range
        for (size_t i = 0; i < std::size(specials); ++i) {
          if (dtype == DType::kFloat16) x.data<Float16>()[i] = Float16(specials[i]);
          else x.data<float>()[i] = specials[i];
        }
        check(b, {{"x", x}, {"s", s}, {"z", z}},
              str("Q/DQ ", dtype_name(static_cast<DType>(q)), " axis ", axis, " ", dtype_name(dtype)));
      }
}

// ONNX Attention: 4-D and 3-D, grouped-query heads, float and bool masks (one shorter than the
// keys, one masking a whole row), is_causal with fewer queries than keys, softcap, a scale, and
// opset 25's sliding window.
TEST(HI_GPU_TEST_SUITE, OnnxAttentionOnTheGpuMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  struct Case {
    bool packed;  // 3-D
    int64_t b, hq, hkv, sq, skv, d, dv;
    DType mask_type;  // kUndefined: no mask
    Shape mask;
    bool causal;
    float softcap, scale;  // scale 0: the default
    int64_t left, right;   // window (opset 25); -1: none
  };
  const std::vector<Case> cases = {
      {false, 2, 4, 4, 5, 7, 8, 8, DType::kUndefined, {}, false, 0.f, 0.f, -1, -1},
      {false, 1, 6, 2, 9, 300, 16, 12, DType::kFloat32, {1, 1, 9, 300}, false, 0.f, 0.f, -1, -1},
      {false, 2, 4, 1, 3, 11, 5, 7, DType::kBool, {2, 4, 3, 8}, false, 0.f, 0.3f, -1, -1},  // short mask
      {true, 2, 3, 3, 6, 6, 4, 4, DType::kUndefined, {}, true, 0.f, 0.f, -1, -1},
      {true, 1, 4, 2, 5, 9, 8, 6, DType::kFloat32, {5, 9}, true, 2.5f, 0.f, -1, -1},
      {false, 1, 2, 2, 7, 7, 4, 4, DType::kBool, {7, 7}, false, 0.f, 0.f, 2, 1}};
  uint32_t seed = 1200;
  for (const Case& c : cases) {
    ModelBuilder b(25);
    const Shape q = c.packed ? Shape{c.b, c.sq, c.hq * c.d} : Shape{c.b, c.hq, c.sq, c.d};
    const Shape k = c.packed ? Shape{c.b, c.skv, c.hkv * c.d} : Shape{c.b, c.hkv, c.skv, c.d};
    const Shape v = c.packed ? Shape{c.b, c.skv, c.hkv * c.dv} : Shape{c.b, c.hkv, c.skv, c.dv};
    b.input("q", onnx::TensorProto::FLOAT, dims(q));
    b.input("k", onnx::TensorProto::FLOAT, dims(k));
    b.input("v", onnx::TensorProto::FLOAT, dims(v));
    TensorMap feeds = {{"q", random_tensor(DType::kFloat32, q, seed++, false)},
                       {"k", random_tensor(DType::kFloat32, k, seed++, false)},
                       {"v", random_tensor(DType::kFloat32, v, seed++, false)}};
    std::vector<std::string> in = {"q", "k", "v"};
    if (c.mask_type != DType::kUndefined) {
      b.input("mask", static_cast<int32_t>(c.mask_type), dims(c.mask));
      in.push_back("mask");
      Tensor m = Tensor::zeros(c.mask_type, c.mask);
      for (int64_t i = 0; i < m.numel(); ++i) {
        const bool keep = (i * 7) % 5 != 0 && i >= c.mask.back();  // the first row: all masked
        if (c.mask_type == DType::kBool) m.data<bool>()[i] = keep;
        else m.data<float>()[i] = keep ? 0.25f * static_cast<float>(i % 3) : -std::numeric_limits<float>::infinity();
      }
      feeds["mask"] = m;
    }
    b.output("y", onnx::TensorProto::FLOAT);
    auto& n = b.node("Attention", in, {"y"});
    ModelBuilder::set_int(n, "is_causal", c.causal ? 1 : 0);
    if (c.packed) {
      ModelBuilder::set_int(n, "q_num_heads", c.hq);
      ModelBuilder::set_int(n, "kv_num_heads", c.hkv);
    }
    if (c.softcap > 0) ModelBuilder::set_float(n, "softcap", c.softcap);
    if (c.scale > 0) ModelBuilder::set_float(n, "scale", c.scale);
    if (c.left >= 0) ModelBuilder::set_int(n, "left_window_size", c.left);
    if (c.right >= 0) ModelBuilder::set_int(n, "right_window_size", c.right);
    check(
        b, feeds,
        str("Attention ", c.packed ? "3-D" : "4-D", " b", c.b, " hq", c.hq, " hkv", c.hkv, " sq", c.sq, " skv", c.skv),
        1e-5);
  }
}

// FusedAttention (the attention fusion pass's op) against the CPU op: key lengths below, at and
// above the kernel's chunk of 256 keys, odd heads and head sizes, masks broadcast over heads and
// queries, a fully masked row (NaN on both), and no keys at all (zeros on both).
TEST(HI_GPU_TEST_SUITE, FusedAttentionOnTheGpuMatchesTheCpu) {
  SKIP_WITHOUT_GPU();
  struct Case {
    int64_t b, sq, skv, h, d, dv;
    Shape mask;  // empty: none
    bool mask_row_out;
  };
  const std::vector<Case> cases = {{1, 5, 7, 2, 8, 8, {}, false},
                                   {2, 17, 256, 3, 20, 12, {2, 1, 1, 256}, false},
                                   {1, 9, 300, 4, 64, 64, {1, 4, 9, 300}, false},
                                   {3, 4, 513, 1, 7, 33, {3, 1, 4, 513}, true},
                                   {2, 3, 0, 2, 5, 6, {}, false}};
  uint32_t seed = 700;
  for (const Case& c : cases) {
    ModelBuilder b;
    b.import_domain("com.hipinfer", 1);
    b.input("q", onnx::TensorProto::FLOAT, {c.b, c.sq, c.h, c.d});
    b.input("k", onnx::TensorProto::FLOAT, {c.b, c.skv, c.h, c.d});
    b.input("v", onnx::TensorProto::FLOAT, {c.b, c.skv, c.h, c.dv});
    std::vector<std::string> in = {"q", "k", "v"};
    if (!c.mask.empty()) {
      b.input("mask", onnx::TensorProto::FLOAT, dims(c.mask));
      in.push_back("mask");
    }
    b.output("y", onnx::TensorProto::FLOAT);
    auto& n = b.node("FusedAttention", in, {"y"}, "attention");
    n.set_domain("com.hipinfer");
    auto* scale = n.add_attribute();
    scale->set_name("scale");
    scale->set_type(onnx::AttributeProto::FLOAT);
    scale->set_f(1.f / std::sqrt(static_cast<float>(c.d)));
    TensorMap feeds = {{"q", random_tensor(DType::kFloat32, {c.b, c.sq, c.h, c.d}, seed++, false)},
                       {"k", random_tensor(DType::kFloat32, {c.b, c.skv, c.h, c.d}, seed++, false)},
                       {"v", random_tensor(DType::kFloat32, {c.b, c.skv, c.h, c.dv}, seed++, false)}};
    if (!c.mask.empty()) {
      Tensor m = Tensor::zeros(DType::kFloat32, c.mask);
      // BERT's padding mask: the last keys of each batch masked with a large negative value.
      const int64_t keys = c.mask.back();
      for (int64_t i = 0; i < m.numel(); ++i)
        if (i % keys >= keys - 1 - (i / keys) % 3) m.data<float>()[i] = -10000.f;
      if (c.mask_row_out)
        for (int64_t j = 0; j < keys; ++j) m.data<float>()[j] = -std::numeric_limits<float>::infinity();
      feeds["mask"] = m;
    }
    check(b, feeds,
          "FusedAttention b" + std::to_string(c.b) + " sq" + std::to_string(c.sq) + " skv" + std::to_string(c.skv) +
              " h" + std::to_string(c.h) + " d" + std::to_string(c.d),
          1e-5);
  }
}

}  // namespace
}  // namespace hi::gpu::HI_GPU_NS
