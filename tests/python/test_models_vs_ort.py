"""The API against onnxruntime: the zoo models (made with `python -m hipinfer zoo`) and the
models in the ONNX test data's simple/ folder, run through hipinfer.InferenceSession and
onnxruntime.InferenceSession on the same inputs."""
from __future__ import annotations

import glob
import os
import re
from pathlib import Path

import numpy as np
import pytest

import hipinfer
from conftest import ZOO_RTOL, onnx_test_data_dir, zoo_atol, zoo_inputs

SIMPLE_RTOL, SIMPLE_ATOL = 1e-3, 1e-7


def ort_session(ort, model):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("name", ["resnet50", "mobilenetv2", "bert"])
def test_zoo_model_matches_onnxruntime(name, zoo, ort):
    model = zoo(name)
    expected_session = ort_session(ort, model)
    session = hipinfer.InferenceSession(str(model), providers=["CPUExecutionProvider"])

    # What a script reads before it runs: the same names, types and shapes as onnxruntime.
    for ours, theirs in ((session.get_inputs(), expected_session.get_inputs()),
                         (session.get_outputs(), expected_session.get_outputs())):
        assert [(a.name, a.type, a.shape) for a in ours] == [(b.name, b.type, b.shape) for b in theirs]

    feed = zoo_inputs(name)
    expected = expected_session.run(None, feed)
    got = session.run(None, feed)
    assert len(got) == len(expected)
    for meta, g, e in zip(session.get_outputs(), got, expected):
        assert isinstance(g, np.ndarray)
        assert g.shape == e.shape and g.dtype == e.dtype, meta.name
        np.testing.assert_allclose(g, e, rtol=ZOO_RTOL, atol=zoo_atol(e), err_msg=f"{name}/{meta.name}")


def test_zoo_bert_batch_and_output_subset(zoo, ort):
    """A symbolic batch of 3, and one output asked for by name."""
    model = zoo("bert")
    session = hipinfer.InferenceSession(model)
    feed = zoo_inputs("bert", batch=3, seed=1)
    last = session.get_outputs()[-1].name
    (got,) = session.run([last], feed)
    (expected,) = ort_session(ort, model).run([last], feed)
    np.testing.assert_allclose(got, expected, rtol=ZOO_RTOL, atol=zoo_atol(expected))


# ---- the ONNX test data's simple/ models ----

def _simple_models():
    root = onnx_test_data_dir()
    if root is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason="no ONNX test data"))]
    return [pytest.param(Path(p), id=os.path.basename(p))
            for p in sorted(glob.glob(str(root / "simple" / "*"))) if os.path.exists(os.path.join(p, "model.onnx"))]


def _load_tensor(onnx, path):
    from onnx import numpy_helper
    tensor = onnx.TensorProto()
    tensor.ParseFromString(Path(path).read_bytes())
    return numpy_helper.to_array(tensor)


def _compare(got, expected, what):
    assert got.shape == expected.shape, f"{what}: shape {got.shape}, expected {expected.shape}"
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64), rtol=SIMPLE_RTOL,
                                   atol=SIMPLE_ATOL, equal_nan=True, err_msg=what)
    else:
        assert np.array_equal(got, expected), what


@pytest.mark.parametrize("model_dir", _simple_models())
def test_simple_model(model_dir, ort):
    onnx = pytest.importorskip("onnx")
    model = model_dir / "model.onnx"
    try:
        session = hipinfer.InferenceSession(str(model))
    except hipinfer.Unsupported as e:
        # A clean refusal must name every op hipinfer cannot run.
        unsupported = hipinfer.inspect_model(str(model))["unsupported"]
        assert unsupported, f"Unsupported raised, but inspect_model lists no unsupported op: {e}"
        for line in unsupported:
            op = re.match(r"[\w.]+", line).group(0)
            assert op in str(e), f"the error does not name {op}: {e}"
        pytest.skip(f"unsupported ops: {'; '.join(unsupported)}")

    graph = onnx.load(str(model), load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    inputs = [i for i in graph.input if i.name not in initializers]
    input_names = [i.name for i in inputs]
    if any(not i.type.HasField("tensor_type") for i in inputs):
        pytest.skip("an input is not a tensor (sequence, optional or map)")
    assert [i.name for i in session.get_inputs()] == input_names
    try:
        reference = ort_session(ort, model)
    except Exception:  # onnxruntime cannot load it: the expected outputs alone are the reference
        reference = None

    data_sets = sorted(model_dir.glob("test_data_set_*"))
    assert data_sets
    for data_set in data_sets:
        feed = {}
        for k, name in enumerate(input_names):
            path = data_set / f"input_{k}.pb"
            if path.exists():
                feed[name] = _load_tensor(onnx, path)
        try:
            got = session.run(None, feed)
        except hipinfer.Unsupported as e:
            assert "sequence" in str(e) or "optional" in str(e), str(e)
            pytest.skip(str(e))
        output_names = [o.name for o in session.get_outputs()]
        for k, name in enumerate(output_names):
            path = data_set / f"output_{k}.pb"
            if path.exists():
                _compare(got[k], _load_tensor(onnx, path), f"{data_set.name}/{name} vs expected")
        if reference is not None:
            for name, g, e in zip(output_names, got, reference.run(None, feed)):
                _compare(g, np.asarray(e), f"{data_set.name}/{name} vs onnxruntime")
