"""IOBinding, as onnxruntime names it: inputs and outputs bound to a session ahead of a run
(InferenceSession.run_with_iobinding), in host memory. An output bound without memory receives
hipinfer's result (get_outputs()); one bound to an OrtValue or to a buffer receives a copy of the
result, which must have that shape and type. Binding GPU memory raises Unsupported."""
from __future__ import annotations

import ctypes
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from . import _hipinfer as _C
from ._ort_value import OrtValue, _check_host, as_ort_value, numpy_dtype


def _array_at(buffer_ptr: int, element_type: Any, shape: Sequence[int], what: str) -> np.ndarray:
    """A numpy array over `buffer_ptr` (host memory the caller owns), without a copy."""
    dtype = numpy_dtype(element_type, what)
    if dtype == np.object_:
        raise _C.InvalidArgument(f"{what}: string tensors cannot be bound by pointer; use an OrtValue")
    dims = [int(d) for d in shape]
    if any(d < 0 for d in dims):
        raise _C.InvalidArgument(f"{what}: shape {dims} has a negative dim")
    if not buffer_ptr:
        raise _C.InvalidArgument(f"{what}: buffer_ptr is 0")
    count = int(np.prod(dims, dtype=np.int64)) if dims else 1
    raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(int(buffer_ptr))
    return np.frombuffer(raw, dtype=dtype, count=count).reshape(dims)


class IOBinding:
    """Inputs and outputs of one session, bound before run_with_iobinding (InferenceSession.io_binding())."""

    def __init__(self, session: Any) -> None:
        self._session = session
        self._inputs: Dict[str, OrtValue] = {}
        self._outputs: Dict[str, Optional[OrtValue]] = {}  # in binding order; None: hipinfer allocates
        self._results: List[OrtValue] = []

    # ---- inputs ----

    def bind_cpu_input(self, name: str, arr_on_cpu: Any) -> None:
        self._inputs[self._input_name(name)] = OrtValue.ortvalue_from_numpy(arr_on_cpu)

    def bind_input(self, name: str, device_type: str, device_id: int, element_type: Any, shape: Sequence[int],
                   buffer_ptr: int) -> None:
        what = f"IOBinding.bind_input('{name}')"
        _check_host(device_type, device_id, what)
        self._inputs[self._input_name(name)] = OrtValue(_array_at(buffer_ptr, element_type, shape, what))

    def bind_ortvalue_input(self, name: str, ortvalue: OrtValue) -> None:
        self._inputs[self._input_name(name)] = as_ort_value(ortvalue, "IOBinding.bind_ortvalue_input: ortvalue")

    def synchronize_inputs(self) -> None:
        """Nothing to wait for: inputs are host memory."""

    def clear_binding_inputs(self) -> None:
        self._inputs.clear()

    # ---- outputs ----

    def bind_output(self, name: str, device_type: str = "cpu", device_id: int = 0, element_type: Any = None,
                    shape: Optional[Sequence[int]] = None, buffer_ptr: Optional[int] = None) -> None:
        what = f"IOBinding.bind_output('{name}')"
        _check_host(device_type, device_id, what)
        name = self._output_name(name)
        if buffer_ptr is None:
            self._outputs[name] = None
            return
        if element_type is None or shape is None:
            raise _C.InvalidArgument(f"{what}: a buffer_ptr needs its element_type and shape")
        self._outputs[name] = OrtValue(_array_at(buffer_ptr, element_type, shape, what))

    def bind_ortvalue_output(self, name: str, ortvalue: OrtValue) -> None:
        self._outputs[self._output_name(name)] = as_ort_value(ortvalue, "IOBinding.bind_ortvalue_output: ortvalue")

    def synchronize_outputs(self) -> None:
        """Nothing to wait for: outputs are host memory, complete when the run returns."""

    def clear_binding_outputs(self) -> None:
        self._outputs.clear()
        self._results = []

    def get_outputs(self) -> List[OrtValue]:
        """The bound outputs of the last run, in binding order."""
        return list(self._results)

    def get_outputs_as_ortvaluevector(self) -> List[OrtValue]:
        return self.get_outputs()

    def copy_outputs_to_cpu(self) -> List[np.ndarray]:
        return [v.numpy().copy() for v in self._results]

    # ---- used by InferenceSession.run_with_iobinding ----

    def _input_name(self, name: str) -> str:
        return self._known(name, "input", [i.name for i in self._session.get_inputs()])

    def _output_name(self, name: str) -> str:
        return self._known(name, "output", [o.name for o in self._session.get_outputs()])

    @staticmethod
    def _known(name: str, kind: str, names: List[str]) -> str:
        if name not in names:
            raise _C.InvalidArgument(f"IOBinding: '{name}' is not an {kind} of the model; its {kind}s are "
                                     + ", ".join(f"'{n}'" for n in names))
        return name

    def _store(self, names: List[str], results: List[OrtValue]) -> None:
        """Checks every given output against its result before writing any, then fills them."""
        for name, result in zip(names, results):
            given = self._outputs[name]
            if given is not None and (given.shape() != result.shape() or given.numpy().dtype != result.numpy().dtype):
                raise _C.InvalidArgument(f"IOBinding: output '{name}' is bound to {given.numpy().dtype}{given.shape()} "
                                         f"but the result is {result.numpy().dtype}{result.shape()}")
        stored = []
        for name, result in zip(names, results):
            given = self._outputs[name]
            if given is None:
                stored.append(result)
            else:
                np.copyto(given.numpy(), result.numpy())
                stored.append(given)
        self._results = stored
