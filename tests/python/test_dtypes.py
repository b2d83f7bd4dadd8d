"""numpy dtypes in and out (float16 and bool among them), array layouts, and zero copy."""
from __future__ import annotations

import numpy as np
import pytest

import hipinfer
from conftest import make_model

DTYPES = ["float32", "float64", "float16", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64"]


def _onnx_type(onnx, dtype):
    return onnx.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def identity_model(dtype, shape=("n",)):
    onnx = pytest.importorskip("onnx")
    h = onnx.helper
    t = _onnx_type(onnx, dtype)
    return make_model([h.make_node("Identity", ["x"], ["y"])], [h.make_tensor_value_info("x", t, list(shape))],
                      [h.make_tensor_value_info("y", t, list(shape))])


def random_array(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.integers(0, 2, size=shape).astype(bool)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(max(info.min, -100), min(info.max, 100), size=shape, endpoint=True).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_identity_round_trip(dtype):
    session = hipinfer.InferenceSession(identity_model(dtype))
    assert session.get_inputs()[0].dtype == np.dtype(dtype)
    x = random_array(dtype, (7,))
    (y,) = session.run(None, {"x": x})
    assert y.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(y, x)
    # The output is the input passed through: it must be a copy, never a view of the caller's array.
    assert not np.shares_memory(x, y)
    y[...] = y[0]
    np.testing.assert_array_equal(x, random_array(dtype, (7,)))


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64", "int32", "int64"])
def test_arithmetic_against_onnxruntime(dtype, ort):
    onnx = pytest.importorskip("onnx")
    h = onnx.helper
    t = _onnx_type(onnx, dtype)
    model = make_model([h.make_node("Add", ["a", "b"], ["s"]), h.make_node("Mul", ["s", "a"], ["y"])],
                       [h.make_tensor_value_info("a", t, [3, 4]), h.make_tensor_value_info("b", t, [4])],
                       [h.make_tensor_value_info("y", t, [3, 4])])
    feed = {"a": random_array(dtype, (3, 4), 1), "b": random_array(dtype, (4,), 2)}
    (got,) = hipinfer.InferenceSession(model).run(None, feed)
    (expected,) = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feed)
    assert got.dtype == expected.dtype
    if dtype == "float16":
        np.testing.assert_allclose(got.astype(np.float32), expected.astype(np.float32), rtol=1e-3, atol=1e-3)
    else:
        np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_bool_logic_against_onnxruntime(ort):
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    model = make_model([h.make_node("Greater", ["x", "z"], ["pos"]), h.make_node("And", ["pos", "m"], ["both"]),
                        h.make_node("Not", ["both"], ["y"])],
                       [h.make_tensor_value_info("x", T.FLOAT, [5]), h.make_tensor_value_info("z", T.FLOAT, [1]),
                        h.make_tensor_value_info("m", T.BOOL, [5])],
                       [h.make_tensor_value_info("y", T.BOOL, [5]), h.make_tensor_value_info("pos", T.BOOL, [5])])
    feed = {"x": np.array([-2, -1, 0, 1, 2], np.float32), "z": np.zeros(1, np.float32),
            "m": np.array([True, True, False, True, False])}
    got = hipinfer.InferenceSession(model).run(None, feed)
    expected = ort.InferenceSession(model, providers=["CPUExecutionProvider"]).run(None, feed)
    for g, e in zip(got, expected):
        assert g.dtype == np.bool_
        np.testing.assert_array_equal(g, e)


def test_cast_float16_to_float32_and_back(ort):
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    model = make_model([h.make_node("Cast", ["x"], ["f"], to=T.FLOAT), h.make_node("Cast", ["f"], ["y"], to=T.FLOAT16)],
                       [h.make_tensor_value_info("x", T.FLOAT16, [4])],
                       [h.make_tensor_value_info("f", T.FLOAT, [4]), h.make_tensor_value_info("y", T.FLOAT16, [4])])
    x = np.array([0.5, -1.25, 65504, np.inf], np.float16)
    f, y = hipinfer.InferenceSession(model).run(None, {"x": x})
    assert f.dtype == np.float32 and y.dtype == np.float16
    np.testing.assert_array_equal(f, x.astype(np.float32))
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("layout", ["strided", "negative", "fortran", "readonly", "big-endian", "scalar-batch",
                                    "empty"])
def test_array_layouts(layout, relu_model):
    session = hipinfer.InferenceSession(relu_model)
    base = np.arange(-12, 12, dtype=np.float32).reshape(4, 6)
    x = {
        "strided": base[:, ::2],
        "negative": base[::-1, ::-1],
        "fortran": np.asfortranarray(base),
        "readonly": base.copy(),
        "big-endian": base.astype(">f4"),
        "scalar-batch": base[:1],
        "empty": np.zeros((0, 6), np.float32),
    }[layout]
    if layout == "readonly":
        x.setflags(write=False)
    (y,) = session.run(None, {"x": x})
    assert y.dtype == np.float32 and y.shape == x.shape
    np.testing.assert_array_equal(y, np.maximum(x.astype(np.float32), 0))


def test_output_is_handed_over_without_copy(relu_model):
    """The result buffer becomes the numpy array's memory: hipinfer's host allocation stays live
    exactly as long as the array does."""
    session = hipinfer.InferenceSession(relu_model)
    x = np.ones((256, 1024), np.float32)  # 1 MiB
    before = hipinfer.memory_stats()["allocated_bytes"]
    (y,) = session.run(None, {"x": x})
    assert not y.flags.owndata and y.flags.writeable and y.flags.c_contiguous
    assert hipinfer.memory_stats()["allocated_bytes"] - before == x.nbytes
    del y
    assert hipinfer.memory_stats()["allocated_bytes"] == before


def test_input_is_used_in_place(relu_model):
    """A C-contiguous input is wrapped, not copied: the run allocates the output only."""
    session = hipinfer.InferenceSession(relu_model)
    x = np.ones((512, 1024), np.float32)  # 2 MiB
    hipinfer.reset_peak_memory_stats()
    before = hipinfer.memory_stats()["allocated_bytes"]
    (y,) = session.run(None, {"x": x})
    assert hipinfer.memory_stats()["peak_bytes"] - before == y.nbytes
    del y


def test_strings_through_identity():
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    model = make_model([h.make_node("Identity", ["x"], ["y"])], [h.make_tensor_value_info("x", T.STRING, [3])],
                       [h.make_tensor_value_info("y", T.STRING, [3])])
    try:
        session = hipinfer.InferenceSession(model)
    except hipinfer.Unsupported as e:
        pytest.skip(f"string Identity unsupported: {e}")
    assert session.get_inputs()[0].type == "tensor(string)"
    for x in (np.array(["a", "bé", ""]), np.array([b"a", "bé".encode(), b""], dtype=object)):
        (y,) = session.run(None, {"x": x})
        assert y.dtype == object and y.tolist() == ["a", "bé", ""]


def test_bfloat16_with_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    model = make_model([h.make_node("Identity", ["x"], ["y"])], [h.make_tensor_value_info("x", T.BFLOAT16, [3])],
                       [h.make_tensor_value_info("y", T.BFLOAT16, [3])])
    try:
        session = hipinfer.InferenceSession(model)
    except hipinfer.Unsupported as e:
        pytest.skip(f"bfloat16 Identity unsupported: {e}")
    assert session.get_inputs()[0].dtype == np.dtype(ml_dtypes.bfloat16)
    x = np.array([1.5, -2.0, 3.0], dtype=ml_dtypes.bfloat16)
    (y,) = session.run(None, {"x": x})
    assert y.dtype == np.dtype(ml_dtypes.bfloat16)
    np.testing.assert_array_equal(y.astype(np.float32), x.astype(np.float32))
