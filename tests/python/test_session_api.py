"""InferenceSession, SessionOptions, RunOptions and providers: onnxruntime's API, and where
hipinfer says plainly what it does not do yet."""
from __future__ import annotations

import os
import warnings

import numpy as np
import pytest

import hipinfer
from conftest import zoo_inputs


def test_load_from_path_pathlike_and_bytes(relu_model, tmp_path):
    path = tmp_path / "relu.onnx"
    path.write_bytes(relu_model)
    x = np.array([[-1.0, 2.0], [3.0, -4.0]], dtype=np.float32)
    for source in (str(path), path, relu_model, bytearray(relu_model), memoryview(relu_model)):
        (y,) = hipinfer.InferenceSession(source).run(None, {"x": x})
        np.testing.assert_array_equal(y, np.maximum(x, 0))
    with pytest.raises(TypeError, match="Unable to load from type"):
        hipinfer.InferenceSession(12)


def test_node_args(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    (x,), (y,) = session.get_inputs(), session.get_outputs()
    assert (x.name, x.type, x.shape, x.dtype) == ("x", "tensor(float)", ["batch", "n"], np.dtype("float32"))
    assert (y.name, y.type, y.shape) == ("y", "tensor(float)", ["batch", "n"])
    assert repr(x) == "NodeArg(name='x', type='tensor(float)', shape=['batch', 'n'])"


def test_run_output_names_and_formats(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    x = np.arange(-3, 3, dtype=np.float32).reshape(2, 3)
    expected = np.maximum(x, 0)
    for names in (None, [], ["y"]):
        (y,) = session.run(names, {"x": x})
        np.testing.assert_array_equal(y, expected)
    (t,) = session.run(None, {"x": x}, output_format="dlpack")
    assert isinstance(t, hipinfer.Tensor)
    assert (t.shape, t.dtype, t.device, t.ndim, t.size) == ((2, 3), "float32", "cpu", 2, 6)
    np.testing.assert_array_equal(np.from_dlpack(t), expected)
    np.testing.assert_array_equal(np.asarray(t), expected)
    with pytest.raises(hipinfer.InvalidArgument, match="output_format"):
        session.run(None, {"x": x}, output_format="torch")
    with pytest.raises(TypeError):
        session.run("y", {"x": x})
    with pytest.raises(TypeError):
        session.run(None, [x])


def test_python_values_take_the_declared_type(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    for value in ([[1.0, -1.0]], ((1, -1),), [[np.float64(1), np.int64(-1)]]):
        (y,) = session.run(None, {"x": value})  # lists, tuples and numpy scalars: converted to float32
        assert y.dtype == np.float32
        np.testing.assert_array_equal(y, [[1, 0]])
    # An array keeps its dtype: a float64 array for a float32 input is refused, as in onnxruntime.
    with pytest.raises(hipinfer.InvalidArgument, match="expected float32, got float64"):
        session.run(None, {"x": np.array([[1.0, -1.0]])})
    with pytest.raises(hipinfer.InvalidArgument, match="input 'x': a list cannot be converted to the declared float32"):
        session.run(None, {"x": [["one", "two"]]})


def test_providers_cpu_and_names():
    assert hipinfer.get_available_providers() == ["CPUExecutionProvider"]
    assert "ROCMExecutionProvider" in hipinfer.get_all_providers()
    assert "MIGraphXExecutionProvider" in hipinfer.get_all_providers()
    assert hipinfer.get_device() == "CPU"


@pytest.mark.parametrize("providers", [
    None, [], ["CPUExecutionProvider"], ["cpu"], [("CPUExecutionProvider", {"arena_extend_strategy": "kSameAsRequested"})],
])
def test_cpu_providers_do_not_warn(relu_model, providers):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        session = hipinfer.InferenceSession(relu_model, providers=providers)
    assert session.get_providers() == ["CPUExecutionProvider"]
    assert session.device == "cpu"


@pytest.mark.parametrize("provider", [
    "ROCMExecutionProvider", "MIGraphXExecutionProvider", "CUDAExecutionProvider", "TensorrtExecutionProvider",
    "cuda", "hip:0", "gpu", ("CUDAExecutionProvider", {"device_id": 0}),
])
def test_gpu_provider_falls_back_to_cpu_with_a_reason(relu_model, provider):
    name = provider[0] if isinstance(provider, tuple) else provider
    with pytest.warns(hipinfer.ProviderFallbackWarning, match=f"{name} was requested, but .*using CPUExecutionProvider"):
        session = hipinfer.InferenceSession(relu_model, providers=[provider, "CPUExecutionProvider"])
    assert session.get_providers() == ["CPUExecutionProvider"]
    (y,) = session.run(None, {"x": np.ones((1, 2), np.float32)})
    np.testing.assert_array_equal(y, np.ones((1, 2)))


def test_log_severity_silences_fallback_warning(relu_model):
    options = hipinfer.SessionOptions()
    options.log_severity_level = 3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        session = hipinfer.InferenceSession(relu_model, options, providers=["ROCMExecutionProvider"])
    assert session.get_providers() == ["CPUExecutionProvider"]


def test_unknown_provider_warns_like_onnxruntime(relu_model):
    with pytest.warns(UserWarning, match="Specified provider 'FooExecutionProvider' is not in available provider"):
        session = hipinfer.InferenceSession(relu_model, providers=["FooExecutionProvider"])
    assert session.get_providers() == ["CPUExecutionProvider"]


def test_bad_provider_arguments(relu_model):
    with pytest.raises(ValueError):
        hipinfer.InferenceSession(relu_model, providers="CPUExecutionProvider")
    with pytest.raises(ValueError, match="same length"):
        hipinfer.InferenceSession(relu_model, providers=["CPUExecutionProvider"], provider_options=[{}, {}])
    with pytest.raises(ValueError, match="device_id"):
        hipinfer.InferenceSession(relu_model, providers=[("CUDAExecutionProvider", {"device_id": "x"})])


def test_provider_options_and_set_providers(relu_model):
    session = hipinfer.InferenceSession(relu_model, providers=["CPUExecutionProvider"], provider_options=[{"a": 1}])
    assert session.get_provider_options() == {"CPUExecutionProvider": {"a": "1"}}
    session.set_providers(["CPUExecutionProvider"])
    assert session.get_providers() == ["CPUExecutionProvider"]


def test_session_options(relu_model):
    options = hipinfer.SessionOptions()
    assert options.graph_optimization_level == hipinfer.GraphOptimizationLevel.ORT_ENABLE_ALL
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    for level in list(hipinfer.GraphOptimizationLevel) + [0, 1, 2, 3]:
        options.graph_optimization_level = level
        options.intra_op_num_threads = 2
        options.inter_op_num_threads = 1
        options.execution_mode = hipinfer.ExecutionMode.ORT_PARALLEL
        options.enable_cpu_mem_arena = False
        options.add_session_config_entry("session.use_env_allocators", "1")
        session = hipinfer.InferenceSession(relu_model, options)
        assert session.get_session_options() is options
        np.testing.assert_array_equal(session.run(None, {"x": x})[0], np.maximum(x, 0))
    assert options.get_session_config_entry("session.use_env_allocators") == "1"
    with pytest.raises(hipinfer.InvalidArgument):
        options.graph_optimization_level = 7
    with pytest.raises(AttributeError):
        options.graph_optimisation_level = 1  # a typo is an error, not a silent no-op
    with pytest.raises(hipinfer.InvalidArgument, match="precision"):
        options.precision = "int8"
    with pytest.raises(hipinfer.Unsupported):
        options.register_custom_ops_library("libcustom.so")


def test_options_without_effect_say_so(relu_model):
    options = hipinfer.SessionOptions()
    options.precision = "fp16"
    with pytest.warns(UserWarning) as record:
        hipinfer.InferenceSession(relu_model, options)
    messages = " | ".join(str(w.message) for w in record)
    assert "precision='fp16' has no effect yet" in messages
    assert options.precision == "fp16"  # stored all the same


def test_tuning_times_new_shapes_into_the_kernel_cache(tmp_path, monkeypatch):
    """tuning=True times a convolution's kernels once and writes the winner to the kernel cache;
    the default times nothing and writes nothing; both give the reference's results."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper, TensorProto
    rng = np.random.default_rng(3)
    w = rng.normal(0, 0.2, (21, 21, 3, 3)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])], "conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 21, 9, 17])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("w", TensorProto.FLOAT, w.shape, w.flatten())])
    model = tmp_path / "conv.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    monkeypatch.setenv("HIPINFER_CACHE_DIR", str(tmp_path / "cache"))
    x = rng.normal(0, 1, (1, 21, 9, 17)).astype(np.float32)
    reference = hipinfer.SessionOptions()
    reference.graph_optimization_level = 0
    want = hipinfer.InferenceSession(str(model), reference).run(None, {"x": x})[0]
    got = hipinfer.InferenceSession(str(model)).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    assert not (tmp_path / "cache").exists()
    tuned = hipinfer.SessionOptions()
    tuned.tuning = True
    got = hipinfer.InferenceSession(str(model), tuned).run(None, {"x": x})[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    cached = "".join(f.read_text() for f in (tmp_path / "cache").glob("kernels-*.tsv"))
    assert "conv|" in cached and ",21,21," in cached


def test_memory_limit_is_the_sessions_own(relu_model):
    options = hipinfer.SessionOptions()
    options.memory_limit = 8192  # room to parse and build the model (counted too), not for a 16 KiB output
    limited = hipinfer.InferenceSession(relu_model, options)
    unlimited = hipinfer.InferenceSession(relu_model)  # created after: inherits nothing
    x = np.ones((64, 64), np.float32)
    with pytest.raises(hipinfer.OutOfMemory, match="node 'relu'.*session's memory limit of 8 KiB"):
        limited.run(None, {"x": x})
    (y,) = unlimited.run(None, {"x": x})
    assert y.shape == (64, 64)
    assert hipinfer.memory_stats()["limit_bytes"] > 8192  # the process-wide cap is untouched
    hipinfer.set_memory_limit(1024)  # the process-wide cap applies to every session
    try:
        with pytest.raises(hipinfer.OutOfMemory, match="exceeds the host memory limit"):
            unlimited.run(None, {"x": x})
    finally:
        hipinfer.set_memory_limit(0)


def test_run_options_terminate(relu_model):
    session = hipinfer.InferenceSession(relu_model)
    run_options = hipinfer.RunOptions()
    run_options.terminate = True
    with pytest.raises(hipinfer.Cancelled, match="terminate"):
        session.run(None, {"x": np.ones((1, 1), np.float32)}, run_options)
    assert issubclass(hipinfer.Cancelled, hipinfer.RuntimeFailure)
    run_options.terminate = False
    session.run(None, {"x": np.ones((1, 1), np.float32)}, run_options)
    with pytest.raises(TypeError, match="run_options"):
        session.run(None, {"x": np.ones((1, 1), np.float32)}, {"terminate": True})


def endless_loop_model():
    """y = Loop(2^62 iterations) of acc + 1: a run that never ends by itself."""
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    body = h.make_graph([h.make_node("Add", ["acc", "one"], ["next"], name="step")], "body",
                        [h.make_tensor_value_info("i", T.INT64, []), h.make_tensor_value_info("c", T.BOOL, []),
                         h.make_tensor_value_info("acc", T.FLOAT, [1])],
                        [h.make_tensor_value_info("c", T.BOOL, []), h.make_tensor_value_info("next", T.FLOAT, [1])])
    g = h.make_graph([h.make_node("Loop", ["M", "", "x"], ["y"], name="endless", body=body)], "g",
                     [h.make_tensor_value_info("M", T.INT64, []), h.make_tensor_value_info("x", T.FLOAT, [1])],
                     [h.make_tensor_value_info("y", T.FLOAT, [1])],
                     [h.make_tensor("one", T.FLOAT, [1], [1.0])])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)]).SerializeToString()


def test_run_options_timeout_and_terminate_from_another_thread():
    import threading
    import time
    session = hipinfer.InferenceSession(endless_loop_model())
    feed = {"M": np.array(2**62, np.int64), "x": np.zeros(1, np.float32)}
    run_options = hipinfer.RunOptions()
    run_options.timeout_ms = 200
    start = time.monotonic()
    with pytest.raises(hipinfer.DeadlineExceeded, match="time limit of 200 ms"):
        session.run(None, feed, run_options)
    assert time.monotonic() - start < 1.2
    with pytest.raises(hipinfer.InvalidArgument, match="timeout_ms"):
        run_options.timeout_ms = -1

    stopper = hipinfer.RunOptions()
    asked = []
    timer = threading.Timer(0.15, lambda: (asked.append(time.monotonic()), setattr(stopper, "terminate", True)))
    timer.start()
    with pytest.raises(hipinfer.Cancelled, match="terminate"):
        session.run(None, feed, stopper)
    assert time.monotonic() - asked[0] < 1.0
    # The session serves the next run normally; the config entry sets the timeout too.
    (y,) = session.run(None, {"M": np.array(7, np.int64), "x": np.zeros(1, np.float32)})
    assert y[0] == 7
    by_entry = hipinfer.RunOptions()
    by_entry.add_run_config_entry("hipinfer.timeout_ms", "100")
    assert by_entry.timeout_ms == 100
    with pytest.raises(TimeoutError):
        session.run(None, feed, by_entry)


def test_inspect_model(zoo):
    summary = hipinfer.inspect_model(str(zoo("mobilenetv2")))
    assert summary["unsupported"] == [] and summary["load_error"] == ""
    assert summary["op_histogram"]["Conv"] > 10
    assert summary["inputs"][0]["name"] == "input"


def test_bf16_precision_reaches_the_session(zoo):
    """precision='bf16' computes convolutions in bfloat16 where the CPU can (results close to
    fp32, not equal); elsewhere the same fp32 results. Either way no 'has no effect' warning."""
    model = zoo("mobilenetv2")
    feed = zoo_inputs("mobilenetv2")
    want = hipinfer.InferenceSession(model).run(None, feed)[0]
    options = hipinfer.SessionOptions()
    options.precision = "bf16"
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        session = hipinfer.InferenceSession(model, options)
    got = session.run(None, feed)[0]
    # bfloat16 keeps 8 bits of mantissa; through the zoo's random-weight network the logits move by
    # up to about 15 % of their range (docs/performance.md), but they stay the same signal.
    assert float(np.abs(got - want).max()) <= 0.3 * float(np.abs(want).max())
    assert np.corrcoef(got.ravel(), want.ravel())[0, 1] > 0.95
    cpu_flags = open("/proc/cpuinfo").read() if os.path.exists("/proc/cpuinfo") else ""
    if "avx512_bf16" in cpu_flags or "amx_bf16" in cpu_flags:
        assert not np.array_equal(got, want), "bf16 was asked for and the CPU has it, yet results equal fp32's"


def test_disabled_optimizers_skip_passes_by_name(zoo):
    """onnxruntime's disabled_optimizers keyword, with hipinfer's pass names: MobileNetV2 without
    its inverted residual fusion gives the same logits within float32 rounding; an unknown name
    fails the load and lists the passes."""
    model = zoo("mobilenetv2")
    feed = zoo_inputs("mobilenetv2")
    want = hipinfer.InferenceSession(model).run(None, feed)[0]
    plain = hipinfer.InferenceSession(model, disabled_optimizers=["fuse_inverted_residual", "fuse_gemm"])
    got = plain.run(None, feed)[0]
    assert float(np.abs(got - want).max()) <= 1e-4 * float(np.abs(want).max())
    with pytest.raises(hipinfer.InvalidArgument, match="no graph pass is named 'fuse_all'.*fuse_inverted_residual"):
        hipinfer.InferenceSession(model, disabled_optimizers=["fuse_all"])
    with pytest.raises(TypeError, match="list of pass names"):
        hipinfer.InferenceSession(model, disabled_optimizers="fuse_gemm")
