"""python/README.md's onnxruntime API table is what scripts/ort_api_table.py makes from the two
modules now: a name onnxruntime has that hipinfer lacks needs a reason there, and the table
cannot go stale."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("onnxruntime")
SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "ort_api_table.py"


def test_the_api_table_is_current():
    r = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
