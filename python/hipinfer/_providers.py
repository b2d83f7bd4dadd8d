"""Execution providers: the names onnxruntime users pass, and hipinfer's own device names, mapped
to the devices hipinfer can run on.

A GPU provider runs the session on the first GPU of its backend (CUDA or HIP) when this build has
that backend and the machine such a GPU; the CPU is always listed after it, as onnxruntime does,
and runs the nodes the GPU has no kernel for (each one reported: InferenceSession.get_placement()).
A GPU provider that cannot be used falls back to the next entry and finally to the CPU with a
ProviderFallbackWarning that says why, and InferenceSession.get_providers() names what is really
used. No provider list (None or []) means the best device: a usable GPU, else the CPU, quietly.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _hipinfer as _C

CPU_PROVIDER = "CPUExecutionProvider"

# onnxruntime's provider names -> the kind of device they ask for.
ORT_PROVIDERS: Dict[str, str] = {
    "CPUExecutionProvider": "cpu",
    "CUDAExecutionProvider": "cuda",
    "TensorrtExecutionProvider": "cuda",
    "ROCMExecutionProvider": "hip",
    "MIGraphXExecutionProvider": "hip",
}

# hipinfer's own names (case-insensitive), each optionally ":N" for a device index.
HIPINFER_DEVICE_KINDS = ("cpu", "cuda", "hip", "gpu")

# The provider name get_providers() reports for a GPU of each backend.
GPU_PROVIDER = {"cuda": "CUDAExecutionProvider", "hip": "ROCMExecutionProvider"}

ProviderSpec = Union[str, Tuple[str, Dict[str, Any]]]


class ProviderFallbackWarning(RuntimeWarning):
    """A provider that was asked for cannot be used; the session runs on another (the CPU)."""


class NodeFallbackWarning(RuntimeWarning):
    """Some nodes of a GPU session run on the CPU (no GPU kernel for them); the message says how
    many and why, InferenceSession.get_placement() lists each."""


@dataclass
class Placement:
    """Where a session runs, and how the user's provider list was read."""

    device: str = "cpu"  # "cpu", or the GPU: "cuda:0", "hip:0"
    providers: List[str] = field(default_factory=lambda: [CPU_PROVIDER])  # get_providers()
    provider_options: Dict[str, Dict[str, str]] = field(default_factory=lambda: {CPU_PROVIDER: {}})
    fallbacks: List[str] = field(default_factory=list)  # one sentence per provider not used
    devices: List[str] = field(default_factory=lambda: ["cpu"])  # the C++ session's device list


def get_all_providers() -> List[str]:
    """Every provider name hipinfer understands (onnxruntime's names; hipinfer's own device names
    "cpu", "cuda[:N]", "hip[:N]" and "gpu[:N]" are accepted too)."""
    return list(ORT_PROVIDERS)


def _usable_gpus() -> List[Dict[str, Any]]:
    """The GPUs a session can run on: those of a backend this build compiled, first per backend.
    The emulated GPU (backend "emu", in builds made for testing kernels) is not one: it checks
    kernels on the CPU, slowly, and is used only where it is named (`hipinfer --device emu`)."""
    info = _C.query_gpus()
    built = {b["name"] for b in info["backends"]}
    first: Dict[str, Dict[str, Any]] = {}
    for d in info["devices"]:
        if d["backend"] in built and d["backend"] != "emu" and d["backend"] not in first:
            first[d["backend"]] = d
    return list(first.values())


def get_available_providers() -> List[str]:
    """The providers that can run models in this build on this machine, in priority order: the
    GPU providers whose backend has a GPU here, then "CPUExecutionProvider"."""
    return [GPU_PROVIDER[d["backend"]] for d in _usable_gpus() if d["backend"] in GPU_PROVIDER] + [CPU_PROVIDER]


def get_device() -> str:
    """ "CPU" or "GPU", as onnxruntime.get_device(): the device models run on by default."""
    return "GPU" if _usable_gpus() else "CPU"


def _parse_name(name: str) -> Tuple[str, Optional[int]]:
    """Provider or device name -> (kind, index or None). Raises ValueError when unknown."""
    if name in ORT_PROVIDERS:
        return ORT_PROVIDERS[name], None
    kind, _, index = name.strip().lower().partition(":")
    if kind in HIPINFER_DEVICE_KINDS:
        if not index:
            return kind, None
        if index.isdigit() and kind != "cpu":
            return kind, int(index)
    raise ValueError(name)


def _usable_gpu(kind: str, index: Optional[int]) -> Optional[Dict[str, Any]]:
    """The GPU a provider of this kind and index runs on, or None."""
    for d in _usable_gpus():
        if (kind == "gpu" or d["backend"] == kind) and (index is None or d["index"] == index):
            return d
    return None


def _gpu_unusable_reason(kind: str, index: Optional[int]) -> str:
    """Why the GPU a provider asks for cannot run this session, in one sentence."""
    info = _C.query_gpus()
    matching = [d for d in info["devices"]
                if (kind == "gpu" or d["backend"] == kind) and (index is None or d["index"] == index)]
    backends = {b["name"]: b for b in info["backends"]}
    if matching:
        d = matching[0]
        found = f"hipinfer found {d['backend']}:{d['index']} ({d['name']}, {d['arch']}), but "
        if d["backend"] not in backends:
            built = ", ".join(backends) or "none"
            return found + f"this build has no {d['backend']} backend (GPU backends built: {built})"
        return found + (f"a session runs on the first GPU of a backend only; choosing another by index is not "
                        "supported yet")
    vendor = {"cuda": "NVIDIA (CUDA) ", "hip": "AMD (HIP) "}.get(kind, "")
    where = f" {index}" if index is not None else ""
    if kind != "gpu" and kind not in backends:
        built = ", ".join(backends) or "none"
        detail = f"this build has no {kind} backend; GPU backends built: {built}"
    elif info["devices"]:
        detail = "the GPUs found are " + ", ".join(f"{d['backend']}:{d['index']}" for d in info["devices"])
    elif kind != "gpu":
        detail = backends[kind]["no_gpu_reason"] or "no device was found"
    else:
        detail = info["no_gpu_reason"] or "no GPU was found"
    return f"no {vendor}GPU{where} is usable ({detail})"


def _normalize(providers: Optional[Sequence[ProviderSpec]],
               provider_options: Optional[Sequence[Dict[str, Any]]]) -> List[Tuple[str, Dict[str, Any]]]:
    if providers is None:
        return []
    if isinstance(providers, str):
        raise ValueError("'providers' must be a list of provider names, not a string")
    if provider_options is not None and len(provider_options) != len(providers):
        raise ValueError("'providers' and 'provider_options' should be the same length if both are given")
    out = []
    for i, p in enumerate(providers):
        if isinstance(p, str):
            name, options = p, {}
        elif isinstance(p, (tuple, list)) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], dict):
            name, options = p[0], dict(p[1])
        else:
            raise ValueError("'providers' values must be provider names or (name, options dict) tuples")
        if provider_options is not None:
            if not isinstance(provider_options[i], dict):
                raise ValueError("'provider_options' values must be dicts")
            options.update(provider_options[i])
        out.append((name, options))
    return out


def resolve(providers: Optional[Sequence[ProviderSpec]],
            provider_options: Optional[Sequence[Dict[str, Any]]] = None,
            warn: bool = True, stacklevel: int = 2) -> Placement:
    """Reads a provider list in priority order and picks the device the session runs on.

    Unknown names are skipped with a warning (as onnxruntime does); a GPU provider that cannot
    run falls back to the next entry and finally to the CPU, with a ProviderFallbackWarning that
    says why. None or an empty list means the best device: a usable GPU, else the CPU.
    """
    placement = Placement()
    specs = _normalize(providers, provider_options)
    if not specs:
        gpus = _usable_gpus()
        if gpus:
            _use_gpu(placement, gpus[0], GPU_PROVIDER.get(gpus[0]["backend"], "gpu"), {})
        return placement
    for name, options in specs:
        try:
            kind, index = _parse_name(name)
        except ValueError:
            if warn:
                warnings.warn(f"Specified provider '{name}' is not in available provider names. "
                              f"Available providers: '{', '.join(get_available_providers())}'",
                              UserWarning, stacklevel=stacklevel + 1)
            continue
        if kind == "cpu":
            placement.provider_options = {CPU_PROVIDER: {str(k): str(v) for k, v in options.items()}}
            break  # the CPU always runs: later entries are never reached
        if index is None and "device_id" in options:
            try:
                index = int(options["device_id"])
            except (TypeError, ValueError):
                raise ValueError(f"{name}: device_id must be an integer, got {options['device_id']!r}") from None
        gpu = _usable_gpu(kind, index)
        if gpu is not None:
            reported = name if name in ORT_PROVIDERS else GPU_PROVIDER.get(gpu["backend"], name)
            _use_gpu(placement, gpu, reported, options)
            break
        message = f"{name} was requested, but {_gpu_unusable_reason(kind, index)}: using {CPU_PROVIDER}"
        placement.fallbacks.append(message)
        if warn:
            warnings.warn(message, ProviderFallbackWarning, stacklevel=stacklevel + 1)
    return placement


def _use_gpu(placement: Placement, gpu: Dict[str, Any], provider: str, options: Dict[str, Any]) -> None:
    """Runs the session on `gpu`, the CPU after it for the nodes the GPU has no kernel for."""
    placement.device = f"{gpu['backend']}:{gpu['index']}"
    placement.devices = [gpu["backend"], "cpu"]
    placement.providers = [provider, CPU_PROVIDER]
    placement.provider_options = {provider: {str(k): str(v) for k, v in options.items()}, CPU_PROVIDER: {}}
