// The dynamic loader's view: where it looks for libraries (in its order) and what a given
// binary's DT_NEEDED entries resolve to. Shared by libraries.cc, frameworks.cc and elf_versions.cc.
#pragma once

#include <string>
#include <vector>

#include "doctor/context.h"
#include "doctor/elf.h"

namespace hi::doctor {

struct LoaderPath {
  std::vector<std::string> env_dirs;     // LD_LIBRARY_PATH
  std::vector<std::string> system_dirs;  // /etc/ld.so.conf (with includes), then the defaults
};
LoaderPath loader_path(const Context& ctx);

// What the loader would load for `soname` needed by `object` (a system path) with `elf`'s
// RPATH/RUNPATH ($ORIGIN expanded). "" when nothing is found.
std::string resolve_needed(const Context& ctx, const LoaderPath& lp, const std::string& soname,
                           const std::string& object, const ElfInfo& elf);
// Looks in the loader's directories only (no RPATH): what dlopen(soname) from hipinfer finds.
std::string find_on_loader_path(const Context& ctx, const LoaderPath& lp, const std::string& soname);
// A directory off the loader's path holding `soname` (/opt/rocm*/lib, /usr/local/cuda*/lib64,
// pip's nvidia/*/lib), for fix lines; "" when none.
std::string find_elsewhere(const Context& ctx, const SystemFacts& facts, const std::string& soname);

// Shared objects of an installed framework whose dependencies the loader must satisfy:
// torch/lib/*.so*, onnxruntime/capi/*.so.
std::vector<std::string> framework_binaries(const Context& ctx, const Component& framework);

// Version from a library's real file name: "libcudnn.so.9.1.0" -> "9.1.0"; "" when it has none.
std::string version_from_filename(const std::string& path);

}  // namespace hi::doctor
