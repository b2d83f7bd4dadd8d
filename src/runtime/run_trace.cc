#include "runtime/run_trace.h"

namespace hi::runtime {
namespace {

thread_local std::vector<NodeTraffic>* current_sink = nullptr;

}  // namespace

TrafficTrace::TrafficTrace(std::vector<NodeTraffic>* sink) : previous_(current_sink) { current_sink = sink; }

TrafficTrace::~TrafficTrace() { current_sink = previous_; }

std::vector<NodeTraffic>* TrafficTrace::current() { return current_sink; }

}  // namespace hi::runtime
