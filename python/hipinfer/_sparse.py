"""SparseTensor and OrtSparseFormat, as onnxruntime names them: a sparse tensor in host memory,
in COO form (values at offsets or coordinates) or CSR form (values at column indices, with row
offsets), made from numpy arrays without copying them.

hipinfer's models take dense tensors (a model's sparse initializers and Constant sparse_values are
made dense when it is read), so a SparseTensor is not an input; to_dense() makes the dense array
(a hipinfer addition)."""
from __future__ import annotations

import enum
from typing import Any, Sequence

import numpy as np

from . import _hipinfer as _C
from ._ort_value import _check_host


class OrtSparseFormat(enum.IntEnum):
    """onnxruntime's sparse formats, with its values."""
    ORT_SPARSE_UNDEFINED = 0
    ORT_SPARSE_COO = 1
    ORT_SPARSE_CSRC = 2
    ORT_SPARSE_BLOCK_SPARSE = 4


_TYPE_NAMES = {np.dtype(np.float32): "float", np.dtype(np.float64): "double", np.dtype(np.float16): "float16",
               np.dtype(np.int8): "int8", np.dtype(np.uint8): "uint8", np.dtype(np.int16): "int16",
               np.dtype(np.uint16): "uint16", np.dtype(np.int32): "int32", np.dtype(np.uint32): "uint32",
               np.dtype(np.int64): "int64", np.dtype(np.uint64): "uint64", np.dtype(np.bool_): "bool"}


def _index_array(a: Any, what: str) -> np.ndarray:
    array = np.asarray(a)
    if array.dtype != np.int64:
        raise _C.InvalidArgument(f"{what} must be int64, got {array.dtype}")
    return array


def _device(ort_device: Any, what: str) -> None:
    if ort_device is not None:
        _check_host(ort_device.device_type(), ort_device.device_id(), what)


class _CooView:
    def __init__(self, indices: np.ndarray) -> None:
        self._indices = indices

    def indices(self) -> np.ndarray:
        """[NNZ] offsets into the dense tensor, or [NNZ, 2] (row, column) pairs."""
        return self._indices


class _CsrcView:
    def __init__(self, inner: np.ndarray, outer: np.ndarray) -> None:
        self._inner, self._outer = inner, outer

    def inner(self) -> np.ndarray:
        """The column of each value."""
        return self._inner

    def outer(self) -> np.ndarray:
        """Where each row's values begin, and the end: rows + 1 offsets."""
        return self._outer


class SparseTensor:
    """A sparse tensor in host memory. Make one with sparse_coo_from_numpy or
    sparse_csr_from_numpy; the arrays are shared, not copied."""

    def __init__(self, fmt: OrtSparseFormat, dense_shape: Sequence[int], values: np.ndarray, *indices: np.ndarray):
        self._format, self._shape, self._values, self._indices = fmt, [int(d) for d in dense_shape], values, indices

    @staticmethod
    def _checked(dense_shape: Any, values: Any, what: str) -> tuple:
        shape = [int(d) for d in np.asarray(dense_shape, dtype=np.int64).reshape(-1)]
        if any(d < 0 for d in shape):
            raise _C.InvalidArgument(f"{what}: dense_shape {shape} has a negative dim")
        array = np.asarray(values)
        if array.ndim != 1:
            raise _C.InvalidArgument(f"{what}: values must be 1-D, got shape {list(array.shape)}")
        if array.dtype not in _TYPE_NAMES:
            raise _C.InvalidArgument(f"{what}: values of dtype {array.dtype} are not supported "
                                     f"(numeric and bool only, as in onnxruntime)")
        return shape, array

    @classmethod
    def sparse_coo_from_numpy(cls, dense_shape: Any, values: Any, coo_indices: Any,
                              ort_device: Any = None) -> "SparseTensor":
        """COO: `coo_indices` are [NNZ] offsets into the dense tensor, or [NNZ, 2] (row, column)
        pairs of a 2-D tensor."""
        what = "SparseTensor.sparse_coo_from_numpy"
        _device(ort_device, what)
        shape, array = cls._checked(dense_shape, values, what)
        indices = _index_array(coo_indices, f"{what}: coo_indices")
        nnz, size = array.shape[0], int(np.prod(shape, dtype=np.int64))
        if indices.shape == (nnz,):
            bad = np.flatnonzero((indices < 0) | (indices >= size))
            if bad.size:
                raise _C.InvalidArgument(f"{what}: coo_indices[{bad[0]}] = {indices[bad[0]]} is outside the "
                                         f"dense tensor's {size} elements (dense_shape {shape})")
        elif len(shape) == 2 and indices.shape == (nnz, 2):
            for axis in range(2):
                bad = np.flatnonzero((indices[:, axis] < 0) | (indices[:, axis] >= shape[axis]))
                if bad.size:
                    raise _C.InvalidArgument(f"{what}: coo_indices[{bad[0]}, {axis}] = {indices[bad[0], axis]} "
                                             f"is outside [0, {shape[axis]})")
        else:
            pairs = f" or [{nnz}, 2]" if len(shape) == 2 else ""
            raise _C.InvalidArgument(f"{what}: coo_indices have shape {list(indices.shape)}; {nnz} values need "
                                     f"[{nnz}]{pairs}")
        return cls(OrtSparseFormat.ORT_SPARSE_COO, shape, array, indices)

    @classmethod
    def sparse_csr_from_numpy(cls, dense_shape: Any, values: Any, inner_indices: Any, outer_indices: Any,
                              ort_device: Any = None) -> "SparseTensor":
        """CSR of a 2-D tensor: `inner_indices` the column of each value, `outer_indices` the
        rows + 1 offsets where each row's values begin and the last ends."""
        what = "SparseTensor.sparse_csr_from_numpy"
        _device(ort_device, what)
        shape, array = cls._checked(dense_shape, values, what)
        if len(shape) != 2:
            raise _C.InvalidArgument(f"{what}: CSR needs a 2-D dense_shape, got {shape}")
        inner = _index_array(inner_indices, f"{what}: inner_indices")
        outer = _index_array(outer_indices, f"{what}: outer_indices")
        nnz = array.shape[0]
        if inner.shape != (nnz,):
            raise _C.InvalidArgument(f"{what}: inner_indices have shape {list(inner.shape)}, expected [{nnz}]")
        if outer.shape != (shape[0] + 1,):
            raise _C.InvalidArgument(f"{what}: outer_indices have shape {list(outer.shape)}, expected "
                                     f"[{shape[0] + 1}] (rows + 1)")
        if outer[0] != 0 or outer[-1] != nnz or np.any(np.diff(outer) < 0):
            raise _C.InvalidArgument(f"{what}: outer_indices must rise from 0 to {nnz} (the value count), "
                                     f"got {outer.tolist()}")
        bad = np.flatnonzero((inner < 0) | (inner >= shape[1]))
        if bad.size:
            raise _C.InvalidArgument(f"{what}: inner_indices[{bad[0]}] = {inner[bad[0]]} is outside [0, {shape[1]})")
        return cls(OrtSparseFormat.ORT_SPARSE_CSRC, shape, array, inner, outer)

    def format(self) -> OrtSparseFormat:
        return self._format

    def dense_shape(self) -> np.ndarray:
        return np.array(self._shape, dtype=np.int64)

    def values(self) -> np.ndarray:
        """The non-zero values, sharing their memory."""
        return self._values

    def data_type(self) -> str:
        return f"sparse_tensor({_TYPE_NAMES[self._values.dtype]})"

    def device_name(self) -> str:
        return "cpu"

    def as_coo_view(self) -> _CooView:
        if self._format != OrtSparseFormat.ORT_SPARSE_COO:
            raise _C.InvalidArgument(f"this sparse tensor is in {self._format.name}, not COO format")
        return _CooView(self._indices[0])

    def as_csrc_view(self) -> _CsrcView:
        if self._format != OrtSparseFormat.ORT_SPARSE_CSRC:
            raise _C.InvalidArgument(f"this sparse tensor is in {self._format.name}, not CSR(C) format")
        return _CsrcView(self._indices[0], self._indices[1])

    def as_blocksparse_view(self) -> Any:
        raise _C.InvalidArgument(f"this sparse tensor is in {self._format.name}, not block-sparse format "
                      "(hipinfer makes no block-sparse tensors)")

    def to_cuda(self, ort_device: Any) -> "SparseTensor":
        raise _C.Unsupported("SparseTensor.to_cuda: hipinfer keeps sparse tensors in host memory")

    def to_dense(self) -> np.ndarray:
        """The dense array (hipinfer's addition): zeros with the values at their indices."""
        dense = np.zeros(self._shape, dtype=self._values.dtype)
        flat = dense.reshape(-1)
        if self._format == OrtSparseFormat.ORT_SPARSE_CSRC:
            inner, outer = self._indices
            rows = np.repeat(np.arange(self._shape[0], dtype=np.int64), np.diff(outer))
            flat[rows * self._shape[1] + inner] = self._values
        elif self._indices[0].ndim == 2:
            flat[self._indices[0][:, 0] * self._shape[1] + self._indices[0][:, 1]] = self._values
        else:
            flat[self._indices[0]] = self._values
        return dense

    def __repr__(self) -> str:
        return f"<hipinfer.SparseTensor {self.data_type()}{self._shape} {self._format.name}, {len(self._values)} values>"
