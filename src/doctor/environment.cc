// Environment variables that slow GPU work down or break it: debugging switches left on,
// device masks that hide every GPU, thread counts past the core count, and LD_LIBRARY_PATH
// entries from two ROCm or CUDA installs at once.
#include <algorithm>
#include <cctype>
#include <regex>

#include "doctor/context.h"

namespace hi::doctor {
namespace {

bool truthy(const std::string& v) { return !v.empty() && v != "0" && lower(v) != "false" && lower(v) != "no"; }

struct SlowSwitch {
  const char* name;
  const char* why;
};
// Each of these serialises work or disables a cache; all are debugging aids.
constexpr SlowSwitch kSlowSwitches[] = {
    {"HIP_LAUNCH_BLOCKING", "Every HIP kernel launch waits for the kernel to finish, which removes all overlap."},
    {"CUDA_LAUNCH_BLOCKING", "Every CUDA kernel launch waits for the kernel to finish, which removes all overlap."},
    {"AMD_SERIALIZE_KERNEL", "The ROCm runtime waits before and/or after every kernel launch."},
    {"AMD_SERIALIZE_COPY", "The ROCm runtime waits before and/or after every copy."},
    {"PYTORCH_NO_CUDA_MEMORY_CACHING",
     "PyTorch frees GPU memory on every release and allocates it anew, which is slow."},
    {"CUDA_CACHE_DISABLE", "Kernels JIT-compiled from PTX are compiled again on every start."},
};

void check_slow_switches(const Context& ctx, Sink& sink) {
  for (const auto& s : kSlowSwitches) {
    const std::string v = ctx.env(s.name);
    if (!truthy(v)) continue;
    sink.warn("env." + lower(s.name), std::string(s.name) + "=" + v + " is set", s.why, std::string("unset ") + s.name);
  }
  // AMD_LOG_LEVEL 3 and 4 print a line per API call.
  const std::string log = ctx.env("AMD_LOG_LEVEL");
  if (!log.empty() && std::isdigit(static_cast<unsigned char>(log[0])) && std::stoi(log) >= 3)
    sink.warn("env.amd_log_level", "AMD_LOG_LEVEL=" + log + " is set",
              "The ROCm runtime logs every API call, which slows everything down.", "unset AMD_LOG_LEVEL");
}

void check_gfx_override(const Context& ctx, Sink& sink) {
  if (!ctx.has_env("HSA_OVERRIDE_GFX_VERSION")) return;
  const std::string v = ctx.env("HSA_OVERRIDE_GFX_VERSION");
  if (!std::regex_match(v, std::regex("[0-9]+\\.[0-9]+\\.[0-9]+"))) {
    sink.error("env.hsa_override_gfx_version", "HSA_OVERRIDE_GFX_VERSION=" + v + " is not of the form 11.0.0",
               "The ROCm runtime cannot use a malformed override and may fail to find any GPU.",
               "unset HSA_OVERRIDE_GFX_VERSION");
    return;
  }
  sink.warn("env.hsa_override_gfx_version", "HSA_OVERRIDE_GFX_VERSION=" + v + " is set",
            "ROCm runs kernels built for another GPU on this one; that is unsupported and can crash or compute wrong "
            "results. Unset it unless this GPU is missing from your ROCm build.",
            "unset HSA_OVERRIDE_GFX_VERSION");
}

// A device mask that is set but empty (or all invalid) hides every GPU; an out-of-range index
// hides that GPU and, for CUDA, every one after it.
void check_visible_devices(const Context& ctx, Sink& sink) {
  const struct {
    const char* name;
    const char* vendor;
  } kMasks[] = {{"HIP_VISIBLE_DEVICES", "amd"}, {"ROCR_VISIBLE_DEVICES", "amd"}, {"CUDA_VISIBLE_DEVICES", ""}};
  for (const auto& m : kMasks) {
    if (!ctx.has_env(m.name)) continue;
    const std::string v = ctx.env(m.name);
    // CUDA_VISIBLE_DEVICES is also honoured by HIP, so it counts for either vendor.
    const int gpus = *m.vendor ? count_gpus(sink.facts, m.vendor) : static_cast<int>(sink.facts.gpus.size());
    if (gpus == 0) continue;
    if (trim(v).empty() || trim(v) == "-1") {
      sink.error("env.visible_devices", std::string(m.name) + "=\"" + v + "\" hides every GPU",
                 "The runtime will report no device and hipinfer will run on the CPU.", std::string("unset ") + m.name);
      continue;
    }
    std::vector<std::string> bad;
    for (const auto& item : split(v, ',')) {
      const std::string t = trim(item);
      const bool uuid = starts_with(t, "GPU-") || starts_with(t, "MIG-");
      const bool index = !t.empty() && std::all_of(t.begin(), t.end(),
                                                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
      if (!uuid && (!index || std::stoll(t) >= gpus)) bad.push_back(t);
    }
    if (!bad.empty()) {
      std::vector<std::string> all;
      for (int i = 0; i < gpus; ++i) all.push_back(std::to_string(i));
      sink.error("env.visible_devices",
                 std::string(m.name) + "=" + v + " names devices that do not exist: " + join(bad, ","),
                 "There are " + std::to_string(gpus) + " GPU(s) (0.." + std::to_string(gpus - 1) +
                     "); runtimes stop reading the list at the first bad entry.",
                 std::string("export ") + m.name + "=" + join(all, ","));
    }
  }
}

void check_threads(const Context& ctx, Sink& sink) {
  const int cpus = sink.facts.cpu_logical;
  for (const char* name : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}) {
    const std::string v = ctx.env(name);
    if (v.empty() || cpus <= 0) continue;
    const long n = std::strtol(v.c_str(), nullptr, 10);
    if (n > cpus)
      sink.warn("env.threads_oversubscribed",
                std::string(name) + "=" + v + " is more than the " + std::to_string(cpus) + " logical CPUs",
                "More threads than CPUs make threads wait on each other in every parallel region.",
                std::string("export ") + name + "=" + std::to_string(cpus));
    else if (n <= 0)
      sink.warn("env.threads_invalid", std::string(name) + "=" + v + " is not a positive number",
                "The OpenMP runtime ignores it or fails.", std::string("unset ") + name);
  }
}

// "/opt/rocm-6.2.0/lib" -> ("rocm", "6.2.0"); "/usr/local/cuda-12.4/lib64" -> ("cuda", "12.4").
std::pair<std::string, std::string> install_of(const std::string& dir) {
  static const std::regex kVersioned("/(?:opt/(rocm)|usr/local/(cuda))-([0-9][0-9.]*)(?:/|$)");
  std::smatch m;
  if (std::regex_search(dir, m, kVersioned)) return {m[1].matched ? "rocm" : "cuda", m[3]};
  return {"", ""};
}

void check_library_path(const Context& ctx, Sink& sink) {
  const auto dirs = split(ctx.env("LD_LIBRARY_PATH"), ':');
  for (const std::string stack : {"rocm", "cuda"}) {
    std::vector<std::string> versions;
    for (const auto& d : dirs) {
      const auto [s, v] = install_of(d);
      if (s == stack && std::find(versions.begin(), versions.end(), v) == versions.end()) versions.push_back(v);
    }
    if (versions.size() < 2) continue;
    // Keep the first version (the loader prefers it already); drop the other versions' entries.
    std::vector<std::string> kept;
    for (const auto& d : dirs)
      if (install_of(d).first != stack || install_of(d).second == versions[0]) kept.push_back(d);
    const std::string name = stack == "rocm" ? "ROCm" : "CUDA";
    sink.warn("env.ld_library_path_mixed", "LD_LIBRARY_PATH mixes " + name + " versions " + join(versions, ", "),
              "Libraries from one version load against another's and fail with missing symbols or crash.",
              "export LD_LIBRARY_PATH=" + shell_quote(join(kept, ":")));
  }
}

}  // namespace

void check_environment(const Context& ctx, Sink& sink) {
  check_slow_switches(ctx, sink);
  check_gfx_override(ctx, sink);
  check_visible_devices(ctx, sink);
  check_threads(ctx, sink);
  check_library_path(ctx, sink);
}

}  // namespace hi::doctor
