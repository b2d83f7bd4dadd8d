// ELF64 little-endian reader for the dynamic segment and version sections (see elf.h).
#include "doctor/elf.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "doctor/context.h"

namespace hi::doctor {
namespace {

class File {
 public:
  explicit File(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~File() {
    if (fd_ >= 0) ::close(fd_);
  }
  File(const File&) = delete;
  File& operator=(const File&) = delete;
  bool ok() const { return fd_ >= 0; }
  template <typename T>
  bool get(uint64_t offset, T& out) const {
    return ::pread(fd_, &out, sizeof out, static_cast<off_t>(offset)) == static_cast<ssize_t>(sizeof out);
  }
  std::string bytes(uint64_t offset, uint64_t size) const {
    std::string out(size, '\0');
    const ssize_t n = ::pread(fd_, out.data(), size, static_cast<off_t>(offset));
    out.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return out;
  }

 private:
  int fd_;
};

bool read_header(const File& f, Elf64_Ehdr& eh) {
  return f.ok() && f.get(0, eh) && std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
         eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB;
}

// Maps a virtual address to a file offset through the PT_LOAD segments.
struct AddressMap {
  std::vector<Elf64_Phdr> loads;
  std::optional<uint64_t> offset(uint64_t vaddr) const {
    for (const auto& p : loads)
      if (vaddr >= p.p_vaddr && vaddr < p.p_vaddr + p.p_filesz) return vaddr - p.p_vaddr + p.p_offset;
    return std::nullopt;
  }
};

std::string c_string(const std::string& table, uint64_t at) {
  if (at >= table.size()) return "";
  return std::string(table.c_str() + at);
}

// The architecture a few e_machine values stand for, for messages.
std::string machine_name(uint16_t m) {
  switch (m) {
    case EM_X86_64: return "x86-64";
    case EM_386: return "i386";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_PPC64: return "ppc64";
    case EM_RISCV: return "riscv";
    case EM_S390: return "s390";
    case EM_AMDGPU: return "an AMD GPU";
    case EM_CUDA: return "an NVIDIA GPU";
    default: return "machine " + std::to_string(m);
  }
}

// This program's architecture: the libraries it loads must match it.
constexpr uint16_t kThisMachine =
#if defined(__x86_64__)
    EM_X86_64;
#elif defined(__aarch64__)
    EM_AARCH64;
#elif defined(__powerpc64__)
    EM_PPC64;
#elif defined(__riscv)
    EM_RISCV;
#else
    EM_NONE;  // unknown here: not checked
#endif

// Whether [offset, offset + count * size) lies inside a file of `file_size` bytes.
bool inside(uint64_t offset, uint64_t count, uint64_t size, uint64_t file_size) {
  uint64_t bytes = 0;
  return !__builtin_mul_overflow(count, size, &bytes) && offset <= file_size && bytes <= file_size - offset;
}

std::string not_a_library(uint16_t type) {
  if (type == ET_EXEC) return "an executable, not a shared library";
  if (type == ET_REL) return "an object file (.o), not a shared library";
  if (type == ET_CORE) return "a core dump, not a shared library";
  return "not a shared library (ELF type " + std::to_string(type) + ")";
}

}  // namespace

std::string shared_library_problem(const std::string& path) {
  File f(path);
  if (!f.ok()) return std::string("cannot be opened: ") + std::strerror(errno);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::string("cannot be read: ") + std::strerror(errno);
  const auto size = static_cast<uint64_t>(st.st_size);
  const std::string magic = f.bytes(0, SELFMAG);
  if (magic.size() < SELFMAG || std::memcmp(magic.data(), ELFMAG, SELFMAG) != 0)
    return str("not an ELF file (", size, " bytes, not starting with \\x7fELF)");
  unsigned char ident[EI_NIDENT] = {};
  if (!f.get(0, ident)) return str("truncated: ", size, " bytes, shorter than an ELF header");
  if (ident[EI_CLASS] == ELFCLASS32) return "a 32-bit ELF file; this program loads 64-bit libraries";
  if (ident[EI_CLASS] != ELFCLASS64) return "an ELF file of unknown class " + std::to_string(ident[EI_CLASS]);
  if (ident[EI_DATA] != ELFDATA2LSB) return "a big-endian ELF file; this machine is little-endian";
  Elf64_Ehdr eh;
  if (!f.get(0, eh)) return str("truncated: ", size, " bytes, shorter than an ELF header (", sizeof(Elf64_Ehdr), ")");
  if (kThisMachine != EM_NONE && eh.e_machine != kThisMachine)
    return "built for " + machine_name(eh.e_machine) + "; this machine is " + machine_name(kThisMachine);
  if (eh.e_type != ET_DYN) return not_a_library(eh.e_type);
  if (!inside(eh.e_phoff, eh.e_phnum, eh.e_phentsize, size))
    return str("truncated: its program headers end past its ", size, " bytes");
  if (eh.e_shoff != 0 && !inside(eh.e_shoff, eh.e_shnum, eh.e_shentsize, size))
    return str("truncated: its section headers (the end of a whole file) lie past its ", size, " bytes");
  for (uint16_t i = 0; i < eh.e_phnum && eh.e_phentsize >= sizeof(Elf64_Phdr); ++i) {
    Elf64_Phdr ph;
    if (!f.get(eh.e_phoff + uint64_t{i} * eh.e_phentsize, ph)) return "truncated: a program header cannot be read";
    if (ph.p_type == PT_LOAD && !inside(ph.p_offset, 1, ph.p_filesz, size))
      return str("truncated: a loaded segment ends at byte ", ph.p_offset + ph.p_filesz, " of a ", size, "-byte file");
  }
  return "";
}

std::optional<ElfInfo> read_elf(const std::string& path) {
  File f(path);
  Elf64_Ehdr eh;
  if (!read_header(f, eh) || eh.e_phnum > 256) return std::nullopt;
  AddressMap map;
  Elf64_Phdr dyn_ph{};
  bool has_dynamic = false;
  for (uint16_t i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    if (!f.get(eh.e_phoff + uint64_t{i} * eh.e_phentsize, ph)) return std::nullopt;
    if (ph.p_type == PT_LOAD) map.loads.push_back(ph);
    if (ph.p_type == PT_DYNAMIC) dyn_ph = ph, has_dynamic = true;
  }
  ElfInfo info;
  if (!has_dynamic) return info;  // a static binary needs nothing

  std::vector<Elf64_Dyn> dyn;
  for (uint64_t off = dyn_ph.p_offset; off + sizeof(Elf64_Dyn) <= dyn_ph.p_offset + dyn_ph.p_filesz;
       off += sizeof(Elf64_Dyn)) {
    Elf64_Dyn d;
    if (!f.get(off, d) || d.d_tag == DT_NULL) break;
    dyn.push_back(d);
  }
  uint64_t strtab = 0, strsz = 0, verneed = 0, verneednum = 0, verdef = 0, verdefnum = 0;
  for (const auto& d : dyn) {
    switch (d.d_tag) {
      case DT_STRTAB: strtab = d.d_un.d_ptr; break;
      case DT_STRSZ: strsz = d.d_un.d_val; break;
      case DT_VERNEED: verneed = d.d_un.d_ptr; break;
      case DT_VERNEEDNUM: verneednum = d.d_un.d_val; break;
      case DT_VERDEF: verdef = d.d_un.d_ptr; break;
      case DT_VERDEFNUM: verdefnum = d.d_un.d_val; break;
      default: break;
    }
  }
  const auto str_off = map.offset(strtab);
  if (!str_off || strsz > (64u << 20)) return std::nullopt;
  const std::string strings = f.bytes(*str_off, strsz);
  for (const auto& d : dyn) {
    if (d.d_tag == DT_NEEDED) info.needed.push_back(c_string(strings, d.d_un.d_val));
    if (d.d_tag == DT_SONAME) info.soname = c_string(strings, d.d_un.d_val);
    if (d.d_tag == DT_RPATH) info.rpath = split(c_string(strings, d.d_un.d_val), ':');
    if (d.d_tag == DT_RUNPATH) info.runpath = split(c_string(strings, d.d_un.d_val), ':');
  }
  // Version needs: a chain of Verneed records (one per needed file), each with Vernaux records.
  if (auto off = map.offset(verneed)) {
    for (uint64_t n = 0; n < verneednum && n < 1024; ++n) {
      Elf64_Verneed vn;
      if (!f.get(*off, vn)) break;
      auto& versions = info.version_needs[c_string(strings, vn.vn_file)];
      uint64_t aux = *off + vn.vn_aux;
      for (uint16_t a = 0; a < vn.vn_cnt && a < 1024; ++a) {
        Elf64_Vernaux va;
        if (!f.get(aux, va)) break;
        versions.push_back(c_string(strings, va.vna_name));
        if (va.vna_next == 0) break;
        aux += va.vna_next;
      }
      if (vn.vn_next == 0) break;
      *off += vn.vn_next;
    }
  }
  // Version definitions: the first (VER_FLG_BASE) names the file itself and is skipped.
  if (auto off = map.offset(verdef)) {
    for (uint64_t n = 0; n < verdefnum && n < 4096; ++n) {
      Elf64_Verdef vd;
      Elf64_Verdaux vda;
      if (!f.get(*off, vd) || !f.get(*off + vd.vd_aux, vda)) break;
      if (!(vd.vd_flags & VER_FLG_BASE)) info.version_defs.push_back(c_string(strings, vda.vda_name));
      if (vd.vd_next == 0) break;
      *off += vd.vd_next;
    }
  }
  return info;
}

std::vector<std::string> hip_offload_targets(const std::string& path) {
  std::vector<std::string> targets;
  File f(path);
  Elf64_Ehdr eh;
  if (!read_header(f, eh) || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum) return targets;
  auto section = [&](uint16_t i, Elf64_Shdr& sh) { return f.get(eh.e_shoff + uint64_t{i} * eh.e_shentsize, sh); };
  Elf64_Shdr names_sh;
  if (!section(eh.e_shstrndx, names_sh) || names_sh.sh_size > (16u << 20)) return targets;
  const std::string names = f.bytes(names_sh.sh_offset, names_sh.sh_size);
  for (uint16_t i = 0; i < eh.e_shnum; ++i) {
    Elf64_Shdr sh;
    if (!section(i, sh) || c_string(names, sh.sh_name) != ".hip_fatbin") continue;
    // Clang offload bundle: magic, entry count, then per entry offset, size, id length, id.
    static const std::string kMagic = "__CLANG_OFFLOAD_BUNDLE__";
    if (f.bytes(sh.sh_offset, kMagic.size()) != kMagic) return targets;
    uint64_t pos = sh.sh_offset + kMagic.size(), count = 0;
    if (!f.get(pos, count) || count > 256) return targets;
    pos += 8;
    for (uint64_t e = 0; e < count; ++e) {
      uint64_t id_len = 0;
      if (!f.get(pos + 16, id_len) || id_len > 512) break;
      const std::string id = f.bytes(pos + 24, id_len);  // "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-"
      pos += 24 + id_len;
      const auto dash = id.rfind("--");
      if (id.find("amdgcn") == std::string::npos || dash == std::string::npos) continue;
      const std::string gfx = id.substr(dash + 2, id.find(':', dash) - dash - 2);
      if (std::find(targets.begin(), targets.end(), gfx) == targets.end()) targets.push_back(gfx);
    }
    break;
  }
  return targets;
}

}  // namespace hi::doctor
