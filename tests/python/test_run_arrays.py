"""run()'s path for the common call (a dict of numpy arrays in, numpy arrays out, in C++ without a
Tensor object per value) against onnxruntime and against the general path: every dtype it takes,
strided, read-only and zero-size arrays, outputs that must not alias their inputs, and the inputs
it hands to the general path (other byte orders, lists) with the same results."""
from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import hipinfer


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    nodes = [helper.make_node("Add", ["a", "one"], ["a1"]), helper.make_node("Mul", ["b", "two"], ["b2"]),
             helper.make_node("Not", ["c"], ["nc"]), helper.make_node("Identity", ["d"], ["d_same"])]
    graph = helper.make_graph(
        nodes, "dtypes",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["n", 3]),
         helper.make_tensor_value_info("b", TensorProto.INT64, ["n", 3]),
         helper.make_tensor_value_info("c", TensorProto.BOOL, ["n", 3]),
         helper.make_tensor_value_info("d", TensorProto.FLOAT16, ["n", 3])],
        [helper.make_tensor_value_info(name, t, ["n", 3]) for name, t in
         (("a1", TensorProto.FLOAT), ("b2", TensorProto.INT64), ("nc", TensorProto.BOOL),
          ("d_same", TensorProto.FLOAT16))],
        [helper.make_tensor("one", TensorProto.FLOAT, [], [1.0]), helper.make_tensor("two", TensorProto.INT64, [], [2])])
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    path = tmp_path_factory.mktemp("run_arrays") / "dtypes.onnx"
    path.write_bytes(m.SerializeToString())
    return str(path)


def feeds(rows, rng):
    return {"a": rng.standard_normal((rows, 3)).astype(np.float32),
            "b": rng.integers(-50, 50, (rows, 3)).astype(np.int64),
            "c": rng.integers(0, 2, (rows, 3)).astype(bool),
            "d": rng.standard_normal((rows, 3)).astype(np.float16)}


def expect_same(ours, theirs):
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert type(o) is np.ndarray and o.dtype == t.dtype and o.shape == t.shape
        np.testing.assert_array_equal(o, t)


def test_every_dtype_and_layout_gives_onnxruntimes_results(model):
    ours, theirs = hipinfer.InferenceSession(model), ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(7)
    plain = feeds(5, rng)
    assert ours._sess.run_arrays(plain, []) is not None  # this call takes the array path
    expect_same(ours.run(None, plain), theirs.run(None, plain))
    strided = {k: np.asfortranarray(np.concatenate([v, v])[::2]) for k, v in feeds(4, rng).items()}
    expect_same(ours.run(None, strided), theirs.run(None, strided))
    read_only = feeds(3, rng)
    for v in read_only.values():
        v.flags.writeable = False
    expect_same(ours.run(None, read_only), theirs.run(None, read_only))
    empty = feeds(0, rng)
    expect_same(ours.run(None, empty), theirs.run(None, empty))
    expect_same(ours.run(["nc", "a1"], plain), theirs.run(["nc", "a1"], plain))


def test_inputs_the_array_path_does_not_take_give_the_same_results(model):
    ours, theirs = hipinfer.InferenceSession(model), ort.InferenceSession(model, providers=["CPUExecutionProvider"])
    plain = feeds(2, np.random.default_rng(8))
    swapped = dict(plain, a=plain["a"].astype(">f4"), b=plain["b"].astype(">i8"))
    assert ours._sess.run_arrays(swapped, []) is None  # another byte order: the general path converts it
    expect_same(ours.run(None, swapped), theirs.run(None, plain))
    listed = dict(plain, b=plain["b"].tolist())
    assert ours._sess.run_arrays(listed, []) is None
    expect_same(ours.run(None, listed), theirs.run(None, plain))


def test_an_output_never_shares_an_inputs_memory(model):
    ours = hipinfer.InferenceSession(model)
    inputs = feeds(2, np.random.default_rng(9))
    before = inputs["d"].copy()
    out = ours.run(["d_same"], inputs)[0]
    out[...] = 0
    np.testing.assert_array_equal(inputs["d"], before)


def test_errors_name_the_input(model):
    ours = hipinfer.InferenceSession(model)
    bad = feeds(2, np.random.default_rng(10))
    bad["a"] = bad["a"].astype(np.float64)
    with pytest.raises(hipinfer.InvalidArgument, match="input 'a': expected float32, got float64"):
        ours.run(None, bad)
    with pytest.raises(hipinfer.InvalidArgument, match="'e' is not an input"):
        ours.run(None, dict(feeds(2, np.random.default_rng(11)), e=np.zeros(1, np.float32)))
