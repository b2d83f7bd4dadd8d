#!/usr/bin/env python3
"""Real PyPI packages that run onnxruntime inside their own pipelines, run unmodified; with
`--engine hipinfer`, hipinfer stands in for onnxruntime (sys.modules["onnxruntime"] = hipinfer
before the package is imported), exactly as a user would substitute it. Prints the pipeline's
final results as JSON, and with --repeat, the steady-state seconds per pass (after one warm-up
pass, the best of the repeats).

  rapidocr  RapidOCR (rapidocr-onnxruntime 1.4.4: PP-OCR detector, direction classifier and
            recogniser) on rendered text lines of varying sizes: each line's text and box.
  magika    Google's Magika 1.0.3 file-type classifier on generated files: each label and score.

usage: pipelines.py {rapidocr,magika} --engine {onnxruntime,hipinfer} [--repeat N]
"""
from __future__ import annotations

import argparse
import io
import json
import sys
import time
import zipfile

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LINES = [
    "Invoice 2026-12-07", "Total due: 1,284.50 EUR", "hipinfer runs ONNX models", "The quick brown fox",
    "jumps over the lazy dog", "Order number 48151623", "Shipping to Berlin", "Thank you for your purchase",
    "Page 3 of 12", "Contact: support@example.com", "Batch size 8, 2 threads", "Reference ABC-9981-X",
]


def ocr_images():
    """Pages of 2-4 lines at several font sizes and widths: every image is a new input shape."""
    import numpy as np
    from PIL import Image, ImageDraw, ImageFont
    images = []
    for k, size in enumerate((22, 26, 30, 34)):
        font = ImageFont.truetype(FONT, size)
        lines = LINES[k * 3:k * 3 + 3]
        width = 60 + max(int(font.getlength(t)) for t in lines)
        img = Image.new("RGB", (width, (size * 2) * len(lines) + 30), "white")
        draw = ImageDraw.Draw(img)
        for i, text in enumerate(lines):
            draw.text((24, 16 + i * size * 2), text, fill="black", font=font)
        images.append(np.array(img)[:, :, ::-1].copy())  # BGR, as OpenCV reads files
    return images


def run_rapidocr(repeat: int):
    from rapidocr_onnxruntime import RapidOCR
    engine = RapidOCR()
    images = ocr_images()

    def one_pass():
        out = []
        for img in images:
            result, _ = engine(img)
            out.append([{"text": text, "score": float(score), "box": [[float(v) for v in p] for p in box]}
                        for box, text, score in (result or [])])
        return out
    return one_pass, repeat


def magika_samples():
    from PIL import Image
    samples = {
        "python": b"import os\n\n\ndef main():\n    for name in os.listdir('.'):\n        print(name)\n\n\nmain()\n",
        "json": b'{\n  "name": "hipinfer",\n  "version": [0, 2, 0],\n  "devices": ["cpu", "gpu"],\n  "ok": true\n}\n',
        "html": b"<!DOCTYPE html>\n<html><head><title>Report</title></head>\n<body><h1>Figures</h1><p>ok</p></body></html>\n",
        "c": b"#include <stdio.h>\n\nint main(int argc, char** argv) {\n  printf(\"%d\\n\", argc);\n  return 0;\n}\n",
        "shell": b"#!/bin/sh\nset -eu\nfor f in *.log; do\n  gzip -9 \"$f\"\ndone\necho done\n",
        "csv": b"name,count,price\napple,3,0.50\nbanana,12,0.25\ncherry,100,0.05\ndate,7,1.20\n",
        "markdown": b"# Title\n\nSome *emphasis* and a [link](https://example.com).\n\n- one\n- two\n\n```\ncode\n```\n",
        "xml": b'<?xml version="1.0"?>\n<catalog><book id="1"><title>Go</title></book></catalog>\n',
        "javascript": b"const add = (a, b) => a + b;\nfunction main() {\n  console.log(add(2, 3));\n}\nmain();\n",
    }
    samples = {k: v * 6 for k, v in samples.items()}
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as z:  # a fixed date: the bytes (and the score) the same every run
        z.writestr(zipfile.ZipInfo("notes.txt", date_time=(2026, 1, 1, 0, 0, 0)), "hello " * 200)
    samples["zip"] = archive.getvalue()
    png = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 90)).save(png, format="PNG")
    samples["png"] = png.getvalue()
    return samples


def run_magika(repeat: int):
    from magika import Magika
    m = Magika()
    samples = magika_samples()

    def one_pass():
        out = {}
        for name, data in samples.items():
            r = m.identify_bytes(data)
            out[name] = {"label": str(r.output.label), "score": float(r.score)}
        return out
    return one_pass, repeat


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("pipeline", choices=["rapidocr", "magika"])
    ap.add_argument("--engine", choices=["onnxruntime", "hipinfer"], required=True)
    ap.add_argument("--repeat", type=int, default=0)
    args = ap.parse_args()
    if args.engine == "hipinfer":
        import hipinfer
        sys.modules["onnxruntime"] = hipinfer
    one_pass, repeat = (run_rapidocr if args.pipeline == "rapidocr" else run_magika)(args.repeat)
    t0 = time.perf_counter()
    results = one_pass()
    first = time.perf_counter() - t0
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        one_pass()
        elapsed = time.perf_counter() - t0
        best = elapsed if best is None else min(best, elapsed)
    engine = sys.modules["onnxruntime"]
    json.dump({"engine": args.engine, "module": engine.__name__, "results": results, "first_pass_s": first,
               "steady_pass_s": best}, sys.stdout)


if __name__ == "__main__":
    main()
