"""OrtValue, run_with_ort_values and IOBinding, side by side with onnxruntime's on the same model:
same results, same sharing of the caller's memory, and bad use named."""
import numpy as np
import pytest

import hipinfer

from conftest import make_model


@pytest.fixture
def two_output_model() -> bytes:
    """y = Relu(x) + 1, z = Shape(x): float32[batch, n] -> float32[batch, n], int64[2]."""
    onnx = pytest.importorskip("onnx")
    h, T = onnx.helper, onnx.TensorProto
    one = h.make_tensor("one", T.FLOAT, [], [1.0])
    return make_model([h.make_node("Relu", ["x"], ["r"]), h.make_node("Add", ["r", "one"], ["y"]),
                       h.make_node("Shape", ["x"], ["z"])],
                      [h.make_tensor_value_info("x", T.FLOAT, ["batch", "n"])],
                      [h.make_tensor_value_info("y", T.FLOAT, ["batch", "n"]),
                       h.make_tensor_value_info("z", T.INT64, [2])], initializers=[one])


def _x(shape=(3, 5), seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_ort_value_describes_itself_as_onnxruntime_does(ort):
    x = _x()
    ours, theirs = hipinfer.OrtValue.ortvalue_from_numpy(x), ort.OrtValue.ortvalue_from_numpy(x)
    for method in ("shape", "element_type", "data_type", "device_name", "has_value", "is_tensor",
                   "is_sparse_tensor", "is_tensor_sequence", "data_ptr"):
        assert getattr(ours, method)() == getattr(theirs, method)(), method
    assert ours.numpy() is x or np.shares_memory(ours.numpy(), x)  # no copy
    made = hipinfer.OrtValue.ortvalue_from_shape_and_type([2, 4], np.int32)
    ref = ort.OrtValue.ortvalue_from_shape_and_type([2, 4], np.int32)
    assert (made.shape(), made.data_type()) == (ref.shape(), ref.data_type())
    made.update_inplace(np.arange(8, dtype=np.int32).reshape(2, 4))
    assert made.numpy().sum() == 28
    typed = hipinfer.OrtValue.ortvalue_from_numpy_with_onnx_type(np.zeros(3, np.uint16), 10)  # float16 bits
    assert typed.data_type() == "tensor(float16)"


def test_run_with_ort_values_matches_onnxruntime(ort, two_output_model):
    x = _x()
    ours = hipinfer.InferenceSession(two_output_model).run_with_ort_values(
        ["y", "z"], {"x": hipinfer.OrtValue.ortvalue_from_numpy(x)})
    ref = ort.InferenceSession(two_output_model, providers=["CPUExecutionProvider"]).run_with_ort_values(
        ["y", "z"], {"x": ort.OrtValue.ortvalue_from_numpy(x)})
    for a, b in zip(ours, ref):
        assert isinstance(a, hipinfer.OrtValue) and a.data_type() == b.data_type()
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    # run() takes OrtValues as inputs too.
    y = hipinfer.InferenceSession(two_output_model).run(["y"], {"x": hipinfer.OrtValue.ortvalue_from_numpy(x)})[0]
    np.testing.assert_array_equal(y, ref[0].numpy())


def test_io_binding_matches_onnxruntime_and_writes_bound_buffers(ort, two_output_model):
    x = _x((4, 7), seed=1)
    session = hipinfer.InferenceSession(two_output_model)
    ref_session = ort.InferenceSession(two_output_model, providers=["CPUExecutionProvider"])
    expected = ref_session.run(None, {"x": x})

    # Outputs into memory the caller owns: a buffer by pointer, and an OrtValue.
    y_buf = np.full((4, 7), -1.0, np.float32)
    z_val = hipinfer.OrtValue.ortvalue_from_shape_and_type([2], np.int64)
    binding = session.io_binding()
    binding.bind_input("x", "cpu", 0, np.float32, list(x.shape), x.ctypes.data)
    binding.bind_output("y", "cpu", 0, np.float32, [4, 7], y_buf.ctypes.data)
    binding.bind_ortvalue_output("z", z_val)
    session.run_with_iobinding(binding)
    np.testing.assert_array_equal(y_buf, expected[0])
    np.testing.assert_array_equal(z_val.numpy(), expected[1])
    assert binding.get_outputs()[1] is z_val

    # Outputs hipinfer allocates, read back as onnxruntime's are.
    binding = session.io_binding()
    binding.bind_cpu_input("x", x)
    binding.bind_output("z")
    binding.bind_output("y")
    session.run_with_iobinding(binding)
    ref_binding = ref_session.io_binding()
    ref_binding.bind_cpu_input("x", x)
    ref_binding.bind_output("z")
    ref_binding.bind_output("y")
    ref_session.run_with_iobinding(ref_binding)
    for a, b in zip(binding.copy_outputs_to_cpu(), ref_binding.copy_outputs_to_cpu()):
        np.testing.assert_array_equal(a, b)
    # A new input bound to the same binding: the next run sees it.
    binding.bind_cpu_input("x", -x)
    session.run_with_iobinding(binding)
    np.testing.assert_array_equal(binding.get_outputs()[1].numpy(), ref_session.run(["y"], {"x": -x})[0])


def test_bad_bindings_are_named(two_output_model):
    session = hipinfer.InferenceSession(two_output_model)
    binding = session.io_binding()
    with pytest.raises(hipinfer.InvalidArgument, match="'image' is not an input of the model; its inputs are 'x'"):
        binding.bind_cpu_input("image", _x())
    with pytest.raises(hipinfer.InvalidArgument, match="'w' is not an output of the model"):
        binding.bind_output("w")
    with pytest.raises(hipinfer.Unsupported, match="device_type 'cuda' is not supported; hipinfer binds host memory"):
        binding.bind_output("y", "cuda", 0)
    with pytest.raises(hipinfer.InvalidArgument, match="needs its element_type and shape"):
        binding.bind_output("y", "cpu", 0, None, None, 1234)
    binding.bind_cpu_input("x", _x())
    with pytest.raises(hipinfer.InvalidArgument, match="no output is bound"):
        session.run_with_iobinding(binding)
    small = hipinfer.OrtValue.ortvalue_from_shape_and_type([1, 5], np.float32)
    binding.bind_ortvalue_output("y", small)
    binding.bind_output("z")
    with pytest.raises(hipinfer.InvalidArgument, match=r"output 'y' is bound to float32\[1, 5\] but the result is "
                                                        r"float32\[3, 5\]"):
        session.run_with_iobinding(binding)
    assert not small.numpy().any()  # untouched
    other = hipinfer.InferenceSession(two_output_model).io_binding()
    with pytest.raises(hipinfer.InvalidArgument, match="must come from this session"):
        session.run_with_iobinding(other)
    with pytest.raises(TypeError, match="must be a hipinfer.OrtValue"):
        session.run_with_ort_values(None, {"x": _x()})
    with pytest.raises(hipinfer.InvalidArgument, match="shape .* has a negative dim"):
        hipinfer.OrtValue.ortvalue_from_shape_and_type([2, -1], np.float32)
    with pytest.raises(hipinfer.InvalidArgument, match="update_inplace: the array is float64"):
        small.update_inplace(np.zeros((1, 5)))
    with pytest.raises(hipinfer.InvalidArgument, match="ONNX element type 99"):
        hipinfer.OrtValue.ortvalue_from_shape_and_type([1], 99)
