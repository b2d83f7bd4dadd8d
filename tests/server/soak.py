"""A bounded soak of hipinfer serve on loopback: many clients at once for DURATION seconds, mixing
valid requests (HTTP JSON, HTTP binary, gRPC; two models) with invalid ones (bad JSON, wrong type,
wrong shape, unknown model, binary lengths past the body, clients that vanish mid-request), then
SIGTERM while the load goes on. It stops by itself and exits 1 if:
  - a valid request is not answered correctly (outputs against `hipinfer run`, its id echoed),
  - an invalid one is not answered with the 4xx / gRPC code it deserves,
  - the server crashes, or exits non-zero after SIGTERM,
  - the server's resident memory grows after warm-up (last third against the end of warm-up),
  - a request accepted before SIGTERM is lost (every answer is 200 or 503; refused connections
    were never accepted).
usage: soak.py [--duration S] [--clients N]   (prints one summary; CI runs it for 60 s)
"""
import argparse
import collections
import http.client
import json
import os
import pathlib
import random
import socket
import sys
import tempfile
import threading
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import tritonclient.grpc as tgrpc  # noqa: E402
from serve_fixture import Server, make_repository  # noqa: E402
from test_serve_clients import assert_same, hipinfer_run, image, tokens  # noqa: E402

IMAGE = [1, 3, 64, 64]


def rss_kib(pid):
    for line in pathlib.Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


class Soak:
    def __init__(self, server, references):
        self.server = server
        self.refs = references  # (model, index) -> (inputs, outputs)
        self.counts = collections.Counter()
        self.failures = []
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.stopping = threading.Event()  # SIGTERM sent: 503 and refusals are expected now

    def note(self, kind, outcome):
        with self.lock:
            self.counts[(kind, outcome)] += 1

    def fail(self, message):
        with self.lock:
            if len(self.failures) < 20:
                self.failures.append(message)

    def post(self, path, body, headers=None):
        conn = http.client.HTTPConnection(self.server.http, timeout=120)
        try:
            conn.request("POST", path, body=body, headers=headers or {})
            r = conn.getresponse()
            return r.status, r.getheader("Inference-Header-Content-Length"), r.read()
        finally:
            conn.close()

    # --- valid requests ---------------------------------------------------------------------
    def valid_http(self, rng, binary):
        model = rng.choice(["resnet50", "encoder"])
        index = rng.randrange(len([k for k in self.refs if k[0] == model]))
        inputs, want = self.refs[(model, index)]
        rid = f"{threading.get_ident()}-{rng.random()}"
        doc = {"id": rid, "inputs": [], "outputs": [{"name": n, "parameters": {"binary_data": binary}} for n in want]}
        blobs = b""
        for name, value in inputs.items():
            entry = {"name": name, "shape": list(value.shape), "datatype": "FP32" if value.dtype == np.float32 else "INT64"}
            if binary:
                entry["parameters"] = {"binary_data_size": value.nbytes}
                blobs += value.tobytes()
            else:
                entry["data"] = value.flatten().tolist()
            doc["inputs"].append(entry)
        header = json.dumps(doc).encode()
        headers = {"Inference-Header-Content-Length": str(len(header))} if binary else {}
        status, hlen, body = self.post(f"/v2/models/{model}/infer", header + blobs, headers)
        if status != 200:
            return status
        split = int(hlen) if hlen else len(body)
        answer = json.loads(body[:split])
        if answer.get("id") != rid:
            self.fail(f"http answer id {answer.get('id')!r}, sent {rid!r}")
        offset = split
        for out in answer["outputs"]:
            ref = want[out["name"]]
            if "data" in out:
                got = np.array(out["data"], dtype=ref.dtype).reshape(out["shape"])
            else:
                size = out["parameters"]["binary_data_size"]
                got = np.frombuffer(body[offset:offset + size], dtype=ref.dtype).reshape(out["shape"])
                offset += size
            try:
                assert_same(got, ref, f"{model} {out['name']}")
            except AssertionError as e:
                self.fail(f"wrong answer from {model} over http: {str(e)[:300]}")
        return 200

    def valid_grpc(self, rng, client):
        model = rng.choice(["resnet50", "encoder"])
        index = rng.randrange(len([k for k in self.refs if k[0] == model]))
        inputs, want = self.refs[(model, index)]
        tensors = []
        for name, value in inputs.items():
            t = tgrpc.InferInput(name, list(value.shape), "FP32" if value.dtype == np.float32 else "INT64")
            t.set_data_from_numpy(value)
            tensors.append(t)
        rid = f"g{rng.random()}"
        result = client.infer(model, tensors, request_id=rid)
        if result.get_response().id != rid:
            self.fail(f"grpc answer id {result.get_response().id!r}, sent {rid!r}")
        for name, ref in want.items():
            try:
                assert_same(result.as_numpy(name), ref, f"{model} {name}")
            except AssertionError as e:
                self.fail(f"wrong answer from {model} over grpc: {str(e)[:300]}")
        return 200

    # --- invalid requests -------------------------------------------------------------------
    def invalid(self, rng, client):
        kind = rng.choice(["json", "dtype", "shape", "model", "binary", "vanish", "grpc_dtype"])
        n = int(np.prod(IMAGE))
        bodies = {
            "json": ('{"inputs": [', {}, 400),
            "dtype": (json.dumps({"inputs": [{"name": "input", "shape": IMAGE, "datatype": "INT32", "data": [1] * n}]}),
                      {}, 400),
            "shape": (json.dumps({"inputs": [{"name": "input", "shape": [1, 3, 8, 8], "datatype": "FP32",
                                              "data": [0.5] * 192}]}), {}, 400),
            "model": (json.dumps({"inputs": [{"name": "input", "shape": [1], "datatype": "FP32", "data": [1]}]}), {}, 404),
            "binary": (json.dumps({"inputs": [{"name": "input", "shape": IMAGE, "datatype": "FP32",
                                               "parameters": {"binary_data_size": n * 4}}]}), "binary", 400),
        }
        if kind == "vanish":
            s = socket.create_connection(("127.0.0.1", self.server.http_port), timeout=10)
            s.sendall(b"POST /v2/models/resnet50/infer HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n{\"inp")
            s.close()
            return kind, "sent"
        if kind == "grpc_dtype":
            t = tgrpc.InferInput("input", IMAGE, "INT32")
            t.set_data_from_numpy(np.zeros(IMAGE, np.int32))
            try:
                client.infer("resnet50", [t])
                self.fail("a gRPC request with the wrong datatype succeeded")
            except Exception as e:  # noqa: BLE001
                code = str(getattr(e, "status", lambda: "")())
                if code != "StatusCode.INVALID_ARGUMENT" and not (self.stopping.is_set() and "UNAVAILABLE" in code):
                    self.fail(f"gRPC wrong datatype answered {code}: {e}")
                return kind, code
        body, headers, expected = bodies[kind]
        if headers == "binary":
            header = body.encode()
            body, headers = header + b"\0" * 64, {"Inference-Header-Content-Length": str(len(header))}
        path = "/v2/models/" + ("nope" if kind == "model" else "resnet50") + "/infer"
        status, _, data = self.post(path, body, headers)
        if status != expected and not (self.stopping.is_set() and status == 503):
            self.fail(f"{kind}: answered {status}, expected {expected}: {data[:200]!r}")
        elif status != 503 and "error" not in json.loads(data):
            self.fail(f"{kind}: no error message in {data[:200]!r}")
        return kind, status

    def client_loop(self, seed):
        rng = random.Random(seed)
        client = tgrpc.InferenceServerClient(self.server.grpc)
        while not self.stop.is_set():
            pick = rng.random()
            try:
                if pick < 0.3:
                    kind, outcome = "http_json", self.valid_http(rng, binary=False)
                elif pick < 0.6:
                    kind, outcome = "http_binary", self.valid_http(rng, binary=True)
                elif pick < 0.8:
                    kind, outcome = "grpc", self.valid_grpc(rng, client)
                else:
                    kind, outcome = self.invalid(rng, client)
                    kind = "invalid_" + kind
                if outcome not in (200, "sent") and kind.startswith(("http", "grpc")) and \
                        not (self.stopping.is_set() and outcome == 503):
                    self.fail(f"valid {kind} request answered {outcome}")
                self.note(kind, outcome)
            except (ConnectionError, OSError) as e:
                if not self.stopping.is_set():
                    self.fail(f"connection failed before SIGTERM: {e}")
                self.note("refused_after_sigterm", type(e).__name__)
            except Exception as e:  # noqa: BLE001
                if self.stopping.is_set() and ("UNAVAILABLE" in str(e) or "503" in str(e)):
                    self.note("grpc", "unavailable_after_sigterm")
                elif self.stopping.is_set() and "CANCELLED" in str(e):
                    # A call gRPC had received but not yet handed to a handler when the server's
                    # Shutdown began: gRPC cancels it (the model never saw it), by its own rules.
                    self.note("grpc", "cancelled_by_shutdown")
                else:
                    self.fail(f"{type(e).__name__}: {str(e)[:300]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--duration", type=float, default=60, help="seconds of load before SIGTERM (at most 600)")
    parser.add_argument("--clients", type=int, default=32)
    args = parser.parse_args()
    duration = min(args.duration, 600)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        repo = make_repository(tmp / "repo")
        references = {}
        for i in range(3):
            x = {"input": image(50 + i)}
            (tmp / f"r{i}").mkdir()
            references[("resnet50", i)] = (x, hipinfer_run(repo / "resnet50" / "1" / "model.onnx", x, tmp / f"r{i}"))
            t = tokens(60 + i)
            (tmp / f"e{i}").mkdir()
            references[("encoder", i)] = (t, hipinfer_run(repo / "encoder" / "1" / "model.onnx", t, tmp / f"e{i}"))
        server = Server("--model-repository", str(repo), "--http-threads", str(args.clients + 8))
        soak = Soak(server, references)
        threads = [threading.Thread(target=soak.client_loop, args=(seed,)) for seed in range(args.clients)]
        start = time.time()
        for t in threads:
            t.start()
        samples = []
        while time.time() - start < duration and server.proc.poll() is None:
            samples.append((time.time() - start, rss_kib(server.proc.pid)))
            time.sleep(1)
        crashed = server.proc.poll() is not None
        soak.stopping.set()
        rc = server.stop() if not crashed else server.proc.returncode
        time.sleep(1)
        soak.stop.set()
        for t in threads:
            t.join(timeout=180)

    warm = [r for s, r in samples if s <= duration / 3]
    late = [r for s, r in samples if s >= 2 * duration / 3]
    warm_rss, late_rss = (max(warm) if warm else 0), (max(late) if late else 0)
    total = sum(soak.counts.values())
    print(f"soak: {duration:.0f} s, {args.clients} clients, {total} requests, {total / duration:.0f}/s")
    for (kind, outcome), n in sorted(soak.counts.items(), key=lambda kv: (kv[0][0], str(kv[0][1]))):
        print(f"  {kind:28s} {str(outcome):28s} {n}")
    print(f"  server RSS: {warm_rss / 1024:.1f} MiB at the end of warm-up, {late_rss / 1024:.1f} MiB at most in the "
          f"last third; exit code after SIGTERM {rc}")
    problems = list(soak.failures)
    if crashed:
        problems.append(f"the server died during the soak (exit code {rc})")
    elif rc != 0:
        problems.append(f"the server exited {rc} after SIGTERM")
    if late_rss > warm_rss * 1.10 + 16 * 1024:
        problems.append(f"memory grew after warm-up: {warm_rss} KiB -> {late_rss} KiB")
    if not any(k[0].startswith(("http", "grpc")) and k[1] == 200 for k in soak.counts):
        problems.append("no valid request succeeded")
    for p in problems:
        print("FAIL:", p)
    print("soak: ok" if not problems else f"soak: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
