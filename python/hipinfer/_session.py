"""InferenceSession, SessionOptions, RunOptions and NodeArg: onnxruntime's Python API over
hipinfer's sessions, so that a script written for onnxruntime runs with `import hipinfer as ort`."""
from __future__ import annotations

import concurrent.futures
import enum
import os
import threading
import time
import warnings
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np

from . import _hipinfer as _C
from . import _logging
from . import _providers
from . import _values
from ._io_binding import IOBinding
from ._ort_value import OrtValue, as_ort_value
from ._profiler import Profiler
from ._tensor import ONNX_TYPES, _bfloat16_dtype, _from_numpy, as_tensor

PathOrBytes = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]
OutputFormat = str  # "numpy" or "dlpack"


class GraphOptimizationLevel(enum.IntEnum):
    """onnxruntime's optimisation levels (same names and values). hipinfer has levels 0..3
    (none, basic, extended, all); ORT_ENABLE_LAYOUT and ORT_ENABLE_ALL both mean level 3."""

    ORT_DISABLE_ALL = 0
    ORT_ENABLE_BASIC = 1
    ORT_ENABLE_EXTENDED = 2
    ORT_ENABLE_LAYOUT = 3
    ORT_ENABLE_ALL = 99


class ExecutionMode(enum.IntEnum):
    """onnxruntime's execution modes. hipinfer runs the nodes of a graph in order (sequentially);
    ORT_PARALLEL is accepted and behaves like ORT_SEQUENTIAL."""

    ORT_SEQUENTIAL = 0
    ORT_PARALLEL = 1


PRECISIONS = ("fp32", "fp16", "bf16")


def _hipinfer_level(level: Any) -> int:
    try:
        value = int(level)
    except (TypeError, ValueError):
        raise _C.InvalidArgument(f"graph_optimization_level must be a GraphOptimizationLevel or 0..3, "
                                 f"got {level!r}") from None
    if value == GraphOptimizationLevel.ORT_ENABLE_ALL:
        return 3
    if not 0 <= value <= 3:
        raise _C.InvalidArgument(f"graph_optimization_level must be a GraphOptimizationLevel or 0..3, got {value}")
    return value


class SessionOptions:
    """Options of an InferenceSession, with onnxruntime's attribute names.

    Effective today:
      graph_optimization_level  GraphOptimizationLevel or 0..3 (default ORT_ENABLE_ALL): 1 folds
                                constants and BatchNorm into Conv, 2 fuses Conv/MatMul/attention
                                patterns, 3 also runs convolutions channels-last.
      intra_op_num_threads      threads of the CPU kernels; 0 (default) = the physical cores.
      precision                 "fp32" (default) or "bf16": convolutions and matrix products in
                                bfloat16 where the CPU has AVX512_BF16 or AMX. "fp16" is stored
                                but has no effect yet (it is a GPU precision; a warning says so).
      memory_limit              most host memory in bytes the session may hold (weights, cached
                                arenas, tensors of its runs, outputs until dropped); past it,
                                create or run raises OutOfMemory. 0 (default) = the machine's
                                physical memory. Each session has its own.
      log_severity_level        >= 3 silences hipinfer's warnings about providers falling back to
                                the CPU and options without effect (get_providers() still tells);
                                -1 (default) uses set_default_logger_severity()'s (2: warnings).
      enable_profiling          times every node of every run; InferenceSession.end_profiling()
                                writes them as onnxruntime does, to <profile_file_prefix><date>.json.
      add_free_dimension_override_by_name(name, size)
                                fixes every input dim of that symbolic name to `size`, so shapes
                                are known when the session is built (a name no input has warns).
      add_initializer(name, ortvalue), add_external_initializers(names, ortvalues)
                                replace the model's initializers of those names (same type and
                                shape); the arrays are shared, not copied: keep them unchanged.
      tuning                    True times the CPU kernel candidates of every new shape on its
                                first run (slower) and keeps the winners in the kernel cache
                                ($HIPINFER_CACHE_DIR, else ~/.cache/hipinfer), which every later
                                session on this CPU reads; False (default) takes cached choices,
                                else a rule of thumb, untimed (C++: SessionOptions::kernel_tuning).

    Accepted and stored, but without effect yet (a warning says so when set):
      optimized_model_filepath: no model writer yet.

    Accepted for onnxruntime compatibility, with no effect (performance knobs of onnxruntime's
    own design): inter_op_num_threads, execution_mode, enable_cpu_mem_arena,
    enable_mem_pattern, enable_mem_reuse, use_deterministic_compute (hipinfer's kernels are
    deterministic), log_verbosity_level, logid, and session config entries.
    Any other attribute raises AttributeError, so a typo does not pass silently.
    """

    __slots__ = ("_graph_optimization_level", "intra_op_num_threads", "inter_op_num_threads", "execution_mode",
                 "memory_limit", "_precision", "tuning", "log_severity_level", "log_verbosity_level", "logid",
                 "enable_cpu_mem_arena", "enable_mem_pattern", "enable_mem_reuse", "enable_profiling",
                 "profile_file_prefix", "optimized_model_filepath", "use_deterministic_compute", "_config",
                 "_free_dimensions", "_initializers")

    def __init__(self) -> None:
        self._graph_optimization_level: Union[GraphOptimizationLevel, int] = GraphOptimizationLevel.ORT_ENABLE_ALL
        self.intra_op_num_threads: int = 0
        self.inter_op_num_threads: int = 0
        self.execution_mode: ExecutionMode = ExecutionMode.ORT_SEQUENTIAL
        self.memory_limit: int = 0
        self._precision: str = "fp32"
        self.tuning: bool = False
        self.log_severity_level: int = -1
        self.log_verbosity_level: int = 0
        self.logid: str = ""
        self.enable_cpu_mem_arena: bool = True
        self.enable_mem_pattern: bool = True
        self.enable_mem_reuse: bool = True
        self.enable_profiling: bool = False
        self.profile_file_prefix: str = "onnxruntime_profile_"
        self.optimized_model_filepath: str = ""
        self.use_deterministic_compute: bool = False
        self._config: Dict[str, str] = {}
        self._free_dimensions: Dict[str, int] = {}
        self._initializers: Dict[str, OrtValue] = {}

    @property
    def graph_optimization_level(self) -> Union[GraphOptimizationLevel, int]:
        return self._graph_optimization_level

    @graph_optimization_level.setter
    def graph_optimization_level(self, level: Union[GraphOptimizationLevel, int]) -> None:
        _hipinfer_level(level)  # validates
        self._graph_optimization_level = level

    @property
    def precision(self) -> str:
        """ "fp32", "fp16" or "bf16"; fp16 has no effect yet: see the class docstring."""
        return self._precision

    @precision.setter
    def precision(self, value: str) -> None:
        if value not in PRECISIONS:
            raise _C.InvalidArgument(f"precision must be one of {', '.join(PRECISIONS)}; got {value!r}")
        self._precision = value

    def add_session_config_entry(self, key: str, value: str) -> None:
        """Stores an onnxruntime session config entry; hipinfer reads none of them."""
        self._config[str(key)] = str(value)

    def get_session_config_entry(self, key: str) -> str:
        """The value stored by add_session_config_entry(); InvalidArgument when there is none."""
        if key not in self._config:
            raise _C.InvalidArgument(f"SessionOptions has no config entry '{key}'")
        return self._config[key]

    def add_free_dimension_override_by_name(self, dim_name: str, dim_value: int) -> None:
        """Every input dim named `dim_name` becomes `dim_value` when a session is built."""
        if int(dim_value) < 0:
            raise _C.InvalidArgument(f"free dimension override '{dim_name}' is {dim_value}, expected a size of 0 or more")
        self._free_dimensions[str(dim_name)] = int(dim_value)

    def add_initializer(self, name: str, val: OrtValue) -> None:
        """The model's initializer `name` becomes `val` (same element type and shape, checked when
        a session is built). The OrtValue's memory is shared: keep it unchanged."""
        self._initializers[str(name)] = as_ort_value(val, f"add_initializer('{name}'): val")

    def add_external_initializers(self, names: Sequence[str], ort_values: Sequence[OrtValue]) -> None:
        """add_initializer for each (name, OrtValue) pair."""
        if len(names) != len(ort_values):
            raise _C.InvalidArgument(f"add_external_initializers: {len(names)} names but {len(ort_values)} values")
        for name, value in zip(names, ort_values):
            self.add_initializer(name, value)

    def register_custom_ops_library(self, library_path: str) -> None:
        """Raises hipinfer.Unsupported: onnxruntime's custom op libraries cannot be loaded."""
        raise _C.Unsupported(f"custom op libraries ({library_path}) are onnxruntime's plug-in format; "
                             "hipinfer cannot load them")

    def _ineffective(self) -> List[str]:
        """One sentence for each option that was set but has no effect yet."""
        notes = []
        if self._precision == "fp16":
            notes.append("SessionOptions.precision='fp16' has no effect yet: float16 compute is for the GPU "
                         "backend, and the CPU runs the model in float32 (precision='bf16' is the CPU's)")
        if self.optimized_model_filepath:
            notes.append("SessionOptions.optimized_model_filepath has no effect: hipinfer does not write "
                         "optimised models")
        return notes

    def __repr__(self) -> str:
        return (f"SessionOptions(graph_optimization_level={self._graph_optimization_level!r}, "
                f"intra_op_num_threads={self.intra_op_num_threads}, memory_limit={self.memory_limit}, "
                f"precision={self._precision!r}, tuning={self.tuning})")


class RunOptions:
    """onnxruntime's RunOptions. Setting `terminate = True`, from any thread, stops the runs using
    these options: one in progress stops at its next check (between nodes, each Loop or Scan
    iteration) and raises hipinfer.Cancelled (a RuntimeFailure); one started while it is set
    fails at once. `timeout_ms` (hipinfer's addition; also the run config entry
    "hipinfer.timeout_ms") stops a run past that many milliseconds with
    hipinfer.DeadlineExceeded (a TimeoutError); 0, the default, is no limit. The session serves
    later runs normally. The logging attributes are accepted and have no effect."""

    __slots__ = ("log_severity_level", "log_verbosity_level", "logid", "only_execute_path_to_fetches", "_config",
                 "_control")

    def __init__(self) -> None:
        self._control = _C.RunControl()
        self.log_severity_level = 2
        self.log_verbosity_level = 0
        self.logid = ""
        self.only_execute_path_to_fetches = False
        self._config: Dict[str, str] = {}

    @property
    def terminate(self) -> bool:
        return self._control.terminate

    @terminate.setter
    def terminate(self, value: bool) -> None:
        self._control.terminate = bool(value)

    @property
    def timeout_ms(self) -> float:
        return self._control.timeout_ms

    @timeout_ms.setter
    def timeout_ms(self, value: float) -> None:
        self._control.timeout_ms = float(value)

    def add_run_config_entry(self, key: str, value: str) -> None:
        """Stores an onnxruntime run config entry; hipinfer reads "hipinfer.timeout_ms" and no other."""
        if key == "hipinfer.timeout_ms":
            try:
                self.timeout_ms = float(value)
            except ValueError:
                raise _C.InvalidArgument(f"run config entry 'hipinfer.timeout_ms' must be a number of milliseconds, "
                                         f"got {value!r}") from None
        self._config[str(key)] = str(value)

    def get_run_config_entry(self, key: str) -> str:
        """The value stored by add_run_config_entry(); InvalidArgument when there is none."""
        if key not in self._config:
            raise _C.InvalidArgument(f"RunOptions has no config entry '{key}'")
        return self._config[key]


class NodeArg:
    """A model input or output, as onnxruntime describes it: `name`, `type` ("tensor(float)") and
    `shape` (ints for known dims, the symbolic name for named ones, None for unnamed unknown ones;
    [] when even the rank is unknown, as in onnxruntime). hipinfer adds `dtype` (the numpy dtype,
    or None where numpy has none)."""

    __slots__ = ("name", "type", "shape", "dtype")

    def __init__(self, info: Mapping[str, Any]) -> None:
        code = info["dtype"]
        ort_name, np_name = ONNX_TYPES.get(code, (info["dtype_name"], None))
        self.name: str = info["name"]
        self.type: str = info["type"] if info["type"] != "unknown" else f"tensor({ort_name})"
        shape: List[Union[int, str, None]] = []
        if info["rank_known"]:
            for dim, dim_name in zip(info["shape"], info["dim_names"]):
                shape.append(dim if dim >= 0 else (dim_name or None))
        self.shape = shape
        dtype = np.dtype(np_name) if np_name else (_bfloat16_dtype() if code == 16 else None)
        self.dtype: Optional[np.dtype] = dtype

    def __repr__(self) -> str:
        return f"NodeArg(name='{self.name}', type='{self.type}', shape={self.shape})"


class ModelMetadata:
    """What the model file says about itself, as onnxruntime's ModelMetadata: producer_name,
    graph_name, graph_description, domain, description (the model's doc_string), version (its
    model_version) and custom_metadata_map (its metadata_props, a dict of str to str)."""

    __slots__ = ("producer_name", "graph_name", "graph_description", "domain", "description", "version",
                 "custom_metadata_map")

    def __init__(self, info: Mapping[str, Any]) -> None:
        self.producer_name: str = info["producer_name"]
        self.graph_name: str = info["graph_name"]
        self.graph_description: str = info["graph_description"]
        self.domain: str = info["domain"]
        self.description: str = info["description"]
        self.version: int = info["version"]
        self.custom_metadata_map: Dict[str, str] = dict(info["custom_metadata_map"])

    def __repr__(self) -> str:
        return (f"ModelMetadata(producer_name='{self.producer_name}', graph_name='{self.graph_name}', "
                f"version={self.version}, custom_metadata_map={self.custom_metadata_map})")


_pool_lock = threading.Lock()
_pool: Optional[concurrent.futures.ThreadPoolExecutor] = None


def _run_pool() -> concurrent.futures.ThreadPoolExecutor:
    """The threads run_async() uses, shared by all sessions (runs release the GIL)."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2),
                                                          thread_name_prefix="hipinfer-run")
        return _pool


def _ort_value_input(name: str, value: OrtValue) -> _C.Tensor:
    try:
        return value._as_input()
    except _C.HipinferError as e:
        raise type(e)(f"input '{name}': {e}") from None


class InferenceSession:
    """A loaded, validated model, with onnxruntime's API.

    `path_or_bytes` is a model file or its bytes. `providers` is the priority list onnxruntime
    users pass (CPUExecutionProvider, CUDAExecutionProvider, ROCMExecutionProvider,
    MIGraphXExecutionProvider, TensorrtExecutionProvider, or (name, options) tuples) or hipinfer's
    own device names ("cpu", "cuda", "cuda:0", "hip", "gpu"). A GPU provider runs the session on
    that GPU, the CPU taking the nodes the GPU has no kernel for (NodeFallbackWarning, and
    get_placement() lists each); one that cannot be used falls back to the next entry and finally
    to the CPU with a ProviderFallbackWarning saying why. No provider list means the best device.
    get_providers() names what is really used. `disabled_optimizers=[...]` (as in onnxruntime)
    skips graph passes by hipinfer's names, e.g. "fuse_inverted_residual"; an unknown name fails
    the load with InvalidArgument listing the passes.

    Loading fails with hipinfer.InvalidModel, Unsupported (every unsupported op named in one
    message) or NotFound, with the same message as the C++ API. Sessions are safe to run from
    several Python threads at once; the GIL is released while a model loads or runs.
    """

    def __init__(self, path_or_bytes: PathOrBytes, sess_options: Optional[SessionOptions] = None,
                 providers: Optional[Sequence[_providers.ProviderSpec]] = None,
                 provider_options: Optional[Sequence[Dict[str, Any]]] = None, **kwargs: Any) -> None:
        # ONNX Runtime's keyword: graph passes to skip, by name (hipinfer's names, as
        # `hipinfer inspect` and the C++ SessionOptions::disabled_passes use them).
        disabled = kwargs.pop("disabled_optimizers", None) or []
        if kwargs:
            raise TypeError(f"InferenceSession() got unexpected keyword arguments: {', '.join(kwargs)}")
        if isinstance(disabled, str) or not all(isinstance(d, str) for d in disabled):
            raise TypeError("disabled_optimizers must be a list of pass names (str)")
        self._disabled_passes = list(disabled)
        options = sess_options if sess_options is not None else SessionOptions()
        if not isinstance(options, SessionOptions):
            raise TypeError(f"sess_options must be a hipinfer.SessionOptions, not {type(options).__name__}")
        self._options = options
        warn = _logging.warns(options.log_severity_level)
        self._placement = _providers.resolve(providers, provider_options, warn=warn, stacklevel=3)
        if warn:
            for note in options._ineffective():
                warnings.warn(note, UserWarning, stacklevel=2)
        if isinstance(path_or_bytes, (str, os.PathLike)):
            self._model_path: Optional[str] = os.fspath(path_or_bytes)
            self._model_bytes: Optional[bytes] = None
        elif isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            self._model_path = None
            self._model_bytes = bytes(path_or_bytes)
        else:
            raise TypeError(f"Unable to load from type '{type(path_or_bytes)}'")
        self._profiler: Optional[Profiler] = None
        if options.enable_profiling:
            self._profiler = Profiler(options.profile_file_prefix, self._placement.providers[0])
        load_start = time.perf_counter()
        self._load(warn, stacklevel=3)
        if self._profiler is not None:
            self._profiler.session_loaded((time.perf_counter() - load_start) * 1e6)
        self._inputs = [NodeArg(i) for i in self._sess.inputs()]
        # Each tensor input's numpy dtype, for converting Python lists and scalars in run().
        self._declared_dtypes = {a.name: a.dtype for a in self._inputs if a.type.startswith("tensor(")}
        self._outputs = [NodeArg(o) for o in self._sess.outputs()]
        # Models with sequences, maps or optionals among their inputs or outputs run through
        # run_values (lists, dicts and None); all others keep the tensor-only fast path.
        self._value_types = {a.name: a.type for a in self._inputs if _values.needs_values(a.type)}
        self._value_io = bool(self._value_types) or any(_values.needs_values(o.type) for o in self._outputs)

    def _load(self, warn: bool, stacklevel: int) -> None:
        """Compiles the model for the placement's devices. Nodes the GPU has no kernel for run on
        the CPU, each reported (get_placement()) and summed up in one warning per reason; a GPU
        session where nothing landed on the GPU reports the CPU in get_providers()."""
        options = self._options
        level = _hipinfer_level(options.graph_optimization_level)
        threads, limit = int(options.intra_op_num_threads), int(options.memory_limit)
        devices = list(self._placement.devices)
        extras = dict(disabled_passes=self._disabled_passes, free_dimension_overrides=options._free_dimensions,
                      profile=bool(options.enable_profiling), tune=bool(options.tuning),
                      initializers={name: value._as_input() for name, value in options._initializers.items()})
        if self._model_path is not None:
            self._sess = _C.Session.load(self._model_path, level, threads, limit, self._cpu_precision(), devices,
                                         **extras)
        else:
            self._sess = _C.Session.load_bytes(self._model_bytes, level, threads, limit, self._cpu_precision(), devices,
                                               **extras)
        report = self._sess.placement()
        if warn:
            for note in report["warnings"]:
                # The session's warnings are its fallbacks, and free dimension overrides that name no
                # input dim (those start so).
                kind = UserWarning if note.startswith("free dimension override") else _providers.NodeFallbackWarning
                warnings.warn(note, kind, stacklevel=stacklevel + 1)
        if devices == ["cpu"]:
            return
        if not any(n["device"] == self._placement.device for n in report["nodes"]):
            reason = "no node of the model landed there (get_placement() says why)"
            self._placement.fallbacks.append(f"{self._placement.providers[0]}: {reason}")
            self._placement.device = "cpu"
            self._placement.providers = [_providers.CPU_PROVIDER]
            self._placement.provider_options = {_providers.CPU_PROVIDER: {}}

    def _cpu_precision(self) -> str:
        """The precision the C++ session gets: bf16 as asked, anything else float32."""
        return "bf16" if self._options.precision == "bf16" else "fp32"

    # ---- what the model takes and gives ----

    def get_inputs(self) -> List[NodeArg]:
        """The model's inputs (initializers a caller may override are not listed)."""
        return list(self._inputs)

    def get_outputs(self) -> List[NodeArg]:
        """The model's outputs, in model order (the order run() returns them in)."""
        return list(self._outputs)

    def get_modelmeta(self) -> ModelMetadata:
        """The model's metadata (producer, graph name, doc strings, version, metadata_props)."""
        return ModelMetadata(self._sess.metadata())

    def get_overridable_initializers(self) -> List[NodeArg]:
        """Always [] for now: hipinfer accepts such initializers as inputs but does not list them."""
        return []

    # ---- where it runs ----

    def get_providers(self) -> List[str]:
        """The providers this session really uses, in onnxruntime's names, in priority order: a GPU
        provider first when the session runs on a GPU, then "CPUExecutionProvider"."""
        return list(self._placement.providers)

    def get_placement(self) -> Dict[str, Any]:
        """Where each node runs (hipinfer's addition; `hipinfer run --explain` prints the same):
        {"devices", "nodes": [{"node", "op", "device", "reason"}], "fallbacks", "summary", "table",
        "warnings"}. A node's reason says why it is not on the first device."""
        return self._sess.placement()

    def get_provider_options(self) -> Dict[str, Dict[str, str]]:
        """{provider: {option: value}} for the providers used, values as strings (as onnxruntime)."""
        return {k: dict(v) for k, v in self._placement.provider_options.items()}

    def set_providers(self, providers: Optional[Sequence[_providers.ProviderSpec]] = None,
                      provider_options: Optional[Sequence[Dict[str, Any]]] = None) -> None:
        """Chooses the providers again; the model is compiled again when the devices change."""
        warn = _logging.warns(self._options.log_severity_level)
        previous = list(self._placement.devices)
        self._placement = _providers.resolve(providers, provider_options, warn=warn, stacklevel=2)
        if self._placement.devices != previous:
            self._load(warn, stacklevel=2)

    def disable_fallback(self) -> None:
        """Accepted for onnxruntime compatibility; hipinfer never moves a failed run to another provider."""

    def enable_fallback(self) -> None:
        """Accepted for onnxruntime compatibility; see disable_fallback()."""

    def get_session_options(self) -> SessionOptions:
        """The SessionOptions the session was created with."""
        return self._options

    @property
    def device(self) -> str:
        """The device the session runs on: "cpu", "cuda:0" or "hip:0" (hipinfer's addition to the
        onnxruntime API; with a GPU, nodes it has no kernel for still run on the CPU)."""
        return self._placement.device

    # ---- running ----

    def _prepare(self, output_names: Optional[Sequence[str]], input_feed: Mapping[str, Any],
                 run_options: Optional[RunOptions], output_format: OutputFormat):
        if not isinstance(input_feed, Mapping):
            raise TypeError(f"input_feed must be a dict of input name -> array, not {type(input_feed).__name__}")
        if output_format not in ("numpy", "dlpack"):
            raise _C.InvalidArgument(f"output_format must be 'numpy' or 'dlpack', got {output_format!r}")
        if isinstance(output_names, str):
            raise TypeError("output_names must be a list of names (or None for all outputs), not a string")
        if run_options is not None and not isinstance(run_options, RunOptions):
            raise TypeError(f"run_options must be a hipinfer.RunOptions, not {type(run_options).__name__}")
        if run_options is not None and run_options.terminate:
            raise _C.Cancelled("Exiting due to terminate flag being set to true.")
        feed = {}
        declared = self._declared_dtypes
        value_types = self._value_types
        for name, value in input_feed.items():
            if value_types and str(name) in value_types:
                feed[str(name)] = _values.to_value(value, value_types[str(name)], f"input '{name}'")
                continue
            if type(value) is np.ndarray:  # the common case first: as_tensor's checks cost a call's tenth
                try:
                    feed[str(name)] = _from_numpy(value)
                except _C.HipinferError as e:
                    raise type(e)(f"input '{name}': {e}") from None
                continue
            if isinstance(value, OrtValue):
                feed[str(name)] = _ort_value_input(str(name), value)
                continue
            try:
                feed[str(name)] = as_tensor(value, declared.get(str(name)))
            except _C.HipinferError as e:
                raise type(e)(f"input '{name}': {e}") from None
        return list(output_names or []), feed, (run_options._control if run_options is not None else None)

    def _finish(self, tensors: List[Any], output_format: OutputFormat) -> List[Any]:
        if self._value_io:
            return [_values.from_value(v, output_format) for v in tensors]
        if output_format == "dlpack":
            return tensors
        return [t.numpy() for t in tensors]

    def run(self, output_names: Optional[Sequence[str]], input_feed: Mapping[str, Any],
            run_options: Optional[RunOptions] = None, *, output_format: OutputFormat = "numpy") -> List[Any]:
        """Runs the model and returns the outputs named in `output_names` (None or []: all, in
        model order).

        Inputs: numpy arrays (C-contiguous ones are used in place, not copied), anything with
        ``__dlpack__`` (a torch CPU tensor, without a copy), hipinfer.Tensor, or anything numpy
        can turn into an array. Arrays' dtypes must match the model's: they are not cast. Python
        lists and scalars and numpy scalars are converted to the input's declared type, as
        onnxruntime does.
        Outputs: numpy arrays that own hipinfer's result memory (no copy), or, with
        output_format="dlpack", hipinfer.Tensor objects for torch.from_dlpack / np.from_dlpack.
        The GIL is released while the model runs; several threads may run one session at once.
        """
        if (run_options is None and output_format == "numpy" and type(input_feed) is dict and not self._value_io
                and self._profiler is None and (output_names is None or type(output_names) is list)):
            outputs = self._sess.run_arrays(input_feed, output_names or [])  # numpy in, numpy out
            if outputs is not None:
                return outputs
        names, feed, control = self._prepare(output_names, input_feed, run_options, output_format)
        return self._finish(self._run_tensors(feed, names, control), output_format)

    def _run_tensors(self, feed: Dict[str, Any], names: List[str], control: Any) -> List[Any]:
        if self._value_io:  # lists, dicts and None among the values (profiling records nothing per node)
            return self._sess.run_values(feed, names, control)
        profiler = self._profiler
        if profiler is None:
            return self._sess.run(feed, names, control)
        start = profiler.now_us()
        tensors, run_ms, nodes = self._sess.run_profiled(feed, names, control)
        profiler.run_done(start, run_ms, nodes)
        return tensors

    # ---- profiling (SessionOptions.enable_profiling) ----

    def end_profiling(self) -> str:
        """Stops profiling and writes what it recorded (onnxruntime's format: Chrome trace events)
        to <profile_file_prefix><date>.json in the working directory; returns the file name, or ""
        when the session was not profiling."""
        profiler, self._profiler = self._profiler, None
        return profiler.write() if profiler is not None else ""

    def get_profiling_start_time_ns(self) -> int:
        """When profiling started (time.time_ns()); 0 when the session is not profiling."""
        return self._profiler.start_time_ns if self._profiler is not None else 0

    def run_async(self, output_names: Optional[Sequence[str]], input_feed: Mapping[str, Any],
                  callback: Optional[Callable[[Optional[List[Any]], Any, str], None]] = None,
                  user_data: Any = None, run_options: Optional[RunOptions] = None, *,
                  output_format: OutputFormat = "numpy") -> "concurrent.futures.Future[List[Any]]":
        """Starts run() on a worker thread and returns a concurrent.futures.Future of its outputs.

        With `callback`, it is also called as onnxruntime's run_async calls it:
        callback(outputs, user_data, error_message), from the worker thread, with outputs None and
        the message non-empty when the run failed. Inputs are converted before this returns, but
        arrays used in place must not be changed until the run is done.
        """
        names, feed, control = self._prepare(output_names, input_feed, run_options, output_format)

        def work() -> List[Any]:
            try:
                outputs = self._finish(self._run_tensors(feed, names, control), output_format)
            except Exception as e:
                if callback is not None:
                    callback(None, user_data, str(e))
                raise
            if callback is not None:
                callback(outputs, user_data, "")
            return outputs

        return _run_pool().submit(work)

    def run_with_ort_values(self, output_names: Optional[Sequence[str]], input_dict_ort_values: Mapping[str, Any],
                            run_options: Optional[RunOptions] = None) -> List[OrtValue]:
        """run() with OrtValue inputs and outputs (onnxruntime's name): the inputs are used in place,
        the outputs hold hipinfer's result memory."""
        if self._value_io:
            raise _C.Unsupported("run_with_ort_values: this model has sequence, map or optional inputs or outputs, "
                                 "which OrtValue does not hold in hipinfer yet; use run()")
        feed = {name: as_ort_value(value, f"input '{name}'") for name, value in input_dict_ort_values.items()}
        names, _, control = self._prepare(output_names, {}, run_options, "dlpack")
        tensors = {name: _ort_value_input(name, value) for name, value in feed.items()}
        return [OrtValue._from_result(t) for t in self._run_tensors(tensors, names, control)]

    def io_binding(self) -> IOBinding:
        """An IOBinding for this session (host memory; see hipinfer.IOBinding)."""
        return IOBinding(self)

    def run_with_iobinding(self, iobinding: IOBinding, run_options: Optional[RunOptions] = None) -> None:
        """Runs with the inputs bound to `iobinding` and fills its bound outputs (get_outputs())."""
        if not isinstance(iobinding, IOBinding) or iobinding._session is not self:
            raise _C.InvalidArgument("run_with_iobinding: the IOBinding must come from this session's io_binding()")
        if not iobinding._outputs:
            raise _C.InvalidArgument("run_with_iobinding: no output is bound (bind_output or bind_ortvalue_output)")
        names = list(iobinding._outputs)
        results = self.run_with_ort_values(names, iobinding._inputs, run_options)
        iobinding._store(names, results)

    def __repr__(self) -> str:
        source = self._model_path if self._model_path is not None else "<bytes>"
        return f"<hipinfer.InferenceSession {source} on {self.device}>"
