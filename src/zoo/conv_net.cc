// ConvNetBuilder: image-model blocks, and the calibration forward pass that sets BN running stats.
#include "zoo/conv_net.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hi::zoo {
namespace {

constexpr float kBnEpsilon = 1e-5f;

int64_t conv_out_size(int64_t in, int64_t kernel, int64_t stride, int64_t pad) {
  return (in + 2 * pad - kernel) / stride + 1;
}

// Convolution with zero padding as a matrix product per group: y[o][q] = sum over k of
// w[o][k] * col[k][q], where q runs over (batch, oy, ox) and k over the group's (input channel,
// ky, kx), and col is the im2col matrix of the group's inputs (for a 1x1 stride-1 conv, the
// input itself). Four output channels are computed together so each col element loaded feeds
// four multiply-adds, and q is taken in chunks that keep those four output rows in L1; the
// innermost loop is contiguous, which the compiler vectorises.
void conv_forward(const FeatureMap& x, const std::vector<float>& w, int64_t kernel, int64_t stride, int64_t pad,
                  int64_t groups, FeatureMap& y) {
  constexpr int64_t kBlock = 4;
  constexpr int64_t kChunk = 512;
  const int64_t in_per_group = x.channels / groups;
  const int64_t out_per_group = y.channels / groups;
  const int64_t depth = in_per_group * kernel * kernel;  // k
  const int64_t in_size = x.batch * x.height * x.width;
  const int64_t out_size = y.batch * y.height * y.width;  // q
  const bool direct = kernel == 1 && stride == 1 && pad == 0;
  std::vector<float> col(direct ? 0 : static_cast<size_t>(depth * out_size));
  y.data.assign(static_cast<size_t>(y.channels * out_size), 0.0f);

  for (int64_t g = 0; g < groups; ++g) {
    const float* in = &x.data[static_cast<size_t>(g * in_per_group * in_size)];
    if (!direct) {
      float* c = col.data();
      for (int64_t ci = 0; ci < in_per_group; ++ci) {
        for (int64_t ky = 0; ky < kernel; ++ky) {
          for (int64_t kx = 0; kx < kernel; ++kx) {
            for (int64_t n = 0; n < x.batch; ++n) {
              const float* plane = in + (ci * x.batch + n) * x.height * x.width;
              for (int64_t oy = 0; oy < y.height; ++oy) {
                const int64_t iy = oy * stride - pad + ky;
                for (int64_t ox = 0; ox < y.width; ++ox) {
                  const int64_t ix = ox * stride - pad + kx;
                  *c++ = (iy >= 0 && iy < x.height && ix >= 0 && ix < x.width) ? plane[iy * x.width + ix] : 0.0f;
                }
              }
            }
          }
        }
      }
    }
    const float* m = direct ? in : col.data();
    for (int64_t o0 = g * out_per_group; o0 < (g + 1) * out_per_group; o0 += kBlock) {
      const int64_t block = std::min(kBlock, (g + 1) * out_per_group - o0);
      for (int64_t q0 = 0; q0 < out_size; q0 += kChunk) {
        const int64_t len = std::min(kChunk, out_size - q0);
        float* r[kBlock];
        for (int64_t b = 0; b < kBlock; ++b)
          r[b] = &y.data[static_cast<size_t>((o0 + std::min(b, block - 1)) * out_size + q0)];
        for (int64_t k = 0; k < depth; ++k) {
          const float* c = m + k * out_size + q0;
          float wv[kBlock] = {};
          for (int64_t b = 0; b < block; ++b) wv[b] = w[static_cast<size_t>((o0 + b) * depth + k)];
          if (block == kBlock) {
            float* r0 = r[0];
            float* r1 = r[1];
            float* r2 = r[2];
            float* r3 = r[3];
            for (int64_t q = 0; q < len; ++q) {
              const float v = c[q];
              r0[q] += wv[0] * v;
              r1[q] += wv[1] * v;
              r2[q] += wv[2] * v;
              r3[q] += wv[3] * v;
            }
          } else {
            for (int64_t b = 0; b < block; ++b)
              for (int64_t q = 0; q < len; ++q) r[b][q] += wv[b] * c[q];
          }
        }
      }
    }
  }
}

}  // namespace

std::string torch_scope(const std::string& module_path) {
  std::string scope;
  std::string previous;
  size_t start = 0;
  while (start <= module_path.size()) {
    size_t dot = module_path.find('.', start);
    if (dot == std::string::npos) dot = module_path.size();
    const std::string part = module_path.substr(start, dot - start);
    const bool is_index =
        !part.empty() && std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; });
    previous = is_index && !previous.empty() ? previous + "." + part : part;
    scope += "/" + previous;
    start = dot + 1;
  }
  return scope;
}

FeatureMap ConvNetBuilder::input(const ShapeDim& batch, int64_t channels, int64_t size) {
  g_.add_input("input", ElemType::kFloat, {batch, {channels, {}}, {size, {}}, {size, {}}});
  const int64_t s = std::min(size, kMaxCalibrationSize);
  const int64_t n = (kCalibrationPixels + s * s - 1) / (s * s);
  return {"input", n, channels,
          s,       s, random_normal(g_.rng("calibration.input"), static_cast<size_t>(n * channels * s * s), 0.0, 1.0)};
}

FeatureMap ConvNetBuilder::conv(const FeatureMap& x, const std::string& module, int64_t out_channels, int64_t kernel,
                                int64_t stride, int64_t groups) {
  HI_ASSERT(x.channels % groups == 0 && out_channels % groups == 0, module);
  const int64_t pad = kernel / 2;
  const int64_t in_per_group = x.channels / groups;
  const int64_t fan_in = in_per_group * kernel * kernel;
  const std::string weight_name = module + ".weight";
  const std::vector<float> w =
      random_normal(g_.rng(weight_name), static_cast<size_t>(out_channels * fan_in), 0.0, std::sqrt(2.0 / fan_in));
  const std::string weight = g_.add_initializer(weight_name, {out_channels, in_per_group, kernel, kernel}, w);

  FeatureMap y;
  y.batch = x.batch;
  y.name = g_.op(
      "Conv", torch_scope(module), {x.name, weight},
      {Attr::i("group", groups), Attr::ints_of("dilations", {1, 1}), Attr::ints_of("kernel_shape", {kernel, kernel}),
       Attr::ints_of("pads", {pad, pad, pad, pad}), Attr::ints_of("strides", {stride, stride})});
  y.channels = out_channels;
  y.height = conv_out_size(x.height, kernel, stride, pad);
  y.width = conv_out_size(x.width, kernel, stride, pad);
  conv_forward(x, w, kernel, stride, pad, groups, y);
  return y;
}

FeatureMap ConvNetBuilder::batch_norm(const FeatureMap& x, const std::string& module) {
  const int64_t c = x.channels;
  const std::vector<float> gamma = random_normal(g_.rng(module + ".weight"), static_cast<size_t>(c), 1.0, 0.1);
  const std::vector<float> beta = random_normal(g_.rng(module + ".bias"), static_cast<size_t>(c), 0.0, 0.1);
  std::vector<float> running_mean(static_cast<size_t>(c)), running_var(static_cast<size_t>(c));
  FeatureMap y = x;
  const int64_t size = x.batch * x.height * x.width;
  for (int64_t ch = 0; ch < c; ++ch) {
    const float* p = &x.data[static_cast<size_t>(ch * size)];
    double sum = 0, sum_sq = 0;
    for (int64_t k = 0; k < size; ++k) sum += p[k];
    const double mean = sum / static_cast<double>(size);
    for (int64_t k = 0; k < size; ++k) sum_sq += (p[k] - mean) * (p[k] - mean);
    const double var = sum_sq / static_cast<double>(size);
    running_mean[static_cast<size_t>(ch)] = static_cast<float>(mean);
    running_var[static_cast<size_t>(ch)] = static_cast<float>(var);
    const float scale = static_cast<float>(gamma[static_cast<size_t>(ch)] / std::sqrt(var + kBnEpsilon));
    const float shift = static_cast<float>(beta[static_cast<size_t>(ch)] - mean * scale);
    float* out = &y.data[static_cast<size_t>(ch * size)];
    for (int64_t k = 0; k < size; ++k) out[k] = out[k] * scale + shift;
  }
  y.name = g_.op(
      "BatchNormalization", torch_scope(module),
      {x.name, g_.add_initializer(module + ".weight", {c}, gamma), g_.add_initializer(module + ".bias", {c}, beta),
       g_.add_initializer(module + ".running_mean", {c}, running_mean, /*is_buffer=*/true),
       g_.add_initializer(module + ".running_var", {c}, running_var, /*is_buffer=*/true)},
      {Attr::f("epsilon", kBnEpsilon), Attr::f("momentum", 0.9f)});
  return y;
}

FeatureMap ConvNetBuilder::clipped(const FeatureMap& x, const std::string& scope, float lo, float hi) {
  FeatureMap y = x;
  for (auto& v : y.data) v = std::clamp(v, lo, hi);
  y.name = std::isfinite(hi) ? g_.clip(scope, x.name, lo, hi) : g_.op("Relu", scope, {x.name});
  return y;
}

FeatureMap ConvNetBuilder::relu(const FeatureMap& x, const std::string& scope) {
  return clipped(x, scope, 0.0f, std::numeric_limits<float>::infinity());
}

FeatureMap ConvNetBuilder::relu6(const FeatureMap& x, const std::string& scope) {
  return clipped(x, scope, 0.0f, 6.0f);
}

FeatureMap ConvNetBuilder::add(const FeatureMap& a, const FeatureMap& b, const std::string& scope) {
  HI_ASSERT(a.channels == b.channels && a.height == b.height && a.width == b.width, scope);
  FeatureMap y = a;
  for (size_t k = 0; k < y.data.size(); ++k) y.data[k] += b.data[k];
  y.name = g_.op("Add", scope, {a.name, b.name});
  return y;
}

FeatureMap ConvNetBuilder::max_pool(const FeatureMap& x, const std::string& scope, int64_t kernel, int64_t stride,
                                    int64_t pad) {
  FeatureMap y;
  y.batch = x.batch;
  y.channels = x.channels;
  y.height = conv_out_size(x.height, kernel, stride, pad);
  y.width = conv_out_size(x.width, kernel, stride, pad);
  y.data.resize(static_cast<size_t>(x.batch * y.channels * y.height * y.width));
  for (int64_t plane = 0; plane < x.batch * x.channels; ++plane) {
    const float* in = &x.data[static_cast<size_t>(plane * x.height * x.width)];
    float* out = &y.data[static_cast<size_t>(plane * y.height * y.width)];
    for (int64_t oy = 0; oy < y.height; ++oy) {
      for (int64_t ox = 0; ox < y.width; ++ox) {
        float m = -std::numeric_limits<float>::infinity();
        for (int64_t ky = 0; ky < kernel; ++ky) {
          const int64_t iy = oy * stride - pad + ky;
          if (iy < 0 || iy >= x.height) continue;
          for (int64_t kx = 0; kx < kernel; ++kx) {
            const int64_t ix = ox * stride - pad + kx;
            if (ix >= 0 && ix < x.width) m = std::max(m, in[iy * x.width + ix]);
          }
        }
        out[oy * y.width + ox] = m;
      }
    }
  }
  y.name = g_.op("MaxPool", scope, {x.name},
                 {Attr::ints_of("kernel_shape", {kernel, kernel}), Attr::ints_of("pads", {pad, pad, pad, pad}),
                  Attr::ints_of("strides", {stride, stride})});
  return y;
}

void ConvNetBuilder::classifier(const FeatureMap& x, const std::string& pool_scope, const std::string& fc_module,
                                int64_t classes, const ShapeDim& batch, const std::string& output_name) {
  const std::string pooled = g_.op("GlobalAveragePool", pool_scope, {x.name});
  const std::string flat = g_.op("Flatten", "", {pooled}, {Attr::i("axis", 1)});
  const int64_t c = x.channels;
  const std::string w = g_.add_initializer(
      fc_module + ".weight", {classes, c},
      random_normal(g_.rng(fc_module + ".weight"), static_cast<size_t>(classes * c), 0.0, 1.0 / std::sqrt(double(c))));
  const std::string b =
      g_.add_initializer(fc_module + ".bias", {classes},
                         random_normal(g_.rng(fc_module + ".bias"), static_cast<size_t>(classes), 0.0, 0.01));
  g_.op("Gemm", torch_scope(fc_module), {flat, w, b},
        {Attr::f("alpha", 1.0f), Attr::f("beta", 1.0f), Attr::i("transB", 1)}, output_name);
  g_.add_output(output_name, ElemType::kFloat, {batch, {classes, {}}});
}

}  // namespace hi::zoo
