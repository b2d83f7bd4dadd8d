// Another engine measured beside hipinfer by `hipinfer bench --compare`: ONNX Runtime or OpenVINO,
// each run by a small Python worker (bench_peer_worker.cc) in a child process.
//
// Set-up: bench writes the model's inputs as .npy files into a temporary folder with a list
// `inputs.txt` ("FILE<TAB>INPUT NAME" per line), writes the worker there and starts
// `PYTHON -u worker.py ENGINE MODEL FOLDER THREADS PRECISION` with stdin and stdout as pipes and stderr into
// FOLDER/ENGINE.stderr (shown when the worker fails).
// Protocol, one line each way:
//   worker at start:  "ready VERSION CREATE_MS PRECISION" (the precision the engine chose, which
//                     may differ from the one asked for) | "unavailable WHY" (not importable) |
//                     "error WHY"
//   "run K"       ->  "ok MS1 ... MSK": K runs, each timed inside the worker around session.run,
//                     so the pipe is never timed
//   "outputs"     ->  "ok N": one more run, outputs saved as .npy with a list in outputs.txt
//   "stats"       ->  "ok BYTES": the worker's peak resident set
//   "quit"        ->  "ok", then the worker exits
//   any failure   ->  "error WHY"
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "hipinfer/session.h"
#include "hipinfer/status.h"

namespace hi::cli {

const char* peer_worker_script();

// A child process spoken to in lines over pipes, in its own process group. Every failure (it will
// not start, it died, it did not answer or read in time, it answered "error ...", it would not
// exit) is a Status whose message names the worker and says which. No wait is without a bound.
class PeerProcess {
 public:
  // `argv[0]` is looked up on PATH. stderr of the child goes to `stderr_file`.
  static Result<std::unique_ptr<PeerProcess>> start(const std::vector<std::string>& argv,
                                                    const std::string& stderr_file, const std::string& label);
  ~PeerProcess();  // kills the child if it is still running
  PeerProcess(const PeerProcess&) = delete;
  PeerProcess& operator=(const PeerProcess&) = delete;

  // Writes one line; a child that does not read it within `timeout_s` is killed (an error).
  Status send(const std::string& line, double timeout_s = 60);
  // The next line from the child, without its newline; waits at most `timeout_s`, then kills it.
  Result<std::string> read_line(double timeout_s);
  // Sends "quit" and closes its input, then waits up to `grace_s` for the child to exit. One that
  // does not is killed with its process group (and not waited for without end if even that
  // fails): an error naming the worker, though its results stand.
  Status stop(double grace_s = 5);

 private:
  PeerProcess() = default;
  // What became of the child ("exited with status 1", "was killed by signal 9 (Killed)") and the
  // end of its stderr; reaps it (killing it first if it is still running).
  std::string describe_end();
  int pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  std::string stderr_file_;
  std::string label_;
  bool killed_ = false;  // it was sent SIGKILL (for not answering, reading or exiting in time)
};

// A peer engine through the worker. start() has three outcomes: a running worker, "unavailable"
// (the engine or numpy not importable: the comparison is skipped) or an error.
class PythonPeer {
 public:
  struct Started {
    std::unique_ptr<PythonPeer> peer;  // null when unavailable
    std::string unavailable_reason;
  };
  struct Engine {
    std::string name;       // "onnxruntime" or "openvino": the worker's ENGINE argument
    std::string label;      // "ONNX Runtime": in messages
    std::string precision;  // asked for: "fp32" or "bf16"
  };
  // Writes the inputs and the worker into `folder` (which must exist) and starts `python`.
  static Result<Started> start(const Engine& engine, const std::string& python, const std::string& model_path,
                               const TensorMap& inputs, int threads, const std::string& folder);
  const std::string& version() const { return version_; }
  const std::string& precision() const { return precision_; }  // the one it runs at
  double create_ms() const { return create_ms_; }
  // K timed runs; `expected_ms_per_run` (0: unknown) sets how long to wait for the answer.
  Result<std::vector<double>> run(int k, double expected_ms_per_run);
  // Outputs of one more run, in the model's output order.
  Result<std::vector<std::pair<std::string, Tensor>>> outputs();
  Result<int64_t> peak_rss_bytes();
  Status stop() { return process_->stop(); }

 private:
  Result<std::string> request(const std::string& line, double timeout_s);
  std::unique_ptr<PeerProcess> process_;
  std::string label_;
  std::string folder_;
  std::string version_;
  std::string precision_;
  double create_ms_ = 0;
};

}  // namespace hi::cli
