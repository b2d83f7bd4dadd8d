// fork/exec with a pipe for output and a deadline; the child gets its own process group so a
// timeout ends everything it started and nothing else.
#include "doctor/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

namespace hi::doctor {
namespace {

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

void keep_head_and_tail(std::string& out, size_t max_output) {
  if (out.size() <= max_output) return;
  const size_t half = max_output / 2;
  out = out.substr(0, half) + "\n[... " + std::to_string(out.size() - 2 * half) + " bytes cut ...]\n" +
        out.substr(out.size() - half);
}

}  // namespace

std::optional<ProcessResult> run_process(const std::vector<std::string>& argv, int timeout_s,
                                         const std::map<std::string, std::string>* env, size_t max_output) {
  if (argv.empty()) return std::nullopt;
  int out_pipe[2], err_pipe[2];  // err_pipe carries errno when exec fails; CLOEXEC closes it on success
  if (pipe2(out_pipe, O_CLOEXEC) != 0) return std::nullopt;
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return std::nullopt;
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> env_strings;
  if (env)
    for (const auto& [k, v] : *env) env_strings.push_back(k + "=" + v);
  std::vector<char*> c_args = c_strings(args);
  std::vector<char*> c_env = c_strings(env_strings);

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return std::nullopt;
  }
  if (pid == 0) {
    setpgid(0, 0);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(out_pipe[1], STDERR_FILENO);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    if (env) execve(c_args[0], c_args.data(), c_env.data());
    else execv(c_args[0], c_args.data());
    const int e = errno;
    (void)!write(err_pipe[1], &e, sizeof e);
    _exit(127);
  }
  setpgid(pid, pid);  // also here, so the group exists before any kill
  close(out_pipe[1]);
  close(err_pipe[1]);
  int exec_errno = 0;
  const bool exec_failed = read(err_pipe[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(err_pipe[0]);

  ProcessResult result;
  const auto deadline = start + std::chrono::seconds(timeout_s);
  char buf[65536];
  while (!exec_failed) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd p{out_pipe[0], POLLIN, 0};
    const int r = poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    const ssize_t n = read(out_pipe[0], buf, sizeof buf);
    if (n <= 0) break;  // EOF: every writer (including grandchildren) closed the pipe
    result.output.append(buf, static_cast<size_t>(n));
    if (result.output.size() > 4 * max_output) keep_head_and_tail(result.output, 2 * max_output);
  }
  close(out_pipe[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (exec_failed) return std::nullopt;
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  keep_head_and_tail(result.output, max_output);
  return result;
}

}  // namespace hi::doctor
