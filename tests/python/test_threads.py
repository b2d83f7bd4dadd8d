"""Sessions used from several Python threads, the GIL released while a model runs, and run_async."""
from __future__ import annotations

import concurrent.futures
import threading
import time

import numpy as np
import pytest

import hipinfer
from conftest import zoo_inputs


def test_many_threads_one_session(zoo):
    session = hipinfer.InferenceSession(zoo("bert"))
    feeds = [zoo_inputs("bert", batch=1, seed=s) for s in range(4)]
    expected = [session.run(None, f) for f in feeds]

    def work(i):
        k = i % len(feeds)
        return k, session.run(None, feeds[k])

    with concurrent.futures.ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(work, range(24)))
    for k, outputs in results:
        for got, want in zip(outputs, expected[k]):
            np.testing.assert_array_equal(got, want)  # same kernels, same order: bit for bit


def test_gil_is_released_while_running(zoo):
    """While another thread runs a model, this one keeps running Python: no pause as long as a run.
    ResNet-50's runs take seconds, far above the scheduling noise of a busy machine."""
    session = hipinfer.InferenceSession(zoo("resnet50"))
    feed = zoo_inputs("resnet50")
    start = time.perf_counter()
    session.run(None, feed)
    one_run = time.perf_counter() - start

    done = threading.Event()

    def runner():
        for _ in range(2):
            session.run(None, feed)
        done.set()

    thread = threading.Thread(target=runner)
    thread.start()
    longest_gap, last = 0.0, time.perf_counter()
    while not done.is_set():
        time.sleep(0.001)
        now = time.perf_counter()
        longest_gap, last = max(longest_gap, now - last), now
    thread.join()
    # With the GIL held through a run, this loop would stall for a whole run at least.
    assert longest_gap < 0.5 * one_run, (longest_gap, one_run)


def test_run_async_future_and_callback(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    x = np.linspace(-1, 1, 10, dtype=np.float32).reshape(2, 5)
    future = session.run_async(None, {"x": x})
    assert isinstance(future, concurrent.futures.Future)
    np.testing.assert_array_equal(future.result(timeout=60)[0], np.maximum(x, 0))

    seen = []
    event = threading.Event()

    def callback(outputs, user_data, error):
        seen.append((outputs, user_data, error))
        event.set()

    session.run_async(["y"], {"x": x}, callback, "tag")
    assert event.wait(60)
    outputs, user_data, error = seen[0]
    assert user_data == "tag" and error == ""
    np.testing.assert_array_equal(outputs[0], np.maximum(x, 0))


def test_run_async_error(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    seen = []
    future = session.run_async(None, {"x": np.ones((2, 2), np.float64)}, lambda o, u, e: seen.append((o, e)))
    with pytest.raises(hipinfer.InvalidArgument, match="expected float32, got float64"):
        future.result(timeout=60)
    assert seen[0][0] is None and "expected float32" in seen[0][1]


def test_many_async_runs(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    xs = [np.full((3, 3), i - 10, np.float32) for i in range(20)]
    futures = [session.run_async(None, {"x": x}, output_format="dlpack") for x in xs]
    for x, f in zip(xs, futures):
        np.testing.assert_array_equal(np.from_dlpack(f.result(timeout=60)[0]), np.maximum(x, 0))
