// cuDNN for the CUDA backend's 2-D convolution, loaded at run time with dlopen (as cuBLASLt is,
// cublaslt.h): a binary built with it still starts, and runs every convolution on its own kernel,
// where libcudnn.so.9 is absent. Only cuDNN's headers are needed to build, and not even those: a
// build without cudnn.h (or with cuDNN 8's) compiles this file to a library that says so in its
// reason. Compiled into the CUDA backend only (MIOpen is not in Debian 12).
//
// The legacy convolution API (cudnnConvolutionForward, cudnnConvolutionBiasActivationForward)
// with float32 compute: CUDNN_FMA_MATH for float32 (no TF32: the results must match the CPU at
// rtol 1e-4), tensor-op math allowed for float16. The algorithm comes from cuDNN's heuristics
// (cudnnGetConvolutionForwardAlgorithm_v7, nothing is benchmarked), the fastest whose workspace
// fits, cached per device and geometry. Handles come from a pool per device and are set to the
// caller's stream for each call, so any thread may call these on any stream.
#pragma once

#include <cstddef>

#include "backends/gpu/cuda_libs/vendor_library.h"
#include "backends/gpu/kernels/conv.h"

namespace hi::gpu::cuda_backend {

// Loads libcudnn.so.9 once per process (and checks that its sub-libraries libcudnn_ops.so.9 and
// libcudnn_cnn.so.9, which hold the legacy convolution API, load and match); never fails.
const VendorLibrary& cudnn_library();

// The most workspace cudnn_conv2d_workspace() chooses an algorithm for.
constexpr size_t kCudnnMaxWorkspaceBytes = size_t{64} << 20;

// The workspace bytes cudnn_conv2d needs for `desc` on the current device (0 is common): the
// fastest algorithm by cuDNN's heuristics whose workspace is at most kCudnnMaxWorkspaceBytes.
// Call it before cudnn_conv2d, outside any graph capture: it also creates the device's cuDNN
// handle and caches the choice, so that cudnn_conv2d allocates nothing. kUnsupported for what
// cudnn_conv2d cannot do (see there), and whenever the library is absent.
Result<size_t> cudnn_conv2d_workspace(DType dtype, const Conv2dDesc& desc);

// The contract of conv2d() (conv.h): NCHW, groups (depthwise included), strides, dilations, pads
// top / left with the output size given; y = act(conv(x, w) + bias + residual). Bias with ReLU
// (and the residual, if any) is one cudnnConvolutionBiasActivationForward call; anything else is
// cudnnConvolutionForward followed by the own binary / unary kernels (elementwise.h) on y.
// `workspace` holds `workspace_bytes` of device memory (at least cudnn_conv2d_workspace's answer;
// may be null when that is 0); the algorithm is the fastest that fits in it. Nothing is allocated
// and nothing synchronises: the calls are queued on `stream`.
// kUnsupported, with nothing queued, when the library is absent, for a dtype other than float32
// and float16, for pads the output size says are not the same on both sides (cuDNN pads
// symmetrically), for sizes beyond cuDNN's int dimensions, for buffers not 16-byte aligned, and
// when cuDNN has no algorithm for the geometry: the caller then runs conv2d(). Invalid geometry is
// kInvalidArgument, as for conv2d().
Status cudnn_conv2d(DType dtype, const Conv2dDesc& desc, const void* x, const void* w, const void* bias,
                    const void* residual, void* y, void* workspace, size_t workspace_bytes, Stream stream);

}  // namespace hi::gpu::cuda_backend
