"""SparseTensor and OrtSparseFormat against onnxruntime's: the same formats, types, shapes, values
and indices for COO (offsets and pairs) and CSR; clear errors where onnxruntime's are opaque; an
OrtValue holding one; and models with sparse initializers or a Constant sparse_value, run in both
engines."""
from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

import hipinfer
from hipinfer.capi.onnxruntime_pybind11_state import Fail


def both_coo(shape, values, indices):
    return (hipinfer.SparseTensor.sparse_coo_from_numpy(shape, values, indices, hipinfer.OrtDevice.make("cpu", 0)),
            ort.SparseTensor.sparse_coo_from_numpy(shape, values, indices, ort.OrtDevice.make("cpu", 0)))


def test_the_formats_have_onnxruntimes_values():
    for name in ("ORT_SPARSE_UNDEFINED", "ORT_SPARSE_COO", "ORT_SPARSE_CSRC", "ORT_SPARSE_BLOCK_SPARSE"):
        assert int(getattr(hipinfer.OrtSparseFormat, name)) == int(getattr(ort.OrtSparseFormat, name))


@pytest.mark.parametrize("indices", [np.array([1, 6, 11], np.int64), np.array([[0, 1], [1, 2], [2, 3]], np.int64)])
def test_coo_reads_back_as_onnxruntimes(indices):
    values = np.array([1.5, -2.0, 7.0], np.float32)
    ours, theirs = both_coo([3, 4], values, indices)
    assert int(ours.format()) == int(theirs.format())
    assert ours.data_type() == theirs.data_type() == "sparse_tensor(float)"
    np.testing.assert_array_equal(ours.dense_shape(), theirs.dense_shape())
    np.testing.assert_array_equal(ours.values(), theirs.values())
    np.testing.assert_array_equal(ours.as_coo_view().indices(), theirs.as_coo_view().indices())
    assert ours.device_name() == theirs.device_name() == "cpu"
    assert ours.values() is values  # shared, not copied
    dense = np.zeros((3, 4), np.float32)
    dense[0, 1], dense[1, 2], dense[2, 3] = 1.5, -2.0, 7.0
    np.testing.assert_array_equal(ours.to_dense(), dense)


def test_csr_reads_back_as_onnxruntimes():
    values, inner, outer = np.array([1, 2, 3], np.int64), np.array([1, 0, 3], np.int64), np.array([0, 1, 1, 3], np.int64)
    ours = hipinfer.SparseTensor.sparse_csr_from_numpy([3, 4], values, inner, outer, hipinfer.OrtDevice.make("cpu", 0))
    theirs = ort.SparseTensor.sparse_csr_from_numpy([3, 4], values, inner, outer, ort.OrtDevice.make("cpu", 0))
    assert int(ours.format()) == int(theirs.format())
    assert ours.data_type() == theirs.data_type() == "sparse_tensor(int64)"
    np.testing.assert_array_equal(ours.as_csrc_view().inner(), theirs.as_csrc_view().inner())
    np.testing.assert_array_equal(ours.as_csrc_view().outer(), theirs.as_csrc_view().outer())
    np.testing.assert_array_equal(ours.to_dense(), [[0, 1, 0, 0], [0, 0, 0, 0], [2, 0, 0, 3]])
    with pytest.raises(Fail, match="not COO"):
        ours.as_coo_view()


def test_bad_arguments_say_what_is_wrong():
    coo = hipinfer.SparseTensor.sparse_coo_from_numpy
    csr = hipinfer.SparseTensor.sparse_csr_from_numpy
    f = np.array([1.0, 2.0], np.float32)
    with pytest.raises(hipinfer.InvalidArgument, match=r"coo_indices\[1\] = 12 is outside the dense tensor's 12"):
        coo([3, 4], f, np.array([0, 12], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match=r"coo_indices\[0, 1\] = 4 is outside \[0, 4\)"):
        coo([3, 4], f, np.array([[0, 4], [1, 1]], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match=r"need \[2\] or \[2, 2\]"):
        coo([3, 4], f, np.array([0, 1, 2], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match="coo_indices must be int64, got int32"):
        coo([3, 4], f, np.array([0, 1], np.int32))
    with pytest.raises(hipinfer.InvalidArgument, match="values must be 1-D"):
        coo([3, 4], f.reshape(1, 2), np.array([0, 1], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match="negative dim"):
        coo([3, -4], f, np.array([0, 1], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match="not supported"):
        coo([3], np.array(["a", "b"], object), np.array([0, 1], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match="must rise from 0 to 2"):
        csr([3, 4], f, np.array([0, 1], np.int64), np.array([0, 2, 1, 2], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match=r"expected \[4\] \(rows \+ 1\)"):
        csr([3, 4], f, np.array([0, 1], np.int64), np.array([0, 2], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match=r"inner_indices\[1\] = 9 is outside \[0, 4\)"):
        csr([3, 4], f, np.array([0, 9], np.int64), np.array([0, 1, 1, 2], np.int64))
    with pytest.raises(hipinfer.Unsupported):
        coo([2], f, np.array([0, 1], np.int64), hipinfer.OrtDevice.make("cuda", 0))


def test_an_ort_value_holds_a_sparse_tensor():
    st, theirs = both_coo([4], np.array([3.0], np.float32), np.array([2], np.int64))
    value = hipinfer.OrtValue.ort_value_from_sparse_tensor(st)
    reference = ort.OrtValue.ort_value_from_sparse_tensor(theirs)
    assert (value.is_sparse_tensor(), value.is_tensor()) == (reference.is_sparse_tensor(), reference.is_tensor())
    assert value.data_type() == reference.data_type()
    assert value.as_sparse_tensor() is st
    with pytest.raises(Fail, match="sparse tensor, not a tensor"):
        value.numpy()
    dense = hipinfer.OrtValue.ortvalue_from_numpy(np.zeros(2, np.float32))
    with pytest.raises(Fail, match="not a sparse tensor"):
        dense.as_sparse_tensor()
    with pytest.raises(TypeError):
        hipinfer.OrtValue.ort_value_from_sparse_tensor(np.zeros(2))


def _sparse_initializer_model(tmp_path):
    values = helper.make_tensor("w", TensorProto.FLOAT, [3], [1.5, -2.0, 7.0])
    indices = helper.make_tensor("w_indices", TensorProto.INT64, [3], [1, 6, 11])
    sparse = helper.make_sparse_tensor(values, indices, [3, 4])
    const_values = helper.make_tensor("c", TensorProto.FLOAT, [2], [10.0, 20.0])
    const_indices = helper.make_tensor("c_indices", TensorProto.INT64, [2, 2], [0, 0, 2, 3])
    constant = helper.make_node("Constant", [], ["c"],
                                sparse_value=helper.make_sparse_tensor(const_values, const_indices, [3, 4]))
    graph = helper.make_graph(
        [constant, helper.make_node("Add", ["x", "w"], ["s"]), helper.make_node("Add", ["s", "c"], ["y"])], "sparse",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])], sparse_initializer=[sparse])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    path = tmp_path / "sparse.onnx"
    onnx.save(model, str(path))
    return str(path)


def test_models_with_sparse_initializers_and_constants_run_as_in_onnxruntime(tmp_path):
    path = _sparse_initializer_model(tmp_path)
    x = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32)
    ours = hipinfer.InferenceSession(path).run(None, {"x": x})[0]
    theirs = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    np.testing.assert_array_equal(ours, theirs)
    assert ours[0, 0] == x[0, 0] + 10.0 and ours[2, 3] == x[2, 3] + 7.0 + 20.0


def test_a_sparse_tensor_is_not_an_input(tmp_path):
    sess = hipinfer.InferenceSession(_sparse_initializer_model(tmp_path))
    st = hipinfer.SparseTensor.sparse_coo_from_numpy([3, 4], np.ones(1, np.float32), np.array([0], np.int64))
    with pytest.raises(hipinfer.InvalidArgument, match="not an input"):
        sess.run_with_ort_values(["y"], {"x": hipinfer.OrtValue.ort_value_from_sparse_tensor(st)})
