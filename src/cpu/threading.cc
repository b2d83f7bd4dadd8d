#include "cpu/threading.h"

#include <omp.h>

#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <utility>

namespace hi::cpu {

int physical_cores() {
  static const int cores = [] {
    // Distinct (package, core) pairs; hyper-thread siblings share both.
    std::set<std::pair<int, int>> seen;
    const unsigned logical = std::thread::hardware_concurrency();
    for (unsigned cpu = 0; cpu < logical; ++cpu) {
      const std::string dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/";
      std::ifstream core(dir + "core_id"), pkg(dir + "physical_package_id");
      int c = -1, p = -1;
      if (!(core >> c) || !(pkg >> p)) return logical > 0 ? static_cast<int>(logical) : 1;
      seen.insert({p, c});
    }
    return seen.empty() ? 1 : static_cast<int>(seen.size());
  }();
  return cores;
}

int resolve_threads(int requested) { return requested > 0 ? requested : physical_cores(); }

ThreadScope::ThreadScope(int threads) : previous_(omp_get_max_threads()) { omp_set_num_threads(threads); }
ThreadScope::~ThreadScope() { omp_set_num_threads(previous_); }

int current_threads() { return omp_in_parallel() ? 1 : omp_get_max_threads(); }

}  // namespace hi::cpu
