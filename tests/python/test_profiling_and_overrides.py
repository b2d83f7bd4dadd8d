"""SessionOptions.enable_profiling with end_profiling() (onnxruntime's trace format), and
add_free_dimension_override_by_name, side by side with onnxruntime."""
import json
import os

import numpy as np
import pytest

import hipinfer

from conftest import make_model


@pytest.fixture
def mlp_model() -> bytes:
    """y = Tanh(MatMul(x, w) + b): x float32[batch, n=8]."""
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    rng = np.random.default_rng(0)
    w = h.make_tensor("w", T.FLOAT, [8, 4], rng.standard_normal(32).astype(np.float32))
    b = h.make_tensor("b", T.FLOAT, [4], rng.standard_normal(4).astype(np.float32))
    return make_model([h.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
                       h.make_node("Add", ["m", "b"], ["a"], name="add"),
                       h.make_node("Tanh", ["a"], ["y"], name="tanh")],
                      [h.make_tensor_value_info("x", T.FLOAT, ["batch", 8])],
                      [h.make_tensor_value_info("y", T.FLOAT, ["batch", 4])], initializers=[w, b])


def test_profiling_writes_onnxruntimes_trace_format(ort, mlp_model, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    x = np.random.default_rng(1).standard_normal((3, 8)).astype(np.float32)

    def profile(module, prefix):
        options = module.SessionOptions()
        options.enable_profiling = True
        options.profile_file_prefix = prefix
        session = module.InferenceSession(mlp_model, options, providers=["CPUExecutionProvider"])
        assert session.get_profiling_start_time_ns() > 0
        for _ in range(3):
            session.run(None, {"x": x})
        path = session.end_profiling()
        assert os.path.isfile(path) and os.path.basename(path).startswith(prefix)
        assert session.end_profiling() == ""  # profiling has stopped
        with open(path) as f:
            return json.load(f)

    ours, theirs = profile(hipinfer, "hi_"), profile(ort, "ort_")
    keys = {"cat", "pid", "tid", "dur", "ts", "ph", "name", "args"}
    for events in (ours, theirs):
        assert all(keys <= set(e) for e in events)
    runs = [e for e in ours if e["name"] == "model_run"]
    assert len(runs) == len([e for e in theirs if e["name"] == "model_run"]) == 3
    nodes = [e for e in ours if e["cat"] == "Node"]
    assert len(nodes) >= 3 and all(e["name"].endswith("_kernel_time") and e["args"]["op_name"] for e in nodes)
    assert all(e["ph"] == "X" and e["dur"] >= 0 for e in ours)
    # Every node lies inside its run.
    for run in runs:
        inside = [e for e in nodes if run["ts"] <= e["ts"] <= run["ts"] + run["dur"]]
        assert inside, run


def test_profiling_is_off_by_default(mlp_model):
    session = hipinfer.InferenceSession(mlp_model)
    session.run(None, {"x": np.zeros((1, 8), np.float32)})
    assert session.end_profiling() == "" and session.get_profiling_start_time_ns() == 0


def test_free_dimension_override_fixes_the_input_shape_as_in_onnxruntime(ort, mlp_model):
    def session(module):
        options = module.SessionOptions()
        options.add_free_dimension_override_by_name("batch", 2)
        return module.InferenceSession(mlp_model, options, providers=["CPUExecutionProvider"])

    ours, theirs = session(hipinfer), session(ort)
    assert ours.get_inputs()[0].shape == theirs.get_inputs()[0].shape == [2, 8]
    x = np.random.default_rng(2).standard_normal((2, 8)).astype(np.float32)
    np.testing.assert_allclose(ours.run(None, {"x": x})[0], theirs.run(None, {"x": x})[0], rtol=1e-5, atol=1e-6)
    with pytest.raises(hipinfer.InvalidArgument, match="input 'x'"):
        ours.run(None, {"x": np.zeros((3, 8), np.float32)})


def test_a_free_dimension_override_nothing_carries_warns(mlp_model):
    options = hipinfer.SessionOptions()
    options.add_free_dimension_override_by_name("batch_size", 1)
    with pytest.warns(UserWarning, match="free dimension override 'batch_size' = 1 matches no symbolic dim"):
        hipinfer.InferenceSession(mlp_model, options, providers=["CPUExecutionProvider"])
    with pytest.raises(hipinfer.InvalidArgument, match="free dimension override 'batch' is -3"):
        options.add_free_dimension_override_by_name("batch", -3)


def test_add_initializer_replaces_the_models_as_in_onnxruntime(ort, mlp_model):
    w = np.random.default_rng(3).standard_normal((8, 4)).astype(np.float32)
    x = np.random.default_rng(4).standard_normal((2, 8)).astype(np.float32)

    def run(module, **add):
        options = module.SessionOptions()
        values = {name: module.OrtValue.ortvalue_from_numpy(value) for name, value in add.items()}
        for name, value in values.items():  # onnxruntime needs the OrtValues alive while the session is
            options.add_initializer(name, value)
        session = module.InferenceSession(mlp_model, options, providers=["CPUExecutionProvider"])
        return session.run(None, {"x": x})[0]

    ours, theirs = run(hipinfer, w=w), run(ort, w=w)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert not np.allclose(ours, run(hipinfer))  # the model's own w gives another result
    with pytest.raises(hipinfer.InvalidArgument, match=r"initializer 'w' given in the options is float32\[4, 8\], "
                                                       r"the model's is float32\[8, 4\]"):
        run(hipinfer, w=w.T.copy())
    with pytest.raises(hipinfer.InvalidArgument, match="initializer 'v' given in the options is not an initializer"):
        run(hipinfer, v=w)
    options = hipinfer.SessionOptions()
    with pytest.raises(TypeError, match="must be a hipinfer.OrtValue"):
        options.add_initializer("w", w)
    with pytest.raises(hipinfer.InvalidArgument, match="1 names but 2 values"):
        options.add_external_initializers(["w"], [hipinfer.OrtValue.ortvalue_from_numpy(w)] * 2)
