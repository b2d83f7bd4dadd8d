#!/usr/bin/env python3
"""Steady-state and first-pass time of real third-party pipelines (tests/python/third_party/
pipelines.py: RapidOCR on PP-OCR, Magika), with onnxruntime and with hipinfer substituted for it.
Engines alternate process by process, ROUNDS times; each process runs one warm-up pass (its
time is the first-pass figure) and REPEAT timed passes (the best is its steady figure). Prints
the medians over the rounds and hipinfer's time over onnxruntime's. Then Magika's model alone:
one run() at batch 1 on random bytes, each engine in a process of its own with its default threads,
alternating process by process, ROUNDS times (ms per run: the median of 5 blocks of 30 runs per
process, then the median over the rounds). Needs a quiet
machine.

usage: .venv/bin/python scripts/third_party_bench.py [--rounds 3] [--repeat 5] [pipeline ...]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

PIPELINES = Path(__file__).resolve().parent.parent / "tests" / "python" / "third_party" / "pipelines.py"


def run(pipeline: str, engine: str, repeat: int) -> dict:
    r = subprocess.run([sys.executable, str(PIPELINES), pipeline, "--engine", engine, "--repeat", str(repeat)],
                       capture_output=True, text=True, check=True)
    return json.loads(r.stdout)


MAGIKA_BLOCK = """
import statistics, sys, time
from pathlib import Path
import numpy as np
import magika
engine = __import__(sys.argv[1])
model = str(next(Path(magika.__file__).parent.glob("models/*/model.onnx")))
x = np.random.default_rng(0).integers(0, 257, (1, 2048)).astype(np.int32)
s = engine.InferenceSession(model, providers=["CPUExecutionProvider"])
s.run(None, {"bytes": x})
blocks = []
for _ in range(5):
    t0 = time.perf_counter()
    for _ in range(30):
        s.run(None, {"bytes": x})
    blocks.append((time.perf_counter() - t0) / 30 * 1e3)
print(statistics.median(blocks))
"""


def magika_model(rounds: int) -> None:
    """Each engine in a process of its own, alternating: in one process, the thread pool of the
    engine that ran last still spins while the other runs (ONNX Runtime's for a while after each
    run, libgomp's likewise), which doubled hipinfer's time in an earlier form of this bench."""
    times = {name: [] for name in ("onnxruntime", "hipinfer")}
    for _ in range(rounds):
        for name in times:
            r = subprocess.run([sys.executable, "-c", MAGIKA_BLOCK, name], capture_output=True, text=True, check=True)
            times[name].append(float(r.stdout.split()[-1]))
    o, h = statistics.median(times["onnxruntime"]), statistics.median(times["hipinfer"])
    print(f"magika model alone, ms per run: onnxruntime {o:.2f}, hipinfer {h:.2f}, ratio {h / o:.2f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("pipelines", nargs="*", default=["rapidocr", "magika"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    print(f"{'pipeline':10} {'pass':7} {'onnxruntime s':>14} {'hipinfer s':>11} {'ratio':>6}")
    for pipeline in args.pipelines:
        times = {e: {"first": [], "steady": []} for e in ("onnxruntime", "hipinfer")}
        for _ in range(args.rounds):
            for engine in times:
                out = run(pipeline, engine, args.repeat)
                times[engine]["first"].append(out["first_pass_s"])
                times[engine]["steady"].append(out["steady_pass_s"])
        for kind in ("steady", "first"):
            o = statistics.median(times["onnxruntime"][kind])
            h = statistics.median(times["hipinfer"][kind])
            print(f"{pipeline:10} {kind:7} {o:14.4f} {h:11.4f} {h / o:6.2f}")
    if "magika" in args.pipelines:
        magika_model(args.rounds)


if __name__ == "__main__":
    main()
