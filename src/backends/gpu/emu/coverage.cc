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

// The arguments this process was started with that say which tests it ran (--gtest_filter=...),
// so the check can tell a whole-suite run from a partial one.
std::set<std::string> test_selection() {
  std::set<std::string> out;
  std::FILE* f = std::fopen("/proc/self/cmdline", "rb");
  if (!f) return out;
  std::string arg;
  for (int c; (c = std::fgetc(f)) != EOF;) {
    if (c != 0) {
      arg += static_cast<char>(c);
      continue;
    }
    if (arg.rfind("--gtest_filter=", 0) == 0) out.insert(arg.substr(15));
    arg.clear();
  }
  std::fclose(f);
  return out;
}

void write_coverage() {
  const char* dir = std::getenv("HI_EMU_COVERAGE_DIR");
  if (!dir || !*dir) return;
  Coverage& c = coverage();
  std::lock_guard<std::mutex> lock(c.mutex);
  const std::string base = std::string(dir) + "/";
  const std::string pid = std::to_string(getpid());
  write_list(base + "registered.txt", c.registered);
  if (!c.launched.empty()) write_list(base + "launched." + pid + ".txt", c.launched);
  write_list(base + "ran." + pid + ".txt", test_selection());
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
