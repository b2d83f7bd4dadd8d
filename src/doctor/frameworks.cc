// PyTorch, ONNX Runtime and onnx installed for the Python in PATH (or $HI_PYTHON): versions from
// their dist-info METADATA and version files, read without importing them, and what they were
// built for (torch/version.py, onnxruntime/capi/build_and_package_info.py, the GPU targets in
// libtorch_hip.so).
#include <algorithm>
#include <regex>

#include "doctor/elf.h"
#include "doctor/loader.h"

namespace hi::doctor {
namespace {

// Python prints its executable, version and sys.path; nothing is imported but sys.
const std::vector<std::string> kPythonArgs = {
    "-c", "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3]); print('\\n'.join(sys.path))"};

struct Python {
  std::string exe, version;
  std::vector<std::string> site_dirs;  // sys.path entries that hold packages, in import order
};

std::optional<Python> find_python(const Context& ctx) {
  const std::vector<std::string> names = ctx.has_env("HI_PYTHON") ? std::vector<std::string>{ctx.env("HI_PYTHON")}
                                                                  : std::vector<std::string>{"python3", "python"};
  for (const auto& name : names) {
    const auto out = ctx.tool(name, kPythonArgs);
    if (!out) continue;
    const auto lines = split(*out, '\n');
    if (lines.size() < 2) continue;
    Python py{trim(lines[0]), trim(lines[1]), {}};
    for (size_t i = 2; i < lines.size(); ++i) {
      const std::string d = trim(lines[i]);
      if (!d.empty() && ctx.is_dir(d) && std::find(py.site_dirs.begin(), py.site_dirs.end(), d) == py.site_dirs.end())
        py.site_dirs.push_back(d);
    }
    return py;
  }
  return std::nullopt;
}

// "onnxruntime_gpu-1.18.0.dist-info" -> "onnxruntime-gpu" (PEP 503 normalised name).
std::string dist_name(const std::string& dir) {
  std::string name = lower(dir.substr(0, dir.find('-')));
  std::replace(name.begin(), name.end(), '_', '-');
  return name;
}

// `name = 'value'` or `name: Optional[str] = 'value'` from a generated version file.
std::string py_assignment(const std::string& text, const std::string& name) {
  std::smatch m;
  if (std::regex_search(text, m, std::regex("(^|\\n)" + name + "\\s*(:[^=\\n]*)?=\\s*['\"]([^'\"]*)['\"]")))
    return m[3];
  return "";
}

void describe_torch(const Context& ctx, const std::string& site, Component& c, const std::string& metadata) {
  const std::string version_py = ctx.read(site + "/torch/version.py").value_or("");
  const std::string cuda = py_assignment(version_py, "cuda"), hip = py_assignment(version_py, "hip");
  if (!cuda.empty()) c.built_for = "CUDA " + cuda;
  if (!hip.empty()) {
    c.built_for = "ROCm " + major_minor_of(hip);
    c.archs = hip_offload_targets(ctx.host_path(site + "/torch/lib/libtorch_hip.so"));
  }
  // CUDA wheels depend on the cuDNN wheel: "Requires-Dist: nvidia-cudnn-cu12==9.1.0.70; ..."
  std::smatch m;
  if (std::regex_search(metadata, m, std::regex("Requires-Dist: nvidia-cudnn-cu[0-9]+\\s*\\(?==+\\s*([0-9.]+)")))
    c.cudnn = m[1];
}

void describe_onnxruntime(const Context& ctx, const std::string& site, Component& c) {
  const std::string info = ctx.read(site + "/onnxruntime/capi/build_and_package_info.py").value_or("");
  const std::string cuda = py_assignment(info, "cuda_version"), rocm = py_assignment(info, "rocm_version");
  c.cudnn = py_assignment(info, "cudnn_version");
  if (!cuda.empty()) c.built_for = "CUDA " + cuda;
  if (!rocm.empty()) c.built_for = "ROCm " + rocm;
  if (c.built_for.empty() && c.name == "onnxruntime-gpu") {
    // Older wheels do not say; the default build of each release is in the matrix.
    for (const auto& row : ctx.matrix()["onnxruntime"]["gpu_package_defaults"].items())
      if (compare_versions(major_minor_of(c.version), row["from"].str()) >= 0) {
        c.built_for = "CUDA " + row["cuda"].str();
        if (c.cudnn.empty()) c.cudnn = row["cudnn"].str();
      }
  }
}

std::string pip(const Python& py) { return shell_quote(py.exe) + " -m pip"; }

// The newest PyTorch wheel index (from the matrix) not newer than what the system runs.
std::string torch_index(const Context& ctx, const SystemFacts& f, const std::string& vendor) {
  const Json& indexes = ctx.matrix()["pytorch"]["wheel_indexes"][vendor == "amd" ? "rocm" : "cuda"];
  std::string limit = vendor == "amd" ? major_minor_of(f.rocm_version) : "";
  if (vendor == "nvidia") {  // the newest CUDA the driver supports
    for (const auto& [major, row] : ctx.matrix()["cuda"]["min_driver_linux"].members())
      if (!f.nvidia_driver.empty() && compare_versions(f.nvidia_driver, row.str()) >= 0) limit = major + ".99";
  }
  std::string best;
  for (const auto& row : indexes.items())
    if (limit.empty() || compare_versions(row["version"].str(), limit) <= 0) best = row["index"].str();
  return best;
}

void check_gpu_builds(const Context& ctx, Sink& sink, const Python& py) {
  const auto& f = sink.facts;
  const std::string vendor = count_gpus(f, "amd") > 0 ? "amd" : count_gpus(f, "nvidia") > 0 ? "nvidia" : "";
  if (vendor.empty()) return;
  const std::string want = vendor == "amd" ? "ROCm" : "CUDA";
  std::vector<std::string> ort_packages;
  for (const auto& c : f.frameworks) {
    if (starts_with(c.name, "onnxruntime")) ort_packages.push_back(c.name);
    if (c.name != "torch" || starts_with(c.built_for, want)) continue;
    const std::string index = torch_index(ctx, f, vendor);
    const std::string fix =
        index.empty()
            ? ""
            : pip(py) + " install --force-reinstall torch --index-url https://download.pytorch.org/whl/" + index;
    if (c.built_for.empty())
      sink.warn("fw.torch_cpu_only", "PyTorch " + c.version + " is a CPU-only build",
                "It will not use the " + want + " GPU(s) this machine has.", fix);
    else
      sink.error("fw.torch_wrong_gpu",
                 "PyTorch " + c.version + " is built for " + c.built_for + " but the GPUs here need " + want,
                 "It cannot use them and runs on the CPU.", fix);
  }
  if (ort_packages.size() > 1) {
    sink.error("fw.ort_conflict", "Several ONNX Runtime packages are installed: " + join(ort_packages, ", "),
               "They share the onnxruntime module; whichever was installed last wins, often the CPU-only one.",
               vendor == "nvidia" ? pip(py) + " uninstall -y " + join(ort_packages, " ") + " && " + pip(py) +
                                        " install onnxruntime-gpu"
                                  : "");
  } else if (ort_packages.size() == 1 && ort_packages[0] == "onnxruntime") {
    sink.warn(
        "fw.ort_cpu_only", "ONNX Runtime is the CPU-only package",
        vendor == "nvidia"
            ? "It silently runs on the CPU; the onnxruntime-gpu package has the CUDA execution provider."
            : "It silently runs on the CPU; the ROCm/MIGraphX builds come from AMD's repository (docs/doctor.md).",
        vendor == "nvidia" ? pip(py) + " uninstall -y onnxruntime && " + pip(py) + " install onnxruntime-gpu" : "");
  }
}

}  // namespace

std::vector<std::string> framework_binaries(const Context& ctx, const Component& fw) {
  std::vector<std::string> out;
  const std::string dir = fw.name == "torch"                    ? fw.path + "/lib"
                          : starts_with(fw.name, "onnxruntime") ? fw.path + "/capi"
                                                                : "";
  if (dir.empty()) return out;
  for (const auto& e : ctx.list(dir))
    if (e.find(".so") != std::string::npos) out.push_back(dir + "/" + e);
  return out;
}

void check_frameworks(const Context& ctx, Sink& sink) {
  const auto py = find_python(ctx);
  if (!py) {
    sink.ok("fw.python", "No Python found",
            "Looked for " +
                (ctx.has_env("HI_PYTHON") ? "HI_PYTHON=" + ctx.env("HI_PYTHON")
                                          : std::string("python3 and python in PATH")) +
                "; PyTorch and ONNX Runtime checks skipped.");
    return;
  }
  sink.facts.python = py->exe;
  sink.ok("fw.python", "Python " + py->version + " at " + py->exe);
  static const char* kWanted[] = {"torch", "onnxruntime", "onnxruntime-gpu", "onnxruntime-rocm", "onnxruntime-migraphx",
                                  "onnx"};
  for (const auto& site : py->site_dirs) {
    for (const auto& entry : ctx.list(site)) {
      if (entry.size() < 10 || entry.compare(entry.size() - 10, 10, ".dist-info") != 0) continue;
      const std::string name = dist_name(entry);
      if (std::find(std::begin(kWanted), std::end(kWanted), name) == std::end(kWanted)) continue;
      if (std::any_of(sink.facts.frameworks.begin(), sink.facts.frameworks.end(),
                      [&](const Component& c) { return c.name == name; }))
        continue;  // shadowed by an earlier sys.path entry
      const std::string metadata = ctx.read(site + "/" + entry + "/METADATA").value_or("");
      Component c{name,
                  field(metadata, "Version"),
                  site + "/" + (starts_with(name, "onnxruntime") ? std::string("onnxruntime") : name),
                  "",
                  "",
                  {}};
      if (name == "torch") describe_torch(ctx, site, c, metadata);
      if (starts_with(name, "onnxruntime")) describe_onnxruntime(ctx, site, c);
      std::string extra = c.built_for;
      if (!c.cudnn.empty()) extra += ", cuDNN " + c.cudnn;
      if (!c.archs.empty()) extra += "; targets " + join(c.archs, " ");
      sink.ok("fw.found", name + " " + c.version + (extra.empty() ? "" : " (" + extra + ")"), c.path);
      sink.facts.frameworks.push_back(std::move(c));
    }
  }
  check_gpu_builds(ctx, sink, *py);
}

}  // namespace hi::doctor
