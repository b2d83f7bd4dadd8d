// The GPU kernel harness: random data, the op's CPU reference through a one-node CPU session,
// device round trips, and the comparison (expect_close says the tolerances). For the kernel tests compiled once per
// backend.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "backends/gpu/device_api.h"
#include "hipinfer/session.h"
#include "ir/graph.h"
#include "model_builder.h"

namespace hi::gpu::HI_GPU_NS {

using test::ModelBuilder;

inline int32_t onnx_type(DType t) {
  return t == DType::kFloat16 ? onnx::TensorProto::FLOAT16 : onnx::TensorProto::FLOAT;
}

inline Tensor random_tensor(DType dtype, const Shape& shape, uint32_t seed, bool positive) {
  Tensor t = Tensor::empty(dtype, shape);
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.f, 2.f);
  for (int64_t i = 0; i < t.numel(); ++i) {
    float v = normal(rng);
    if (positive) v = std::fabs(v) + 0.01f;
    if (dtype == DType::kFloat16) t.data<Float16>()[i] = Float16(v);
    else t.data<float>()[i] = v;
  }
  return t;
}

// A bare node, for the GPU ops' support table and partition specs.
inline ir::Node make_node(const std::string& op, std::vector<std::string> in, std::vector<std::string> out = {"y"},
                          const std::string& domain = "") {
  ir::Node n;
  n.name = op + "_node";
  n.op_type = op;
  n.domain = domain;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}
inline void set_int_attr(ir::Node& n, const std::string& name, int64_t v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kInt;
  a.i = v;
  n.attributes[name] = a;
}
inline void set_string_attr(ir::Node& n, const std::string& name, const std::string& v) {
  ir::Attribute a;
  a.kind = ir::Attribute::Kind::kString;
  a.s = v;
  n.attributes[name] = a;
}

// Conv [+ bias] [+ Add(residual "r")] [+ activation] as a model with inputs x, w, b, r and output
// y, for the convolution kernels' tests (conv_test.cc, cudnn_test.cc).
inline ModelBuilder conv_model(DType dtype, const Shape& x, const Shape& w, int64_t group,
                               const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations,
                               const std::vector<int64_t>& pads, bool bias, bool residual, const char* activation,
                               const Shape& y_shape) {
  ModelBuilder b(14);
  b.input("x", onnx_type(dtype), std::vector<int64_t>(x.begin(), x.end()));
  b.input("w", onnx_type(dtype), std::vector<int64_t>(w.begin(), w.end()));
  std::vector<std::string> conv_in = {"x", "w"};
  if (bias) {
    b.input("b", onnx_type(dtype), {w[0]});
    conv_in.push_back("b");
  }
  if (residual) b.input("r", onnx_type(dtype), std::vector<int64_t>(y_shape.begin(), y_shape.end()));
  b.output("y", onnx_type(dtype));
  std::string last = residual || activation ? "conv" : "y";
  auto& conv = b.node("Conv", conv_in, {last});
  ModelBuilder::set_int(conv, "group", group);
  ModelBuilder::set_ints(conv, "strides", strides);
  ModelBuilder::set_ints(conv, "dilations", dilations);
  ModelBuilder::set_ints(conv, "pads", pads);
  if (residual) {
    const std::string out = activation ? "sum" : "y";
    b.node("Add", {last, "r"}, {out});
    last = out;
  }
  if (activation) b.node(activation, {last}, {"y"});
  return b;
}

inline Tensor run_on_cpu(const ModelBuilder& b, const TensorMap& inputs) {
  const std::string bytes = b.bytes();
  SessionOptions o;
  o.devices = {"cpu"};
  o.optimization_level = 0;
  auto s = Session::create_from_bytes(bytes.data(), bytes.size(), o);
  EXPECT_TRUE(s.is_ok()) << s.status().to_string();
  if (!s.is_ok()) return {};
  auto r = s.value()->run(inputs);
  EXPECT_TRUE(r.is_ok()) << r.status().to_string();
  return r.is_ok() ? r.value().at("y") : Tensor();
}

// Copies to the device, runs `launch(device inputs, device output)`, copies back.
template <typename Launch>
Tensor run_on_gpu(const std::vector<const Tensor*>& inputs, DType dtype, const Shape& out_shape, Launch launch) {
  std::vector<void*> device;
  for (const Tensor* t : inputs) {
    void* p = nullptr;
    EXPECT_TRUE(device_malloc(&p, std::max<size_t>(t->nbytes(), 1)).is_ok());
    EXPECT_TRUE(copy_to_device(p, t->raw(), t->nbytes()).is_ok());
    device.push_back(p);
  }
  Tensor out = Tensor::empty(dtype, out_shape);
  void* y = nullptr;
  EXPECT_TRUE(device_malloc(&y, std::max<size_t>(out.nbytes(), 1)).is_ok());
  const Status s = launch(device, y);
  EXPECT_TRUE(s.is_ok()) << s.to_string();
  EXPECT_TRUE(synchronize(nullptr).is_ok());
  EXPECT_TRUE(copy_to_host(out.raw(), y, out.nbytes()).is_ok());
  for (void* p : device) EXPECT_TRUE(device_free(p).is_ok());
  EXPECT_TRUE(device_free(y).is_ok());
  return out;
}

// float32: |want - got| <= 1e-4 |want| + atol (default 1e-6); float16: 2 ulps (2^-9 relative)
// + 2^-14 (its smallest normal), since both sides compute in float32 and round once.
inline void expect_close(const Tensor& want, const Tensor& got, const std::string& what, double atol = 1e-6) {
  ASSERT_EQ(want.shape(), got.shape()) << what;
  const bool half = want.dtype() == DType::kFloat16;
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double w = want.as_double(i), g = got.as_double(i);
    if (w == g || (std::isnan(w) && std::isnan(g))) continue;  // equal infinities match too
    const double tol = half ? std::fabs(w) * 0x1p-9 + 0x1p-14 : 1e-4 * std::fabs(w) + atol;
    if (!(std::fabs(w - g) <= tol)) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << want.numel() << " differ; first at " << first << ": CPU "
                    << (first >= 0 ? want.as_double(first) : 0) << ", GPU " << (first >= 0 ? got.as_double(first) : 0);
}

// float16 results of sums of k products (matrix products, convolutions): expect_close's 2 ulps of
// the result plus 2^-14, plus the worst case of float32 accumulation in any order,
// k u scale abs[i] with u = 2^-23 (twice float32's unit roundoff: a matrix-core accumulator need
// not round to nearest), where abs[i] is the sum of the products' magnitudes for element i and
// `scale` bounds what follows the sum (|alpha|, an activation's slope). The last term matters
// only where a sum cancels to near zero; a wrong element is off by about its own size.
inline void expect_close_f16_sums(const Tensor& want, const Tensor& got, const std::vector<double>& abs, double scale,
                                  int64_t k, const std::string& what) {
  ASSERT_EQ(want.shape(), got.shape()) << what;
  ASSERT_EQ(static_cast<size_t>(want.numel()), abs.size()) << what;
  int64_t bad = 0, first = -1;
  for (int64_t i = 0; i < want.numel(); ++i) {
    const double w = want.as_double(i), g = got.as_double(i);
    if (w == g) continue;
    const double tol = std::fabs(w) * 0x1p-9 + 0x1p-14 +
                       static_cast<double>(k) * 0x1p-23 * std::fabs(scale) * abs[static_cast<size_t>(i)];
    if (!(std::fabs(w - g) <= tol)) {
      if (first < 0) first = i;
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << want.numel() << " differ; first at " << first << ": want "
                    << (first >= 0 ? want.as_double(first) : 0) << ", got " << (first >= 0 ? got.as_double(first) : 0);
}

// Feeds for a whole model: random floats; for int64 inputs token ids below 100, an attention
// mask with a few positions masked, token types 0. The dynamic dims of each input take `dims` in
// order, then 2 (so every input's batch is dims[0]).
inline TensorMap model_feeds(const Session& s, const std::vector<int64_t>& dims) {
  TensorMap feeds;
  uint32_t seed = 5;
  for (const TensorInfo& info : s.inputs()) {
    size_t next = 0;
    Shape shape;
    for (int64_t d : info.shape) shape.push_back(d >= 0 ? d : next < dims.size() ? dims[next++] : 2);
    if (info.dtype != DType::kInt64) {
      feeds[info.name] = random_tensor(info.dtype, shape, seed++, false);
      continue;
    }
    Tensor t = Tensor::zeros(DType::kInt64, shape);
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (info.name == "input_ids") t.data<int64_t>()[i] = (i * 7) % 100;
      else if (info.name == "attention_mask") t.data<int64_t>()[i] = i % 13 != 12;
    }
    feeds[info.name] = t;
  }
  return feeds;
}

// Every output of `got` against `want`'s: the largest difference within `rtol` of the output's
// largest magnitude (a NaN where `want` has a number fails).
inline void expect_outputs_close(const TensorMap& want, const TensorMap& got, const std::string& what,
                                 double rtol = 1e-3) {
  for (const auto& [name, w] : want) {
    ASSERT_TRUE(got.count(name)) << what << ": no output " << name;
    const Tensor& g = got.at(name);
    ASSERT_EQ(w.shape(), g.shape()) << what << " " << name;
    double scale = 0, worst = 0;
    for (int64_t i = 0; i < w.numel(); ++i) scale = std::max(scale, std::fabs(w.as_double(i)));
    for (int64_t i = 0; i < w.numel(); ++i) {
      const double d = std::fabs(w.as_double(i) - g.as_double(i));
      worst = std::isnan(d) ? INFINITY : std::max(worst, d);
    }
    EXPECT_LE(worst, rtol * std::max(scale, 1e-30))
        << what << " output " << name << ": largest difference " << worst << " against a largest value of " << scale;
  }
}

}  // namespace hi::gpu::HI_GPU_NS
