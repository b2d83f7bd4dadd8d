// Versions against the compatibility matrix (data/compat_matrix.json, built in): the NVIDIA
// driver against the CUDA versions hipinfer and the frameworks were built for, GPU architectures
// against what ROCm, CUDA and the PyTorch build support, and the frameworks against each other.
#include <algorithm>

#include "doctor/context.h"

namespace hi::doctor {
namespace {

struct CudaUser {
  std::string who;      // "hipinfer", "torch", "onnxruntime-gpu", "the CUDA toolkit"
  std::string version;  // "12.1"
  bool required;        // false for an installed toolkit nobody may use
};

std::vector<CudaUser> cuda_users(const SystemFacts& f) {
  std::vector<CudaUser> users;
  if (starts_with(f.hipinfer_runtime, "CUDA ")) users.push_back({"hipinfer", f.hipinfer_runtime.substr(5), true});
  for (const auto& c : f.frameworks)
    if (starts_with(c.built_for, "CUDA ")) users.push_back({c.name, c.built_for.substr(5), true});
  if (!f.cuda_toolkit_version.empty()) users.push_back({"the CUDA toolkit", f.cuda_toolkit_version, false});
  return users;
}

void check_cuda(const Context& ctx, Sink& sink) {
  const auto& f = sink.facts;
  const Json& cuda = ctx.matrix()["cuda"];
  for (const auto& u : cuda_users(f)) {
    const std::string major = major_of(u.version);
    const std::string min_driver = cuda["min_driver_linux"][major].str();
    if (!f.nvidia_driver.empty() && !min_driver.empty() && compare_versions(f.nvidia_driver, min_driver) < 0) {
      const std::string title = u.who + " needs CUDA " + u.version + ", which needs NVIDIA driver " + min_driver +
                                " or newer; this one is " + f.nvidia_driver;
      const std::string why =
          "CUDA calls fail with 'the provided PTX was compiled with an unsupported toolchain' or 'driver version is "
          "insufficient'. Install driver " +
          min_driver + " or newer.";
      if (u.required) sink.error("compat.cuda_driver", title, why);
      else sink.warn("compat.cuda_driver", title, why);
    }
    const int min_sm = static_cast<int>(cuda["min_sm"][major].num());
    for (const auto& g : f.gpus) {
      if (g.vendor != "nvidia" || !starts_with(g.arch, "sm_") || min_sm == 0 || !u.required) continue;
      if (std::stoi(g.arch.substr(3)) < min_sm)
        sink.error("compat.cuda_arch",
                   g.name + " (" + g.arch + ") is older than CUDA " + major + " supports (sm_" +
                       std::to_string(min_sm) + " and newer)",
                   u.who + " was built with CUDA " + u.version +
                       " and has no kernels for this GPU. Use a build for an older CUDA major version.");
    }
  }
}

// The supported list of the newest ROCm release in the matrix not newer than the installed one.
std::vector<std::string> rocm_supported(const Context& ctx, const std::string& rocm) {
  std::vector<std::string> gfx;
  for (const auto& row : ctx.matrix()["rocm"]["supported_gfx"].items())
    if (compare_versions(major_minor_of(rocm), row["from"].str()) >= 0) gfx = row["gfx"].strings();
  return gfx;
}

void check_rocm(const Context& ctx, Sink& sink) {
  const auto& f = sink.facts;
  const auto supported = f.rocm_version.empty() ? std::vector<std::string>{} : rocm_supported(ctx, f.rocm_version);
  for (const auto& g : f.gpus) {
    if (g.vendor != "amd" || g.arch.empty()) continue;
    if (!supported.empty() && std::find(supported.begin(), supported.end(), g.arch) == supported.end())
      sink.warn(
          "compat.rocm_gpu",
          g.name + " (" + g.arch + ") is not on ROCm " + major_minor_of(f.rocm_version) + "'s list of supported GPUs",
          "Libraries may lack kernels for it (see lib.rocblas_arch); AMD's list: " + join(supported, " ") + ".");
    for (const auto& c : f.frameworks) {
      if (c.archs.empty() || std::find(c.archs.begin(), c.archs.end(), g.arch) != c.archs.end()) continue;
      sink.error(
          "compat.framework_arch", c.name + " " + c.version + " has no kernels for " + g.arch + " (" + g.name + ")",
          "It was built for " + join(c.archs, " ") +
              " only, and fails with 'invalid device function' or 'no kernel image'. Install a build that lists " +
              g.arch + ".");
    }
  }
  for (const auto& c : f.frameworks) {
    if (!starts_with(c.built_for, "ROCm ") || f.rocm_version.empty()) continue;
    if (major_of(c.built_for.substr(5)) != major_of(f.rocm_version))
      sink.warn("compat.framework_rocm",
                c.name + " is built for " + c.built_for + " but the system has ROCm " + f.rocm_version,
                "A different ROCm major version needs a matching kernel driver and libraries; use a " + c.name +
                    " build for ROCm " + major_minor_of(f.rocm_version) + ".");
  }
}

void check_frameworks_together(const Context& ctx, Sink& sink) {
  const Component* torch = nullptr;
  const Component* ort = nullptr;
  const Component* onnx = nullptr;
  for (const auto& c : sink.facts.frameworks) {
    if (c.name == "torch") torch = &c;
    if (starts_with(c.name, "onnxruntime")) ort = &c;
    if (c.name == "onnx") onnx = &c;
  }
  if (torch && ort && starts_with(torch->built_for, "CUDA ") && starts_with(ort->built_for, "CUDA ")) {
    if (major_of(torch->built_for.substr(5)) != major_of(ort->built_for.substr(5)))
      sink.warn(
          "compat.cuda_mix",
          "PyTorch is built for " + torch->built_for + " but " + ort->name + " for " + ort->built_for,
          "In one process the first CUDA libraries loaded win, and the other framework's GPU support fails to load.");
    else if (!torch->cudnn.empty() && !ort->cudnn.empty() && major_of(torch->cudnn) != major_of(ort->cudnn))
      sink.warn(
          "compat.cudnn_mix", "PyTorch uses cuDNN " + torch->cudnn + " but " + ort->name + " needs cuDNN " + ort->cudnn,
          "cuDNN major versions are not interchangeable; in one process one of them fails to load its GPU support.");
  }
  if (ort && onnx) {
    int ort_opset = 0, onnx_opset = 0;
    for (const auto& row : ctx.matrix()["onnxruntime"]["max_opset"].items())
      if (compare_versions(major_minor_of(ort->version), row["from"].str()) >= 0)
        ort_opset = static_cast<int>(row["opset"].num());
    for (const auto& row : ctx.matrix()["onnx"]["opset"].items())
      if (compare_versions(major_minor_of(onnx->version), row["from"].str()) >= 0)
        onnx_opset = static_cast<int>(row["opset"].num());
    if (ort_opset > 0 && onnx_opset > ort_opset)
      sink.warn(
          "compat.onnx_opset",
          "onnx " + onnx->version + " writes opset " + std::to_string(onnx_opset) + " but " + ort->name + " " +
              ort->version + " runs up to opset " + std::to_string(ort_opset),
          "Models exported with the default opset will not load in this ONNX Runtime; export with opset_version=" +
              std::to_string(ort_opset) + " or update ONNX Runtime.");
  }
}

}  // namespace

void check_compat(const Context& ctx, Sink& sink) {
  if (!ctx.matrix().is_object()) {
    sink.warn("compat.matrix", "The compatibility matrix could not be read", "Version checks against it were skipped.");
    return;
  }
  sink.facts.compat_matrix_checked = ctx.matrix()["last_checked"].str();
  check_cuda(ctx, sink);
  check_rocm(ctx, sink);
  check_frameworks_together(ctx, sink);
}

}  // namespace hi::doctor
