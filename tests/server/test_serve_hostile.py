"""hipinfer serve under bad input, misbehaving clients, overload and SIGTERM: each bad request
answered with a 4xx / INVALID_ARGUMENT that names the field, and the server still serving."""
import concurrent.futures
import http.client
import json
import socket
import struct
import time

import numpy as np
import pytest

tritonclient_grpc = pytest.importorskip("tritonclient.grpc")
from tritonclient.utils import InferenceServerException  # noqa: E402

from serve_fixture import Server, make_repository  # noqa: E402

IMAGE = [1, 3, 64, 64]


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    return make_repository(tmp_path_factory.mktemp("repo"))


@pytest.fixture(scope="module")
def server(repo):
    s = Server("--model-repository", str(repo), "--max-request-size", "1M", "--http-threads", "16")
    yield s
    assert s.stop() == 0, "".join(s.log)


def post(server, path, body, headers=None, timeout=60):
    conn = http.client.HTTPConnection(server.http, timeout=timeout)
    conn.request("POST", path, body=body, headers=headers or {})
    response = conn.getresponse()
    data = response.read()
    conn.close()
    return response.status, data


def infer_json(shape=IMAGE, datatype="FP32", data=None, name="input"):
    n = int(np.prod(shape)) if all(d >= 0 for d in shape) else 0
    return json.dumps({"inputs": [{"name": name, "shape": shape, "datatype": datatype,
                                   "data": data if data is not None else [0.5] * n}]})


def assert_serving(server):
    status, body = post(server, "/v2/models/resnet50/infer", infer_json())
    assert status == 200, body


@pytest.mark.parametrize("path, body, headers, status, parts", [
    ("/v2/models/resnet50/infer", "{\"inputs\": [", {}, 400, ["not valid JSON"]),
    ("/v2/models/resnet50/infer", infer_json(datatype="INT32", data=[1] * (3 * 64 * 64)), {}, 400,
     ["'input'", "INT32", "FP32"]),
    ("/v2/models/resnet50/infer", infer_json(shape=[1, 3, 32, 64]), {}, 400, ["'input'", "[1, 3, 32, 64]"]),
    ("/v2/models/resnet50/infer", infer_json(data=[1.0, 2.0]), {}, 400, ["'input'", "12288 elements", "data holds 2"]),
    ("/v2/models/resnet50/infer", infer_json(name="image"), {}, 400, ["no input 'image'"]),
    ("/v2/models/resnet50/infer", infer_json(shape=[9, 3, 64, 64]), {}, 400, ["batch size is 9", "max_batch_size 8"]),
    ("/v2/models/nope/infer", infer_json(), {}, 404, ["unknown model 'nope'", "resnet50"]),
    ("/v2/models/resnet50/versions/3/infer", infer_json(), {}, 404, ["no version '3'", "loaded: 1"]),
    ("/v2/models/resnet50/infer", infer_json(), {"Inference-Header-Content-Length": "999999"}, 400,
     ["Inference-Header-Content-Length is 999999"]),
    ("/v2/models/resnet50/infer", infer_json(), {"Inference-Header-Content-Length": "abc"}, 400,
     ["Inference-Header-Content-Length is \"abc\""]),
    ("/v2/nothing/here", "{}", {}, 404, ["no such endpoint"]),
])
def test_bad_http_requests_name_the_problem(server, path, body, headers, status, parts):
    got, data = post(server, path, body, headers)
    assert got == status, data
    message = json.loads(data)["error"]
    for p in parts:
        assert p in message, message
    assert_serving(server)


@pytest.mark.parametrize("content_type", [None, "application/x-www-form-urlencoded", "application/json"])
def test_json_is_read_whatever_the_content_type(server, content_type):
    # curl -d and urllib send application/x-www-form-urlencoded unless told otherwise; a 60 KB body
    # must still be read as the request, not refused as an oversized form.
    headers = {"Content-Type": content_type} if content_type else {}
    status, data = post(server, "/v2/models/resnet50/infer", infer_json(), headers)
    assert status == 200, data


def test_binary_data_size_past_the_body(server):
    header = json.dumps({"inputs": [{"name": "input", "shape": IMAGE, "datatype": "FP32",
                                     "parameters": {"binary_data_size": 3 * 64 * 64 * 4}}]}).encode()
    status, data = post(server, "/v2/models/resnet50/infer", header + b"\0" * 100,
                        {"Inference-Header-Content-Length": str(len(header))})
    assert status == 400 and "binary_data_size is 49152" in json.loads(data)["error"]
    assert_serving(server)


def test_oversized_body_is_413(server):
    status, _ = post(server, "/v2/models/resnet50/infer", b"x" * (2 << 20))
    assert status == 413
    assert_serving(server)


def test_client_that_disconnects_mid_request(server):
    for _ in range(5):
        s = socket.create_connection((server.http.split(":")[0], server.http_port))
        s.sendall(b"POST /v2/models/resnet50/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n{\"inputs\":")
        s.close()
    assert_serving(server)


def test_slow_clients_do_not_stop_the_others(server):
    # Ten clients hold connections and trickle bytes; the server keeps answering everyone else.
    slow = []
    for _ in range(10):
        s = socket.create_connection((server.http.split(":")[0], server.http_port))
        s.sendall(b"POST /v2/models/resnet50/infer HTTP/1.1\r\nHost: x\r\n")
        slow.append(s)
    start = time.time()
    for _ in range(3):
        assert_serving(server)
    assert time.time() - start < 30
    for s in slow:
        s.close()


def test_bad_grpc_requests_name_the_problem(server):
    client = tritonclient_grpc.InferenceServerClient(server.grpc)
    x = tritonclient_grpc.InferInput("input", IMAGE, "INT32")
    x.set_data_from_numpy(np.zeros(IMAGE, np.int32))
    with pytest.raises(InferenceServerException) as e:
        client.infer("resnet50", [x])
    assert e.value.status() == "StatusCode.INVALID_ARGUMENT" and "'input'" in e.value.message()
    y = tritonclient_grpc.InferInput("input", IMAGE, "FP32")
    y.set_data_from_numpy(np.zeros(IMAGE, np.float32))
    with pytest.raises(InferenceServerException) as e:
        client.infer("nope", [y])
    assert e.value.status() == "StatusCode.NOT_FOUND" and "nope" in e.value.message()
    big = tritonclient_grpc.InferInput("input", [8, 3, 64, 64], "FP32")
    big.set_data_from_numpy(np.zeros([8, 3, 64, 64], np.float32))  # 393 KB: fits; 1M limit
    client.infer("resnet50", [big])
    huge = tritonclient_grpc.InferInput("input", [24, 3, 64, 64], "FP32")
    huge.set_data_from_numpy(np.zeros([24, 3, 64, 64], np.float32))  # 1.2 MB: past the limit
    with pytest.raises(InferenceServerException) as e:
        client.infer("resnet50", [huge])
    assert e.value.status() == "StatusCode.RESOURCE_EXHAUSTED"
    assert_serving(server)


def test_full_queue_answers_503_and_the_rest_succeed(repo):
    s = Server("--model-repository", str(repo), "--max-queue-size", "2", "--http-threads", "32")
    try:
        body = infer_json()
        with concurrent.futures.ThreadPoolExecutor(32) as pool:
            results = list(pool.map(lambda _: post(s, "/v2/models/encoder/infer", json.dumps({"inputs": [
                {"name": n, "shape": [1, 16], "datatype": "INT64", "data": [1] * 16}
                for n in ("input_ids", "attention_mask", "token_type_ids")]})), range(96)))
        codes = [c for c, _ in results]
        assert set(codes) <= {200, 503}, codes
        assert codes.count(503) > 0 and codes.count(200) > 0
        assert all("queue is full" in json.loads(d)["error"] for c, d in results if c == 503)
        assert post(s, "/v2/models/resnet50/infer", body)[0] == 200
    finally:
        assert s.stop() == 0


def test_sigterm_under_load_answers_every_accepted_request(repo):
    s = Server("--model-repository", str(repo), "--http-threads", "32")
    body = infer_json()

    def one(_):
        try:
            return post(s, "/v2/models/resnet50/infer", body)[0]
        except (ConnectionError, OSError):
            return "refused"  # connected after the listening socket closed: never accepted

    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        futures = [pool.submit(one, i) for i in range(64)]
        time.sleep(1.0)
        rc = s.stop()
        results = [f.result() for f in futures]
    assert rc == 0, "".join(s.log)
    assert results.count(200) > 0
    # An accepted request is answered: 200, or 503 when it arrived after shutdown began.
    assert set(results) <= {200, 503, "refused"}, results
    assert any("answering the accepted requests" in line for line in s.log)
