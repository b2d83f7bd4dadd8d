"""Time from process start to the first result, for `hipinfer run` and for a Python process
running the same model in ONNX Runtime and OpenVINO (import, session, one run), alternating, on
the zoo models. hipinfer runs with an empty kernel cache ("cold") and with the cache that a
`hipinfer run --tune` of the model filled ("warm"); the model file is in the page cache for all.

  .venv/bin/python scripts/cold_start.py [--build build/ci] [--rounds 7] [--work DIR]

Prints one Markdown row per model: the median wall time of each over the rounds, in ms, and
hipinfer's over ONNX Runtime's."""
import argparse
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = {"ResNet-50": ["resnet50"], "MobileNetV2": ["mobilenetv2"],
       "encoder 4x256, seq 128": ["bert", "--layers", "4", "--hidden", "256", "--heads", "4", "--sequence", "128"]}

# One run on the model's declared shapes (symbolic dims: batch 1, sequence 128), as a new user would.
PEER = """
import sys, numpy as np
engine, model = sys.argv[1], sys.argv[2]
def feeds(inputs):
    out = {}
    for name, shape, is_int in inputs:
        shape = [d if isinstance(d, int) and d > 0 else (128 if 'seq' in str(d) else 1) for d in shape]
        out[name] = np.zeros(shape, np.int64) if is_int else np.random.rand(*shape).astype(np.float32)
    return out
if engine == 'onnxruntime':
    import onnxruntime as ort
    o = ort.SessionOptions(); o.intra_op_num_threads = 2
    s = ort.InferenceSession(model, o, providers=['CPUExecutionProvider'])
    s.run(None, feeds([(i.name, i.shape, 'int64' in i.type) for i in s.get_inputs()]))
else:
    import openvino as ov
    core = ov.Core()
    m = core.read_model(model)
    c = core.compile_model(m, 'CPU', {'PERFORMANCE_HINT': 'LATENCY', 'INFERENCE_NUM_THREADS': 2,
                                      'INFERENCE_PRECISION_HINT': 'f32'})
    ins = [(i.get_any_name(), [d.get_length() if d.is_static else -1 for d in i.get_partial_shape()],
            i.get_element_type().is_integral()) for i in m.inputs]
    c(feeds(ins))
"""


def wall_ms(cmd, env=None):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True, env=env)
    return (time.perf_counter() - t0) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default="build/ci")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    hipinfer = ROOT / args.build / "tools/hipinfer/hipinfer"
    work = pathlib.Path(args.work or tempfile.mkdtemp(prefix="hi_cold_"))
    work.mkdir(parents=True, exist_ok=True)
    print("| model | hipinfer, cold kernel cache | hipinfer, warm kernel cache | ONNX Runtime | OpenVINO | "
          "ORT / hipinfer (cold) |")
    print("|---|---|---|---|---|---|")
    for label, zoo in ZOO.items():
        model = work / f"{zoo[0]}.onnx"
        if not model.exists():
            subprocess.run([str(hipinfer), "zoo", *zoo, "-o", str(model)], check=True, capture_output=True)
        warm_dir = work / f"cache_{zoo[0]}"
        run = [str(hipinfer), "run", str(model), "--repeat", "1", "--threads", "2"]
        subprocess.run(run + ["--tune"], check=True, capture_output=True,
                       env={**os.environ, "HIPINFER_CACHE_DIR": str(warm_dir)})
        times = {k: [] for k in ("cold", "warm", "onnxruntime", "openvino")}
        for r in range(args.rounds):
            cold_dir = work / f"cold_{zoo[0]}_{r}"  # new and empty every round
            times["cold"].append(wall_ms(run, {**os.environ, "HIPINFER_CACHE_DIR": str(cold_dir)}))
            times["warm"].append(wall_ms(run, {**os.environ, "HIPINFER_CACHE_DIR": str(warm_dir)}))
            for engine in ("onnxruntime", "openvino"):
                times[engine].append(wall_ms([sys.executable, "-c", PEER, engine, str(model)]))
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"| {label} | {med['cold']:.0f} | {med['warm']:.0f} | {med['onnxruntime']:.0f} | "
              f"{med['openvino']:.0f} | {med['onnxruntime'] / med['cold']:.2f} |", flush=True)


if __name__ == "__main__":
    main()
