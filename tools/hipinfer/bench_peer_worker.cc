// The peers' side of `hipinfer bench --compare`: one Python program for ONNX Runtime and
// OpenVINO, kept in the binary (so the comparison works wherever the binary goes) and written to
// the bench's temporary folder when it is needed. The protocol is described in bench_peer.h.
#include "bench_peer.h"

namespace hi::cli {

const char* peer_worker_script() {
  return R"PY(# Written by `hipinfer bench --compare`; see tools/hipinfer/bench_peer.h.
# usage: worker.py ENGINE MODEL FOLDER THREADS PRECISION
import os
import sys
import time


def say(line):
    # One reply per line: a message must not break the protocol.
    sys.stdout.write(line.replace("\r", " ").replace("\n", " | ") + "\n")
    sys.stdout.flush()


def describe(e):
    return f"{type(e).__name__}: {e}"


class OnnxRuntime:
    module = "onnxruntime"
    label = "ONNX Runtime"

    def __init__(self, model, threads, precision):
        import onnxruntime as ort
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
        self.version = ort.__version__
        self.precision = "fp32"  # its CPU provider computes float models in float32
        self.names = [o.name for o in self.session.get_outputs()]

    def run(self, feeds):
        return self.session.run(None, feeds)


class OpenVino:
    module = "openvino"
    label = "OpenVINO"

    def __init__(self, model, threads, precision):
        import openvino as ov
        # Every setting explicit: on a CPU with bf16 OpenVINO would otherwise pick bf16 by itself.
        config = {"PERFORMANCE_HINT": "LATENCY", "INFERENCE_NUM_THREADS": threads,
                  "INFERENCE_PRECISION_HINT": {"fp32": "f32", "bf16": "bf16"}[precision]}
        self.compiled = ov.Core().compile_model(model, "CPU", config)
        self.request = self.compiled.create_infer_request()
        self.version = ov.__version__.split("-")[0]
        # What it chose, not what it was asked: a CPU without bf16 runs f32.
        chosen = self.compiled.get_property("INFERENCE_PRECISION_HINT").to_string()
        self.precision = {"f32": "fp32", "bf16": "bf16", "f16": "fp16"}.get(chosen, chosen)
        self.names = [o.get_any_name() for o in self.compiled.outputs]

    def run(self, feeds):
        results = self.request.infer(feeds)
        return [results[o] for o in self.compiled.outputs]


def main():
    engine, model, folder, threads, precision = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
    kind = {"onnxruntime": OnnxRuntime, "openvino": OpenVino}[engine]
    try:
        import numpy as np
        __import__(kind.module)
    except Exception as e:  # ImportError, or an install that is broken in another way
        say(f"unavailable {kind.module} or numpy cannot be imported by {sys.executable} ({describe(e)})")
        return 0
    try:
        start = time.perf_counter()
        peer = kind(model, threads, precision)
        create_ms = (time.perf_counter() - start) * 1e3
        feeds = {}
        with open(os.path.join(folder, "inputs.txt"), encoding="utf-8") as f:
            for line in f:
                file, name = line.rstrip("\n").split("\t", 1)
                feeds[name] = np.load(os.path.join(folder, file))
    except Exception as e:
        say(f"error {kind.label} could not load the model: {describe(e)}")
        return 1
    say(f"ready {peer.version} {create_ms:.6f} {peer.precision}")
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        try:
            if words[0] == "run" and len(words) == 2:
                latencies = []
                for _ in range(int(words[1])):
                    start = time.perf_counter()
                    peer.run(feeds)
                    latencies.append((time.perf_counter() - start) * 1e3)
                say("ok " + " ".join(f"{ms:.6f}" for ms in latencies))
            elif words[0] == "outputs":
                values = peer.run(feeds)
                with open(os.path.join(folder, "outputs.txt"), "w", encoding="utf-8") as f:
                    for i, (name, value) in enumerate(zip(peer.names, values)):
                        file = f"peer_output_{i}.npy"
                        np.save(os.path.join(folder, file), np.asarray(value))
                        f.write(f"{file}\t{name}\n")
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
