// Reads what the dynamic loader reads from an ELF shared object or executable: needed libraries,
// search paths, and symbol version needs and definitions (GLIBCXX_3.4.30 and friends). Only the
// ELF headers and the dynamic segment are read, so a 1 GB libtorch costs a few small reads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace hi::doctor {

struct ElfInfo {
  std::string soname;
  std::vector<std::string> needed;   // DT_NEEDED, in order
  std::vector<std::string> rpath;    // DT_RPATH entries (used only when there is no RUNPATH)
  std::vector<std::string> runpath;  // DT_RUNPATH entries
  std::map<std::string, std::vector<std::string>> version_needs;  // needed file -> versions
  std::vector<std::string> version_defs;                          // versions this object defines (not its own name)
};

// nullopt when the file is not a readable 64-bit little-endian ELF (what hipinfer targets).
std::optional<ElfInfo> read_elf(const std::string& path);

// Why the loader of this machine (this program's ELF class, byte order and architecture) could
// not load `path` as a shared library: "not an ELF file", "a 32-bit ELF file", "built for
// aarch64", "truncated: ...". Empty when it looks loadable: the header, the program and section
// header tables and every loaded segment lie inside the file.
std::string shared_library_problem(const std::string& path);

// GPU targets ("gfx90a", "gfx1100") of the first clang offload bundle in the .hip_fatbin section;
// every bundle in one library is built for the same list. Empty when there is none, or when the
// bundles are compressed (ROCm 6.2+ may compress them; the list is then not readable cheaply).
std::vector<std::string> hip_offload_targets(const std::string& path);

}  // namespace hi::doctor
