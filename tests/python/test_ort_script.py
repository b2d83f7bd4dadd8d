"""A script written for onnxruntime runs unchanged except for its import line."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import ZOO_RTOL, zoo_atol

SCRIPT = Path(__file__).with_name("ort_style_script.py")
ORT_IMPORT = "import onnxruntime as ort\n"
HIPINFER_IMPORT = "import hipinfer as ort\n"


def run_script(path: Path, model: Path, out: Path) -> list:
    result = subprocess.run([sys.executable, str(path), str(model), str(out)], capture_output=True, text=True,
                            timeout=600, cwd=path.parent)
    assert result.returncode == 0, f"{path.name} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout.splitlines()


@pytest.mark.parametrize("name", ["mobilenetv2", "bert"])
def test_onnxruntime_script_runs_with_hipinfer(name, zoo, ort, tmp_path):
    source = SCRIPT.read_text()
    assert source.count(ORT_IMPORT) == 1
    swapped = tmp_path / "hipinfer_style_script.py"
    swapped.write_text(source.replace(ORT_IMPORT, HIPINFER_IMPORT))

    model = zoo(name)
    expected_lines = run_script(SCRIPT, model, tmp_path / "ort.npz")
    got_lines = run_script(swapped, model, tmp_path / "hipinfer.npz")

    # Everything the script prints matches, except the list of providers each library has.
    def comparable(lines):
        return [line for line in lines if not line.startswith("available providers:")]

    assert comparable(got_lines) == comparable(expected_lines)
    assert "providers: ['CPUExecutionProvider']" in got_lines
    expected, got = np.load(tmp_path / "ort.npz"), np.load(tmp_path / "hipinfer.npz")
    assert sorted(got.files) == sorted(expected.files)
    for key in expected.files:
        np.testing.assert_allclose(got[key], expected[key], rtol=ZOO_RTOL, atol=zoo_atol(expected[key]), err_msg=key)
