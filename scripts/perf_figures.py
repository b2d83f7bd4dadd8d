"""The figures of docs/performance.md: `hipinfer bench --compare onnxruntime,openvino` (alternating
blocks, same threads, same inputs) on the zoo models at batch 1 and 8 in fp32 and bf16, and on the
PP-OCR models at one fixed input size each, printed as the document's Markdown table.

  .venv/bin/python scripts/perf_figures.py [--build build/ci] [--time 4] [--work DIR] [--rows PATTERN]
                                           [--peers onnxruntime,openvino] [--busy N] [--precisions fp32,bf16]
                                           [--batches 1,8]

The PP-OCR .onnx files are those of `pip download rapidocr-onnxruntime==1.4.4` (scripts/setup
puts them in .venv/ppocr). Ratios are hipinfer's throughput over each peer's (above 1: hipinfer
is faster); the latencies are medians; ONNX Runtime runs float32 always, OpenVINO at the row's
precision (what it chose is printed). The output difference is the largest over the outputs of
|hipinfer - ONNX Runtime| relative to the output's largest value. With --busy N, N busy-loop
processes run beside every measurement (`bench --busy`) and the table adds each engine's p99 over
its median. Every row says how many of hipinfer's timed runs used fewer threads than asked
(SessionOptions::adapt_threads: other processes took cores)."""
import argparse
import json
import pathlib
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
ENCODER = ["bert", "--layers", "4", "--hidden", "256", "--heads", "4", "--sequence", "128"]
ZOO = {"ResNet-50": ["resnet50"], "MobileNetV2": ["mobilenetv2"], "encoder 4x256, seq 128": ENCODER}
PPOCR = {"PP-OCR detector 480x480": ("ch_PP-OCRv4_det_infer.onnx", (1, 3, 480, 480)),
         "PP-OCR recogniser 48x320": ("ch_PP-OCRv4_rec_infer.onnx", (1, 3, 48, 320)),
         "PP-OCR classifier 48x192": ("ch_ppocr_mobile_v2.0_cls_infer.onnx", (1, 3, 48, 192))}


def encoder_inputs(work, batch):
    """Token ids uniform over the vocabulary, an all-ones mask, zero token types (seed 0)."""
    rng = np.random.default_rng(0)
    arrays = {"input_ids": rng.integers(0, 30522, (batch, 128), dtype=np.int64),
              "attention_mask": np.ones((batch, 128), np.int64),
              "token_type_ids": np.zeros((batch, 128), np.int64)}
    flags = []
    for name, a in arrays.items():
        path = work / f"{name}_b{batch}.npy"
        np.save(path, a)
        flags += ["-i", f"{name}={path}"]
    return flags


def image_input(work, name, shape):
    path = work / f"{name}.npy"
    np.save(path, np.random.default_rng(0).uniform(-1, 1, shape).astype(np.float32))
    return ["-i", f"x={path}"]


def bench(hipinfer, model, flags, seconds, peers, busy):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [str(hipinfer), "bench", str(model), "--threads", "2", "--time", str(seconds), "--warmup", "5",
               "--compare", ",".join(peers), "--busy", str(busy), "--json", out.name, "-q", *flags]
        # Exit 1 also means "outputs differ past the tolerance", which bf16 on random weights does:
        # the difference is reported in the table rather than failing the row.
        done = subprocess.run(cmd, capture_output=True, text=True,
                              env={"HI_PYTHON": sys.executable, "PATH": "/usr/bin:/bin"})
        if done.returncode not in (0, 1) or not pathlib.Path(out.name).stat().st_size:
            raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-500:]}")
        d = json.load(open(out.name))
    engines = {"hipinfer": d["hipinfer"]}
    for p in d["peers"]:
        if p["state"] != "measured":
            raise RuntimeError(f"{p['label']} was not measured on {model}: {p['state']} {p.get('message', '')}")
        engines[p["name"]] = p
    first = d["comparisons"][peers[0]]["outputs"]
    return engines, max(o["max_rel_error"] for o in first)


def rows(work, hipinfer, batches, precisions):
    """(label, batch, precision, model path, bench flags) for every row."""
    for label, zoo in ZOO.items():
        model = work / f"{zoo[0]}.onnx"
        if not model.exists():
            subprocess.run([str(hipinfer), "zoo", *zoo, "-o", str(model)], check=True, capture_output=True)
        for batch in batches:
            inputs = encoder_inputs(work, batch) if zoo is ENCODER else ["--batch", str(batch)]
            if "fp32" in precisions:
                yield label, batch, "fp32", model, inputs
            if "bf16" in precisions:
                yield label, batch, "bf16", model, [*inputs, "--precision", "bf16", "--accuracy-samples", "0"]
    if 1 in batches and "fp32" in precisions:
        for label, (file, shape) in PPOCR.items():
            model = ROOT / ".venv" / "ppocr" / file
            yield label, 1, "fp32", model, image_input(work, file, shape)


def row_text(label, batch, precision, engines, difference, peers, busy):
    h = engines["hipinfer"]
    cells = [label, str(batch), precision, f"{h['latency_ms']['median']:.2f}"]
    cells += [f"{engines[p]['latency_ms']['median']:.2f} ({engines[p]['precision']})" for p in peers]
    cells += [f"{h['throughput_per_s'] / engines[p]['throughput_per_s']:.2f}" for p in peers]
    if busy:
        cells.append(" / ".join(f"{e['latency_ms']['p99'] / e['latency_ms']['median']:.1f}" for e in engines.values()))
    cells.append(f"{h['reduced_thread_runs']}/{h['runs']}")
    cells.append(" / ".join(f"{e['session_create_ms']:.0f}" for e in engines.values()))
    cells.append(" / ".join(f"{e['first_run_ms']:.0f}" for e in engines.values()))
    cells.append(f"{difference:.1e}")
    return "| " + " | ".join(cells) + " |"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=pathlib.Path, default=ROOT / "build" / "ci")
    ap.add_argument("--time", type=float, default=4)
    ap.add_argument("--work", type=pathlib.Path, default=pathlib.Path(tempfile.gettempdir()) / "hipinfer-perf")
    ap.add_argument("--rows", default="", help="only rows whose model label matches this regular expression")
    ap.add_argument("--peers", default="onnxruntime,openvino", help="bench --compare list; the first is the output reference")
    ap.add_argument("--busy", type=int, default=0, help="busy-loop processes beside each measurement (bench --busy)")
    ap.add_argument("--precisions", default="fp32,bf16")
    ap.add_argument("--batches", default="1,8")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    hipinfer = args.build / "tools" / "hipinfer" / "hipinfer"
    peers = args.peers.split(",")
    names = {"onnxruntime": "ORT", "openvino": "OpenVINO"}
    engines = ["hipinfer", *(names.get(p, p) for p in peers)]
    head = ["model", "batch", "precision", "hipinfer ms", *(f"{names.get(p, p)} ms" for p in peers),
            *(f"x {names.get(p, p)}" for p in peers)]
    if args.busy:
        head.append("p99 / median (" + " / ".join(engines) + ")")
    head.append("hipinfer runs on fewer threads")
    head += ["session creation ms (" + " / ".join(engines) + ")", "first run ms (" + " / ".join(engines) + ")",
             f"output difference to {names.get(peers[0], peers[0])}"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    batches = [int(b) for b in args.batches.split(",")]
    for label, batch, precision, model, flags in rows(args.work, hipinfer, batches, args.precisions.split(",")):
        if not re.search(args.rows, label):
            continue
        measured, difference = bench(hipinfer, model, flags, args.time, peers, args.busy)
        print(row_text(label, batch, precision, measured, difference, peers, args.busy), flush=True)


if __name__ == "__main__":
    main()
