"""hipinfer: runs ONNX models, with the Python API onnxruntime users already know.

    import hipinfer as ort                      # an onnxruntime script runs unchanged
    sess = ort.InferenceSession("model.onnx", providers=["ROCMExecutionProvider", "CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    outputs = sess.run(None, {name: x})         # numpy in, numpy out, no copies on the CPU

Beyond onnxruntime: DLPack in (any object with __dlpack__) and out
(run(..., output_format="dlpack"), hipinfer.from_dlpack), run_async() returning a Future,
devices(), memory_stats(), print_mem_usage(), doctor(), inspect_model(), and exceptions that
carry the C++ API's messages (hipinfer.HipinferError and its subclasses).

A GPU provider runs the session on that GPU; nodes it has no kernel for run on the CPU, each
reported (get_placement()), and a provider that cannot be used falls back to the next with a
warning that says why. `python -m hipinfer --help` runs the command-line tool.
"""
from __future__ import annotations

from typing import Any, Dict

from . import _hipinfer
from ._doctor import DoctorResult, Finding, doctor
from ._hipinfer import (
    HipinferError,
    InternalError,
    Cancelled,
    DeadlineExceeded,
    InvalidArgument,
    InvalidModel,
    NotFound,
    OutOfMemory,
    RuntimeFailure,
    Tensor,
    Unsupported,
)
from ._memory import (
    Device,
    devices,
    empty_cache,
    gpu_info,
    memory_stats,
    memory_summary,
    print_mem_usage,
    reserve,
    reset_peak_memory_stats,
    set_memory_limit,
)
from ._providers import (NodeFallbackWarning, ProviderFallbackWarning, get_all_providers, get_available_providers,
                         get_device)
from ._session import (
    ExecutionMode,
    GraphOptimizationLevel,
    InferenceSession,
    ModelMetadata,
    NodeArg,
    RunOptions,
    SessionOptions,
)
from ._io_binding import IOBinding
from ._ort_value import OrtDevice, OrtMemoryInfo, OrtValue
from ._sparse import OrtSparseFormat, SparseTensor
from ._tensor import from_dlpack
from ._logging import set_default_logger_severity, set_default_logger_verbosity
from ._version import GIT_COMMIT, HIPINFER_VERSION, ORT_API_VERSION, get_build_info, get_version_string

# The onnxruntime API level hipinfer follows, so version checks written for onnxruntime pass;
# hipinfer's own version is hipinfer_version, built from git_commit (see _version.py for the rule).
__version__ = ORT_API_VERSION
version = ORT_API_VERSION
hipinfer_version = HIPINFER_VERSION
git_commit = GIT_COMMIT
package_name = "hipinfer"


def disable_telemetry_events() -> None:
    """Accepted for onnxruntime compatibility: hipinfer collects and sends no telemetry."""


def enable_telemetry_events() -> None:
    """Accepted for onnxruntime compatibility: hipinfer collects and sends no telemetry."""


def inspect_model(path: str) -> Dict[str, Any]:
    """What `hipinfer inspect` shows, as a dict: ir_version, opsets, producer, inputs, outputs,
    nodes, op_histogram, parameters, parameter_bytes, flops (-1 when unknown), `unsupported` (one
    line per op hipinfer cannot run: "Foo (opset 17): nodes 'a', 'b'") and load_error (why a
    session could not be built; "" when it can). Raises only when the file is not ONNX at all."""
    return _hipinfer.inspect_model(str(path))


__all__ = [
    "__version__", "version", "hipinfer_version", "git_commit", "package_name", "get_version_string", "get_build_info",
    # sessions (onnxruntime's API)
    "InferenceSession", "SessionOptions", "RunOptions", "NodeArg", "ModelMetadata", "GraphOptimizationLevel",
    "ExecutionMode", "disable_telemetry_events", "enable_telemetry_events", "set_default_logger_severity",
    "set_default_logger_verbosity",
    "get_available_providers", "get_all_providers", "get_device", "ProviderFallbackWarning",
    "NodeFallbackWarning",
    # tensors and values
    "Tensor", "from_dlpack", "OrtValue", "OrtDevice", "OrtMemoryInfo", "IOBinding",
    "SparseTensor", "OrtSparseFormat",
    # devices and memory
    "Device", "devices", "gpu_info", "memory_stats", "reset_peak_memory_stats", "set_memory_limit", "reserve",
    "empty_cache", "memory_summary", "print_mem_usage",
    # diagnostics
    "doctor", "DoctorResult", "Finding", "inspect_model",
    # errors
    "HipinferError", "InvalidArgument", "InvalidModel", "Unsupported", "NotFound", "OutOfMemory",
    "RuntimeFailure", "Cancelled", "DeadlineExceeded", "InternalError",
]

from . import capi  # noqa: E402 (onnxruntime's import paths; they import the names above)
