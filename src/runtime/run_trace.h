// The per-node traffic of a profiled run (RunStats::node_traffic), gathered on the thread that
// runs it: the executor notes the nodes it runs itself, and a device partition's runner, called
// on the same thread, notes the nodes inside it.
#pragma once

#include <vector>

#include "hipinfer/session.h"

namespace hi::runtime {

// While alive, traffic noted on this thread goes to `sink`.
class TrafficTrace {
 public:
  explicit TrafficTrace(std::vector<NodeTraffic>* sink);
  ~TrafficTrace();
  TrafficTrace(const TrafficTrace&) = delete;
  TrafficTrace& operator=(const TrafficTrace&) = delete;

  // The calling thread's sink, or null when its run is not profiled.
  static std::vector<NodeTraffic>* current();

 private:
  std::vector<NodeTraffic>* previous_;
};

}  // namespace hi::runtime
