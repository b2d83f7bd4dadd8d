#include "cpu/fastest.h"

#include <cmath>

#include "cpu/threading.h"

namespace hi::cpu {

namespace {
std::string keyed(const std::string& family, int threads) { return std::to_string(threads) + "|" + family; }
}  // namespace

int KernelChoices::find(const std::string& family, const std::vector<int64_t>& size, double work) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const int threads = current_threads();
  const int found = find_at(keyed(family, threads), size, work, kTimedSizes);
  const RegionLoad* run = current_region_load();
  if (found >= 0 || !run || run->full_threads <= threads) return found;
  // A reduced run: the full count's winner for this size, or for the nearest size timed there.
  return find_at(keyed(family, run->full_threads), size, work, 1);
}

int KernelChoices::find_at(const std::string& key, const std::vector<int64_t>& size, double work,
                           size_t nearest_after) const {
  auto f = families_.find(key);
  if (f == families_.end()) return -1;
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

void KernelChoices::remember(const std::string& family, const std::vector<int64_t>& size, double work, int winner) {
  std::lock_guard<std::mutex> lock(mutex_);
  families_[keyed(family, current_threads())][size] = Timed{work, winner};
}

}  // namespace hi::cpu
