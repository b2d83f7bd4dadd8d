"""The figures of docs/performance.md: `hipinfer bench --compare onnxruntime` (alternating blocks,
same threads, same inputs) on the zoo models at batch 1 and 8 in fp32 and bf16, and on the PP-OCR
models at one fixed input size each, printed as the document's Markdown table.

  .venv/bin/python scripts/perf_figures.py [--build build/ci] [--time 4] [--work DIR] [--rows PATTERN]

The PP-OCR .onnx files are those of `pip download rapidocr-onnxruntime==1.4.4` (scripts/setup
puts them in .venv/ppocr). Ratios are hipinfer's throughput over ONNX Runtime's (above 1:
hipinfer is faster); the latencies are medians; the output difference is the largest over the
outputs of |hipinfer - ONNX Runtime| relative to the output's largest value."""
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


def bench(hipinfer, model, flags, seconds):
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        cmd = [str(hipinfer), "bench", str(model), "--threads", "2", "--time", str(seconds), "--warmup", "5",
               "--compare", "onnxruntime", "--json", out.name, "-q", *flags]
        # Exit 1 also means "outputs differ past the tolerance", which bf16 on random weights does:
        # the difference is reported in the table rather than failing the row.
        done = subprocess.run(cmd, capture_output=True, text=True,
                              env={"HI_PYTHON": sys.executable, "PATH": "/usr/bin:/bin"})
        if done.returncode not in (0, 1) or not pathlib.Path(out.name).stat().st_size:
            raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}): {done.stderr[-500:]}")
        d = json.load(open(out.name))
    ort = next(p for p in d["peers"] if p["name"] == "onnxruntime")
    if ort["state"] != "measured":
        raise RuntimeError(f"ONNX Runtime was not measured on {model}: {ort['state']}")
    h = d["hipinfer"]
    outputs = d["comparisons"]["onnxruntime"]["outputs"]
    return {"hip_ms": h["latency_ms"]["median"], "ort_ms": ort["latency_ms"]["median"],
            "difference": max(o["max_rel_error"] for o in outputs),
            "ratio": h["throughput_per_s"] / ort["throughput_per_s"],
            "hip_create": h["session_create_ms"], "ort_create": ort["session_create_ms"]}


def rows(work, hipinfer):
    """(label, batch, precision, model path, bench flags) for every row."""
    for label, zoo in ZOO.items():
        model = work / f"{zoo[0]}.onnx"
        if not model.exists():
            subprocess.run([str(hipinfer), "zoo", *zoo, "-o", str(model)], check=True, capture_output=True)
        for batch in (1, 8):
            inputs = encoder_inputs(work, batch) if zoo is ENCODER else ["--batch", str(batch)]
            yield label, batch, "fp32", model, inputs
            yield label, batch, "bf16", model, [*inputs, "--precision", "bf16", "--accuracy-samples", "0"]
    for label, (file, shape) in PPOCR.items():
        model = ROOT / ".venv" / "ppocr" / file
        yield label, 1, "fp32", model, image_input(work, file, shape)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=pathlib.Path, default=ROOT / "build" / "ci")
    ap.add_argument("--time", type=float, default=4)
    ap.add_argument("--work", type=pathlib.Path, default=pathlib.Path(tempfile.gettempdir()) / "hipinfer-perf")
    ap.add_argument("--rows", default="", help="only rows whose model label matches this regular expression")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    hipinfer = args.build / "tools" / "hipinfer" / "hipinfer"
    print("| model | batch | precision | hipinfer ms | ORT ms | throughput ratio | session creation ms (hipinfer / ORT) "
          "| output difference |")
    print("|---|---|---|---|---|---|---|---|")
    for label, batch, precision, model, flags in rows(args.work, hipinfer):
        if not re.search(args.rows, label):
            continue
        r = bench(hipinfer, model, flags, args.time)
        peer = " (ORT fp32)" if precision == "bf16" else ""
        print(f"| {label} | {batch} | {precision}{peer} | {r['hip_ms']:.2f} | {r['ort_ms']:.2f} | {r['ratio']:.2f} | "
              f"{r['hip_create']:.0f} / {r['ort_create']:.0f} | {r['difference']:.1e} |", flush=True)


if __name__ == "__main__":
    main()
