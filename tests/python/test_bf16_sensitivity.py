"""scripts/bf16-sensitivity: the bfloat16 rounding it emulates, the nodes it changes, and its
report on a small convolution network (no hipinfer involved: it measures the model)."""
from __future__ import annotations

import importlib.machinery
import importlib.util
import subprocess
import sys

import numpy as np
import pytest

from conftest import REPO

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

SCRIPT = REPO / "scripts" / "bf16-sensitivity"


def load_script():
    loader = importlib.machinery.SourceFileLoader("bf16_sensitivity", str(SCRIPT))
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def conv_net(path, opset=13):
    rng = np.random.default_rng(3)
    w1 = numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32), "w1")
    w2 = numpy_helper.from_array(rng.standard_normal((10, 8 * 6 * 6)).astype(np.float32), "w2")
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w2"], ["y"], name="fc", transB=1),
    ]
    graph = helper.make_graph(nodes, "net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])], [w1, w2])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8), path)


def test_rounds_to_nearest_even():
    s = load_script()
    one = np.float32(1.0)
    ulp = np.float32(2.0 ** -7)  # bfloat16's spacing at 1
    values = np.array([one, one + ulp / 2, one + ulp * 1.5, one + ulp * 0.75, -3.0e-3], dtype=np.float32)
    got = s.round_to_bf16(values)
    # a tie goes to the even neighbour (1.0 and 1 + 2 ulp), above half rounds up
    np.testing.assert_array_equal(got[:4], np.array([one, one, one + 2 * ulp, one + ulp], dtype=np.float32))
    assert got[4] != np.float32(-3.0e-3) and abs(got[4] + 3.0e-3) < 3.0e-3 * 2.0 ** -8
    assert (got.view(np.uint32) & 0xFFFF).max() == 0  # only bfloat16's 16 high bits remain


def test_changes_only_the_chosen_nodes(tmp_path):
    s = load_script()
    conv_net(tmp_path / "net.onnx")
    model = onnx.load(tmp_path / "net.onnx")
    rounded, chosen, total = s.bf16_model(model, "first:1")
    assert (chosen, total) == (1, 2)
    casts = [n for n in rounded.graph.node if n.op_type == "Cast"]
    assert [c.input[0] for c in casts[:1]] == ["x"] and len(casts) == 2  # the conv's data input, there and back
    w = {i.name: numpy_helper.to_array(i) for i in rounded.graph.initializer}
    w0 = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    np.testing.assert_array_equal(w["w1"], s.round_to_bf16(w0["w1"]))
    np.testing.assert_array_equal(w["w2"], w0["w2"])  # the Gemm was not chosen
    _, chosen, _ = s.bf16_model(model, "last:1")
    assert chosen == 1
    with pytest.raises(SystemExit):
        s.bf16_model(model, "middle:3")


def test_reports_agreement_and_refuses_old_opsets(tmp_path):
    conv_net(tmp_path / "net.onnx")
    r = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "net.onnx"), "--samples", "20", "--batch", "4"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "2 of 2 Conv/Gemm/MatMul nodes" in r.stdout and "/20 inputs" in r.stdout
    conv_net(tmp_path / "old.onnx", opset=11)
    r = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "old.onnx")], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "opset 11" in r.stderr
    r = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path / "missing.onnx")], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "missing.onnx: no such file" in r.stderr
