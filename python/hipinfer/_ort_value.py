"""OrtValue, OrtDevice and OrtMemoryInfo, as onnxruntime names them: a tensor in hipinfer's host
memory or over a numpy array (without a copy), for run_with_ort_values and IOBinding, or a
SparseTensor (_sparse.py).

Host memory only: device_type "cpu". A session placed on a GPU still takes and gives host
tensors (it copies them at its partitions' edges); binding GPU memory raises Unsupported."""
from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np

from . import _hipinfer as _C
from ._tensor import ONNX_TYPES, as_tensor

# ONNX type codes <-> numpy dtypes (the types numpy can name), and onnxruntime's names ("float").
_NUMPY_OF_ONNX = {code: np.dtype(np_name) for code, (_, np_name) in ONNX_TYPES.items() if np_name}
_ONNX_OF_NUMPY = {dtype: code for code, dtype in _NUMPY_OF_ONNX.items()}
_ONNX_NAMES = {code: ort_name for code, (ort_name, _) in ONNX_TYPES.items()}


def _check_host(device_type: str, device_id: int, what: str) -> None:
    if str(device_type).lower() != "cpu":
        raise _C.Unsupported(f"{what}: device_type {device_type!r} is not supported; hipinfer binds host memory "
                             "only (device_type='cpu'); a session on a GPU still takes and gives host arrays")
    if device_id != 0:
        raise _C.InvalidArgument(f"{what}: device_id {device_id} does not exist for device_type 'cpu' (only 0)")


def numpy_dtype(element_type: Any, what: str) -> np.dtype:
    """An element type as onnxruntime accepts it (a numpy type or dtype, or an ONNX type code)."""
    if isinstance(element_type, (int, np.integer)) and not isinstance(element_type, bool):
        if int(element_type) not in _NUMPY_OF_ONNX:
            raise _C.InvalidArgument(f"{what}: ONNX element type {int(element_type)} has no numpy equivalent")
        return _NUMPY_OF_ONNX[int(element_type)]
    try:
        dtype = np.dtype(element_type)
    except TypeError:
        raise _C.InvalidArgument(f"{what}: element_type {element_type!r} is not a numpy type or an ONNX "
                                 "element type code") from None
    if dtype.kind in "US":
        dtype = np.dtype(np.object_)
    if dtype not in _ONNX_OF_NUMPY:
        raise _C.InvalidArgument(f"{what}: numpy dtype {dtype} has no ONNX equivalent")
    return dtype


class OrtDevice:
    """A device as onnxruntime describes it; hipinfer binds host memory only ("cpu", id 0)."""

    def __init__(self, device_type: str = "cpu", device_id: int = 0) -> None:
        self._type, self._id = str(device_type).lower(), int(device_id)

    @staticmethod
    def make(ort_device_name: str, device_id: int) -> "OrtDevice":
        return OrtDevice(ort_device_name, device_id)

    def device_type(self) -> str:
        return self._type

    def device_id(self) -> int:
        return self._id

    def __repr__(self) -> str:
        return f"OrtDevice({self._type!r}, {self._id})"


class OrtMemoryInfo:
    """Where a value lives (onnxruntime's OrtMemoryInfo): name "Cpu", device id 0 in hipinfer."""

    def __init__(self, name: str = "Cpu", alloc_type: int = 0, device_id: int = 0, mem_type: int = 0) -> None:
        self.name, self.alloc_type, self.device_id, self.mem_type = name, alloc_type, device_id, mem_type

    def __repr__(self) -> str:
        return f"OrtMemoryInfo({self.name!r}, device_id={self.device_id})"


class OrtValue:
    """A tensor for run_with_ort_values and IOBinding. Made from a numpy array (shared, not
    copied: the array must stay unchanged while a run reads it), from a shape and type (zeroed
    host memory), or by a run (hipinfer's result memory)."""

    def __init__(self, array: Optional[np.ndarray], tensor: Optional[_C.Tensor] = None, sparse: Any = None) -> None:
        self._array = array
        self._tensor = tensor
        self._sparse = sparse  # a SparseTensor (then array is None)

    # ---- making one ----

    @staticmethod
    def ortvalue_from_numpy(numpy_obj: Any, device_type: str = "cpu", device_id: int = 0,
                            vendor_id: int = -1) -> "OrtValue":
        _check_host(device_type, device_id, "OrtValue.ortvalue_from_numpy")
        array = numpy_obj if isinstance(numpy_obj, np.ndarray) else np.asarray(numpy_obj)
        if array.dtype.kind in "US":
            array = array.astype(object)
        return OrtValue(array)

    @staticmethod
    def ortvalue_from_numpy_with_onnx_type(data: np.ndarray, onnx_element_type: int) -> "OrtValue":
        dtype = numpy_dtype(int(onnx_element_type), "OrtValue.ortvalue_from_numpy_with_onnx_type")
        array = np.asarray(data)
        if array.dtype.itemsize != dtype.itemsize:
            raise _C.InvalidArgument(f"OrtValue.ortvalue_from_numpy_with_onnx_type: the array's {array.dtype} has "
                                     f"{array.dtype.itemsize}-byte elements, ONNX type {onnx_element_type} "
                                     f"({_ONNX_NAMES.get(int(onnx_element_type))}) needs {dtype.itemsize}")
        return OrtValue(array.view(dtype))

    @staticmethod
    def ortvalue_from_shape_and_type(shape: Sequence[int], element_type: Any, device_type: str = "cpu",
                                     device_id: int = 0, vendor_id: int = -1) -> "OrtValue":
        _check_host(device_type, device_id, "OrtValue.ortvalue_from_shape_and_type")
        dims = [int(d) for d in shape]
        if any(d < 0 for d in dims):
            raise _C.InvalidArgument(f"OrtValue.ortvalue_from_shape_and_type: shape {dims} has a negative dim")
        dtype = numpy_dtype(element_type, "OrtValue.ortvalue_from_shape_and_type")
        return OrtValue(np.full(dims, "", dtype=object) if dtype == np.object_ else np.zeros(dims, dtype=dtype))

    @staticmethod
    def ort_value_from_sparse_tensor(sparse_tensor: Any) -> "OrtValue":
        from ._sparse import SparseTensor
        if not isinstance(sparse_tensor, SparseTensor):
            raise TypeError(f"OrtValue.ort_value_from_sparse_tensor takes a hipinfer.SparseTensor, not "
                            f"{type(sparse_tensor).__name__}")
        return OrtValue(None, sparse=sparse_tensor)

    @staticmethod
    def _from_result(tensor: _C.Tensor) -> "OrtValue":
        return OrtValue(tensor.numpy(), tensor)

    # ---- what it holds ----

    def _dense(self, what: str) -> np.ndarray:
        if self._array is None:
            raise _C.InvalidArgument(f"OrtValue.{what}: this value holds a sparse tensor, not a tensor (as_sparse_tensor())")
        return self._array

    def numpy(self) -> np.ndarray:
        """The values, sharing this value's memory."""
        return self._dense("numpy")

    def as_sparse_tensor(self) -> Any:
        if self._sparse is None:
            raise _C.InvalidArgument("OrtValue.as_sparse_tensor: this value holds a tensor, not a sparse tensor")
        return self._sparse

    def shape(self) -> List[int]:
        return list(self._dense("shape").shape)

    def element_type(self) -> int:
        """The ONNX element type code (1 for float32, 7 for int64, ...)."""
        if self._sparse is not None:
            return _ONNX_OF_NUMPY[self._sparse.values().dtype]
        return _ONNX_OF_NUMPY[self._array.dtype]

    def data_type(self) -> str:
        if self._sparse is not None:
            return self._sparse.data_type()
        return f"tensor({_ONNX_NAMES[self.element_type()]})"

    def device_name(self) -> str:
        return "cpu"

    def data_ptr(self) -> int:
        return int(self._dense("data_ptr").ctypes.data)

    def has_value(self) -> bool:
        return True

    def is_tensor(self) -> bool:
        return self._sparse is None

    def is_sparse_tensor(self) -> bool:
        return self._sparse is not None

    def is_tensor_sequence(self) -> bool:
        return False

    def update_inplace(self, np_arr: Any) -> None:
        """Copies `np_arr` (same shape and dtype) into this value's memory."""
        src, dst = np.asarray(np_arr), self._dense("update_inplace")
        if src.shape != self._array.shape or src.dtype != self._array.dtype:
            raise _C.InvalidArgument(f"OrtValue.update_inplace: the array is {src.dtype}{list(src.shape)}, "
                                     f"this value holds {dst.dtype}{list(dst.shape)}")
        np.copyto(dst, src)

    def _as_input(self) -> _C.Tensor:
        if self._sparse is not None:
            raise _C.InvalidArgument("a sparse tensor is not an input: hipinfer's models take dense tensors "
                                     "(SparseTensor.to_dense() makes one)")
        return self._tensor if self._tensor is not None else as_tensor(self._array)

    def __repr__(self) -> str:
        if self._sparse is not None:
            return f"<hipinfer.OrtValue {self._sparse!r}>"
        return f"<hipinfer.OrtValue {self.data_type()}{self.shape()} on cpu>"


def as_ort_value(value: Union["OrtValue", Any], what: str) -> OrtValue:
    if not isinstance(value, OrtValue):
        raise TypeError(f"{what} must be a hipinfer.OrtValue, not {type(value).__name__}")
    return value
