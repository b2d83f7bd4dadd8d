#!/usr/bin/env python3
"""The onnxruntime API table of python/README.md, made by comparing the two modules.

Every public name of the `onnxruntime` module and of its session classes is looked up in
`hipinfer`: present and not listed in PARTLY below, it is supported; present and listed, partly
supported (the entry says what differs); absent, it must have a reason in NOT_SUPPORTED, or the
script fails. So the table cannot go stale: a name onnxruntime adds, or one hipinfer gains or
loses, changes the table, and tests/python/test_ort_api_table.py fails until it is regenerated.

usage: .venv/bin/python scripts/ort_api_table.py [--write | --check]
  (no option)  print the table
  --write      replace the table between the markers in python/README.md
  --check      exit 1 when python/README.md's table differs from what this prints
Needs onnxruntime at hipinfer's ORT_API_VERSION (scripts/setup installs it).
"""
from __future__ import annotations

import inspect
import sys
import types
from pathlib import Path

import hipinfer
import onnxruntime as ort

README = Path(__file__).resolve().parent.parent / "python" / "README.md"
BEGIN, END = "<!-- ort-api-table begin -->", "<!-- ort-api-table end -->"
CLASSES = ("InferenceSession", "SessionOptions", "RunOptions", "NodeArg", "ModelMetadata")

_ORTVALUE = "not yet: pass DLPack tensors as inputs and use run(..., output_format='dlpack')"
_HOST_ONLY = "host memory only (device_type 'cpu'); GPU memory raises Unsupported"
_PLUGIN_EP = "onnxruntime's plug-in execution-provider and compile API; hipinfer's backends are built in"
_ALLOCATOR = "hipinfer's host memory is bounded per session by SessionOptions.memory_limit"
_PROFILE_TS = "node start times are the run's start plus the earlier nodes' times (nodes run one after another)"

# Present in hipinfer, but not as onnxruntime does it.
PARTLY = {
    "InferenceSession.io_binding": _HOST_ONLY,
    "InferenceSession.run_with_iobinding": _HOST_ONLY,
    "InferenceSession.run_with_ort_values": _HOST_ONLY,
    "OrtValue": "tensors and sparse tensors in host memory; no sequences or maps",
    "SparseTensor": "host memory; COO and CSR, numeric and bool values; not an input (models take dense tensors)",
    "IOBinding": _HOST_ONLY + "; bound outputs with memory receive a copy of the result",
    "OrtDevice": "describes host memory only",
    "OrtMemoryInfo": "describes host memory only",
    "InferenceSession.get_overridable_initializers": "returns []: initializers cannot be overridden yet",
    "InferenceSession.disable_fallback": "accepted; hipinfer never reruns a failed session on another provider",
    "InferenceSession.enable_fallback": "accepted; see disable_fallback",
    "SessionOptions.enable_profiling": "times every node; " + _PROFILE_TS,
    "InferenceSession.end_profiling": "onnxruntime's trace format; " + _PROFILE_TS,
    "SessionOptions.optimized_model_filepath": "stored with a warning; no model writer yet",
    "SessionOptions.inter_op_num_threads": "accepted, no effect: nodes run one after another",
    "SessionOptions.execution_mode": "accepted, no effect: nodes run one after another",
    "SessionOptions.enable_cpu_mem_arena": "accepted, no effect: hipinfer's memory plan is always on",
    "SessionOptions.enable_mem_pattern": "accepted, no effect: hipinfer's memory plan is always on",
    "SessionOptions.enable_mem_reuse": "accepted, no effect: hipinfer's memory plan is always on",
    "SessionOptions.use_deterministic_compute": "accepted, no effect: hipinfer's kernels are deterministic",
    "SessionOptions.log_verbosity_level": "accepted, no effect: hipinfer has no verbose log",
    "SessionOptions.logid": "accepted, no effect",
    "SessionOptions.register_custom_ops_library": "raises Unsupported: custom op libraries are onnxruntime's ABI",
    "SessionOptions.add_session_config_entry": "stored; hipinfer reads none of the entries",
    "RunOptions.log_severity_level": "accepted, no effect",
    "RunOptions.log_verbosity_level": "accepted, no effect",
    "RunOptions.logid": "accepted, no effect",
    "RunOptions.only_execute_path_to_fetches": "accepted, no effect: every node runs",
    "RunOptions.add_run_config_entry": "stored; hipinfer.timeout_ms is read",
    "set_default_logger_verbosity": "accepted, no effect: hipinfer has no verbose log",
    "get_build_info": "hipinfer's version, the API level and its backends",
    "get_version_string": "the onnxruntime API level hipinfer follows (hipinfer_version is its own)",
    "version": "the onnxruntime API level hipinfer follows (hipinfer_version is its own)",
    "package_name": "\"hipinfer\"",
}

# Absent from hipinfer, with the reason.
NOT_SUPPORTED = {
    "SessionIOBinding": "IOBinding is hipinfer's one binding class",
    "OrtMemType": _ORTVALUE,
    "OrtDeviceMemoryType": _ORTVALUE, "OrtDeviceVendorId": _ORTVALUE, "OrtMemoryInfoDeviceType": _ORTVALUE,
    "OrtSyncStream": _ORTVALUE, "copy_tensors": _ORTVALUE,
    "InferenceSession.run_with_ortvaluevector": "run_with_ort_values takes a dict of OrtValues",
    "InferenceSession.create_ortvalue_from_shape_and_type": _ORTVALUE,
    "InferenceSession.get_input_memory_infos": _ORTVALUE, "InferenceSession.get_output_memory_infos": _ORTVALUE,
    "OrtAllocatorType": _ALLOCATOR, "OrtArenaCfg": _ALLOCATOR, "create_and_register_allocator": _ALLOCATOR,
    "create_and_register_allocator_v2": _ALLOCATOR,
    "AdapterFormat": "LoRA adapters are not supported", "LoraAdapter": "LoRA adapters are not supported",
    "RunOptions.add_active_adapter": "LoRA adapters are not supported",
    "ModelCompiler": _PLUGIN_EP, "OrtCompileApiFlags": _PLUGIN_EP, "OrtEpAssignedNode": _PLUGIN_EP,
    "OrtEpAssignedSubgraph": _PLUGIN_EP, "OrtEpDevice": _PLUGIN_EP, "OrtExecutionProviderDevicePolicy": _PLUGIN_EP,
    "OrtHardwareDevice": _PLUGIN_EP, "OrtHardwareDeviceType": _PLUGIN_EP, "get_ep_devices": _PLUGIN_EP,
    "register_execution_provider_library": _PLUGIN_EP, "unregister_execution_provider_library": _PLUGIN_EP,
    "OrtExternalInitializerInfo": _PLUGIN_EP, "InferenceSession.get_input_epdevices": _PLUGIN_EP,
    "InferenceSession.get_provider_graph_assignment_info": "get_placement() says where every node runs and why",
    "InferenceSession.set_ep_dynamic_options": _PLUGIN_EP,
    "SessionOptions.add_provider": _PLUGIN_EP, "SessionOptions.add_provider_for_devices": _PLUGIN_EP,
    "SessionOptions.has_providers": _PLUGIN_EP, "SessionOptions.set_provider_selection_policy": _PLUGIN_EP,
    "SessionOptions.set_provider_selection_policy_delegate": _PLUGIN_EP,
    "ExecutionOrder": "hipinfer runs nodes in its own order (after fusion)",
    "SessionOptions.execution_order": "hipinfer runs nodes in its own order (after fusion)",
    "InferenceSession.get_tuning_results": "the CPU's timed kernel choices are kept in the kernel cache file instead (SessionOptions.tuning)",
    "InferenceSession.set_tuning_results": "the CPU's timed kernel choices are kept in the kernel cache file instead (SessionOptions.tuning)",
    "InferenceSession.release_captured_graph": "hipinfer captures and frees GPU graphs per input signature itself",
    "SessionOptions.add_external_initializers_from_files_in_memory": "not yet",
    "SessionOptions.add_free_dimension_override_by_denotation": "not yet",
    "SessionOptions.set_load_cancellation_flag": "loading is not cancellable; it is bounded by memory_limit",
    "SessionOptions.use_per_session_threads": "every hipinfer session has its own threads already",
    "set_global_thread_pool_sizes": "every hipinfer session has its own threads (intra_op_num_threads)",
    "set_seed": "not yet: the random ops take their seed from the model's attributes",
    "has_collective_ops": "no collective (multi-GPU) ops",
    "cuda_version": "get_build_info() names the CUDA or HIP runtime built in",
    "preload_dlls": "hipinfer loads its GPU libraries itself (hipinfer doctor checks them)",
    "print_debug_info": "use hipinfer.doctor() or `hipinfer doctor`",
    "import_capi_exception": "an onnxruntime-internal helper",
}


def _public(obj) -> list:
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def rows() -> list:
    """(name, status, note) for every public name of onnxruntime and its session classes."""
    out = []
    for name in _public(ort):
        value = getattr(ort, name)
        if isinstance(value, types.ModuleType) and name != "capi":
            continue  # modules onnxruntime's __init__ happens to import
        out.append(name)
        if inspect.isclass(value) and name in CLASSES:
            out += [f"{name}.{member}" for member in _public(value)]
    table = []
    for qualified in out:
        owner = hipinfer
        for part in qualified.split("."):
            owner = getattr(owner, part, None)
            if owner is None:
                break
        present = owner is not None
        if present and qualified in PARTLY:
            table.append((qualified, "partly", PARTLY[qualified]))
        elif present:
            table.append((qualified, "yes", ""))
        elif qualified in NOT_SUPPORTED:
            table.append((qualified, "no", NOT_SUPPORTED[qualified]))
        else:
            raise SystemExit(f"ort_api_table: onnxruntime.{qualified} is not in hipinfer and has no reason in "
                             "NOT_SUPPORTED: implement it or say why not")
    stale = sorted(set(NOT_SUPPORTED) - set(out)) + sorted(k for k in PARTLY if k not in out)
    if stale:
        raise SystemExit(f"ort_api_table: entries for names onnxruntime no longer has: {', '.join(stale)}")
    return table


def markdown() -> str:
    table = rows()
    counts = {s: sum(1 for _, st, _ in table if st == s) for s in ("yes", "partly", "no")}
    lines = [BEGIN,
             f"onnxruntime {ort.__version__}: {len(table)} public names of the module and of "
             f"{', '.join(CLASSES)}; {counts['yes']} supported, {counts['partly']} partly, "
             f"{counts['no']} not (made by `scripts/ort_api_table.py --write`).",
             "",
             "| name | hipinfer | what differs, or why not |",
             "| --- | --- | --- |"]
    lines += [f"| `{name}` | {status} | {note} |" for name, status, note in table]
    lines.append(END)
    return "\n".join(lines)


def main(argv: list) -> int:
    if ort.__version__ != hipinfer.ORT_API_VERSION:
        print(f"ort_api_table: onnxruntime is {ort.__version__}, but hipinfer follows {hipinfer.ORT_API_VERSION}; "
              "install that version (scripts/setup) or change ORT_API_VERSION with the table", file=sys.stderr)
        return 2
    table = markdown()
    if not argv:
        print(table)
        return 0
    text = README.read_text()
    if BEGIN not in text or END not in text:
        print(f"ort_api_table: {README} has no {BEGIN} ... {END} section", file=sys.stderr)
        return 2
    current = text[text.index(BEGIN):text.index(END) + len(END)]
    if argv[0] == "--check":
        if current != table:
            print("ort_api_table: python/README.md's API table is stale; run "
                  ".venv/bin/python scripts/ort_api_table.py --write", file=sys.stderr)
            return 1
        return 0
    if argv[0] == "--write":
        README.write_text(text.replace(current, table))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
