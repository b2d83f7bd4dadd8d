"""Real third-party packages from PyPI that use onnxruntime in their pipelines and ship their
models, run unmodified with hipinfer substituted for onnxruntime (third_party/pipelines.py), give
the same final results as with onnxruntime: RapidOCR's text and boxes on rendered text lines
(PP-OCR detector, classifier and recogniser, every image a new shape) and Magika's file-type
labels. scripts/setup installs both; each engine runs in a fresh interpreter."""
from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

PIPELINES = Path(__file__).resolve().parent / "third_party" / "pipelines.py"


def run_pipeline(name: str, engine: str) -> dict:
    r = subprocess.run([sys.executable, str(PIPELINES), name, "--engine", engine], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, f"{name} with {engine} failed:\n{r.stderr[-3000:]}"
    out = json.loads(r.stdout)
    assert out["module"] == engine, f"the pipeline ran on {out['module']}, not {engine}"
    return out["results"]


def need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (scripts/setup installs it)")


def test_rapidocr_reads_the_same_text_with_hipinfer():
    need("rapidocr_onnxruntime")
    expected = run_pipeline("rapidocr", "onnxruntime")
    got = run_pipeline("rapidocr", "hipinfer")
    assert len(got) == len(expected) == 4
    assert sum(len(page) for page in expected) >= 12, "the reference read too little to compare"
    for page, (g, e) in enumerate(zip(got, expected)):
        assert [line["text"] for line in g] == [line["text"] for line in e], f"page {page}"
        for line_g, line_e in zip(g, e):
            np.testing.assert_allclose(line_g["box"], line_e["box"], atol=1.5, err_msg=f"page {page}: {line_e['text']}")
            assert abs(line_g["score"] - line_e["score"]) < 2e-3, (page, line_e["text"])


def test_magika_labels_files_the_same_with_hipinfer():
    need("magika")
    expected = run_pipeline("magika", "onnxruntime")
    got = run_pipeline("magika", "hipinfer")
    assert got.keys() == expected.keys()
    for name in expected:
        assert got[name]["label"] == expected[name]["label"], name
        # Magika's LayerNorm takes the variance as E[x^2] - E[x]^2, which magnifies summation order:
        # random inputs agree to 2.4e-7, the zip file's to 8.7e-5 (hipinfer sums those in double).
        assert abs(got[name]["score"] - expected[name]["score"]) < 5e-4, name
