#include "core/run_control.h"

namespace hi {
namespace {
thread_local RunControlScope::Control t_control;
}

RunControlScope::RunControlScope(const RunOptions* options) : previous_(t_control) {
  Control c;
  c.options = options;
  if (options && options->timeout_ms > 0) {
    c.has_deadline = true;
    c.deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                        std::chrono::duration<double, std::milli>(options->timeout_ms));
  }
  t_control = c;
}

RunControlScope::~RunControlScope() { t_control = previous_; }

Status run_stop_status() {
  const RunControlScope::Control& c = t_control;
  if (!c.options) return Status::ok();
  if (c.options->terminate.load(std::memory_order_relaxed))
    return error(StatusCode::kCancelled, "the run was terminated (RunOptions::terminate)");
  if (c.has_deadline && std::chrono::steady_clock::now() >= c.deadline)
    return error(StatusCode::kDeadlineExceeded, "the run passed its time limit of ", c.options->timeout_ms, " ms");
  return Status::ok();
}

void check_run_stop() {
  Status s = run_stop_status();
  if (!s.is_ok()) throw RunStopped{std::move(s)};
}

}  // namespace hi
