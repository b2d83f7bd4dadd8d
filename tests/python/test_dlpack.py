"""DLPack in and out: CPU tensors round-trip without copies; GPU tensors (torch on a GPU, where
there is one) are refused with a clear message until hipinfer has a GPU backend."""
from __future__ import annotations

import ctypes

import numpy as np
import pytest

import hipinfer


class DLPackOnly:
    """An array that speaks only DLPack (no buffer protocol, no __array__): what a torch, cupy
    or jax tensor offers."""

    def __init__(self, array):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32), ("dtype", _DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", ctypes.c_void_p)]


class FakeGpuTensor:
    """A DLPack producer that says its memory is on kDLCUDA device 0 (the memory is really a
    host buffer, which hipinfer must not touch): tests the refusal without a GPU."""

    def __init__(self):
        self._data = (ctypes.c_float * 4)()
        self._shape = (ctypes.c_int64 * 1)(4)
        self._managed = _DLManagedTensor()
        t = self._managed.dl_tensor
        t.data, t.device, t.ndim = ctypes.addressof(self._data), _DLDevice(2, 0), 1
        t.dtype, t.shape = _DLDataType(2, 32, 1), self._shape

    def __dlpack__(self, **kwargs):
        if kwargs.get("max_version") is not None:
            raise TypeError("this producer only makes unversioned capsules")
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(ctypes.addressof(self._managed), b"dltensor", None)

    def __dlpack_device__(self):
        return (2, 0)


class ArrayInterfaceOnly:
    def __init__(self, array):
        self.__array_interface__ = array.__array_interface__
        self._keep = array


@pytest.mark.parametrize("dtype", ["float32", "float16", "bool", "int64", "uint8", "float64"])
def test_numpy_to_tensor_to_numpy_shares_memory(dtype):
    a = np.arange(12).reshape(3, 4).astype(dtype)
    t = hipinfer.from_dlpack(a)
    assert isinstance(t, hipinfer.Tensor)
    assert t.shape == (3, 4) and t.dtype == dtype and t.device == "cpu" and t.nbytes == a.nbytes
    assert t.__dlpack_device__() == (1, 0)
    b = np.from_dlpack(t)
    c = t.numpy()
    assert b.dtype == a.dtype and np.shares_memory(a, b) and np.shares_memory(a, c)
    np.testing.assert_array_equal(b, a)
    # hipinfer only borrows that memory (it may be read-only, like a bytes object): views are read-only.
    assert not b.flags.writeable and not c.flags.writeable
    a[0, 0] = a[2, 3]
    assert b[0, 0] == a[2, 3] and c[0, 0] == a[2, 3]


def test_read_only_memory_stays_read_only():
    t = hipinfer.from_dlpack(np.frombuffer(b"\x01\x02\x03\x04", dtype=np.uint8))
    with pytest.raises(ValueError):
        t.numpy()[0] = 9


def test_tensor_keeps_its_source_alive():
    t = hipinfer.from_dlpack(np.full((1000,), 7, np.int32))  # the array's only reference is inside t
    b = np.from_dlpack(t)
    del t
    assert b.sum() == 7000


def test_dlpack_only_object_as_input(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    (y,) = session.run(None, {"x": DLPackOnly(x)})
    np.testing.assert_array_equal(y, np.maximum(x, 0))
    t = hipinfer.from_dlpack(DLPackOnly(x))
    assert np.shares_memory(np.from_dlpack(t), x)


def test_array_interface_object_as_input(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    (y,) = session.run(None, {"x": ArrayInterfaceOnly(x)})
    np.testing.assert_array_equal(y, np.maximum(x, 0))


def test_dlpack_outputs_feed_the_next_run(relu_model):
    """output_format='dlpack' gives Tensors; they go straight back in, as inputs, with no copy."""
    session = hipinfer.InferenceSession(relu_model)
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    (t,) = session.run(None, {"x": x}, output_format="dlpack")
    (t2,) = session.run(None, {"x": t}, output_format="dlpack")
    np.testing.assert_array_equal(np.from_dlpack(t2), np.maximum(x, 0))
    assert repr(t2) == "hipinfer.Tensor(float32[2, 4], cpu)"


def test_non_contiguous_dlpack_is_copied():
    a = np.arange(24, dtype=np.float32).reshape(4, 6)[:, 1::2]
    t = hipinfer.from_dlpack(a)
    b = np.from_dlpack(t)
    assert not np.shares_memory(a, b)
    np.testing.assert_array_equal(b, a)


def test_from_dlpack_rejects_other_objects():
    with pytest.raises(TypeError):
        hipinfer.from_dlpack(object())


def test_gpu_dlpack_is_refused_clearly(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    with pytest.raises(hipinfer.Unsupported, match="on cuda:0, but this hipinfer runs models on the CPU only"):
        hipinfer.from_dlpack(FakeGpuTensor())
    with pytest.raises(hipinfer.Unsupported, match="input 'x': the array is on cuda:0"):
        session.run(None, {"x": FakeGpuTensor()})


def test_torch_cpu_round_trip(relu_model):
    torch = pytest.importorskip("torch")
    session = hipinfer.InferenceSession(relu_model)
    x = torch.linspace(-1, 1, 6).reshape(2, 3)
    (t,) = session.run(None, {"x": x}, output_format="dlpack")
    y = torch.from_dlpack(t)
    assert torch.equal(y, torch.relu(x))
    back = hipinfer.from_dlpack(x)
    assert torch.from_dlpack(back).data_ptr() == x.data_ptr()


def test_gpu_tensor_is_refused_clearly(relu_model):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no GPU visible to torch")
    session = hipinfer.InferenceSession(relu_model)
    x = torch.ones((2, 3), device="cuda")
    with pytest.raises(hipinfer.Unsupported, match="on cuda:0.*CPU only.*GPU backend is not built"):
        session.run(None, {"x": x})
