"""Values in and out of hipinfer: numpy arrays, DLPack producers (torch, cupy, jax, ...) and
hipinfer.Tensor, without copies where the memory allows it."""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import _hipinfer as _C

# ONNX TensorProto.DataType codes (hi::DType) that numpy cannot name by itself.
_BFLOAT16 = 16

# hi::DType (ONNX TensorProto.DataType) code -> (onnxruntime's type name, numpy dtype name or None).
ONNX_TYPES = {
    1: ("float", "float32"), 2: ("uint8", "uint8"), 3: ("int8", "int8"), 4: ("uint16", "uint16"),
    5: ("int16", "int16"), 6: ("int32", "int32"), 7: ("int64", "int64"), 8: ("string", "object"),
    9: ("bool", "bool"), 10: ("float16", "float16"), 11: ("double", "float64"), 12: ("uint32", "uint32"),
    13: ("uint64", "uint64"), 14: ("complex64", "complex64"), 15: ("complex128", "complex128"),
    16: ("bfloat16", None), 17: ("float8e4m3fn", None), 18: ("float8e4m3fnuz", None),
    19: ("float8e5m2", None), 20: ("float8e5m2fnuz", None), 21: ("uint4", None), 22: ("int4", None),
    23: ("float4e2m1", None),
}


def _bfloat16_dtype() -> Optional[np.dtype]:
    """ml_dtypes.bfloat16 (what onnx and JAX use for bfloat16 numpy arrays), if installed."""
    try:
        import ml_dtypes  # noqa: PLC0415 (optional)
    except ImportError:
        return None
    return np.dtype(ml_dtypes.bfloat16)


def _from_numpy(array: np.ndarray) -> _C.Tensor:
    kind = array.dtype.kind
    if kind in "USO":
        values = []
        for v in array.reshape(-1):
            if isinstance(v, bytes):
                v = v.decode("utf-8", "surrogateescape")
            elif not isinstance(v, str):
                raise _C.InvalidArgument(
                    f"a numpy array of dtype {array.dtype} holds a {type(v).__name__}; "
                    "only str and bytes objects make a string tensor")
            values.append(v)
        return _C._tensor_from_strings(values, list(array.shape))
    bf16 = _bfloat16_dtype() if kind == "V" else None
    if bf16 is not None and array.dtype == bf16:
        return _C._tensor_from_array(array.view(np.uint16), _BFLOAT16)
    if not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    try:
        return _C._tensor_from_array(array)
    except TypeError:
        raise _C.InvalidArgument(f"numpy dtype {array.dtype} has no hipinfer equivalent") from None


# What onnxruntime converts to an input's declared type: values that are not arrays yet.
_PYTHON_VALUES = (list, tuple, bool, int, float, complex, str, bytes, np.generic)


def _converted(value: Any, dtype: np.dtype) -> np.ndarray:
    try:
        return np.asarray(value, dtype=dtype)  # a float past the type's range becomes inf, as in onnxruntime
    except (ValueError, TypeError, OverflowError) as e:
        raise _C.InvalidArgument(f"a {type(value).__name__} cannot be converted to the declared "
                                 f"{dtype}: {e}") from None


def as_tensor(value: Any, dtype: Optional[np.dtype] = None) -> _C.Tensor:
    """Any array-like -> hipinfer.Tensor. Zero copy for C-contiguous host memory: numpy arrays,
    objects with __dlpack__ (a torch CPU tensor), hipinfer.Tensor. Other strides are copied;
    objects with only the array interface or __array__ go through numpy.asarray (no copy where
    numpy needs none). Python lists and scalars and numpy scalars become arrays of `dtype` (the
    input's declared type, as onnxruntime converts them) where it is given, else numpy's own
    choice (float -> float64, int -> int64)."""
    if dtype is not None and isinstance(value, _PYTHON_VALUES):
        return _from_numpy(_converted(value, dtype))
    if isinstance(value, _C.Tensor):
        return value
    if isinstance(value, np.ndarray):
        return _from_numpy(value)
    if hasattr(value, "__dlpack__"):
        try:
            return _C._tensor_from_array(value)
        except TypeError:
            if not (hasattr(value, "__array_interface__") or hasattr(value, "__array__")):
                raise _C.InvalidArgument(
                    f"a {type(value).__name__} could not be imported through DLPack") from None
    return _from_numpy(np.asarray(value))


def from_dlpack(value: Any) -> _C.Tensor:
    """A hipinfer.Tensor sharing the memory of `value`: any object with ``__dlpack__`` (numpy,
    torch, cupy, jax, ...) or the buffer protocol. Host memory only for now: a tensor on a GPU
    raises hipinfer.Unsupported, since this build has no GPU backend to use it. Non-contiguous
    strides are copied into a contiguous tensor."""
    if isinstance(value, _C.Tensor):
        return value
    if isinstance(value, np.ndarray):
        return _from_numpy(value)
    try:
        return _C._tensor_from_array(value)
    except TypeError:
        raise TypeError(f"from_dlpack: a {type(value).__name__} has neither __dlpack__ nor the buffer "
                        "protocol") from None
