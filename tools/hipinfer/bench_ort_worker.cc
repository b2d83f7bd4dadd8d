// The ONNX Runtime side of `hipinfer bench --compare onnxruntime`: a Python program kept in the
// binary (so the comparison works wherever the binary goes) and written to the bench's temporary
// folder when it is needed. The protocol is described in bench_peer.h.
#include "bench_peer.h"

namespace hi::cli {

const char* ort_worker_script() {
  return R"PY(# Written by `hipinfer bench --compare onnxruntime`; see tools/hipinfer/bench_peer.h.
import os
import sys
import time


def say(line):
    # One reply per line: a message must not break the protocol.
    sys.stdout.write(line.replace("\r", " ").replace("\n", " | ") + "\n")
    sys.stdout.flush()


def describe(e):
    return f"{type(e).__name__}: {e}"


def main():
    model, folder, threads = sys.argv[1], sys.argv[2], int(sys.argv[3])
    try:
        import numpy as np
        import onnxruntime as ort
    except Exception as e:  # ImportError, or an install that is broken in another way
        say(f"unavailable onnxruntime or numpy cannot be imported by {sys.executable} ({describe(e)})")
        return 0
    try:
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        start = time.perf_counter()
        session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        create_ms = (time.perf_counter() - start) * 1e3
        feeds = {}
        with open(os.path.join(folder, "inputs.txt"), encoding="utf-8") as f:
            for line in f:
                file, name = line.rstrip("\n").split("\t", 1)
                feeds[name] = np.load(os.path.join(folder, file))
    except Exception as e:
        say(f"error ONNX Runtime could not load the model: {describe(e)}")
        return 1
    say(f"ready {ort.__version__} {create_ms:.6f}")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "run" and len(words) == 2:
                latencies = []
                for _ in range(int(words[1])):
                    start = time.perf_counter()
                    session.run(None, feeds)
                    latencies.append((time.perf_counter() - start) * 1e3)
                say("ok " + " ".join(f"{ms:.6f}" for ms in latencies))
            elif words[0] == "outputs":
                values = session.run(None, feeds)
                with open(os.path.join(folder, "outputs.txt"), "w", encoding="utf-8") as f:
                    for i, (info, value) in enumerate(zip(session.get_outputs(), values)):
                        file = f"peer_output_{i}.npy"
                        np.save(os.path.join(folder, file), np.asarray(value))
                        f.write(f"{file}\t{info.name}\n")
                say(f"ok {len(values)}")
            elif words[0] == "stats":
                import resource
                say(f"ok {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}")
            elif words[0] == "quit":
                say("ok")
                return 0
            else:
                say(f"error unknown request '{line.strip()}'")
        except Exception as e:
            say(f"error {describe(e)}")
    return 0


sys.exit(main())
)PY";
}

}  // namespace hi::cli
