// What the dynamic loader will do with hipinfer, the GPU libraries and the frameworks' shared
// objects: every DT_NEEDED must resolve, and every GLIBCXX_/CXXABI_ version they need must be
// defined by the libstdc++ the loader picks (the "version `GLIBCXX_3.4.30' not found" error).
#include <algorithm>

#include "doctor/loader.h"

namespace hi::doctor {
namespace {

constexpr const char* kLibstdcxx = "libstdc++.so.6";

struct Consumer {
  std::string path;  // system path
  std::string what;  // "hipinfer", "torch", "cuDNN"
};

std::vector<Consumer> consumers(const Context& ctx, const SystemFacts& f) {
  std::vector<Consumer> out;
  std::string self = ctx.options().self_exe;
  if (self.empty() && !ctx.fake()) self = ctx.resolve("/proc/self/exe");
  if (!self.empty()) out.push_back({self, "hipinfer"});
  // GPU libraries matter only where their GPUs are; elsewhere they are never loaded.
  for (const auto& lib : f.libraries) {
    const bool amd =
        lib.name == "HIP runtime" || lib.name == "rocBLAS" || lib.name == "hipBLASLt" || lib.name == "MIOpen";
    if (count_gpus(f, amd ? "amd" : "nvidia") > 0) out.push_back({lib.path, lib.name});
  }
  for (const auto& fw : f.frameworks)
    for (const auto& bin : framework_binaries(ctx, fw)) out.push_back({bin, fw.name});
  return out;
}

std::string max_version(const std::vector<std::string>& defs, const std::string& prefix) {
  std::string best;
  for (const auto& d : defs)
    if (starts_with(d, prefix) &&
        (best.empty() || compare_versions(d.substr(prefix.size()), best.substr(prefix.size())) > 0))
      best = d;
  return best;
}

std::string name_of(const std::string& path) { return path.substr(path.rfind('/') + 1); }
std::string dir_of(const std::string& path) { return path.substr(0, path.rfind('/')); }

// The fix for an old libstdc++: drop the directory that shadows a newer one, or update conda's.
std::string libstdcxx_fix(const Context& ctx, const LoaderPath& lp, const std::string& picked,
                          const std::vector<std::string>& missing) {
  const std::string dir = dir_of(picked);
  if (std::find(lp.env_dirs.begin(), lp.env_dirs.end(), dir) != lp.env_dirs.end()) {
    for (const auto& d : lp.system_dirs) {
      const auto elf = read_elf(ctx.host_path(d + "/" + kLibstdcxx));
      if (!elf) continue;
      const bool has_all = std::all_of(missing.begin(), missing.end(), [&](const std::string& v) {
        return std::find(elf->version_defs.begin(), elf->version_defs.end(), v) != elf->version_defs.end();
      });
      if (!has_all) continue;
      std::vector<std::string> kept;
      for (const auto& e : lp.env_dirs)
        if (e != dir) kept.push_back(e);
      return kept.empty() ? "unset LD_LIBRARY_PATH" : "export LD_LIBRARY_PATH=" + shell_quote(join(kept, ":"));
    }
  }
  if (picked.find("conda") != std::string::npos || picked.find("/envs/") != std::string::npos) {
    // The GCC release whose libstdc++ first defines the newest missing version (matrix: glibcxx_gcc).
    std::string gcc;
    for (const auto& v : missing) {
      const std::string g = ctx.matrix()["libstdcxx"]["glibcxx_first_gcc"][v].str();
      if (!g.empty() && (gcc.empty() || compare_versions(g, gcc) > 0)) gcc = g;
    }
    if (!gcc.empty()) return "conda install -c conda-forge 'libstdcxx-ng>=" + major_of(gcc) + "'";
  }
  return "";
}

}  // namespace

void check_elf_versions(const Context& ctx, Sink& sink) {
  const LoaderPath lp = loader_path(ctx);
  std::map<std::string, std::vector<std::string>> defs_cache;  // libstdc++ path -> versions it defines
  int checked = 0, broken = 0;
  std::string shown_libstdcxx;
  for (const auto& c : consumers(ctx, sink.facts)) {
    const auto elf = read_elf(ctx.host_path(c.path));
    if (!elf) continue;
    ++checked;
    std::vector<std::string> missing;
    for (const auto& soname : elf->needed)
      if (resolve_needed(ctx, lp, soname, c.path, *elf).empty()) missing.push_back(soname);
    if (!missing.empty()) {
      ++broken;
      const std::string elsewhere = find_elsewhere(ctx, sink.facts, missing[0]);
      const bool provider = name_of(c.path).find("providers_") != std::string::npos;
      sink.error(
          "lib.unresolved",
          name_of(c.path) + " (" + c.what + ") needs " + join(missing, ", ") + ", which the loader cannot find",
          provider ? "ONNX Runtime then cannot load this execution provider and silently runs on the CPU."
                   : "Loading " + name_of(c.path) + " fails with 'cannot open shared object file'." +
                         (elsewhere.empty() ? " Install the package that provides it." : ""),
          elsewhere.empty() ? "" : "export LD_LIBRARY_PATH=" + elsewhere + "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}");
    }
    const auto need = elf->version_needs.find(kLibstdcxx);
    if (need == elf->version_needs.end()) continue;
    const std::string picked = resolve_needed(ctx, lp, kLibstdcxx, c.path, *elf);
    if (picked.empty()) continue;  // reported as unresolved above
    if (!defs_cache.count(picked)) {
      const auto lib = read_elf(ctx.host_path(picked));
      defs_cache[picked] = lib ? lib->version_defs : std::vector<std::string>{};
    }
    const auto& defs = defs_cache[picked];
    if (shown_libstdcxx.empty()) {
      shown_libstdcxx = picked;
      sink.facts.libstdcxx = picked;
      sink.ok("abi.libstdcxx",
              "libstdc++ provides up to " + max_version(defs, "GLIBCXX_") + " and " + max_version(defs, "CXXABI_1"),
              picked);
    }
    std::vector<std::string> absent;
    for (const auto& v : need->second)
      if (std::find(defs.begin(), defs.end(), v) == defs.end()) absent.push_back(v);
    if (absent.empty()) continue;
    ++broken;
    sink.error("abi.glibcxx_missing",
               name_of(c.path) + " (" + c.what + ") needs " + join(absent, ", ") + ", which " + picked + " lacks",
               "It fails to load with \"version `" + absent[0] + "' not found\"; that libstdc++ provides up to " +
                   max_version(defs, "GLIBCXX_") + ".",
               libstdcxx_fix(ctx, lp, picked, absent));
  }
  if (checked > 0 && broken == 0)
    sink.ok("lib.dependencies",
            str("All libraries needed by ", checked, checked == 1 ? " binary" : " binaries", " resolve"),
            "Checked hipinfer, the GPU libraries in use and the frameworks' shared objects.");
}

}  // namespace hi::doctor
