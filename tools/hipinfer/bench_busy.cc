// The busy-loop children of `hipinfer bench --busy`; see bench_busy.h.
#include "bench_busy.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hi::cli {
namespace {

// The child's whole life: only async-signal-safe calls after fork(), since bench has threads.
[[noreturn]] void spin_until_killed(int parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0);  // bench died between fork() and prctl()
  volatile unsigned long counter = 0;
  while (true) counter = counter + 1;
}

}  // namespace

Result<BusyLoad> BusyLoad::start(int processes) {
  BusyLoad load;
  const int parent = getpid();
  for (int i = 0; i < processes; ++i) {
    const int pid = fork();
    if (pid < 0)
      return error(StatusCode::kRuntimeError, "--busy: cannot start busy-loop process ", i + 1, " of ", processes, ": ",
                   std::strerror(errno));  // `load` kills the ones already started
    if (pid == 0) spin_until_killed(parent);
    load.pids_.push_back(pid);
  }
  return load;
}

BusyLoad::~BusyLoad() {
  for (int pid : pids_) kill(pid, SIGKILL);
  for (int pid : pids_)
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
}

}  // namespace hi::cli
