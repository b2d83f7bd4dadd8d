"""onnxruntime's exception classes, as hipinfer's exceptions, and its module-level functions.

Each onnxruntime class names the hipinfer exception raised for that kind of failure, so code that
catches onnxruntime's classes catches hipinfer's errors: `Fail` is every hipinfer error
(HipinferError); `InvalidArgument`; `NoSuchFile` and `NotFound` (a missing file);
`InvalidGraph`, `InvalidProtobuf` and `NoModel` (a model hipinfer cannot read or build:
InvalidModel); `NotImplemented` (Unsupported); `RuntimeException`, `EngineError` and `EPFail`
(running failed: RuntimeFailure). `ModelLoaded`, `ModelLoadCanceled`, `ModelRequiresCompilation`
and `DeviceReset` describe states hipinfer has no counterpart for: they exist, so `except`
clauses naming them work, and hipinfer never raises them."""
import hipinfer
from hipinfer import (SessionOptions, RunOptions, GraphOptimizationLevel, ExecutionMode, ModelMetadata, NodeArg,
                      get_all_providers, get_available_providers, get_device, get_version_string, get_build_info,
                      set_default_logger_severity, set_default_logger_verbosity, disable_telemetry_events,
                      enable_telemetry_events)

Fail = hipinfer.HipinferError
InvalidArgument = hipinfer.InvalidArgument
NoSuchFile = hipinfer.NotFound
NotFound = hipinfer.NotFound
InvalidGraph = hipinfer.InvalidModel
InvalidProtobuf = hipinfer.InvalidModel
NoModel = hipinfer.InvalidModel
NotImplemented = hipinfer.Unsupported  # noqa: A001 (onnxruntime's name)
RuntimeException = hipinfer.RuntimeFailure
EngineError = hipinfer.RuntimeFailure
EPFail = hipinfer.RuntimeFailure


class ModelLoaded(hipinfer.HipinferError):
    """onnxruntime's 'a model is already loaded'; hipinfer sessions load once and never raise it."""


class ModelLoadCanceled(hipinfer.HipinferError):
    """onnxruntime's cancelled model load; hipinfer never raises it."""


class ModelRequiresCompilation(hipinfer.HipinferError):
    """onnxruntime's 'compile the model first' (EP contexts); hipinfer never raises it."""


class DeviceReset(hipinfer.HipinferError):
    """onnxruntime's device-reset error; hipinfer never raises it."""
