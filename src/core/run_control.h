// Stopping a run: RunOptions' terminate flag and time limit, seen by the code that runs it.
//
// Session::run opens a RunControlScope on its thread; the executor checks between nodes, Loop
// and Scan between iterations, and long reference kernels between slices of their work. A check
// outside any scope always passes. OpenMP worker threads see no scope: check on the thread that
// opened it, outside parallel regions.
#pragma once

#include <chrono>

#include "hipinfer/session.h"
#include "hipinfer/status.h"

namespace hi {

// Thrown by check_run_stop() from inside a kernel; the executor turns it into its Status.
struct RunStopped {
  Status status;
};

class RunControlScope {
 public:
  explicit RunControlScope(const RunOptions* options);  // null: nothing to check
  ~RunControlScope();
  RunControlScope(const RunControlScope&) = delete;
  RunControlScope& operator=(const RunControlScope&) = delete;

  struct Control {
    const RunOptions* options = nullptr;
    std::chrono::steady_clock::time_point deadline{};
    bool has_deadline = false;
  };

 private:
  Control previous_;
};

// kCancelled when this thread's run was terminated, kDeadlineExceeded past its time limit, else ok.
Status run_stop_status();
// Throws RunStopped when run_stop_status() is not ok.
void check_run_stop();

}  // namespace hi
