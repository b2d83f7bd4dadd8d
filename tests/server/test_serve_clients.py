"""hipinfer serve against clients written elsewhere (tritonclient over HTTP and gRPC, the kserve
SDK's v2 clients): health, metadata, configuration, inference with JSON and binary tensors, and
outputs equal to `hipinfer run`'s on the same inputs."""
import importlib.util
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

tritonclient_http = pytest.importorskip("tritonclient.http")
tritonclient_grpc = pytest.importorskip("tritonclient.grpc")

from serve_fixture import HIPINFER, PPOCR_CLS, Server, make_repository  # noqa: E402


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return make_repository(tmp_path_factory.mktemp("repo"))


@pytest.fixture(scope="module")
def server(repo):
    s = Server("--model-repository", str(repo))
    yield s
    assert s.stop() == 0, "".join(s.log)


def file_stem(name):
    """The .npy name `hipinfer run --output-dir` gives an output ('a/b.c' -> 'a_b.c')."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def hipinfer_run(model: pathlib.Path, inputs: dict, tmp: pathlib.Path) -> dict:
    """Outputs of `hipinfer run` on the same inputs, as the reference, keyed by file_stem(name)."""
    args = [str(HIPINFER), "run", str(model), "--output-dir", str(tmp / "out"), "--threads", "1"]
    for name, value in inputs.items():
        np.save(tmp / f"{name}.npy", value)
        args += ["--input", f"{name}={tmp / f'{name}.npy'}"]
    subprocess.run(args, check=True, capture_output=True)
    return {p.stem: np.load(p) for p in (tmp / "out").glob("*.npy")}


def assert_same(got, want, what=""):
    """Equal to `hipinfer run`'s outputs up to float rounding: the CPU backend picks among
    convolution kernels by timing them when a session is made, so two processes may sum in
    another order (differences of 1e-5 relative seen); integer outputs must be identical."""
    if np.issubdtype(want.dtype, np.floating):
        scale = float(np.abs(want).max()) if want.size else 1.0
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-4 * scale, err_msg=what)
    else:
        np.testing.assert_array_equal(got, want, err_msg=what)


def image(seed, batch=1, size=64, channels=3):
    return np.random.default_rng(seed).standard_normal((batch, channels, size, size)).astype(np.float32)


def tokens(seed, batch=1):
    rng = np.random.default_rng(seed)
    return {"input_ids": rng.integers(0, 100, (batch, 16), dtype=np.int64),
            "attention_mask": np.ones((batch, 16), dtype=np.int64),
            "token_type_ids": rng.integers(0, 2, (batch, 16), dtype=np.int64)}


def test_health_and_server_metadata_over_both_protocols(server):
    http = tritonclient_http.InferenceServerClient(server.http)
    grpc = tritonclient_grpc.InferenceServerClient(server.grpc)
    assert http.is_server_live() and http.is_server_ready()
    assert grpc.is_server_live() and grpc.is_server_ready()
    assert http.get_server_metadata()["name"] == "hipinfer"
    meta = grpc.get_server_metadata()
    assert meta.name == "hipinfer" and "binary_tensor_data" in meta.extensions
    assert http.is_model_ready("resnet50") and grpc.is_model_ready("encoder", "1")
    assert not http.is_model_ready("resnet50", "7") and not grpc.is_model_ready("nope")


def test_model_metadata_and_config(server):
    http = tritonclient_http.InferenceServerClient(server.http)
    grpc = tritonclient_grpc.InferenceServerClient(server.grpc)
    meta = http.get_model_metadata("resnet50")
    assert meta["versions"] == ["1"]
    assert meta["inputs"][0]["datatype"] == "FP32" and meta["inputs"][0]["shape"] == [-1, 3, 64, 64]
    gmeta = grpc.get_model_metadata("encoder")
    assert [i.name for i in gmeta.inputs][:1] == ["input_ids"] and gmeta.inputs[0].datatype == "INT64"
    config = http.get_model_config("resnet50")
    assert config["max_batch_size"] == 8 and config["input"][0]["dims"] == [3, 64, 64]
    assert config["dynamic_batching"]["preferred_batch_size"] == [4, 8]
    gconfig = grpc.get_model_config("resnet50").config
    assert gconfig.max_batch_size == 8 and list(gconfig.input[0].dims) == [3, 64, 64]
    assert grpc.get_model_config("encoder").config.max_batch_size == 0


@pytest.mark.parametrize("binary", [True, False])
def test_http_inference_equals_hipinfer_run(server, repo, tmp_path, binary):
    client = tritonclient_http.InferenceServerClient(server.http)
    x = image(1)
    inp = tritonclient_http.InferInput("input", list(x.shape), "FP32")
    inp.set_data_from_numpy(x, binary_data=binary)
    out_name = client.get_model_metadata("resnet50")["outputs"][0]["name"]
    result = client.infer("resnet50", [inp], outputs=[tritonclient_http.InferRequestedOutput(out_name, binary_data=binary)])
    want = hipinfer_run(repo / "resnet50" / "1" / "model.onnx", {"input": x}, tmp_path)
    assert_same(result.as_numpy(out_name), want[out_name])


def test_grpc_inference_equals_hipinfer_run(server, repo, tmp_path):
    client = tritonclient_grpc.InferenceServerClient(server.grpc)
    feeds = tokens(3, batch=2)
    inputs = []
    for name, value in feeds.items():
        i = tritonclient_grpc.InferInput(name, list(value.shape), "INT64")
        i.set_data_from_numpy(value)
        inputs.append(i)
    result = client.infer("encoder", inputs)
    want = hipinfer_run(repo / "encoder" / "1" / "model.onnx", feeds, tmp_path)
    for name, value in want.items():
        assert_same(result.as_numpy(name), value, name)


@pytest.mark.skipif(not PPOCR_CLS.exists(), reason="the PP-OCR models come from scripts/setup")
def test_ppocr_classifier_over_grpc_and_http(server, repo, tmp_path):
    x = np.random.default_rng(5).uniform(-1, 1, (1, 3, 48, 192)).astype(np.float32)
    want = hipinfer_run(PPOCR_CLS, {"x": x}, tmp_path)
    name = tritonclient_http.InferenceServerClient(server.http).get_model_metadata("ppocr_cls")["outputs"][0]["name"]
    value = want[file_stem(name)]
    g = tritonclient_grpc.InferenceServerClient(server.grpc)
    gi = tritonclient_grpc.InferInput("x", list(x.shape), "FP32")
    gi.set_data_from_numpy(x)
    assert_same(g.infer("ppocr_cls", [gi]).as_numpy(name), value)
    h = tritonclient_http.InferenceServerClient(server.http)
    hi = tritonclient_http.InferInput("x", list(x.shape), "FP32")
    hi.set_data_from_numpy(x, binary_data=False)
    assert_same(h.infer("ppocr_cls", [hi]).as_numpy(name), value)


def test_concurrent_requests_are_batched_and_each_gets_its_own_answer(server, repo, tmp_path):
    client = tritonclient_http.InferenceServerClient(server.http, concurrency=8)
    xs = [image(100 + i) for i in range(8)]
    out_name = client.get_model_metadata("resnet50")["outputs"][0]["name"]
    pending = []
    for x in xs:
        inp = tritonclient_http.InferInput("input", list(x.shape), "FP32")
        inp.set_data_from_numpy(x)
        pending.append(client.async_infer("resnet50", [inp]))
    got = [p.get_result().as_numpy(out_name) for p in pending]
    want = hipinfer_run(repo / "resnet50" / "1" / "model.onnx", {"input": np.concatenate(xs)}, tmp_path)[out_name]
    for i, g in enumerate(got):
        assert_same(g[0], want[i], f"request {i}")
    stats = client.get_inference_statistics("resnet50")["model_stats"][0]
    assert stats["inference_count"] >= 8 and stats["execution_count"] >= 1


def test_kserve_sdk_v2_clients(server, repo, tmp_path):
    """The kserve SDK's clients, in a process of their own: kserve's generated protocol classes and
    tritonclient's share message names, and protobuf allows one set per process."""
    if importlib.util.find_spec("kserve") is None:
        pytest.skip("the kserve package is not installed (scripts/setup installs it)")
    x = image(9)
    want = hipinfer_run(repo / "resnet50" / "1" / "model.onnx", {"input": x}, tmp_path)
    np.save(tmp_path / "x.npy", x)
    script = pathlib.Path(__file__).with_name("kserve_client_check.py")
    for protocol in ("grpc", "rest"):
        out = tmp_path / f"{protocol}.npy"
        address = server.grpc if protocol == "grpc" else server.http
        subprocess.run([sys.executable, str(script), protocol, address, "resnet50", str(tmp_path / "x.npy"), "logits",
                        str(out)], check=True)
        assert_same(np.load(out), want["logits"], protocol)


def test_repository_index_unload_and_load(server):
    client = tritonclient_grpc.InferenceServerClient(server.grpc)
    names = {m.name for m in client.get_model_repository_index().models}
    assert {"resnet50", "encoder"} <= names
    client.unload_model("encoder")
    assert not client.is_model_ready("encoder")
    http = tritonclient_http.InferenceServerClient(server.http)
    index = {m["name"]: m for m in http.get_model_repository_index()}
    assert index["encoder"]["state"] == "UNAVAILABLE"
    http.load_model("encoder")
    assert client.is_model_ready("encoder")


def test_metrics_count_requests_by_model_and_outcome(server):
    import urllib.request
    client = tritonclient_http.InferenceServerClient(server.http)
    x = image(2)
    inp = tritonclient_http.InferInput("input", list(x.shape), "FP32")
    inp.set_data_from_numpy(x)
    client.infer("resnet50", [inp])
    text = urllib.request.urlopen(f"http://127.0.0.1:{server.metrics_port}/metrics").read().decode()
    assert 'hipinfer_requests_total{model="resnet50",version="1",outcome="ok"}' in text
    assert 'hipinfer_request_duration_seconds_bucket{model="resnet50",le="+Inf"}' in text
    assert 'hipinfer_batch_size_count{model="resnet50"}' in text
    assert "hipinfer_model_memory_bytes{" in text
