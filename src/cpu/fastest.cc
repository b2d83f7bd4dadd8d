#include "cpu/fastest.h"

#include <cmath>

namespace hi::cpu {

int KernelChoices::find(const std::string& family, const std::vector<int64_t>& size, double work) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto f = families_.find(family);
  if (f == families_.end()) return -1;
  if (auto exact = f->second.find(size); exact != f->second.end()) return exact->second.winner;
  if (f->second.size() < kTimedSizes) return -1;
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
  families_[family][size] = Timed{work, winner};
}

}  // namespace hi::cpu
