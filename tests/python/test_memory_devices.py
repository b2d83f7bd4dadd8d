"""devices(), memory_stats(), reserve(), empty_cache(), print_mem_usage() and doctor(): real
numbers for what exists (host memory), plain refusals for what does not yet (the GPU allocator)."""
from __future__ import annotations

import numpy as np
import pytest

import hipinfer


def test_devices_start_with_the_cpu():
    devices = hipinfer.devices()
    cpu = devices[0]
    assert (cpu.name, cpu.type, cpu.runs_models) == ("cpu", "cpu", True)
    assert cpu.total_memory and cpu.total_memory > 0
    for gpu in devices[1:]:  # on a GPU machine: listed, but not (yet) able to run models
        assert gpu.type in ("cuda", "hip", "emu") and not gpu.runs_models and "GPU backend" in gpu.note
    info = hipinfer.gpu_info()
    assert set(info) >= {"compiled_backends", "devices", "no_gpu_reason", "runtime_version"}
    assert len(info["devices"]) == len(devices) - 1
    if not info["devices"]:
        assert info["no_gpu_reason"]


def test_cpu_memory_stats_follow_tensors():
    stats = hipinfer.memory_stats("cpu")
    assert set(stats) == {"allocated_bytes", "reserved_bytes", "peak_bytes", "num_allocs", "limit_bytes"}
    assert stats["reserved_bytes"] == stats["allocated_bytes"]  # no host cache
    t = hipinfer.from_dlpack(np.ones((4, 5), np.float32)[:, ::2])  # strided: copied into hipinfer memory
    after = hipinfer.memory_stats()
    assert after["allocated_bytes"] - stats["allocated_bytes"] == t.nbytes
    assert after["num_allocs"] == stats["num_allocs"] + 1
    assert after["peak_bytes"] >= after["allocated_bytes"]
    del t
    assert hipinfer.memory_stats()["allocated_bytes"] == stats["allocated_bytes"]
    hipinfer.reset_peak_memory_stats()
    s = hipinfer.memory_stats()
    assert s["peak_bytes"] == s["allocated_bytes"]


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "hip:1", "gpu"])
def test_gpu_memory_functions_say_the_allocator_does_not_exist(device):
    for call in (lambda: hipinfer.memory_stats(device), lambda: hipinfer.reserve(1 << 20, device),
                 lambda: hipinfer.empty_cache(device), lambda: hipinfer.reset_peak_memory_stats(device)):
        with pytest.raises(hipinfer.Unsupported, match="no GPU allocator yet"):
            call()


def test_host_reserve_and_empty_cache():
    with pytest.raises(hipinfer.Unsupported, match="no memory pool"):
        hipinfer.reserve(1 << 20, "cpu")
    with pytest.raises(hipinfer.InvalidArgument):
        hipinfer.reserve(-1, "cpu")
    assert hipinfer.empty_cache() == 0
    assert hipinfer.empty_cache("cpu") == 0


def test_unknown_device():
    with pytest.raises(hipinfer.InvalidArgument, match="unknown device 'tpu'"):
        hipinfer.memory_stats("tpu")
    with pytest.raises(TypeError):
        hipinfer.memory_stats(0)


def test_print_mem_usage(capsys):
    hipinfer.print_mem_usage()
    out = capsys.readouterr().out
    assert out.startswith("hipinfer memory")
    assert "cpu" in out and "allocated" in out and "reserved" in out and "peak" in out and "process RSS" in out
    assert hipinfer.memory_summary("cpu").splitlines()[1].lstrip().startswith("cpu")


def test_doctor_returns_findings():
    result = hipinfer.doctor()
    assert result.findings
    assert {f.level for f in result.findings} <= {"ok", "warning", "error"}
    assert all(f.id and f.title for f in result.findings)
    assert result.errors == len(result.by_level("error"))
    assert result.has_errors == (result.errors > 0)
    assert "hipinfer doctor" in str(result)
    assert result.facts["cpu"]["logical"] > 0
