// GPU libraries hipinfer can use (HIP runtime, rocBLAS, hipBLASLt, MIOpen; CUDA driver and
// runtime, cuBLAS, cuBLASLt, cuDNN): where the loader finds them and which version they are.
// Also the loader's search path itself, which libraries.cc, frameworks.cc and elf_versions.cc share.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <regex>

#include "doctor/loader.h"

namespace hi::doctor {
namespace {

struct KnownLibrary {
  const char* name;
  const char* vendor;  // "amd" / "nvidia"
  const char* prefix;  // file name prefix: "libcudnn.so."
  bool runtime;        // without it the vendor's GPUs cannot be used at all
};
constexpr KnownLibrary kLibraries[] = {
    {"HIP runtime", "amd", "libamdhip64.so.", true}, {"rocBLAS", "amd", "librocblas.so.", false},
    {"hipBLASLt", "amd", "libhipblaslt.so.", false}, {"MIOpen", "amd", "libMIOpen.so.", false},
    {"CUDA driver", "nvidia", "libcuda.so.", true},  {"CUDA runtime", "nvidia", "libcudart.so.", false},
    {"cuBLAS", "nvidia", "libcublas.so.", false},    {"cuBLASLt", "nvidia", "libcublasLt.so.", false},
    {"cuDNN", "nvidia", "libcudnn.so.", false},
};

// Where ROCm and CUDA install when the loader has not been told about them.
std::vector<std::string> install_dirs(const Context& ctx) {
  std::vector<std::string> dirs;
  for (const auto& e : ctx.list("/opt"))
    if (starts_with(e, "rocm")) dirs.insert(dirs.end(), {"/opt/" + e + "/lib", "/opt/" + e + "/lib64"});
  for (const auto& e : ctx.list("/usr/local"))
    if (starts_with(e, "cuda"))
      dirs.insert(dirs.end(), {"/usr/local/" + e + "/lib64", "/usr/local/" + e + "/lib",
                               "/usr/local/" + e + "/targets/x86_64-linux/lib"});
  return dirs;
}

// Reads ld.so.conf, following "include" lines with a '*' glob in the file name.
void read_ld_so_conf(const Context& ctx, const std::string& file, std::vector<std::string>& dirs, int depth) {
  if (depth > 4) return;
  for (const auto& raw : split(ctx.read(file).value_or(""), '\n')) {
    const std::string line = trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    if (!starts_with(line, "include ")) {
      dirs.push_back(line);
      continue;
    }
    const std::string pattern = trim(line.substr(8));
    const auto slash = pattern.rfind('/');
    const std::string dir = pattern.substr(0, slash), glob = pattern.substr(slash + 1);
    const auto star = glob.find('*');
    for (const auto& name : ctx.list(dir)) {
      const bool match =
          star == std::string::npos
              ? name == glob
              : starts_with(name, glob.substr(0, star)) && name.size() >= glob.size() - 1 &&
                    name.compare(name.size() - (glob.size() - star - 1), std::string::npos, glob.substr(star + 1)) == 0;
      if (match) read_ld_so_conf(ctx, dir + "/" + name, dirs, depth + 1);
    }
  }
}

std::string in_dirs(const Context& ctx, const std::vector<std::string>& dirs, const std::string& soname) {
  for (const auto& d : dirs)
    if (!d.empty() && ctx.exists(d + "/" + soname)) return d + "/" + soname;
  return "";
}

// The library file the loader would pick for one of `lib`'s sonames, searching `dirs`.
std::string find_known(const Context& ctx, const std::vector<std::string>& dirs, const KnownLibrary& lib) {
  for (const auto& d : dirs) {
    std::vector<std::string> sonames;  // "libcudnn.so.9": prefix plus one number
    for (const auto& name : ctx.list(d)) {
      if (!starts_with(name, lib.prefix)) continue;
      const std::string rest = name.substr(std::string(lib.prefix).size());
      if (!rest.empty() &&
          std::all_of(rest.begin(), rest.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
        sonames.push_back(name);
    }
    if (sonames.empty()) continue;
    std::sort(sonames.begin(), sonames.end(),
              [](const std::string& a, const std::string& b) { return compare_versions(a, b) < 0; });
    return d + "/" + sonames.back();
  }
  return "";
}

// "#define CUDNN_MAJOR 9" style version from a header next to the library's install.
std::string header_version(const Context& ctx, const std::string& lib_path, const std::string& header,
                           const std::string& prefix) {
  const std::string dir = lib_path.substr(0, lib_path.rfind('/'));
  const std::string text = ctx.read(dir + "/../include/" + header).value_or("");
  std::vector<std::string> parts;
  for (const char* part : {"MAJOR", "MINOR", "PATCHLEVEL", "PATCH"}) {
    std::smatch m;
    if (std::regex_search(text, m, std::regex("#define " + prefix + part + "\\s+([0-9]+)"))) parts.push_back(m[1]);
  }
  return parts.size() >= 2 ? join(parts, ".") : "";
}

std::string library_version(const Context& ctx, const KnownLibrary& lib, const std::string& path) {
  std::string v = version_from_filename(ctx.resolve(path));
  if (v.find('.') == std::string::npos) {
    std::string h;
    if (std::string(lib.name) == "cuDNN") h = header_version(ctx, path, "cudnn_version.h", "CUDNN_");
    if (starts_with(lib.name, "cuBLAS")) h = header_version(ctx, path, "cublas_api.h", "CUBLAS_VER_");
    if (!h.empty()) v = h;
  }
  // ROCm libraries end in the ROCm version: librocblas.so.4.2.60200 is rocBLAS 4.2 of ROCm 6.2.0.
  const auto parts = split(v, '.');
  // (HIP itself ends in a build number, libamdhip64.so.6.2.41133, which must not read as ROCm 4.11.33.)
  if (lib.vendor == std::string("amd") && parts.size() >= 3 && parts.back().size() == 5) {
    const long r = std::strtol(parts.back().c_str(), nullptr, 10);
    if (r / 10000 >= 3 && (r / 100) % 100 <= 9 && r % 100 <= 9)
      v += str(" (ROCm ", r / 10000, ".", (r / 100) % 100, ".", r % 100, ")");
  }
  return v;
}

// rocBLAS keeps its kernels per GPU target in <libdir>/rocblas/library (file names contain the gfx).
void check_rocblas_targets(const Context& ctx, Sink& sink, const std::string& rocblas) {
  const std::string dir = rocblas.substr(0, rocblas.rfind('/')) + "/rocblas/library";
  const auto files = ctx.list(dir);
  if (files.empty()) return;
  for (const auto& g : sink.facts.gpus) {
    if (g.vendor != "amd" || g.arch.empty()) continue;
    const bool has = std::any_of(files.begin(), files.end(), [&](const std::string& f) {
      const auto at = f.find(g.arch);
      return at != std::string::npos &&
             (at + g.arch.size() == f.size() || !std::isalnum(static_cast<unsigned char>(f[at + g.arch.size()])));
    });
    if (!has)
      sink.error("lib.rocblas_arch", "rocBLAS has no kernels for " + g.arch + " (" + g.name + ")",
                 dir +
                     " holds kernels for other GPUs only, so BLAS calls on this GPU fail with 'Cannot read "
                     "TensileLibrary'. Install a ROCm release that supports " +
                     g.arch + ".");
  }
}

}  // namespace

std::string version_from_filename(const std::string& path) {
  const std::string name = path.substr(path.rfind('/') + 1);
  const auto so = name.find(".so.");
  return so == std::string::npos ? "" : name.substr(so + 4);
}

LoaderPath loader_path(const Context& ctx) {
  LoaderPath lp;
  lp.env_dirs = split(ctx.env("LD_LIBRARY_PATH"), ':');
  read_ld_so_conf(ctx, "/etc/ld.so.conf", lp.system_dirs, 0);
  for (const char* d : {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                        "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"})
    lp.system_dirs.push_back(d);
  return lp;
}

std::string resolve_needed(const Context& ctx, const LoaderPath& lp, const std::string& soname,
                           const std::string& object, const ElfInfo& elf) {
  if (soname.find('/') != std::string::npos) return ctx.exists(soname) ? soname : "";
  const std::string origin = object.substr(0, object.rfind('/'));
  auto expand = [&](std::vector<std::string> dirs) {
    for (auto& d : dirs)
      for (const char* token : {"$ORIGIN", "${ORIGIN}"})
        if (const auto at = d.find(token); at != std::string::npos) d.replace(at, std::string(token).size(), origin);
    return dirs;
  };
  std::string found;
  if (elf.runpath.empty()) found = in_dirs(ctx, expand(elf.rpath), soname);
  if (found.empty()) found = in_dirs(ctx, lp.env_dirs, soname);
  if (found.empty()) found = in_dirs(ctx, expand(elf.runpath), soname);
  if (found.empty()) found = in_dirs(ctx, lp.system_dirs, soname);
  return found;
}

std::string find_on_loader_path(const Context& ctx, const LoaderPath& lp, const std::string& soname) {
  std::string found = in_dirs(ctx, lp.env_dirs, soname);
  return found.empty() ? in_dirs(ctx, lp.system_dirs, soname) : found;
}

std::string find_elsewhere(const Context& ctx, const SystemFacts& facts, const std::string& soname) {
  std::vector<std::string> dirs = install_dirs(ctx);
  for (const auto& fw : facts.frameworks) {  // pip's CUDA wheels: site-packages/nvidia/<lib>/lib
    const std::string nvidia = fw.path.substr(0, fw.path.rfind('/')) + "/nvidia";
    for (const auto& e : ctx.list(nvidia)) dirs.push_back(nvidia + "/" + e + "/lib");
  }
  const std::string found = in_dirs(ctx, dirs, soname);
  return found.empty() ? "" : found.substr(0, found.rfind('/'));
}

void check_libraries(const Context& ctx, Sink& sink) {
  const LoaderPath lp = loader_path(ctx);
  std::vector<std::string> on_path = lp.env_dirs;
  on_path.insert(on_path.end(), lp.system_dirs.begin(), lp.system_dirs.end());
  const std::vector<std::string> elsewhere = install_dirs(ctx);
  std::map<std::string, int> math_found;      // vendor -> math libraries found
  std::map<std::string, bool> runtime_found;  // vendor -> its runtime library found
  for (const auto& lib : kLibraries) {
    const bool vendor_gpu = count_gpus(sink.facts, lib.vendor) > 0;
    std::string path = find_known(ctx, on_path, lib);
    const bool loadable = !path.empty();
    if (path.empty()) path = find_known(ctx, elsewhere, lib);
    if (path.empty()) {
      if (vendor_gpu && lib.runtime)
        sink.error("lib.runtime_missing",
                   std::string("The ") + lib.name + " library (" + lib.prefix + "*) is not installed",
                   std::string("Without it the ") + (lib.vendor == std::string("amd") ? "AMD" : "NVIDIA") +
                       " GPUs cannot be used; hipinfer runs on the CPU. " +
                       (lib.vendor == std::string("amd") ? "Install ROCm (docs/doctor.md lists the steps)."
                                                         : "Install the NVIDIA driver's user-space libraries."),
                   lib.vendor == std::string("amd") && ctx.exists("/usr/bin/amdgpu-install")
                       ? "sudo amdgpu-install --usecase=rocm"
                       : "");
      continue;
    }
    // A file of the right name is not yet a library: a placeholder, a half-finished download or
    // another architecture's build fails to load as surely as a missing one.
    if (const std::string problem = shared_library_problem(ctx.host_path(ctx.resolve(path))); !problem.empty()) {
      sink.error(
          "lib.broken", std::string(lib.name) + " at " + path + " is not a library this machine can load: " + problem,
          std::string(
              "Programs that load it (hipinfer's GPU backend, ONNX Runtime, PyTorch) fail as if it were missing. ") +
              "Reinstall the package that owns it" + (lib.runtime ? " (the GPU driver's or runtime's)." : "."));
      continue;
    }
    const std::string version = library_version(ctx, lib, path);
    sink.facts.libraries.push_back({lib.name, version, path, "", "", {}});
    if (lib.runtime) runtime_found[lib.vendor] = true;
    else ++math_found[lib.vendor];
    if (!loadable && vendor_gpu) {
      const std::string dir = path.substr(0, path.rfind('/'));
      sink.warn("lib.not_on_loader_path", std::string(lib.name) + " is in " + dir + ", where the loader does not look",
                "Programs that load it by name (hipinfer's GPU backend, ONNX Runtime) will not find it.",
                "echo " + dir + " | sudo tee /etc/ld.so.conf.d/hipinfer-gpu.conf && sudo ldconfig");
    } else {
      sink.ok("lib.found", std::string(lib.name) + " " + (version.empty() ? "(version unknown)" : version), path);
    }
    if (std::string(lib.name) == "rocBLAS" && count_gpus(sink.facts, "amd") > 0) check_rocblas_targets(ctx, sink, path);
  }
  // Only worth saying when the runtime is there: without it lib.runtime_missing already says more.
  for (const std::string vendor : {"amd", "nvidia"})
    if (count_gpus(sink.facts, vendor) > 0 && runtime_found[vendor] && math_found[vendor] == 0)
      sink.warn("lib.math_missing",
                vendor == "amd" ? "None of rocBLAS, hipBLASLt or MIOpen is installed"
                                : "None of cuBLAS, cuBLASLt or cuDNN is installed",
                "hipinfer then uses only its own GPU kernels; matrix products and convolutions are slower than with "
                "the vendor libraries.");
}

}  // namespace hi::doctor
