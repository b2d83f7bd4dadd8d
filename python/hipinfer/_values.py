"""Inputs and outputs that are not tensors, as onnxruntime gives and takes them: a sequence is a
list, a map a dict, an absent optional None, and ZipMap's output a list of dicts."""
from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from . import _hipinfer as _C
from ._tensor import ONNX_TYPES, as_tensor

_NUMPY_BY_ORT_NAME = {ort: np_name for ort, np_name in ONNX_TYPES.values() if np_name}


def _split(type_str: str) -> Tuple[str, str]:
    """'seq(tensor(float))' -> ('seq', 'tensor(float)')."""
    head, _, rest = type_str.partition("(")
    return head, rest[:-1] if rest.endswith(")") else rest


def _tensor_dtype(type_str: str) -> Optional[np.dtype]:
    head, inner = _split(type_str)
    if head != "tensor" or inner not in _NUMPY_BY_ORT_NAME:
        return None
    return np.dtype(_NUMPY_BY_ORT_NAME[inner])


def needs_values(type_str: str) -> bool:
    """True for any type but a plain tensor: such inputs and outputs go through run_values."""
    return not type_str.startswith("tensor(")


def to_value(value: Any, type_str: str, what: str) -> Any:
    """A Python input -> what the extension's run_values takes for the declared type."""
    head, inner = _split(type_str)
    if value is None:
        if head != "optional":
            raise _C.InvalidArgument(f"{what}: None is only accepted for an optional input, this one is {type_str}")
        return None
    if head == "optional":
        return to_value(value, inner, what)
    if head == "seq":
        if not isinstance(value, (list, tuple)):
            raise _C.InvalidArgument(f"{what}: expected a list for {type_str}, got {type(value).__name__}")
        return [to_value(v, inner, f"{what} element {i}") for i, v in enumerate(value)]
    if head == "map":
        if not isinstance(value, dict):
            raise _C.InvalidArgument(f"{what}: expected a dict for {type_str}, got {type(value).__name__}")
        key_type, _, value_type = inner.partition(",")
        key_dtype = np.dtype(object) if key_type == "string" else np.dtype(_NUMPY_BY_ORT_NAME.get(key_type, "int64"))
        keys = np.array(list(value.keys()), dtype=key_dtype)
        values = np.array(list(value.values()), dtype=_tensor_dtype(value_type))
        return (as_tensor(keys), as_tensor(values))
    if isinstance(value, _C.Tensor):
        return value
    return as_tensor(value, _tensor_dtype(type_str))


def from_value(value: Any, output_format: str) -> Any:
    """What run_values returned -> onnxruntime's form: numpy arrays (or Tensors for DLPack), lists,
    dicts and None."""
    if isinstance(value, _C.Tensor):
        return value if output_format == "dlpack" else value.numpy()
    if isinstance(value, list):
        return [from_value(v, output_format) for v in value]
    return value
