"""Fixtures for the Python package's tests: the installed `hipinfer`, zoo models made with
`python -m hipinfer zoo`, the ONNX test data, and small models built with onnx.helper.

Run with the package installed (`pip install .`), from anywhere: `python -m pytest tests/python`.
The ONNX test data comes from $HI_ONNX_TEST_DATA (an unpacked folder) or from
../shared/onnx-tests/onnx-backend-test-data.tar.xz beside the checkout, unpacked once per run.
"""
from __future__ import annotations

import atexit
import functools
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

import numpy as np
import pytest

import hipinfer

REPO = Path(__file__).resolve().parents[2]
ARCHIVE = REPO.parent / "shared" / "onnx-tests" / "onnx-backend-test-data.tar.xz"

# Small zoo models keep the suite short: the reference kernels are plain loops.
ENCODER_ARGS = ["--layers", "2", "--hidden", "64", "--heads", "4", "--sequence", "16", "--vocab", "1000"]
ZOO_ARGS: Dict[str, List[str]] = {
    "resnet50": [],
    "mobilenetv2": ["--image-size", "96", "--classes", "100"],
    "bert": ENCODER_ARGS,
}


# Zoo models against onnxruntime, as tests/models/compare_zoo_ort.py: rtol 1e-4, and an absolute
# tolerance of 1e-4 times the reference's RMS (at least 1e-5). Both engines sum in fp32 in
# different orders; over ResNet-50's 50 layers that shows as ~1e-4 of the output's scale, which a
# pure rtol would flag wherever a value happens to be near zero.
ZOO_RTOL = 1e-4


def zoo_atol(expected: np.ndarray) -> float:
    return max(1e-5, 1e-4 * float(np.sqrt(np.mean(expected.astype(np.float64) ** 2))))


def run_cli(*args: str, check: bool = True, timeout: int = 600) -> subprocess.CompletedProcess:
    """`python -m hipinfer ARGS` with this interpreter."""
    result = subprocess.run([sys.executable, "-m", "hipinfer", *args], capture_output=True, text=True,
                            timeout=timeout)
    if check and result.returncode != 0:
        raise AssertionError(f"hipinfer {' '.join(args)} exited {result.returncode}:\n{result.stdout}\n{result.stderr}")
    return result


@functools.lru_cache(maxsize=None)
def onnx_test_data_dir() -> Optional[Path]:
    """The unpacked ONNX test data (node/, simple/, ...), or None when there is none. Cached, so
    collection (which parametrizes over the models) and the fixtures share one unpacking."""
    env = os.environ.get("HI_ONNX_TEST_DATA")
    if env:
        return Path(env) if (Path(env) / "simple").is_dir() else None
    if not ARCHIVE.exists():
        return None
    root = Path(tempfile.mkdtemp(prefix="hipinfer-onnx-tests-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    with tarfile.open(ARCHIVE) as tar:
        members = [m for m in tar.getmembers() if m.name.lstrip("./").startswith("simple/")]
        kwargs = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(root, members=members, **kwargs)
    return root


@pytest.fixture(scope="session")
def onnx_test_data() -> Path:
    root = onnx_test_data_dir()
    if root is None:
        pytest.skip("no ONNX test data: set HI_ONNX_TEST_DATA or put ../shared/onnx-tests beside the checkout")
    return root


@pytest.fixture(scope="session")
def zoo(tmp_path_factory: pytest.TempPathFactory):
    """zoo("resnet50") -> path of the model, written once per run with `python -m hipinfer zoo`."""
    folder = tmp_path_factory.mktemp("zoo")
    made: Dict[str, Path] = {}

    def get(name: str) -> Path:
        if name not in made:
            path = folder / f"{name}.onnx"
            run_cli("zoo", name, "-o", str(path), *ZOO_ARGS[name])
            made[name] = path
        return made[name]

    return get


def zoo_inputs(name: str, batch: int = 1, seed: int = 0) -> Dict[str, np.ndarray]:
    """Random inputs for a zoo model made with ZOO_ARGS."""
    rng = np.random.default_rng(seed)
    if name == "bert":
        seq = 16
        ids = rng.integers(0, 1000, size=(batch, seq)).astype(np.int64)
        mask = np.ones((batch, seq), dtype=np.int64)
        mask[-1, seq // 2:] = 0  # a padded sequence: the attention mask matters
        return {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
    size = 224 if name == "resnet50" else 96
    return {"input": rng.standard_normal((batch, 3, size, size)).astype(np.float32)}


def make_model(nodes, inputs, outputs, opset: int = 17, initializers=()) -> bytes:
    """A serialized ONNX model from onnx.helper pieces."""
    onnx = pytest.importorskip("onnx")
    graph = onnx.helper.make_graph(nodes, "test", inputs, outputs, initializer=list(initializers))
    model = onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model.SerializeToString()


@pytest.fixture
def relu_model() -> bytes:
    """y = Relu(x), x: float32[batch, n]."""
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    return make_model([h.make_node("Relu", ["x"], ["y"], name="relu")],
                      [h.make_tensor_value_info("x", T.FLOAT, ["batch", "n"])],
                      [h.make_tensor_value_info("y", T.FLOAT, ["batch", "n"])])


@pytest.fixture(scope="session")
def ort():
    return pytest.importorskip("onnxruntime")


def pytest_report_header(config) -> List[str]:
    return [f"hipinfer {hipinfer.hipinfer_version} (onnxruntime API {hipinfer.__version__}) from {os.path.dirname(hipinfer.__file__)}"]
