"""The cost of ever-new input shapes: the PP-OCR detector and recogniser run on inputs of random
sizes, every shape new, in hipinfer and ONNX Runtime (same shapes, same order, same threads).
Then the same shapes once more, now all seen before: the steady state to compare with.

  .venv/bin/python scripts/shape_churn_bench.py [--runs 40] [--rounds 3] [--threads 2] [--models DIR]

DIR holds the .onnx files of `pip download rapidocr-onnxruntime==1.4.4` (scripts/setup puts them
in .venv/ppocr). Each round opens fresh sessions and draws fresh shapes. Prints per model: seconds
for the new shapes and for the repeat, per engine, summed over the rounds, and hipinfer's time over
ONNX Runtime's (below 1.0: hipinfer is faster), in all and per round."""
import argparse
import pathlib
import platform
import time

import numpy as np

import hipinfer
import onnxruntime
from peer_sessions import open_sessions

ROOT = pathlib.Path(__file__).resolve().parents[1]


def detector_shapes(rng, runs):
    """RapidOCR resizes a page so both sides are multiples of 32, the longer at most 736 by default."""
    return [(1, 3, 32 * int(rng.integers(5, 24)), 32 * int(rng.integers(5, 24))) for _ in range(runs)]


def recogniser_shapes(rng, runs):
    """A text line at height 48, its width following its length (a batch of up to 6 lines)."""
    return [(int(rng.integers(1, 7)), 3, 48, 8 * int(rng.integers(12, 120))) for _ in range(runs)]


def timed_pass(sessions, inputs):
    """All inputs through one engine, then through the other; seconds per engine. Engines take
    whole passes, not one run each: run by run, each engine's thread pool, still spinning after
    its run, would take a core from the other on a small machine."""
    total = {}
    for name, s in sessions.items():
        time.sleep(0.05)  # the other engine's threads stop spinning
        t0 = time.perf_counter()
        for x in inputs:
            s.run(None, {"x": x})
        total[name] = time.perf_counter() - t0
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=40)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--models", type=pathlib.Path, default=ROOT / ".venv" / "ppocr")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--rounds", type=int, default=3,
                    help="fresh sessions and fresh shapes per round; the table sums the rounds")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print(f"{platform.processor() or platform.machine()}, {args.threads} threads, {args.runs} shapes per model and "
          f"round, {args.rounds} rounds, hipinfer {hipinfer.hipinfer_version}, onnxruntime {onnxruntime.__version__}")
    print(f"{'model':<12}{'pass':<8}{'hipinfer s':>12}{'ORT s':>10}{'ratio':>8}   per round")
    for name, file, shapes in (("detector", "ch_PP-OCRv4_det_infer.onnx", detector_shapes),
                               ("recogniser", "ch_PP-OCRv4_rec_infer.onnx", recogniser_shapes)):
        totals = {label: {"hipinfer": [], "onnxruntime": []} for label in ("new", "repeat")}
        for _ in range(args.rounds):
            sessions = open_sessions(args.models / file, args.threads)
            inputs = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes(rng, args.runs)]
            for label in ("new", "repeat"):
                for engine, seconds in timed_pass(sessions, inputs).items():
                    totals[label][engine].append(seconds)
        for label, t in totals.items():
            h, o = sum(t["hipinfer"]), sum(t["onnxruntime"])
            rounds = " ".join(f"{a / b:.2f}" for a, b in zip(t["hipinfer"], t["onnxruntime"]))
            print(f"{name:<12}{label:<8}{h:>12.2f}{o:>10.2f}{h / o:>8.2f}   {rounds}", flush=True)


if __name__ == "__main__":
    main()
