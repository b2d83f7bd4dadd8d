#include "backends/cpu/kernels/fastest.h"

#include <fcntl.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "backends/cpu/kernels/kernels.h"
#include "core/threading.h"
#include "hipinfer/version.h"

namespace hi::cpu {

namespace {

thread_local const KernelTuning* t_tuning = nullptr;
thread_local int64_t t_shapes_timed = 0;

struct Timed {
  double work;
  int winner;
};

// Every KernelChoices' winners, under "NAME|THREADS|family", and the cache files read so far.
struct Store {
  std::mutex mutex;
  std::map<std::string, std::map<std::vector<int64_t>, Timed>> families;
  std::set<std::string> files_read;

  // The winner under `key` for `size`, else the nearest size's once at least `nearest_after`
  // sizes are timed; -1 when none.
  int find_at(const std::string& key, const std::vector<int64_t>& size, double work, size_t nearest_after) const {
    auto f = families.find(key);
    if (f == families.end()) return -1;
    if (auto exact = f->second.find(size); exact != f->second.end()) return exact->second.winner;
    if (f->second.size() < nearest_after) return -1;
    // Nearest by ratio of work: a size twice as large is as far as one half as large.
    const Timed* nearest = nullptr;
    double best = 0;
    for (const auto& [dims, timed] : f->second) {
      const double distance = std::abs(std::log(std::max(work, 1.0) / std::max(timed.work, 1.0)));
      if (!nearest || distance < best) {
        nearest = &timed;
        best = distance;
      }
    }
    return nearest->winner;
  }

  // One line of a cache file: KEY \t SIZE,SIZE,... \t WORK \t WINNER. A line that does not read
  // (a file cut short by a crash, edited by hand) is skipped: the shape is chosen again.
  void read_line(const std::string& line) {
    std::istringstream in(line);
    std::string key, dims, work, winner;
    if (!std::getline(in, key, '\t') || !std::getline(in, dims, '\t') || !std::getline(in, work, '\t') ||
        !std::getline(in, winner) || key.empty())
      return;
    try {
      std::vector<int64_t> size;
      std::istringstream d(dims);
      for (std::string v; std::getline(d, v, ',');) size.push_back(std::stoll(v));
      size_t used = 0;
      const int w = std::stoi(winner, &used);
      if (used != winner.size() || w < 0 || w > 63 || size.empty()) return;
      families[key][size] = Timed{std::stod(work), w};
    } catch (const std::exception&) {
      // not a number: skipped
    }
  }

  void read_file_once(const std::string& path) {
    if (path.empty() || !files_read.insert(path).second) return;
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#') read_line(line);
  }
};

Store& store() {
  static Store* s = new Store;  // never destroyed: kernels may be made during static destruction
  return *s;
}

std::string keyed(const std::string& name, int threads, const std::string& family) {
  return name + "|" + std::to_string(threads) + "|" + family;
}

// Appends one timed winner to the cache file, creating it (and its folder) with a header line.
// Appends of one short line are atomic, so processes sharing the file do not interleave. A
// cache that cannot be written (a read-only home) only loses the choice for later processes.
void append_to_cache(const std::string& path, const std::string& key, const std::vector<int64_t>& size, double work,
                     int winner) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  const int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  std::string line;
  if (lseek(fd, 0, SEEK_END) == 0)
    line = "# hipinfer kernel cache: the timed kernel choices for one CPU and build (KEY, SIZE, WORK, WINNER)\n";
  line += key + "\t";
  for (size_t i = 0; i < size.size(); ++i) {
    if (i) line += ',';
    line += std::to_string(size[i]);
  }
  char tail[64];
  std::snprintf(tail, sizeof tail, "\t%.17g\t%d\n", work, winner);
  line += tail;
  const ssize_t wrote = write(fd, line.data(), line.size());
  (void)wrote;
  close(fd);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0)
      if (auto colon = line.find(':'); colon != std::string::npos) return line.substr(colon + 1);
  return "unknown CPU";
}

}  // namespace

KernelTuningScope::KernelTuningScope(const KernelTuning* tuning) : previous_(t_tuning) { t_tuning = tuning; }
KernelTuningScope::~KernelTuningScope() { t_tuning = previous_; }

bool time_new_shapes() { return !t_tuning || t_tuning->time_new_shapes; }

int64_t shapes_timed() { return t_shapes_timed; }

std::string kernel_cache_file(const std::string& dir) {
  // The same for the whole process: computed once (every session asks).
  static const std::string name = [] {
    const std::string what =
        cpu_model_name() + "|" + fast_kernels_description() + "|" + version_string() + "|" + git_commit();
    uint64_t hash = 1469598103934665603ull;  // FNV-1a
    for (unsigned char c : what) hash = (hash ^ c) * 1099511628211ull;
    char text[40];
    std::snprintf(text, sizeof text, "kernels-%016llx.tsv", static_cast<unsigned long long>(hash));
    return std::string(text);
  }();
  return (std::filesystem::path(dir) / name).string();
}

int KernelChoices::find(const std::string& family, const std::vector<int64_t>& size, double work) const {
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (t_tuning) s.read_file_once(t_tuning->cache_file);
  const int threads = current_threads();
  const int found = s.find_at(keyed(name_, threads, family), size, work, kTimedSizes);
  const RegionLoad* run = current_region_load();
  if (found >= 0 || !run || run->full_threads <= threads) return found;
  // A reduced run: the full count's winner for this size, or for the nearest size timed there.
  return s.find_at(keyed(name_, run->full_threads, family), size, work, 1);
}

void KernelChoices::remember(const std::string& family, const std::vector<int64_t>& size, double work, int winner) {
  const std::string key = keyed(name_, current_threads(), family);
  ++t_shapes_timed;
  Store& s = store();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.families[key][size] = Timed{work, winner};
  if (t_tuning && !t_tuning->cache_file.empty()) append_to_cache(t_tuning->cache_file, key, size, work, winner);
}

}  // namespace hi::cpu
