"""GPU providers without a GPU: the provider resolution is checked against a stand-in for the
machine's GPU list (query_gpus), and a session asked for a GPU the C++ side cannot find still runs,
on the CPU, saying so twice over (a NodeFallbackWarning from the placement, get_providers())."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import hipinfer
from hipinfer import _providers


def _fake_gpus(devices, backends=("cuda", "hip")):
    return lambda: {"backends": [{"name": b, "no_gpu_reason": ""} for b in backends], "devices": devices,
                    "no_gpu_reason": ""}


H200 = {"backend": "cuda", "index": 0, "name": "NVIDIA H200", "arch": "sm_90"}
MI300 = {"backend": "hip", "index": 0, "name": "AMD Instinct MI300X", "arch": "gfx942"}


@pytest.fixture
def one_cuda_gpu(monkeypatch):
    monkeypatch.setattr(_providers._C, "query_gpus", _fake_gpus([H200, dict(H200, index=1)]))


def test_a_gpu_provider_runs_on_the_first_gpu_of_its_backend(one_cuda_gpu):
    for spec in ["CUDAExecutionProvider", "cuda", "gpu", "cuda:0", ("CUDAExecutionProvider", {"device_id": 0})]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            p = _providers.resolve([spec, "CPUExecutionProvider"])
        assert p.device == "cuda:0" and p.devices == ["cuda", "cpu"], spec
        assert p.providers == ["CUDAExecutionProvider", "CPUExecutionProvider"], spec
    p = _providers.resolve([("TensorrtExecutionProvider", {"trt_fp16_enable": True})])
    assert p.providers == ["TensorrtExecutionProvider", "CPUExecutionProvider"]
    assert p.provider_options == {"TensorrtExecutionProvider": {"trt_fp16_enable": "True"}, "CPUExecutionProvider": {}}


def test_no_provider_list_means_the_best_device(one_cuda_gpu):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _providers.resolve(None).device == "cuda:0"
        assert _providers.resolve([]).devices == ["cuda", "cpu"]
    assert hipinfer.get_available_providers() == ["CUDAExecutionProvider", "CPUExecutionProvider"]
    assert hipinfer.get_device() == "GPU"


def test_another_index_or_vendor_falls_back_with_the_reason(one_cuda_gpu):
    with pytest.warns(hipinfer.ProviderFallbackWarning, match="cuda:1 .*first GPU of a backend only"):
        p = _providers.resolve(["cuda:1"])
    assert p.device == "cpu" and p.devices == ["cpu"]
    with pytest.warns(hipinfer.ProviderFallbackWarning, match="ROCMExecutionProvider was requested, but no AMD"):
        p = _providers.resolve(["ROCMExecutionProvider", "CUDAExecutionProvider"])
    assert p.device == "cuda:0"  # the next entry


def test_both_vendors_listed_in_order(monkeypatch):
    monkeypatch.setattr(_providers._C, "query_gpus", _fake_gpus([MI300, H200]))
    assert hipinfer.get_available_providers() == ["ROCMExecutionProvider", "CUDAExecutionProvider",
                                                  "CPUExecutionProvider"]
    assert _providers.resolve(["MIGraphXExecutionProvider"]).device == "hip:0"
    assert _providers.resolve(["gpu"]).providers[0] == "ROCMExecutionProvider"


def test_a_backend_this_build_lacks_is_not_usable(monkeypatch):
    monkeypatch.setattr(_providers._C, "query_gpus", _fake_gpus([H200], backends=("hip",)))
    assert hipinfer.get_available_providers() == ["CPUExecutionProvider"]
    with pytest.warns(hipinfer.ProviderFallbackWarning, match="this build has no cuda backend"):
        assert _providers.resolve(["cuda"]).device == "cpu"


def test_a_gpu_the_session_cannot_find_runs_on_the_cpu_and_says_so(relu_model, one_cuda_gpu):
    # The stand-in says there is a GPU; the C++ session, asking the real runtime, finds none.
    with pytest.warns(hipinfer.NodeFallbackWarning, match="run on cpu instead of cuda"):
        session = hipinfer.InferenceSession(relu_model, providers=["CUDAExecutionProvider"])
    assert session.get_providers() == ["CPUExecutionProvider"]
    assert session.device == "cpu"
    report = session.get_placement()
    assert report["devices"][0].startswith("cuda") and report["fallbacks"] == len(report["nodes"]) > 0
    assert all(n["device"] == "cpu" and n["reason"] for n in report["nodes"])
    assert report["nodes"][0]["op"] in report["table"] and report["nodes"][0]["reason"] in report["table"]
    (y,) = session.run(None, {"x": np.array([[1, -1]], np.float32)})
    np.testing.assert_array_equal(y, [[1, 0]])


def test_set_providers_compiles_again_for_other_devices(relu_model, one_cuda_gpu):
    session = hipinfer.InferenceSession(relu_model, providers=["CPUExecutionProvider"])
    assert session.get_placement()["devices"] == ["cpu"]
    with pytest.warns(hipinfer.NodeFallbackWarning):
        session.set_providers(["cuda"])
    assert session.get_placement()["devices"][0].startswith("cuda")
    session.set_providers(["CPUExecutionProvider"])
    assert session.get_placement()["devices"] == ["cpu"] and session.get_providers() == ["CPUExecutionProvider"]
