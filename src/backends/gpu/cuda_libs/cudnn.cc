#include "backends/gpu/cuda_libs/cudnn.h"

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "backends/gpu/device_api.h"
#include "backends/gpu/kernels/elementwise.h"

// Only the headers are needed, and the build goes on without them: the library then says why not.
#if __has_include(<cudnn.h>)
#include <cudnn.h>
#endif
#if defined(CUDNN_MAJOR) && CUDNN_MAJOR >= 9
#define HI_CUDNN_HEADERS 1
#endif

namespace hi::gpu::cuda_backend {

#if !defined(HI_CUDNN_HEADERS)

namespace {
const VendorLibrary& absent() {
  static const VendorLibrary l = [] {
    VendorLibrary out;
#if defined(CUDNN_MAJOR)
    out.reason = "this build has cuDNN " + std::to_string(CUDNN_MAJOR) + " headers; hipinfer needs cuDNN 9's";
#else
    out.reason = "this build has no cuDNN headers (cudnn.h was not found when hipinfer was compiled)";
#endif
    return out;
  }();
  return l;
}
}  // namespace

const VendorLibrary& cudnn_library() { return absent(); }

Result<size_t> cudnn_conv2d_workspace(DType, const Conv2dDesc&) {
  return error(StatusCode::kUnsupported, "cuDNN is not available: ", absent().reason);
}

Status cudnn_conv2d(DType, const Conv2dDesc&, const void*, const void*, const void*, const void*, void*, void*, size_t,
                    Stream) {
  return error(StatusCode::kUnsupported, "cuDNN is not available: ", absent().reason);
}

#else  // HI_CUDNN_HEADERS

namespace {

// The entry points we call, resolved from libcudnn.so.9 (in cuDNN 9 a small front library that
// exports the whole API and forwards each call to the sub-library that holds it).
struct Api {
  decltype(&cudnnGetVersion) get_version = nullptr;
  decltype(&cudnnGetErrorString) error_string = nullptr;
  decltype(&cudnnOpsVersionCheck) ops_version_check = nullptr;
  decltype(&cudnnCnnVersionCheck) cnn_version_check = nullptr;
  decltype(&cudnnCreate) create = nullptr;
  decltype(&cudnnSetStream) set_stream = nullptr;
  decltype(&cudnnCreateTensorDescriptor) tensor_create = nullptr;
  decltype(&cudnnSetTensor4dDescriptor) tensor_set = nullptr;
  decltype(&cudnnDestroyTensorDescriptor) tensor_destroy = nullptr;
  decltype(&cudnnCreateFilterDescriptor) filter_create = nullptr;
  decltype(&cudnnSetFilter4dDescriptor) filter_set = nullptr;
  decltype(&cudnnDestroyFilterDescriptor) filter_destroy = nullptr;
  decltype(&cudnnCreateConvolutionDescriptor) conv_create = nullptr;
  decltype(&cudnnSetConvolution2dDescriptor) conv_set = nullptr;
  decltype(&cudnnSetConvolutionGroupCount) conv_set_groups = nullptr;
  decltype(&cudnnSetConvolutionMathType) conv_set_math = nullptr;
  decltype(&cudnnDestroyConvolutionDescriptor) conv_destroy = nullptr;
  decltype(&cudnnGetConvolution2dForwardOutputDim) output_dim = nullptr;
  decltype(&cudnnGetConvolutionForwardAlgorithmMaxCount) algo_count = nullptr;
  decltype(&cudnnGetConvolutionForwardAlgorithm_v7) algo_heuristics = nullptr;
  decltype(&cudnnGetConvolutionForwardWorkspaceSize) workspace_size = nullptr;
  decltype(&cudnnConvolutionForward) forward = nullptr;
  decltype(&cudnnConvolutionBiasActivationForward) forward_bias_activation = nullptr;
  decltype(&cudnnCreateActivationDescriptor) activation_create = nullptr;
  decltype(&cudnnSetActivationDescriptor) activation_set = nullptr;
  decltype(&cudnnDestroyActivationDescriptor) activation_destroy = nullptr;
};

struct Loaded {
  VendorLibrary info;
  Api api;
};

std::string status_text(const Api& api, cudnnStatus_t s) {
  return "status " + std::to_string(static_cast<int>(s)) +
         (api.error_string ? std::string(" (") + api.error_string(s) + ")" : "");
}

const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded out;
    void* handle = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
      out.info.reason = "libcudnn.so.9 could not be loaded: " + std::string(dlerror());
      return out;
    }
    SymbolResolver sym(handle, "libcudnn.so.9", &out.info);
    Api& a = out.api;
    sym(a.get_version, "cudnnGetVersion");
    sym(a.error_string, "cudnnGetErrorString");
    sym(a.ops_version_check, "cudnnOpsVersionCheck");
    sym(a.cnn_version_check, "cudnnCnnVersionCheck");
    sym(a.create, "cudnnCreate");
    sym(a.set_stream, "cudnnSetStream");
    sym(a.tensor_create, "cudnnCreateTensorDescriptor");
    sym(a.tensor_set, "cudnnSetTensor4dDescriptor");
    sym(a.tensor_destroy, "cudnnDestroyTensorDescriptor");
    sym(a.filter_create, "cudnnCreateFilterDescriptor");
    sym(a.filter_set, "cudnnSetFilter4dDescriptor");
    sym(a.filter_destroy, "cudnnDestroyFilterDescriptor");
    sym(a.conv_create, "cudnnCreateConvolutionDescriptor");
    sym(a.conv_set, "cudnnSetConvolution2dDescriptor");
    sym(a.conv_set_groups, "cudnnSetConvolutionGroupCount");
    sym(a.conv_set_math, "cudnnSetConvolutionMathType");
    sym(a.conv_destroy, "cudnnDestroyConvolutionDescriptor");
    sym(a.output_dim, "cudnnGetConvolution2dForwardOutputDim");
    sym(a.algo_count, "cudnnGetConvolutionForwardAlgorithmMaxCount");
    sym(a.algo_heuristics, "cudnnGetConvolutionForwardAlgorithm_v7");
    sym(a.workspace_size, "cudnnGetConvolutionForwardWorkspaceSize");
    sym(a.forward, "cudnnConvolutionForward");
    sym(a.forward_bias_activation, "cudnnConvolutionBiasActivationForward");
    sym(a.activation_create, "cudnnCreateActivationDescriptor");
    sym(a.activation_set, "cudnnSetActivationDescriptor");
    sym(a.activation_destroy, "cudnnDestroyActivationDescriptor");
    if (!sym.ok()) return out;
    const size_t v = a.get_version();  // major * 10000 + minor * 100 + patch since cuDNN 9
    out.info.version = version_string("cuDNN", v);
    if (v / 10000 != 9) {
      out.info.reason = "libcudnn.so.9 reports version " + std::to_string(v) + ", not 9.x";
      return out;
    }
    // The legacy convolution API lives in libcudnn_cnn.so.9 (on top of libcudnn_ops.so.9), which
    // the front library loads on first use: load them now, so that a missing or mismatched one is
    // a reason here rather than a failed convolution later.
    const std::pair<decltype(a.ops_version_check), const char*> subs[] = {{a.ops_version_check, "libcudnn_ops.so.9"},
                                                                          {a.cnn_version_check, "libcudnn_cnn.so.9"}};
    for (const auto& [check, name] : subs) {
      const cudnnStatus_t s = check();
      if (s != CUDNN_STATUS_SUCCESS) {
        out.info.reason =
            std::string(name) + " could not be loaded or does not match " + out.info.version + ": " + status_text(a, s);
        return out;
      }
    }
    out.info.available = true;
    return out;
  }();
  return l;
}

// cuDNN 9 groups its codes by thousands: 3xxx is "not supported" (shape, layout, architecture,
// padding, a missing sub-library, ...).
bool not_supported(cudnnStatus_t s) {
  return static_cast<int>(s) / 1000 == 3 || s == CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH ||
         s == CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED;
}

Status check(cudnnStatus_t s, const char* what) {
  if (s == CUDNN_STATUS_SUCCESS) return Status::ok();
  return error(not_supported(s) ? StatusCode::kUnsupported : StatusCode::kRuntimeError, "cuDNN ", what, " failed with ",
               status_text(loaded().api, s));
}

// The descriptor as cuDNN takes it: ints, pads equal on both sides.
struct Geometry {
  int n = 0, c = 0, h = 0, w = 0, k = 0, oh = 0, ow = 0, groups = 1, kh = 1, kw = 1;
  int sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0;
  auto operator<=>(const Geometry&) const = default;
};

// The output size cuDNN gives for symmetric pads (0 when the window does not fit once).
int64_t symmetric_out(int64_t in, int64_t pad, int64_t kernel, int64_t stride, int64_t dilation) {
  const int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1;
  return span < 0 ? 0 : span / stride + 1;
}

// Everything that needs neither a device nor a handle: the library, the dtype, the geometry.
// `empty` is set (and nothing else checked) when the output has no elements.
Result<Geometry> check_call(DType dtype, const Conv2dDesc& d, bool* empty) {
  const Loaded& lib = loaded();
  HI_RETURN_IF(!lib.info.available, kUnsupported, "cuDNN is not available: ", lib.info.reason);
  HI_RETURN_IF(dtype != DType::kFloat32 && dtype != DType::kFloat16, kUnsupported, "cuDNN Conv: no path for ",
               dtype_name(dtype), " (float32, float16)");
  // As conv2d() checks it.
  HI_RETURN_IF(d.batch < 0 || d.in_channels <= 0 || d.out_channels <= 0 || d.groups <= 0 || d.kernel_h <= 0 ||
                   d.kernel_w <= 0 || d.stride_h <= 0 || d.stride_w <= 0 || d.dilation_h <= 0 || d.dilation_w <= 0 ||
                   d.in_h < 0 || d.in_w < 0 || d.out_h < 0 || d.out_w < 0,
               kInvalidArgument, "cuDNN Conv: invalid geometry (batch ", d.batch, ", channels ", d.in_channels, " -> ",
               d.out_channels, ", groups ", d.groups, ", kernel ", d.kernel_h, "x", d.kernel_w, ", strides ",
               d.stride_h, "x", d.stride_w, ", dilations ", d.dilation_h, "x", d.dilation_w, ")");
  HI_RETURN_IF(d.in_channels % d.groups != 0 || d.out_channels % d.groups != 0, kInvalidArgument,
               "cuDNN Conv: ", d.in_channels, " input and ", d.out_channels, " output channels do not divide into ",
               d.groups, " groups");
  *empty = d.batch == 0 || d.out_h == 0 || d.out_w == 0;
  if (*empty) return Geometry{};
  HI_RETURN_IF(d.in_h == 0 || d.in_w == 0, kUnsupported, "cuDNN Conv: an empty input (", d.in_h, "x", d.in_w,
               ") with a non-empty output");
  HI_RETURN_IF(d.pad_top < 0 || d.pad_left < 0, kUnsupported, "cuDNN Conv: negative pads (", d.pad_top, ", ",
               d.pad_left, ")");
  const int64_t sym_h = symmetric_out(d.in_h, d.pad_top, d.kernel_h, d.stride_h, d.dilation_h);
  const int64_t sym_w = symmetric_out(d.in_w, d.pad_left, d.kernel_w, d.stride_w, d.dilation_w);
  HI_RETURN_IF(sym_h != d.out_h || sym_w != d.out_w, kUnsupported, "cuDNN Conv: an output of ", d.out_h, "x", d.out_w,
               " needs bottom / right pads other than the top / left pads (", d.pad_top, ", ", d.pad_left,
               "), which would give ", sym_h, "x", sym_w, "; cuDNN pads both sides alike");
  // cuDNN's dimensions are ints and its tensors hold fewer than 2^31 elements.
  const int64_t dims[] = {d.batch,    d.in_channels, d.in_h,       d.in_w,       d.out_channels, d.kernel_h, d.kernel_w,
                          d.stride_h, d.stride_w,    d.dilation_h, d.dilation_w, d.pad_top,      d.pad_left};
  bool fits = true;
  for (int64_t v : dims) fits = fits && v <= INT_MAX;
  const auto below = [](int64_t a, int64_t b, int64_t c, int64_t e) {
    const double numel =
        static_cast<double>(a) * static_cast<double>(b) * static_cast<double>(c) * static_cast<double>(e);
    return numel < 2147483648.0;
  };
  fits = fits && below(d.batch, d.in_channels, d.in_h, d.in_w) && below(d.batch, d.out_channels, d.out_h, d.out_w) &&
         below(d.out_channels, d.in_channels / d.groups, d.kernel_h, d.kernel_w);
  HI_RETURN_IF(!fits, kUnsupported, "cuDNN Conv: x [", d.batch, ", ", d.in_channels, ", ", d.in_h, ", ", d.in_w,
               "] or y [", d.batch, ", ", d.out_channels, ", ", d.out_h, ", ", d.out_w,
               "] is beyond cuDNN's limits (int dimensions, fewer than 2^31 elements)");
  Geometry g;
  g.n = static_cast<int>(d.batch);
  g.c = static_cast<int>(d.in_channels);
  g.h = static_cast<int>(d.in_h);
  g.w = static_cast<int>(d.in_w);
  g.k = static_cast<int>(d.out_channels);
  g.oh = static_cast<int>(d.out_h);
  g.ow = static_cast<int>(d.out_w);
  g.groups = static_cast<int>(d.groups);
  g.kh = static_cast<int>(d.kernel_h);
  g.kw = static_cast<int>(d.kernel_w);
  g.sh = static_cast<int>(d.stride_h);
  g.sw = static_cast<int>(d.stride_w);
  g.dh = static_cast<int>(d.dilation_h);
  g.dw = static_cast<int>(d.dilation_w);
  g.ph = static_cast<int>(d.pad_top);
  g.pw = static_cast<int>(d.pad_left);
  return g;
}

// Handles, a pool per device: a call takes one, sets it to its stream and gives it back, so a
// handle is never used by two threads at once and there are never more than the threads that
// ran convolutions at the same time. Never destroyed (the runtime may be gone at exit).
struct HandlePool {
  std::mutex mutex;
  std::map<int, std::vector<cudnnHandle_t> > idle;
};
HandlePool& handle_pool() {
  static auto* pool = new HandlePool;
  return *pool;
}

struct Lease {
  int device = -1;
  cudnnHandle_t handle = nullptr;
  Lease() = default;
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease() {
    if (!handle) return;
    HandlePool& pool = handle_pool();
    std::lock_guard<std::mutex> lock(pool.mutex);
    pool.idle[device].push_back(handle);
  }
};

// A handle for the current device; cudnnCreate (which allocates on the device) only when every
// handle of the device is in use.
Status acquire(Lease& lease) {
  HI_ASSIGN_OR_RETURN(lease.device, current_device());
  HandlePool& pool = handle_pool();
  {
    std::lock_guard<std::mutex> lock(pool.mutex);
    auto& idle = pool.idle[lease.device];
    if (!idle.empty()) {
      lease.handle = idle.back();
      idle.pop_back();
      return Status::ok();
    }
  }
  cudnnHandle_t h = nullptr;
  HI_RETURN_IF_ERROR(check(loaded().api.create(&h), "cudnnCreate"));
  lease.handle = h;
  return Status::ok();
}

// Destroys the descriptors it made when it goes out of scope.
struct Descriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnActivationDescriptor_t activation = nullptr;
  Descriptors() = default;
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
  ~Descriptors() {
    const Api& api = loaded().api;
    for (auto* t : {x, y, bias})
      if (t) api.tensor_destroy(t);
    if (w) api.filter_destroy(w);
    if (conv) api.conv_destroy(conv);
    if (activation) api.activation_destroy(activation);
  }
};

cudnnDataType_t data_type(DType dtype) { return dtype == DType::kFloat32 ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF; }

// x, w, y and the convolution (float32 compute, cross-correlation as ONNX's Conv).
Status make_descriptors(DType dtype, const Geometry& g, Descriptors& d) {
  const Api& api = loaded().api;
  const cudnnDataType_t type = data_type(dtype);
  HI_RETURN_IF_ERROR(check(api.tensor_create(&d.x), "cudnnCreateTensorDescriptor"));
  HI_RETURN_IF_ERROR(check(api.tensor_set(d.x, CUDNN_TENSOR_NCHW, type, g.n, g.c, g.h, g.w), "x descriptor"));
  HI_RETURN_IF_ERROR(check(api.tensor_create(&d.y), "cudnnCreateTensorDescriptor"));
  HI_RETURN_IF_ERROR(check(api.tensor_set(d.y, CUDNN_TENSOR_NCHW, type, g.n, g.k, g.oh, g.ow), "y descriptor"));
  HI_RETURN_IF_ERROR(check(api.filter_create(&d.w), "cudnnCreateFilterDescriptor"));
  HI_RETURN_IF_ERROR(
      check(api.filter_set(d.w, type, CUDNN_TENSOR_NCHW, g.k, g.c / g.groups, g.kh, g.kw), "w descriptor"));
  HI_RETURN_IF_ERROR(check(api.conv_create(&d.conv), "cudnnCreateConvolutionDescriptor"));
  HI_RETURN_IF_ERROR(
      check(api.conv_set(d.conv, g.ph, g.pw, g.sh, g.sw, g.dh, g.dw, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
            "convolution descriptor"));
  HI_RETURN_IF_ERROR(check(api.conv_set_groups(d.conv, g.groups), "cudnnSetConvolutionGroupCount"));
  int n = 0, k = 0, oh = 0, ow = 0;
  HI_RETURN_IF_ERROR(
      check(api.output_dim(d.conv, d.x, d.w, &n, &k, &oh, &ow), "cudnnGetConvolution2dForwardOutputDim"));
  HI_RETURN_IF(n != g.n || k != g.k || oh != g.oh || ow != g.ow, kUnsupported, "cuDNN Conv: cuDNN computes an output [",
               n, ", ", k, ", ", oh, ", ", ow, "], not [", g.n, ", ", g.k, ", ", g.oh, ", ", g.ow, "]");
  return Status::ok();
}

// An algorithm cuDNN's heuristics offer, with the math it runs under and its workspace.
struct Candidate {
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t bytes = 0;
};
// What is cached per device, dtype and geometry: the candidates, fastest first; whether the
// fused bias + ReLU call was refused once (then the separate kernels run from then on).
struct Choice {
  std::vector<Candidate> candidates;
  std::atomic<bool> fused_refused{false};
};
struct Key {
  int device = 0;
  DType dtype = DType::kFloat32;
  Geometry g;
  auto operator<=>(const Key&) const = default;
};

// float32 runs on FMA kernels only (the default math allows TF32 on Ampere and newer); float16
// may use tensor cores, with float32 accumulation (the convolution's compute type).
bool math_allowed(DType dtype, cudnnMathType_t math) {
  if (dtype == DType::kFloat32) return math == CUDNN_DEFAULT_MATH || math == CUDNN_FMA_MATH;
  return math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}
cudnnMathType_t math_to_run(DType dtype, cudnnMathType_t offered) {
  return dtype == DType::kFloat32 ? CUDNN_FMA_MATH : offered;
}

Result<Choice*> choice_for(DType dtype, const Geometry& g, const Lease& lease, const Descriptors& d) {
  static std::mutex mutex;
  static auto* cache = new std::map<Key, std::unique_ptr<Choice> >;  // never destroyed
  const Key key{lease.device, dtype, g};
  {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = cache->find(key);
    if (it != cache->end()) return it->second.get();
  }
  const Api& api = loaded().api;
  int count = 0;
  HI_RETURN_IF_ERROR(check(api.algo_count(lease.handle, &count), "cudnnGetConvolutionForwardAlgorithmMaxCount"));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> offered(static_cast<size_t>(std::max(count, 1)));
  int returned = 0;
  HI_RETURN_IF_ERROR(check(api.conv_set_math(d.conv, math_to_run(dtype, CUDNN_TENSOR_OP_MATH)), "math type"));
  HI_RETURN_IF_ERROR(check(api.algo_heuristics(lease.handle, d.x, d.w, d.conv, d.y, static_cast<int>(offered.size()),
                                               &returned, offered.data()),
                           "cudnnGetConvolutionForwardAlgorithm_v7"));
  auto choice = std::make_unique<Choice>();
  for (int i = 0; i < returned; ++i) {
    const cudnnConvolutionFwdAlgoPerf_t& p = offered[static_cast<size_t>(i)];
    if (p.status != CUDNN_STATUS_SUCCESS || !math_allowed(dtype, p.mathType)) continue;
    Candidate c;
    c.algo = p.algo;
    c.math = math_to_run(dtype, p.mathType);
    bool seen = false;
    for (const Candidate& e : choice->candidates) seen = seen || (e.algo == c.algo && e.math == c.math);
    if (seen) continue;
    // Asked under the math it will run with: an algorithm cuDNN cannot run that way drops out.
    if (api.conv_set_math(d.conv, c.math) != CUDNN_STATUS_SUCCESS) continue;
    if (api.workspace_size(lease.handle, d.x, d.w, d.conv, d.y, c.algo, &c.bytes) != CUDNN_STATUS_SUCCESS) continue;
    choice->candidates.push_back(c);
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, inserted] = cache->try_emplace(key, std::move(choice));  // another thread may have been first
  return it->second.get();
}

Result<Candidate> pick(const Choice& choice, size_t workspace_bytes) {
  HI_RETURN_IF(choice.candidates.empty(), kUnsupported,
               "cuDNN Conv: cuDNN's heuristics offer no algorithm for this geometry and dtype",
               " (float32 without tensor cores)");
  size_t smallest = SIZE_MAX;
  for (const Candidate& c : choice.candidates) {
    if (c.bytes <= workspace_bytes) return c;
    smallest = std::min(smallest, c.bytes);
  }
  return error(StatusCode::kUnsupported, "cuDNN Conv: no algorithm fits in ", workspace_bytes,
               " bytes of workspace; the smallest needs ", smallest);
}

// The handle, descriptors and cached choice of one call.
struct Call {
  Lease lease;
  Descriptors desc;
  Choice* choice = nullptr;
};
Status open_call(DType dtype, const Geometry& g, Call& call) {
  HI_RETURN_IF_ERROR(acquire(call.lease));
  HI_RETURN_IF_ERROR(make_descriptors(dtype, g, call.desc));
  HI_ASSIGN_OR_RETURN(call.choice, choice_for(dtype, g, call.lease, call.desc));
  return Status::ok();
}

bool aligned(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

}  // namespace

const VendorLibrary& cudnn_library() { return loaded().info; }

Result<size_t> cudnn_conv2d_workspace(DType dtype, const Conv2dDesc& desc) {
  bool empty = false;
  HI_ASSIGN_OR_RETURN(const Geometry g, check_call(dtype, desc, &empty));
  if (empty) return size_t{0};
  Call call;
  HI_RETURN_IF_ERROR(open_call(dtype, g, call));
  HI_ASSIGN_OR_RETURN(const Candidate c, pick(*call.choice, kCudnnMaxWorkspaceBytes));
  return c.bytes;
}

Status cudnn_conv2d(DType dtype, const Conv2dDesc& d, const void* x, const void* w, const void* bias,
                    const void* residual, void* y, void* workspace, size_t workspace_bytes, Stream stream) {
  bool empty = false;
  HI_ASSIGN_OR_RETURN(const Geometry g, check_call(dtype, d, &empty));
  if (empty) return Status::ok();
  HI_RETURN_IF(x == nullptr || w == nullptr || y == nullptr, kInvalidArgument, "cuDNN Conv: null buffer");
  HI_RETURN_IF(workspace == nullptr && workspace_bytes > 0, kInvalidArgument, "cuDNN Conv: a null workspace of ",
               workspace_bytes, " bytes");
  HI_RETURN_IF(!aligned(x) || !aligned(w) || !aligned(y) || !aligned(bias) || !aligned(residual) || !aligned(workspace),
               kUnsupported, "cuDNN Conv: a buffer is not 16-byte aligned");
  const Api& api = loaded().api;
  Call call;
  HI_RETURN_IF_ERROR(open_call(dtype, g, call));
  HI_ASSIGN_OR_RETURN(const Candidate c, pick(*call.choice, workspace_bytes));
  const cudnnHandle_t h = call.lease.handle;
  HI_RETURN_IF_ERROR(check(api.set_stream(h, static_cast<cudaStream_t>(stream)), "cudnnSetStream"));
  HI_RETURN_IF_ERROR(check(api.conv_set_math(call.desc.conv, c.math), "math type"));
  const cudnnDataType_t type = data_type(dtype);

  // y = relu(conv + residual + bias) in one call.
  const bool relu = d.has_activation && d.activation.kind == UnaryKind::kRelu;
  if (bias && relu && !call.choice->fused_refused.load(std::memory_order_relaxed)) {
    Descriptors& desc = call.desc;
    HI_RETURN_IF_ERROR(check(api.tensor_create(&desc.bias), "cudnnCreateTensorDescriptor"));
    HI_RETURN_IF_ERROR(check(api.tensor_set(desc.bias, CUDNN_TENSOR_NCHW, type, 1, g.k, 1, 1), "bias descriptor"));
    HI_RETURN_IF_ERROR(check(api.activation_create(&desc.activation), "cudnnCreateActivationDescriptor"));
    HI_RETURN_IF_ERROR(check(api.activation_set(desc.activation, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
                             "activation descriptor"));
    const float alpha1 = 1.f, alpha2 = residual ? 1.f : 0.f;
    const cudnnStatus_t s = api.forward_bias_activation(h, &alpha1, desc.x, x, desc.w, w, desc.conv, c.algo, workspace,
                                                        workspace_bytes, &alpha2, desc.y, residual ? residual : y,
                                                        desc.bias, bias, desc.activation, desc.y, y);
    if (s == CUDNN_STATUS_SUCCESS) return Status::ok();
    // Refused (this algorithm, or this configuration, has no fused form): nothing was queued;
    // the separate calls below do it, now and from now on.
    const int family = static_cast<int>(s) / 1000;
    if (family != 2 && family != 3) return check(s, "cudnnConvolutionBiasActivationForward");
    call.choice->fused_refused.store(true, std::memory_order_relaxed);
  }

  const float alpha = 1.f, beta = 0.f;
  HI_RETURN_IF_ERROR(check(api.forward(h, &alpha, call.desc.x, x, call.desc.w, w, call.desc.conv, c.algo, workspace,
                                       workspace_bytes, &beta, call.desc.y, y),
                           "cudnnConvolutionForward"));
  const Shape y_shape = {g.n, g.k, g.oh, g.ow};
  if (bias) {
    HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index(y_shape, {g.k, 1, 1}));
    HI_RETURN_IF_ERROR(binary(BinaryKind::kAdd, dtype, y, bias, y, index, stream));
  }
  if (residual) {
    HI_ASSIGN_OR_RETURN(const BroadcastIndex index, make_broadcast_index(y_shape, y_shape));
    HI_RETURN_IF_ERROR(binary(BinaryKind::kAdd, dtype, y, residual, y, index, stream));
  }
  if (d.has_activation) HI_RETURN_IF_ERROR(unary(d.activation, dtype, y, y, shape_numel(y_shape), stream));
  return Status::ok();
}

#endif  // HI_CUDNN_HEADERS

}  // namespace hi::gpu::cuda_backend
