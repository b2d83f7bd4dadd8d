// The GPU kernels' self-check (see kernel_self_check.h).
#include "backends/gpu/kernel_self_check.h"

#include <cmath>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "backends/gpu/kernels/conv.h"
#include "backends/gpu/kernels/elementwise.h"
#include "backends/gpu/kernels/matmul.h"
#include "backends/gpu/kernels/rows.h"

namespace hi::gpu::HI_GPU_NS {
namespace {

// Device copies of host vectors, freed on scope exit.
class Buffers {
 public:
  ~Buffers() {
    for (void* p : ptrs_) (void)device_free(p);
  }
  Result<void*> upload(const std::vector<float>& v) {
    void* p = nullptr;
    HI_RETURN_IF_ERROR(device_malloc(&p, v.size() * sizeof(float)));
    ptrs_.push_back(p);
    HI_RETURN_IF_ERROR(copy_to_device(p, v.data(), v.size() * sizeof(float)));
    return p;
  }
  Result<void*> zeros(size_t n) { return upload(std::vector<float>(n, 0.f)); }
  // float16 copies: rounds `v` in place to the values uploaded, so host loops see the same.
  Result<void*> upload_f16(std::vector<float>& v) {
    std::vector<Float16> h(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      h[i] = Float16(v[i]);
      v[i] = h[i];
    }
    void* p = nullptr;
    HI_RETURN_IF_ERROR(device_malloc(&p, h.size() * sizeof(Float16)));
    ptrs_.push_back(p);
    HI_RETURN_IF_ERROR(copy_to_device(p, h.data(), h.size() * sizeof(Float16)));
    return p;
  }

 private:
  std::vector<void*> ptrs_;
};

std::vector<float> pattern(size_t n, float scale, float shift) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * static_cast<float>((i * 7919) % 97) / 97.f + shift;
  return v;
}

Status compare(const char* what, const void* device, const std::vector<float>& want) {
  HI_RETURN_IF_ERROR(synchronize(nullptr));
  std::vector<float> got(want.size());
  HI_RETURN_IF_ERROR(copy_to_host(got.data(), device, got.size() * sizeof(float)));
  for (size_t i = 0; i < want.size(); ++i)
    HI_RETURN_IF(!(std::fabs(got[i] - want[i]) <= 1e-4f * std::fabs(want[i]) + 1e-5f), kUnsupported, what, " gave ",
                 got[i], " at element ", i, " where the host computes ", want[i]);
  return Status::ok();
}

// float16 results of sums of k products: 2 ulps, 2^-14, and k 2^-23 sum |products| (abs) for
// float32 accumulation in any order, as tests/gpu/kernel_harness.h's expect_close_f16_sums.
Status compare_f16(const char* what, const void* device, const std::vector<float>& want, const std::vector<double>& abs,
                   int64_t k) {
  HI_RETURN_IF_ERROR(synchronize(nullptr));
  std::vector<Float16> got(want.size());
  HI_RETURN_IF_ERROR(copy_to_host(got.data(), device, got.size() * sizeof(Float16)));
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = static_cast<float>(got[i]), w = want[i];
    const double tol = std::fabs(w) * 0x1p-9 + 0x1p-14 + static_cast<double>(k) * 0x1p-23 * abs[i];
    HI_RETURN_IF(!(std::fabs(g - w) <= tol), kUnsupported, what, " gave ", g, " at element ", i,
                 " where the host computes ", w);
  }
  return Status::ok();
}

// A 3x3 convolution with padding 1, bias and Relu, [1, c, h, wd] -> [1, o, h, wd]: the host's
// result, each output's sum of |products| (the float16 tolerance needs it) and the descriptor.
struct Conv3x3 {
  std::vector<float> want;
  std::vector<double> abs;
  Conv2dDesc desc;
};
Conv3x3 conv3x3_relu(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& bias, int c,
                     int o, int h, int wd) {
  Conv3x3 r;
  r.want.resize(static_cast<size_t>(o * h * wd));
  r.abs.resize(r.want.size());
  for (int oc = 0; oc < o; ++oc)
    for (int yy = 0; yy < h; ++yy)
      for (int xx = 0; xx < wd; ++xx) {
        double s = bias[static_cast<size_t>(oc)], sa = 0;
        for (int ic = 0; ic < c; ++ic)
          for (int q = 0; q < 3; ++q)
            for (int p = 0; p < 3; ++p) {
              const int iy = yy - 1 + q, ix = xx - 1 + p;
              if (iy < 0 || iy >= h || ix < 0 || ix >= wd) continue;
              const double prod = double(x[static_cast<size_t>((ic * h + iy) * wd + ix)]) *
                                  w[static_cast<size_t>(((oc * c + ic) * 3 + q) * 3 + p)];
              s += prod;
              sa += std::fabs(prod);
            }
        r.want[static_cast<size_t>((oc * h + yy) * wd + xx)] = s > 0 ? static_cast<float>(s) : 0.f;
        r.abs[static_cast<size_t>((oc * h + yy) * wd + xx)] = sa;
      }
  Conv2dDesc& d = r.desc;
  d.batch = 1;
  d.in_channels = c;
  d.in_h = h;
  d.in_w = wd;
  d.out_channels = o;
  d.out_h = h;
  d.out_w = wd;
  d.kernel_h = d.kernel_w = 3;
  d.pad_top = d.pad_left = 1;
  d.has_activation = true;
  d.activation = {UnaryKind::kRelu};
  return r;
}

// float16 MatMul and Conv: on matrix cores where the device has them (matrix_cores.h), so a
// device or build whose matrix-core path is wrong keeps its partitions on the CPU.
Status run_f16_checks(Buffers& b) {
  {  // MatMul 70 x 45 by B stored transposed (33 x 45) plus a bias row: edges in m, n and k.
    const int m = 70, k = 45, n = 33;
    std::vector<float> a = pattern(m * k, 1.f, -0.5f), w = pattern(n * k, 1.f, -0.4f), bias = pattern(n, 1.f, 0.f);
    HI_ASSIGN_OR_RETURN(void* da, b.upload_f16(a));
    HI_ASSIGN_OR_RETURN(void* dw, b.upload_f16(w));
    HI_ASSIGN_OR_RETURN(void* db, b.upload_f16(bias));
    std::vector<float> want(static_cast<size_t>(m * n)), y(want.size(), 0.f);
    std::vector<double> abs(want.size());
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = bias[static_cast<size_t>(j)], sa = 0;
        for (int t = 0; t < k; ++t) {
          const double p = double(a[static_cast<size_t>(i * k + t)]) * w[static_cast<size_t>(j * k + t)];
          s += p;
          sa += std::fabs(p);
        }
        want[static_cast<size_t>(i * n + j)] = static_cast<float>(s);
        abs[static_cast<size_t>(i * n + j)] = sa;
      }
    HI_ASSIGN_OR_RETURN(void* dy, b.upload_f16(y));
    MatMulDesc d;
    d.m = m;
    d.n = n;
    d.k = k;
    d.trans_b = true;
    d.beta = 1.f;
    d.c_row_stride = 0;
    d.c_col_stride = 1;
    HI_RETURN_IF_ERROR(matmul(DType::kFloat16, d, da, dw, db, dy, nullptr));
    HI_RETURN_IF_ERROR(compare_f16("MatMul (float16)", dy, want, abs, k));
  }
  {  // A 3x3 convolution, padding 1, with bias and Relu: [1, 5, 9, 7] -> [1, 66, 9, 7].
    const int c = 5, o = 66, h = 9, wd = 7;
    std::vector<float> x = pattern(c * h * wd, 2.f, -1.f), w = pattern(o * c * 9, 1.f, -0.5f),
                       bias = pattern(o, 1.f, -0.5f);
    HI_ASSIGN_OR_RETURN(void* dx, b.upload_f16(x));
    HI_ASSIGN_OR_RETURN(void* dw, b.upload_f16(w));
    HI_ASSIGN_OR_RETURN(void* db, b.upload_f16(bias));
    const Conv3x3 ref = conv3x3_relu(x, w, bias, c, o, h, wd);
    std::vector<float> y(ref.want.size(), 0.f);
    HI_ASSIGN_OR_RETURN(void* dy, b.upload_f16(y));
    HI_RETURN_IF_ERROR(conv2d(DType::kFloat16, ref.desc, dx, dw, db, nullptr, dy, nullptr));
    HI_RETURN_IF_ERROR(compare_f16("Conv (float16)", dy, ref.want, ref.abs, c * 9));
  }
  return Status::ok();
}

Status run_checks() {
  Buffers b;
  {  // Relu over a block and a bit.
    const std::vector<float> x = pattern(1000, 4.f, -2.f);
    std::vector<float> want(x.size());
    for (size_t i = 0; i < x.size(); ++i) want[i] = x[i] > 0 ? x[i] : 0;
    HI_ASSIGN_OR_RETURN(void* dx, b.upload(x));
    HI_ASSIGN_OR_RETURN(void* dy, b.zeros(x.size()));
    HI_RETURN_IF_ERROR(unary({UnaryKind::kRelu}, DType::kFloat32, dx, dy, static_cast<int64_t>(x.size()), nullptr));
    HI_RETURN_IF_ERROR(compare("Relu", dy, want));
  }
  {  // Add with broadcasting: [3, 1, 5] + [4, 1].
    const std::vector<float> a = pattern(15, 2.f, -1.f), c = pattern(4, 3.f, 0.5f);
    std::vector<float> want(60);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j)
        for (int k = 0; k < 5; ++k)
          want[static_cast<size_t>((i * 4 + j) * 5 + k)] =
              a[static_cast<size_t>(i * 5 + k)] + c[static_cast<size_t>(j)];
    HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index({3, 1, 5}, {4, 1}));
    HI_ASSIGN_OR_RETURN(void* da, b.upload(a));
    HI_ASSIGN_OR_RETURN(void* dc, b.upload(c));
    HI_ASSIGN_OR_RETURN(void* dy, b.zeros(60));
    HI_RETURN_IF_ERROR(binary(BinaryKind::kAdd, DType::kFloat32, da, dc, dy, index, nullptr));
    HI_RETURN_IF_ERROR(compare("Add", dy, want));
  }
  {  // Softmax over 5 rows of 300.
    const std::vector<float> x = pattern(1500, 6.f, -3.f);
    std::vector<float> want(x.size());
    for (size_t r = 0; r < 5; ++r) {
      float m = -INFINITY, s = 0;
      for (size_t c = 0; c < 300; ++c) m = std::max(m, x[r * 300 + c]);
      for (size_t c = 0; c < 300; ++c) s += std::exp(x[r * 300 + c] - m);
      for (size_t c = 0; c < 300; ++c) want[r * 300 + c] = std::exp(x[r * 300 + c] - m) / s;
    }
    HI_ASSIGN_OR_RETURN(void* dx, b.upload(x));
    HI_ASSIGN_OR_RETURN(void* dy, b.zeros(x.size()));
    HI_RETURN_IF_ERROR(softmax_rows(DType::kFloat32, dx, dy, 5, 300, false, nullptr));
    HI_RETURN_IF_ERROR(compare("Softmax", dy, want));
  }
  {  // MatMul 37 x 29 by 29 x 71 plus a bias row.
    const int m = 37, k = 29, n = 71;
    const std::vector<float> a = pattern(m * k, 1.f, -0.5f), w = pattern(k * n, 1.f, -0.4f),
                             bias = pattern(n, 1.f, 0.f);
    std::vector<float> want(static_cast<size_t>(m * n));
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double s = bias[static_cast<size_t>(j)];
        for (int t = 0; t < k; ++t) s += double(a[static_cast<size_t>(i * k + t)]) * w[static_cast<size_t>(t * n + j)];
        want[static_cast<size_t>(i * n + j)] = static_cast<float>(s);
      }
    MatMulDesc d;
    d.m = m;
    d.n = n;
    d.k = k;
    d.beta = 1.f;
    d.c_row_stride = 0;
    d.c_col_stride = 1;
    HI_ASSIGN_OR_RETURN(void* da, b.upload(a));
    HI_ASSIGN_OR_RETURN(void* dw, b.upload(w));
    HI_ASSIGN_OR_RETURN(void* db, b.upload(bias));
    HI_ASSIGN_OR_RETURN(void* dy, b.zeros(want.size()));
    HI_RETURN_IF_ERROR(matmul(DType::kFloat32, d, da, dw, db, dy, nullptr));
    HI_RETURN_IF_ERROR(compare("MatMul", dy, want));
  }
  {  // A 3x3 convolution, padding 1, with bias and Relu: [1, 3, 9, 7] -> [1, 4, 9, 7].
    const int c = 3, o = 4, h = 9, wd = 7;
    const std::vector<float> x = pattern(c * h * wd, 2.f, -1.f), w = pattern(o * c * 9, 1.f, -0.5f),
                             bias = pattern(o, 1.f, -0.5f);
    const Conv3x3 ref = conv3x3_relu(x, w, bias, c, o, h, wd);
    HI_ASSIGN_OR_RETURN(void* dx, b.upload(x));
    HI_ASSIGN_OR_RETURN(void* dw, b.upload(w));
    HI_ASSIGN_OR_RETURN(void* db, b.upload(bias));
    HI_ASSIGN_OR_RETURN(void* dy, b.zeros(ref.want.size()));
    HI_RETURN_IF_ERROR(conv2d(DType::kFloat32, ref.desc, dx, dw, db, nullptr, dy, nullptr));
    HI_RETURN_IF_ERROR(compare("Conv", dy, ref.want));
  }
  return run_f16_checks(b);
}

}  // namespace

Status kernel_self_check(int device) {
  static std::mutex mutex;
  static std::map<int, Status> results;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = results.find(device);
  if (it != results.end()) return it->second;
  Status s = set_device(device);
  if (s.is_ok()) s = run_checks();
  if (!s.is_ok())
    s = error(StatusCode::kUnsupported, "the GPU kernels failed their self-check on ", backend_name(), ":", device,
              ": ", s.message());
  results.emplace(device, s);
  return s;
}

}  // namespace hi::gpu::HI_GPU_NS
