"""Devices and memory: what hipinfer can run on, what it holds, and the numbers users print.

Only host ("cpu") memory is hipinfer's today: every tensor buffer is counted (live, peak, count)
and allocated directly, with no cache. The GPU caching allocator (reserve, empty_cache and
statistics per device) comes with the GPU backend; until then the GPU functions here raise
hipinfer.Unsupported rather than report numbers that would mean nothing.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from . import _hipinfer as _C
from ._providers import HIPINFER_DEVICE_KINDS


@dataclass(frozen=True)
class Device:
    """A device hipinfer knows about. `runs_models` is False for GPUs until the GPU backend
    exists; `note` says why. Memory figures are bytes (None when unknown): the machine's for the
    CPU, the driver's for a GPU at the time of the query."""

    name: str          # "cpu", "cuda:0", "hip:0"
    type: str          # "cpu", "cuda", "hip"
    index: int
    description: str   # CPU model / GPU name
    arch: str          # "x86_64", "sm_90", "gfx90a"
    total_memory: Optional[int]
    free_memory: Optional[int]
    runs_models: bool
    note: str = ""


def _meminfo() -> Dict[str, int]:
    values = {}
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                key, _, rest = line.partition(":")
                parts = rest.split()
                if parts and parts[0].isdigit():
                    values[key] = int(parts[0]) * 1024
    except OSError:
        pass
    return values


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return os.uname().machine


def _process_rss() -> Optional[int]:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _gpu_devices(info: Dict) -> List[Device]:
    out = []
    for d in info["devices"]:
        free = d["free_memory"] if d["free_memory"] >= 0 else None
        out.append(Device(name=f"{d['backend']}:{d['index']}", type=d["backend"], index=d["index"],
                          description=d["name"], arch=d["arch"], total_memory=d["total_memory"] or None,
                          free_memory=free, runs_models=False,
                          note="hipinfer has no GPU kernels yet (the GPU backend is not built)"))
    return out


def devices() -> List[Device]:
    """The CPU, then every GPU the compiled GPU backends see. Querying a GPU's free memory
    initialises its runtime context (a few hundred MB of device memory, kept until exit). Why no
    GPU is listed: hipinfer.gpu_info()["no_gpu_reason"], or `hipinfer doctor`."""
    mem = _meminfo()
    cpu = Device(name="cpu", type="cpu", index=0, description=_cpu_model(), arch=os.uname().machine,
                 total_memory=mem.get("MemTotal"), free_memory=mem.get("MemAvailable"), runs_models=True)
    return [cpu] + _gpu_devices(_C.query_gpus())


def gpu_info() -> Dict:
    """What the GPU runtime reports: compiled_backends, runtime_version, driver_version, devices
    (dicts), no_gpu_reason (why the list is empty) and backends (one dict per compiled backend)."""
    return _C.query_gpus()


def _parse_device(device: str) -> Tuple[str, Optional[int]]:
    if not isinstance(device, str):
        raise TypeError(f"device must be a string such as 'cpu' or 'cuda:0', not {type(device).__name__}")
    kind, _, index = device.strip().lower().partition(":")
    if kind in HIPINFER_DEVICE_KINDS and (not index or (index.isdigit() and kind != "cpu")):
        return kind, int(index) if index else None
    raise _C.InvalidArgument(f"unknown device '{device}': use 'cpu', 'cuda[:N]', 'hip[:N]' or 'gpu[:N]'")


def _no_gpu_allocator(function: str, device: str) -> "_C.Unsupported":
    return _C.Unsupported(f"{function}('{device}'): hipinfer has no GPU allocator yet (the GPU backend is not "
                          "built), so it holds no GPU memory; hipinfer.devices() shows the driver's figures")


def memory_stats(device: str = "cpu") -> Dict[str, int]:
    """hipinfer's memory on one device, in bytes.

    "cpu": allocated_bytes (tensor memory live now), reserved_bytes (what the allocator holds:
    equal to allocated_bytes, as host tensors are allocated directly, with no cache), peak_bytes
    (high-water mark since start or reset_peak_memory_stats()), num_allocs (buffers allocated
    since start) and limit_bytes (the largest single allocation allowed). Memory outside tensors
    (the model's graph, Python) is not counted: see print_mem_usage() for the process's RSS.
    GPU devices raise hipinfer.Unsupported until the GPU allocator exists.
    """
    kind, _ = _parse_device(device)
    if kind != "cpu":
        raise _no_gpu_allocator("memory_stats", device)
    s = _C.host_memory_stats()
    return {"allocated_bytes": s["allocated_bytes"], "reserved_bytes": s["allocated_bytes"],
            "peak_bytes": s["peak_bytes"], "num_allocs": s["allocations"], "limit_bytes": s["limit_bytes"]}


def reset_peak_memory_stats(device: str = "cpu") -> None:
    """Sets peak_bytes to what is allocated now."""
    kind, _ = _parse_device(device)
    if kind != "cpu":
        raise _no_gpu_allocator("reset_peak_memory_stats", device)
    _C.reset_host_peak()


def set_memory_limit(nbytes: int, device: str = "cpu") -> None:
    """Largest single host tensor allocation, in bytes (0: the machine's physical memory); a
    larger one fails with hipinfer.OutOfMemory instead of the kernel's OOM killer. Process-wide,
    for every session; SessionOptions.memory_limit caps each session's total on top of it."""
    kind, _ = _parse_device(device)
    if kind != "cpu":
        raise _no_gpu_allocator("set_memory_limit", device)
    _C.set_host_allocation_limit(int(nbytes))


def reserve(nbytes: int, device: str = "gpu") -> None:
    """Grows a device's memory pool ahead of time (what users do today with a dummy tensor).

    Not available yet: the GPU caching allocator comes with the GPU backend, and the host has no
    pool to grow (host tensors are allocated directly), so this raises hipinfer.Unsupported
    rather than pretend. hipinfer.InvalidArgument for a negative size or an unknown device."""
    if int(nbytes) < 0:
        raise _C.InvalidArgument(f"reserve: nbytes must be >= 0, got {nbytes}")
    kind, _ = _parse_device(device)
    if kind == "cpu":
        raise _C.Unsupported("reserve('cpu'): the host has no memory pool to grow; hipinfer allocates host "
                             "tensors directly, so a reservation would hold nothing")
    raise _no_gpu_allocator("reserve", device)


def empty_cache(device: Optional[str] = None) -> int:
    """Gives cached memory back to the system and returns how many bytes were released.

    The host keeps no cache (freed tensors go straight back), so for "cpu" (and for None, all
    devices hipinfer allocates on) this releases nothing and returns 0. A GPU device raises
    hipinfer.Unsupported until the GPU allocator exists."""
    if device is None:
        return 0
    kind, _ = _parse_device(device)
    if kind != "cpu":
        raise _no_gpu_allocator("empty_cache", device)
    return 0


def _human(n: Optional[int]) -> str:
    if n is None:
        return "?"
    value, units = float(n), ["B", "KiB", "MiB", "GiB", "TiB"]
    unit = 0
    while value >= 1024 and unit < len(units) - 1:
        value /= 1024
        unit += 1
    return f"{value:.0f} {units[unit]}" if unit == 0 else f"{value:.1f} {units[unit]}"


def memory_summary(device: Optional[str] = None) -> str:
    """What print_mem_usage() prints, as a string."""
    lines = ["hipinfer memory"]
    kind = _parse_device(device)[0] if device is not None else None
    if kind in (None, "cpu"):
        s = memory_stats("cpu")
        lines.append(f"  cpu      allocated {_human(s['allocated_bytes'])}, reserved {_human(s['reserved_bytes'])}, "
                     f"peak {_human(s['peak_bytes'])} ({s['num_allocs']} buffers allocated); "
                     f"process RSS {_human(_process_rss())}; single-allocation limit {_human(s['limit_bytes'])}")
    if kind != "cpu":
        info = _C.query_gpus()
        gpus = [g for g in _gpu_devices(info) if kind in (None, "gpu", g.type)]
        for g in gpus:
            used = g.total_memory - g.free_memory if g.total_memory and g.free_memory is not None else None
            lines.append(f"  {g.name:<8} {g.description}: hipinfer holds nothing (no GPU allocator yet); driver: "
                         f"{_human(used)} used of {_human(g.total_memory)}")
        if not gpus and kind is not None:
            lines.append(f"  {device}: no such GPU ({info['no_gpu_reason'] or 'not found'})")
    return "\n".join(lines)


def print_mem_usage(device: Optional[str] = None) -> None:
    """Prints allocated, reserved and peak memory (as users print torch.cuda.memory_allocated(),
    memory_reserved() and max_memory_allocated()), the process's resident memory, and for each
    GPU the driver's used / total figures. `device` limits it to one device."""
    print(memory_summary(device), flush=True)
