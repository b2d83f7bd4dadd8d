// The peer process and its engine client; see bench_peer.h.
#include "bench_peer.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "hipinfer/npy.h"

extern char** environ;

namespace hi::cli {
namespace {

using Clock = std::chrono::steady_clock;

// How long a child killed with SIGKILL may take to be reaped. One stuck in the kernel (a GPU
// driver call, a dead network file system) does not die even then; bench must not wait for it.
constexpr double kKillWaitS = 5;

// Polls for the child's exit for up to `timeout_s`; true when it was reaped (status filled).
bool wait_for_exit(int pid, double timeout_s, int* status) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    const int r = waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno != EINTR)) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

// The child runs in its own process group (see start()): killing the group also ends whatever
// it started (a wrapper script's interpreter, ONNX Runtime's helpers).
void kill_group(int pid) {
  if (kill(-pid, SIGKILL) != 0) kill(pid, SIGKILL);
}

struct Reaped {
  int status = 0;
  bool killed = false;  // it had not exited within the grace period
  bool reaped = true;   // false: not even SIGKILL ended it within kKillWaitS
};

// Waits up to `grace_s` for the child to exit, then kills its process group and waits at most
// kKillWaitS more: every wait is bounded.
Reaped reap(int pid, double grace_s) {
  Reaped r;
  if (wait_for_exit(pid, grace_s, &r.status)) return r;
  r.killed = true;
  kill_group(pid);
  r.reaped = wait_for_exit(pid, kKillWaitS, &r.status);
  return r;
}

std::string stderr_tail(const std::string& file, size_t max_lines) {
  std::ifstream in(file);
  std::deque<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (lines.size() > max_lines) lines.pop_front();
  }
  std::string s;
  for (const auto& l : lines) s += "\n    " + l;
  return s;
}

}  // namespace

Result<std::unique_ptr<PeerProcess>> PeerProcess::start(const std::vector<std::string>& argv,
                                                        const std::string& stderr_file, const std::string& label) {
  // A child that dies while we write to it must give EPIPE (reported), not kill bench with SIGPIPE.
  signal(SIGPIPE, SIG_IGN);
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0) return error(StatusCode::kRuntimeError, "pipe: ", std::strerror(errno));
  if (pipe2(from_child, O_CLOEXEC) != 0) {
    close(to_child[0]);
    close(to_child[1]);
    return error(StatusCode::kRuntimeError, "pipe: ", std::strerror(errno));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_child[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  // Its own process group, so that stopping it stops everything it started.
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(to_child[0]);
  close(from_child[1]);
  if (rc != 0) {
    close(to_child[1]);
    close(from_child[0]);
    return error(rc == ENOENT ? StatusCode::kNotFound : StatusCode::kRuntimeError, "cannot start the ", label,
                 " worker with '", argv[0], "': ", std::strerror(rc));
  }
  // Writes wait in poll() with a deadline (send()), never in a blocking write to a child that
  // does not read.
  fcntl(to_child[1], F_SETFL, fcntl(to_child[1], F_GETFL) | O_NONBLOCK);
  std::unique_ptr<PeerProcess> p(new PeerProcess());
  p->pid_ = pid;
  p->to_child_ = to_child[1];
  p->from_child_ = from_child[0];
  p->stderr_file_ = stderr_file;
  p->label_ = label;
  return p;
}

PeerProcess::~PeerProcess() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (pid_ > 0) (void)reap(pid_, 0);  // kills it at once; waits at most kKillWaitS
}

std::string PeerProcess::describe_end() {
  if (pid_ <= 0) return "it had already stopped";
  const Reaped r = reap(pid_, 2);
  const int pid = pid_, status = r.status;
  pid_ = -1;
  killed_ = killed_ || r.killed;
  std::string s;
  if (!r.reaped) s = str("it did not end even after SIGKILL (process ", pid, " is left behind)");
  else if (WIFEXITED(status)) s = "it exited with status " + std::to_string(WEXITSTATUS(status));
  else if (WIFSIGNALED(status))
    s = str("it was killed by signal ", WTERMSIG(status), " (", strsignal(WTERMSIG(status)), ")");
  else s = "it stopped";
  const std::string tail = stderr_tail(stderr_file_, 15);
  return tail.empty() ? s + " (nothing on its stderr)" : s + "; the end of its stderr:" + tail;
}

Status PeerProcess::send(const std::string& line, double timeout_s) {
  if (pid_ <= 0) return error(StatusCode::kRuntimeError, "the ", label_, " worker is not running");
  const std::string data = line + "\n";
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(to_child_, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
      return error(StatusCode::kRuntimeError, "the ", label_, " worker stopped before '", line.substr(0, 80),
                   "': ", describe_end());
    // The pipe is full: the worker is not reading. Wait for room, up to the deadline.
    const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left_ms <= 0) {
      kill_group(pid_);
      killed_ = true;
      return error(StatusCode::kRuntimeError, "the ", label_, " worker did not read its input within ", timeout_s,
                   " s and was stopped: ", describe_end());
    }
    pollfd fd{to_child_, POLLOUT, 0};
    if (poll(&fd, 1, static_cast<int>(std::min<long long>(left_ms, 1000))) < 0 && errno != EINTR)
      return error(StatusCode::kRuntimeError, "poll: ", std::strerror(errno));
  }
  return Status::ok();
}

Result<std::string> PeerProcess::read_line(double timeout_s) {
  const auto deadline = Clock::now() + std::chrono::duration<double>(timeout_s);
  while (true) {
    if (const auto nl = buffer_.find('\n'); nl != std::string::npos) {
      std::string line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      return line;
    }
    if (pid_ <= 0) return error(StatusCode::kRuntimeError, "the ", label_, " worker is not running");
    const auto left_ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left_ms <= 0) {
      kill_group(pid_);
      killed_ = true;
      return error(StatusCode::kRuntimeError, "the ", label_, " worker did not answer within ", timeout_s,
                   " s and was stopped: ", describe_end());
    }
    pollfd fd{from_child_, POLLIN, 0};
    const int r = poll(&fd, 1, static_cast<int>(std::min<long long>(left_ms, 1000)));
    if (r < 0 && errno != EINTR) return error(StatusCode::kRuntimeError, "poll: ", std::strerror(errno));
    if (r <= 0) continue;
    char chunk[4096];
    const ssize_t n = read(from_child_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return error(StatusCode::kRuntimeError, "the ", label_, " worker stopped unexpectedly: ", describe_end());
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

Status PeerProcess::stop(double grace_s) {
  if (pid_ <= 0) return Status::ok();
  killed_ = false;
  Status quit = send("quit", grace_s);
  if (quit.is_ok()) {
    auto answer = read_line(grace_s);
    if (!answer.is_ok()) quit = answer.status();
  }
  if (to_child_ >= 0) close(to_child_);  // end of input makes the worker exit even if it missed "quit"
  to_child_ = -1;
  // Reaped already: it exited instead of answering (fine), or was killed for not answering.
  if (pid_ <= 0) return killed_ ? quit : Status::ok();
  const int pid = pid_;
  const Reaped r = reap(pid_, grace_s);
  pid_ = -1;
  if (!r.killed) return Status::ok();
  if (!r.reaped)
    return error(StatusCode::kRuntimeError, "the ", label_, " worker did not exit within ", grace_s,
                 " s of 'quit' and did not end even after SIGKILL; process ", pid, " is left behind");
  return error(StatusCode::kRuntimeError, "the ", label_, " worker did not exit within ", grace_s,
               " s of 'quit' and was killed (SIGKILL)");
}

Result<PythonPeer::Started> PythonPeer::start(const Engine& engine, const std::string& python,
                                              const std::string& model_path, const TensorMap& inputs, int threads,
                                              const std::string& folder) {
  namespace fs = std::filesystem;
  Started started;
  // Inputs go over as .npy files; a type .npy cannot carry means no comparison, not a failure.
  {
    std::ofstream list(fs::path(folder) / "inputs.txt");
    int i = 0;
    for (const auto& [name, tensor] : inputs) {
      if (name.find_first_of("\t\n") != std::string::npos) {
        started.unavailable_reason = "input name '" + name + "' contains a tab or newline";
        return started;
      }
      const std::string file = "input_" + std::to_string(i++) + ".npy";
      if (Status s = write_npy((fs::path(folder) / file).string(), tensor); !s.is_ok()) {
        started.unavailable_reason = "input '" + name + "' cannot be handed over as .npy: " + s.message();
        return started;
      }
      list << file << '\t' << name << '\n';
    }
    if (!list.good())
      return error(StatusCode::kRuntimeError, "cannot write ", (fs::path(folder) / "inputs.txt").string());
  }
  const std::string script = (fs::path(folder) / "peer_worker.py").string();
  {
    std::ofstream out(script);
    out << peer_worker_script();
    if (!out.good()) return error(StatusCode::kRuntimeError, "cannot write ", script);
  }
  std::error_code ec;
  const std::string model = fs::absolute(model_path, ec).string();
  HI_ASSIGN_OR_RETURN(
      auto process,
      PeerProcess::start({python, "-u", script, engine.name, model, folder, std::to_string(threads), engine.precision},
                         (fs::path(folder) / (engine.name + ".stderr")).string(), engine.label));
  // Loading a large model into a peer can take minutes.
  HI_ASSIGN_OR_RETURN(std::string hello, process->read_line(1800));
  std::istringstream words(hello);
  std::string tag;
  words >> tag;
  if (tag == "unavailable") {
    (void)process->stop();  // it said so and exits; one that does not is killed
    started.unavailable_reason = hello.substr(tag.size() + 1);
    return started;
  }
  if (tag == "error") return error(StatusCode::kRuntimeError, hello.substr(tag.size() + 1));
  auto peer = std::unique_ptr<PythonPeer>(new PythonPeer());
  if (tag != "ready" || !(words >> peer->version_ >> peer->create_ms_ >> peer->precision_))
    return error(StatusCode::kRuntimeError, "the ", engine.label, " worker (", python, ") answered '", hello,
                 "' instead of 'ready VERSION MS PRECISION'");
  peer->label_ = engine.label;
  peer->process_ = std::move(process);
  peer->folder_ = folder;
  started.peer = std::move(peer);
  return started;
}

Result<std::string> PythonPeer::request(const std::string& line, double timeout_s) {
  HI_RETURN_IF_ERROR(process_->send(line));
  Result<std::string> reply = process_->read_line(timeout_s);
  if (!reply.is_ok()) return reply.status();
  const std::string& answer = reply.value();
  if (answer.rfind("ok", 0) == 0 && (answer.size() == 2 || answer[2] == ' '))
    return answer.size() == 2 ? std::string() : answer.substr(3);
  if (answer.rfind("error ", 0) == 0)
    return error(StatusCode::kRuntimeError, label_, " failed on '", line, "': ", answer.substr(6));
  return error(StatusCode::kRuntimeError, "the ", label_, " worker answered '", answer, "' to '", line, "'");
}

Result<std::vector<double>> PythonPeer::run(int k, double expected_ms_per_run) {
  // Generous: a machine that is busy elsewhere must not turn into a false failure.
  const double timeout_s = std::max(600.0, 20.0 * k * expected_ms_per_run / 1000.0);
  HI_ASSIGN_OR_RETURN(std::string answer, request("run " + std::to_string(k), timeout_s));
  std::vector<double> ms;
  std::istringstream in(answer);
  for (double v; in >> v;) ms.push_back(v);
  if (static_cast<int>(ms.size()) != k)
    return error(StatusCode::kRuntimeError, "the ", label_, " worker returned ", ms.size(), " latencies for 'run ", k,
                 "'");
  return ms;
}

Result<std::vector<std::pair<std::string, Tensor>>> PythonPeer::outputs() {
  HI_ASSIGN_OR_RETURN(std::string answer, request("outputs", 1800));
  std::vector<std::pair<std::string, Tensor>> result;
  std::ifstream list(std::filesystem::path(folder_) / "outputs.txt");
  for (std::string line; std::getline(list, line);) {
    const auto tab = line.find('\t');
    if (tab == std::string::npos) continue;
    HI_ASSIGN_OR_RETURN(Tensor t, read_npy((std::filesystem::path(folder_) / line.substr(0, tab)).string()));
    result.emplace_back(line.substr(tab + 1), std::move(t));
  }
  if (std::to_string(result.size()) != answer)
    return error(StatusCode::kRuntimeError, "the ", label_, " worker announced ", answer, " outputs, found ",
                 result.size());
  return result;
}

Result<int64_t> PythonPeer::peak_rss_bytes() {
  HI_ASSIGN_OR_RETURN(std::string answer, request("stats", 60));
  return static_cast<int64_t>(std::strtoll(answer.c_str(), nullptr, 10));
}

}  // namespace hi::cli
