"""deploy/ray on a real two-node Ray cluster on this machine: the Ray Serve application
(serve_app.py, two replicas of the encoder) answers HTTP requests as `hipinfer run` does, and the
Ray Data example (batch_inference.py, two actors) writes the outputs `hipinfer run` writes.

The cluster is started with the `ray` command of this interpreter's environment: a head node and a
second node joining it on loopback, one CPU each, with ports picked free, its temp dir under
pytest's, and no usage statistics sent. Teardown ends exactly this cluster's processes with SIGKILL
(as `ray stop --force`), by pid, even when a test failed: `ray stop` itself would end every Ray
process on the machine, other runs' clusters included. The deploy and batch steps run in processes
of their own with timeouts, so a hang fails the test instead of the CI run. Skipped without
ray[serve,data] (scripts/setup installs it).
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Dict, List

import numpy as np
import pytest

from conftest import REPO, run_cli, zoo_inputs

ray = pytest.importorskip("ray")
serve = pytest.importorskip("ray.serve")
pytest.importorskip("ray.data")
psutil = pytest.importorskip("psutil")  # a dependency of ray

DEPLOY = REPO / "deploy" / "ray"
RAY = Path(sys.executable).parent / "ray"
MARKER = "HIPINFER_RAY_TEST"  # in the cluster's environment: its temp dir, which tells its processes
SAMPLES = 6
APP = "hipinfer"
RTOL = 2e-4  # the CPU backend picks kernels by timing them: two processes may differ in the last bits


def atol(ref: np.ndarray) -> float:
    return 1e-4 * max(float(np.max(np.abs(ref))), 1e-6)


def assert_close(got: np.ndarray, ref: np.ndarray, what: str) -> None:
    assert got.shape == ref.shape and got.dtype == ref.dtype, \
        f"{what}: {got.dtype}{list(got.shape)} != {ref.dtype}{list(ref.shape)}"
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=atol(ref), err_msg=what)


def free_ports(n: int) -> List[int]:
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def load_folder(folder: Path) -> Dict[str, np.ndarray]:
    return {f.stem: np.load(f) for f in sorted(folder.glob("*.npy"))}


def cluster_processes(temp_dir: str) -> List["psutil.Process"]:
    """This cluster's processes: those that name its temp dir on their command line or carry MARKER
    in their environment (the `ray start`s' own processes), and all their descendants (the agents,
    the workers: their titles name no folder). Zombies excluded."""
    roots = []
    for proc in psutil.process_iter(["cmdline"]):
        if proc.pid == os.getpid():
            continue
        try:
            if any(temp_dir in arg for arg in proc.info["cmdline"] or []) or proc.environ().get(MARKER) == temp_dir:
                roots.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            pass
    found = {p.pid: p for p in roots}
    for proc in roots:
        try:
            found.update((c.pid, c) for c in proc.children(recursive=True))
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            pass
    alive = []
    for proc in found.values():
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                alive.append(proc)
        except psutil.NoSuchProcess:
            pass
    return alive


def signal_all(procs: List["psutil.Process"], sig: int) -> None:
    for proc in procs:
        try:
            proc.send_signal(sig)
        except psutil.NoSuchProcess:
            pass


def end_cluster(temp_dir: str) -> None:
    """As `ray stop --force` (SIGKILL), but only this cluster's processes, by pid. They are stopped
    (SIGSTOP) first, so that none starts another between the listing and the kill."""
    for _ in range(3):
        procs = cluster_processes(temp_dir)
        if not procs:
            return
        signal_all(procs, signal.SIGSTOP)
        procs = cluster_processes(temp_dir)  # with the children started meanwhile
        signal_all(procs, signal.SIGKILL)
        psutil.wait_procs(procs, timeout=10)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory):
    """Two Ray nodes on loopback, this process connected as a driver. Yields (address, env)."""
    temp = tmp_path_factory.mktemp("ray")
    if len(str(temp)) > 48:  # Ray's unix sockets live under it: their paths must stay under 108 bytes
        temp = Path(tempfile.mkdtemp(prefix="hi-ray-"))
    temp_dir = str(temp.resolve())
    gcs, client, dashboard, agent_head, agent_worker = free_ports(5)
    address = f"127.0.0.1:{gcs}"
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0", RAY_TMPDIR=temp_dir, **{MARKER: temp_dir},
               # Both nodes are on this one machine: Serve's proxy would otherwise send every request
               # to the replica on its own node, which on a real cluster saves a hop, and here would
               # leave the other replica idle.
               RAY_SERVE_PROXY_PREFER_LOCAL_NODE_ROUTING="0")
    env.pop("RAY_ADDRESS", None)
    common = ["--num-cpus=1", "--disable-usage-stats", f"--temp-dir={temp_dir}",
              "--object-store-memory=100000000"]
    saved = {k: os.environ.get(k) for k in ("RAY_USAGE_STATS_ENABLED", "RAY_TMPDIR", "RAY_ADDRESS")}
    try:
        head = [str(RAY), "start", "--head", f"--port={gcs}", "--include-dashboard=false",
                f"--dashboard-port={dashboard}", f"--ray-client-server-port={client}",
                f"--dashboard-agent-listen-port={agent_head}", *common]
        second = [str(RAY), "start", f"--address={address}", f"--dashboard-agent-listen-port={agent_worker}", *common]
        for args in (head, second):
            started = subprocess.run(args, env=env, capture_output=True, text=True, timeout=120)
            assert started.returncode == 0, f"{' '.join(args)}:\n{started.stdout}\n{started.stderr}"
        os.environ.update(RAY_USAGE_STATS_ENABLED="0", RAY_TMPDIR=temp_dir)
        os.environ.pop("RAY_ADDRESS", None)
        ray.init(address=address, log_to_driver=False)
        deadline = time.monotonic() + 60
        while len([n for n in ray.nodes() if n["Alive"]]) < 2:
            assert time.monotonic() < deadline, f"not two live nodes: {ray.nodes()}"
            time.sleep(0.5)
        alive = [n for n in ray.nodes() if n["Alive"]]
        assert len(alive) == 2 and all(n["Resources"].get("CPU") == 1.0 for n in alive), alive
        yield address, env
    finally:
        try:
            if ray.is_initialized():
                ray.shutdown()
        finally:
            end_cluster(temp_dir)
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
    assert not cluster_processes(temp_dir), "Ray processes outlived the teardown"


@pytest.fixture(scope="module")
def encoder(zoo) -> Path:
    return zoo("bert")


@pytest.fixture(scope="module")
def samples(encoder: Path, tmp_path_factory: pytest.TempPathFactory):
    """SAMPLES samples as batch_inference.py reads them (inputs/<sample>/<input>.npy, batch 1) and
    `hipinfer run`'s outputs for each (refs/<sample>/<output>.npy). Returns (inputs, refs)."""
    root = tmp_path_factory.mktemp("ray-samples")
    inputs, refs = root / "inputs", root / "refs"
    for i in range(SAMPLES):
        folder = inputs / f"s{i}"
        folder.mkdir(parents=True)
        feeds = zoo_inputs("bert", batch=1, seed=100 + i)
        feeds["attention_mask"][:] = 1
        feeds["attention_mask"][0, 16 - 2 * i:] = 0  # 0 to 10 padding tokens: the mask matters
        args = []
        for name, value in feeds.items():
            np.save(folder / f"{name}.npy", value)
            args += ["--input", f"{name}={folder / f'{name}.npy'}"]
        run_cli("run", str(encoder), *args, "--output-dir", str(refs / f"s{i}"), "--threads", "1")
    return inputs, refs


def post(url: str, body: object):
    """(status, JSON answer) of a POST."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


def test_serve_two_replicas_answer_as_hipinfer_run(cluster, encoder, samples):
    address, env = cluster
    inputs, refs = samples
    http_port, = free_ports(1)
    deployed = subprocess.run([sys.executable, str(DEPLOY / "serve_app.py"), "--model", str(encoder),
                               "--replicas", "2", "--threads", "1", "--address", address,
                               "--port", str(http_port), "--name", APP],
                              env=env, capture_output=True, text=True, timeout=180)
    try:
        assert deployed.returncode == 0, f"{deployed.stdout}\n{deployed.stderr}"
        url = deployed.stdout.strip().splitlines()[-1]
        assert url == f"http://127.0.0.1:{http_port}/", deployed.stdout

        replicas, pids, nodes = set(), set(), set()
        for k in range(20):
            sample = f"s{k % SAMPLES}"
            feeds = load_folder(inputs / sample)
            status, answer = post(url, {"inputs": {n: v.tolist() for n, v in feeds.items()}})
            assert status == 200, answer
            ref = load_folder(refs / sample)
            assert sorted(answer["outputs"]) == sorted(ref)  # the encoder's output names are file names
            for name in ref:
                got = np.asarray(answer["outputs"][name], dtype=ref[name].dtype)
                assert_close(got, ref[name], f"{sample} {name} (request {k})")
            replicas.add(answer["replica"])
            pids.add(answer["pid"])
            nodes.add(answer["node"])
        assert len(replicas) == 2 and len(pids) == 2, f"answered by {replicas}, pids {pids}"
        print(f"serve: 20 requests answered by {len(replicas)} replicas on {len(nodes)} nodes")

        # Two samples in one request: the batch dimension carries through.
        both = [load_folder(inputs / s) for s in ("s1", "s4")]
        status, answer = post(url, {"inputs": {n: np.concatenate([b[n] for b in both]).tolist() for n in both[0]}})
        assert status == 200, answer
        for name, ref in ((n, np.concatenate([load_folder(refs / s)[n] for s in ("s1", "s4")]))
                          for n in load_folder(refs / "s1")):
            assert_close(np.asarray(answer["outputs"][name], dtype=ref.dtype), ref, f"batch of 2: {name}")

        # Bad requests: HTTP 400 with JSON naming the input.
        feeds = {n: v.tolist() for n, v in load_folder(inputs / "s0").items()}
        missing = {n: v for n, v in feeds.items() if n != "attention_mask"}
        status, answer = post(url, {"inputs": missing})
        assert status == 400 and "attention_mask" in answer["error"], (status, answer)
        short = dict(feeds, input_ids=[row[:8] for row in feeds["input_ids"]])
        status, answer = post(url, {"inputs": short})
        assert status == 400 and "input_ids" in answer["error"] and "shape" in answer["error"], (status, answer)
        status, answer = post(url, {"inputs": dict(feeds, token_type_ids="zero")})
        assert status == 400 and "token_type_ids" in answer["error"], (status, answer)
        status, answer = post(url, {"inputs": dict(feeds, extra=[1])})
        assert status == 400 and "extra" in answer["error"], (status, answer)
        status, answer = post(url, b"not json")
        assert status == 400 and "JSON" in answer["error"], (status, answer)
    finally:
        if deployed.returncode == 0:
            serve.delete(APP)  # frees the replicas' CPUs for the batch test


def test_batch_inference_two_actors_write_what_hipinfer_run_writes(cluster, encoder, samples, tmp_path):
    address, env = cluster
    inputs, refs = samples
    out = tmp_path / "outputs"
    # batch_inference.run() imported as a module, in a process of its own: a hang ends at the timeout.
    code = (f"import json, sys; sys.path.insert(0, {str(DEPLOY)!r}); import ray, batch_inference; "
            f"ray.init(address={address!r}, log_to_driver=False); "
            f"context = ray.data.DataContext.get_current(); context.enable_progress_bars = False; "
            f"context.wait_for_min_actors_s = 60; "  # both actors up before the first batch: both get work
            f"ran_by = batch_inference.run({str(encoder)!r}, {str(inputs)!r}, {str(out)!r}, actors=2, "
            f"batch_size=2, num_cpus=0.5); print(json.dumps(ran_by))")
    ran = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=180)
    assert ran.returncode == 0, f"{ran.stdout}\n{ran.stderr}"
    ran_by = json.loads(ran.stdout.strip().splitlines()[-1])
    assert sorted(ran_by) == [f"s{i}" for i in range(SAMPLES)]
    assert sorted(p.name for p in out.iterdir()) == sorted(ran_by)
    for sample in sorted(ran_by):
        ref, got = load_folder(refs / sample), load_folder(out / sample)
        assert sorted(got) == sorted(ref), sample
        for name in ref:
            assert_close(got[name], ref[name], f"{sample} {name}")
    assert len(set(ran_by.values())) == 2, f"samples by actor pid: {ran_by}"
