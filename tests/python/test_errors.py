"""Errors: each C++ Status becomes a Python exception of a matching class, with the same message
the C++ API (and so the command) gives."""
from __future__ import annotations

import numpy as np
import pytest

import hipinfer
from conftest import make_model, run_cli


def test_exception_classes():
    assert issubclass(hipinfer.HipinferError, RuntimeError)
    assert issubclass(hipinfer.InvalidArgument, ValueError)
    assert issubclass(hipinfer.Unsupported, NotImplementedError)
    assert issubclass(hipinfer.NotFound, FileNotFoundError)
    assert issubclass(hipinfer.OutOfMemory, MemoryError)
    for cls in (hipinfer.InvalidArgument, hipinfer.InvalidModel, hipinfer.Unsupported, hipinfer.NotFound,
                hipinfer.OutOfMemory, hipinfer.RuntimeFailure, hipinfer.InternalError):
        assert issubclass(cls, hipinfer.HipinferError)
        assert cls.__module__ == "hipinfer" and cls.__doc__
    assert hipinfer.InvalidArgument.code == "InvalidArgument"


def test_missing_file(tmp_path):
    missing = tmp_path / "missing.onnx"
    with pytest.raises(hipinfer.NotFound) as info:
        hipinfer.InferenceSession(str(missing))
    assert str(missing) in str(info.value)
    assert info.value.code == "NotFound"
    with pytest.raises(FileNotFoundError):
        hipinfer.InferenceSession(str(missing))


def test_not_onnx(tmp_path):
    path = tmp_path / "garbage.onnx"
    path.write_bytes(b"\x08\x07this is not a model" * 10)
    with pytest.raises(hipinfer.InvalidModel) as info:
        hipinfer.InferenceSession(str(path))
    assert str(path) in str(info.value)
    with pytest.raises(hipinfer.InvalidModel):
        hipinfer.InferenceSession(b"\xff\xff\xff\xff")


def test_unsupported_ops_are_all_named():
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    model = make_model([h.make_node("NoSuchOpA", ["x"], ["t"], name="first"),
                        h.make_node("NoSuchOpB", ["t"], ["y"], name="second")],
                       [h.make_tensor_value_info("x", T.FLOAT, [2])], [h.make_tensor_value_info("y", T.FLOAT, [2])])
    with pytest.raises(hipinfer.HipinferError) as info:
        hipinfer.InferenceSession(model)
    message = str(info.value)
    assert "NoSuchOpA" in message and "NoSuchOpB" in message
    assert "first" in message and "second" in message


def test_input_errors_name_the_input(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    good = np.ones((2, 3), np.float32)
    with pytest.raises(hipinfer.InvalidArgument, match="input 'x': expected float32, got float64"):
        session.run(None, {"x": good.astype(np.float64)})
    with pytest.raises(hipinfer.InvalidArgument, match="input 'x': expected rank 2"):
        session.run(None, {"x": np.ones(3, np.float32)})
    with pytest.raises(hipinfer.InvalidArgument, match="missing model input 'x'"):
        session.run(None, {})
    with pytest.raises(hipinfer.InvalidArgument, match="'z' is not an input of the model; its inputs are 'x'"):
        session.run(None, {"x": good, "z": good})
    with pytest.raises(hipinfer.InvalidArgument, match="'nope' is not an output of the model"):
        session.run(["nope"], {"x": good})


def test_same_message_as_the_command(relu_model, tmp_path):
    """The CLI prints the C++ message as `hipinfer: error: MESSAGE`; Python raises it unchanged."""
    model = tmp_path / "relu.onnx"
    model.write_bytes(relu_model)
    wrong = tmp_path / "x.npy"
    np.save(wrong, np.ones((2, 3), np.float64))
    cli = run_cli("run", str(model), "--input", f"x={wrong}", check=False)
    assert cli.returncode != 0
    prefix = "hipinfer: error: "
    cli_message = next(line for line in cli.stderr.splitlines() if line.startswith(prefix))[len(prefix):]
    with pytest.raises(hipinfer.InvalidArgument) as info:
        hipinfer.InferenceSession(str(model)).run(None, {"x": np.load(wrong)})
    assert str(info.value) == cli_message

    missing = tmp_path / "missing.onnx"
    cli = run_cli("run", str(missing), check=False)
    cli_message = next(line for line in cli.stderr.splitlines() if line.startswith(prefix))[len(prefix):]
    with pytest.raises(hipinfer.NotFound) as info:
        hipinfer.InferenceSession(str(missing))
    assert str(info.value) == cli_message


def test_unsupported_numpy_dtype(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    with pytest.raises(hipinfer.InvalidArgument, match="input 'x'"):
        session.run(None, {"x": np.zeros((1, 1), dtype=[("a", np.int32), ("b", np.float32)])})
    with pytest.raises(hipinfer.InvalidArgument, match="input 'x'.*only str and bytes"):
        session.run(None, {"x": np.array([[object()]], dtype=object)})
