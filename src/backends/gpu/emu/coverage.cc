// Kernel coverage of the emulated GPU (api.h): the kernels the program contains and the ones it
// launched, written to HI_EMU_COVERAGE_DIR at exit.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

#include "backends/gpu/emu/api.h"

namespace hi::gpu::emu {
namespace {

struct Coverage {
  std::mutex mutex;
  std::set<std::string> registered, launched;
};

Coverage& coverage() {
  static Coverage* c = new Coverage();  // never destroyed: written from an atexit handler
  return *c;
}

void write_list(const std::string& path, const std::set<std::string>& names) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  for (const std::string& n : names) std::fprintf(f, "%s\n", n.c_str());
  std::fclose(f);
}

void write_coverage() {
  const char* dir = std::getenv("HI_EMU_COVERAGE_DIR");
  if (!dir || !*dir) return;
  Coverage& c = coverage();
  std::lock_guard<std::mutex> lock(c.mutex);
  const std::string base = std::string(dir) + "/";
  write_list(base + "registered.txt", c.registered);
  if (!c.launched.empty()) write_list(base + "launched." + std::to_string(getpid()) + ".txt", c.launched);
}

}  // namespace

void register_kernel(const char* name) {
  static const bool hooked = (std::atexit(&write_coverage), true);
  (void)hooked;
  Coverage& c = coverage();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.registered.insert(name);
}

void note_launched(const char* name) {
  Coverage& c = coverage();
  std::lock_guard<std::mutex> lock(c.mutex);
  c.launched.insert(name);
}

}  // namespace hi::gpu::emu
