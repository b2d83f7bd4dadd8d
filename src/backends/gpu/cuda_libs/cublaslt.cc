#include "backends/gpu/cuda_libs/cublaslt.h"

#include <cublasLt.h>
#include <dlfcn.h>

#include <map>
#include <mutex>

#include "backends/gpu/device_api.h"

namespace hi::gpu::cuda_backend {
namespace {

// The entry points we call, resolved from the shared library.
struct Api {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtGetVersion) get_version = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatrixLayoutSetAttribute) layout_set = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
};

struct Loaded {
  VendorLibrary info;
  Api api;
};

const Loaded& loaded() {
  static const Loaded l = [] {
    Loaded out;
    void* handle = nullptr;
    for (const char* name : {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so"})
      if ((handle = dlopen(name, RTLD_NOW | RTLD_LOCAL))) break;
    if (!handle) {
      out.info.reason = "libcublasLt.so.13 (or .12) could not be loaded: " + std::string(dlerror());
      return out;
    }
    SymbolResolver sym(handle, "libcublasLt", &out.info);
    sym(out.api.create, "cublasLtCreate");
    sym(out.api.get_version, "cublasLtGetVersion");
    sym(out.api.desc_create, "cublasLtMatmulDescCreate");
    sym(out.api.desc_destroy, "cublasLtMatmulDescDestroy");
    sym(out.api.desc_set, "cublasLtMatmulDescSetAttribute");
    sym(out.api.layout_create, "cublasLtMatrixLayoutCreate");
    sym(out.api.layout_destroy, "cublasLtMatrixLayoutDestroy");
    sym(out.api.layout_set, "cublasLtMatrixLayoutSetAttribute");
    sym(out.api.matmul, "cublasLtMatmul");
    if (!sym.ok()) return out;
    out.info.version = version_string("cuBLASLt", out.api.get_version());
    out.info.available = true;
    return out;
  }();
  return l;
}

Status lt_check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return Status::ok();
  return error(s == CUBLAS_STATUS_NOT_SUPPORTED ? StatusCode::kUnsupported : StatusCode::kRuntimeError, "cuBLASLt ",
               what, " failed with status ", static_cast<int>(s));
}

// One handle per device, made on first use.
Result<cublasLtHandle_t> handle_for_current_device() {
  static std::mutex mutex;
  static std::map<int, cublasLtHandle_t> handles;
  HI_ASSIGN_OR_RETURN(const int device, current_device());
  std::lock_guard<std::mutex> lock(mutex);
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasLtHandle_t h = nullptr;
  HI_RETURN_IF_ERROR(lt_check(loaded().api.create(&h), "cublasLtCreate"));
  handles.emplace(device, h);
  return h;
}

// Destroys the descriptors it made when it goes out of scope.
struct Descriptors {
  const Api& api;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t first = nullptr, second = nullptr, out = nullptr;
  ~Descriptors() {
    if (op) api.desc_destroy(op);
    for (auto* l : {first, second, out})
      if (l) api.layout_destroy(l);
  }
};

}  // namespace

const VendorLibrary& cublaslt_library() { return loaded().info; }

Status cublaslt_matmul(DType dtype, const MatMulDesc& d, const void* a, const void* b, const void* c, void* y,
                       Stream stream) {
  const Loaded& lib = loaded();
  HI_RETURN_IF(!lib.info.available, kUnsupported, "cuBLASLt is not available: ", lib.info.reason);
  HI_RETURN_IF(dtype != DType::kFloat32 && dtype != DType::kFloat16, kUnsupported,
               "cuBLASLt path: ", dtype_name(dtype));
  const bool bias_row = c && d.c_row_stride == 0 && d.c_col_stride == 1 && d.beta == 1.f;
  const bool full_c = c && d.c_row_stride == d.n && d.c_col_stride == 1;
  HI_RETURN_IF(c && !bias_row && !full_c, kUnsupported, "cuBLASLt path: C broadcast with strides (", d.c_row_stride,
               ", ", d.c_col_stride, ")");
  if (d.batch == 0 || d.m == 0 || d.n == 0) return Status::ok();
  HI_ASSIGN_OR_RETURN(cublasLtHandle_t handle, handle_for_current_device());
  const cudaDataType_t type = dtype == DType::kFloat32 ? CUDA_R_32F : CUDA_R_16F;
  const Api& api = lib.api;
  Descriptors desc{api};
  // Row-major Y = op(A) op(B) is column-major Y^T = op(B)^T op(A)^T: B's data goes first.
  HI_RETURN_IF_ERROR(lt_check(api.desc_create(&desc.op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "MatmulDescCreate"));
  const cublasOperation_t op_first = d.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N,
                          op_second = d.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  HI_RETURN_IF_ERROR(
      lt_check(api.desc_set(desc.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_first, sizeof(op_first)), "TRANSA"));
  HI_RETURN_IF_ERROR(
      lt_check(api.desc_set(desc.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_second, sizeof(op_second)), "TRANSB"));
  // Column-major shapes as stored: B is [n, k] (ld n), or [k, n] (ld k) when transposed; A is
  // [k, m] (ld k), or [m, k] (ld m) when transposed; Y is [n, m] (ld n).
  const uint64_t b_rows = d.trans_b ? d.k : d.n, b_cols = d.trans_b ? d.n : d.k;
  const uint64_t a_rows = d.trans_a ? d.m : d.k, a_cols = d.trans_a ? d.k : d.m;
  HI_RETURN_IF_ERROR(
      lt_check(api.layout_create(&desc.first, type, b_rows, b_cols, static_cast<int64_t>(b_rows)), "layout B"));
  HI_RETURN_IF_ERROR(
      lt_check(api.layout_create(&desc.second, type, a_rows, a_cols, static_cast<int64_t>(a_rows)), "layout A"));
  HI_RETURN_IF_ERROR(lt_check(api.layout_create(&desc.out, type, d.n, d.m, d.n), "layout Y"));
  if (d.batch > 1) {
    const int32_t count = static_cast<int32_t>(d.batch);
    const std::pair<cublasLtMatrixLayout_t, int64_t> batched[] = {
        {desc.first, d.b_batch_stride}, {desc.second, d.a_batch_stride}, {desc.out, d.y_batch_stride}};
    for (const auto& [layout, stride] : batched) {
      HI_RETURN_IF_ERROR(
          lt_check(api.layout_set(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)), "batch"));
      HI_RETURN_IF_ERROR(
          lt_check(api.layout_set(layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)),
                   "batch stride"));
    }
  }
  float beta = 0.f;
  const void* c_matrix = y;  // unused with beta 0
  if (bias_row) {
    // The bias is along the rows of the column-major Y^T: n values.
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    HI_RETURN_IF_ERROR(
        lt_check(api.desc_set(desc.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof(epilogue)), "epilogue"));
    HI_RETURN_IF_ERROR(lt_check(api.desc_set(desc.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &c, sizeof(c)), "bias"));
    HI_RETURN_IF_ERROR(
        lt_check(api.desc_set(desc.op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &type, sizeof(type)), "bias type"));
  } else if (full_c) {
    HI_RETURN_IF(d.batch > 1, kUnsupported, "cuBLASLt path: a full C with a batch");
    beta = d.beta;
    c_matrix = c;
  }
  const float alpha = d.alpha;
  return lt_check(api.matmul(handle, desc.op, &alpha, b, desc.first, a, desc.second, &beta, c_matrix, desc.out, y,
                             desc.out, nullptr, nullptr, 0, static_cast<cudaStream_t>(stream)),
                  "cublasLtMatmul");
}

}  // namespace hi::gpu::cuda_backend
