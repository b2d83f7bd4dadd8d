// _hipinfer: the Python extension module (nanobind) over the public C++ API in include/hipinfer/.
//
// It stays small on purpose: tensors in and out, sessions, memory statistics, GPU queries and the
// doctor. The onnxruntime-style API (InferenceSession, providers, options) is Python, in
// python/hipinfer/. What this file guarantees:
// - A failed hi::Status becomes a Python exception in one place (raise_status): the class follows
//   the StatusCode, the message is the C++ message unchanged, and `.code` holds the code's name.
// - The GIL is released while a model loads or runs, and while the GPU runtime or the doctor is
//   queried; sessions are run from any number of threads (hi::Session::run is const).
// - Zero copy on the CPU: a C-contiguous input array is wrapped, not copied (the tensor's owner
//   holds a reference to the array and takes the GIL to drop it); an output's storage is handed
//   to numpy / DLPack (a capsule owns a copy of the storage's shared_ptr). An output whose
//   storage is shared with anything else (an input passed through, a constant of the model) is
//   copied first, so writing into a returned array can never change the model or an input.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hipinfer/device.h"
#include "hipinfer/doctor.h"
#include "hipinfer/model_info.h"
#include "hipinfer/session.h"
#include "hipinfer/tensor.h"
#include "hipinfer/version.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// ---- Errors ------------------------------------------------------------------------------------

// Thrown by the binding code for a failed Status; the translator below turns it into Python.
struct StatusError {
  hi::Status status;
};

constexpr int kNumCodes = static_cast<int>(hi::StatusCode::kInternal) + 1;
PyObject* g_error_types[kNumCodes] = {};  // one Python exception class per StatusCode
PyObject* g_base_error = nullptr;         // hipinfer.HipinferError

void raise_status(const hi::Status& status) {
  const int code = static_cast<int>(status.code());
  PyObject* type = code > 0 && code < kNumCodes && g_error_types[code] ? g_error_types[code] : g_base_error;
  nb::object message = nb::steal(
      PyUnicode_DecodeUTF8(status.message().data(), static_cast<Py_ssize_t>(status.message().size()), "replace"));
  nb::object exc = nb::steal(PyObject_CallOneArg(type, message.ptr()));
  if (!exc.is_valid()) return;  // the constructor raised; that error stands
  PyErr_SetObject(type, exc.ptr());
}

[[noreturn]] void throw_status(hi::Status status) { throw StatusError{std::move(status)}; }

template <typename T>
T value_or_throw(hi::Result<T>&& result) {
  if (!result.is_ok()) throw_status(result.status());
  return std::move(result).value();
}

// Creates hipinfer.<name> deriving from `bases` (a class or a tuple of classes); `code` (the
// StatusCode's name) is a class attribute, so errors raised from Python code carry it too.
PyObject* add_error(nb::module_& m, const char* name, nb::handle bases, const char* doc,
                    std::optional<hi::StatusCode> code = std::nullopt) {
  const std::string qualified = std::string("hipinfer.") + name;
  nb::dict attrs;
  attrs["code"] = code ? nb::object(nb::str(hi::status_code_name(*code))) : nb::none();
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), attrs.ptr());
  if (!type) throw nb::python_error();
  m.attr(name) = nb::borrow(type);  // the module keeps it alive for as long as it lives
  return type;
}

void register_errors(nb::module_& m) {
  g_base_error = add_error(m, "HipinferError", PyExc_RuntimeError,
                           "Base class of every error hipinfer raises. `code` is the C++ StatusCode's name "
                           "(\"InvalidArgument\", \"Unsupported\", ...); the message is the C++ message.");
  auto both = [](PyObject* a, PyObject* b) { return nb::make_tuple(nb::handle(a), nb::handle(b)); };
  using hi::StatusCode;
  auto add = [&](StatusCode c, const char* name, nb::handle bases, const char* doc) {
    g_error_types[static_cast<int>(c)] = add_error(m, name, bases, doc, c);
  };
  add(StatusCode::kInvalidArgument, "InvalidArgument", both(g_base_error, PyExc_ValueError),
      "The caller passed something wrong: an input's name, dtype or shape, or an option.");
  add(StatusCode::kInvalidModel, "InvalidModel", g_base_error,
      "The model file is unreadable, malformed or inconsistent.");
  add(StatusCode::kUnsupported, "Unsupported", both(g_base_error, PyExc_NotImplementedError),
      "Valid, but hipinfer cannot do it (yet): an op, opset or dtype, or a GPU feature not built.");
  add(StatusCode::kNotFound, "NotFound", both(g_base_error, PyExc_FileNotFoundError),
      "A named thing (a model file, an input, an output) does not exist.");
  add(StatusCode::kOutOfMemory, "OutOfMemory", both(g_base_error, PyExc_MemoryError),
      "An allocation failed or would exceed the memory limit.");
  add(StatusCode::kRuntimeError, "RuntimeFailure", g_base_error, "Running failed (a kernel or device error).");
  PyObject* failure = g_error_types[static_cast<int>(StatusCode::kRuntimeError)];
  add(StatusCode::kCancelled, "Cancelled", failure, "The run was stopped by RunOptions.terminate.");
  add(StatusCode::kDeadlineExceeded, "DeadlineExceeded", both(failure, PyExc_TimeoutError),
      "The run went past RunOptions.timeout_ms.");
  add(StatusCode::kInternal, "InternalError", g_base_error, "A bug in hipinfer: please run `hipinfer report`.");

  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const StatusError& e) {
      raise_status(e.status);
    } catch (const hi::OutOfMemory& e) {  // host allocation outside a run (copies, clones)
      raise_status(hi::Status(hi::StatusCode::kOutOfMemory, e.what));
    }
  });
}

hi::Status invalid(const std::string& message) { return hi::Status(hi::StatusCode::kInvalidArgument, message); }
hi::Status unsupported(const std::string& message) { return hi::Status(hi::StatusCode::kUnsupported, message); }

// ---- dtypes ------------------------------------------------------------------------------------

using nb::dlpack::dtype_code;

std::optional<hi::DType> dtype_from_dlpack(nb::dlpack::dtype t) {
  if (t.lanes != 1) return std::nullopt;
  switch (static_cast<dtype_code>(t.code)) {
    case dtype_code::Int:
      switch (t.bits) {
        case 8: return hi::DType::kInt8;
        case 16: return hi::DType::kInt16;
        case 32: return hi::DType::kInt32;
        case 64: return hi::DType::kInt64;
      }
      break;
    case dtype_code::UInt:
      switch (t.bits) {
        case 8: return hi::DType::kUInt8;
        case 16: return hi::DType::kUInt16;
        case 32: return hi::DType::kUInt32;
        case 64: return hi::DType::kUInt64;
      }
      break;
    case dtype_code::Float:
      switch (t.bits) {
        case 16: return hi::DType::kFloat16;
        case 32: return hi::DType::kFloat32;
        case 64: return hi::DType::kFloat64;
      }
      break;
    case dtype_code::Bfloat:
      if (t.bits == 16) return hi::DType::kBFloat16;
      break;
    case dtype_code::Complex:
      if (t.bits == 64) return hi::DType::kComplex64;
      if (t.bits == 128) return hi::DType::kComplex128;
      break;
    case dtype_code::Bool:
      if (t.bits == 8) return hi::DType::kBool;
      break;
    case dtype_code::Float8_E4M3FN: return hi::DType::kFloat8E4M3FN;
    case dtype_code::Float8_E4M3FNUZ: return hi::DType::kFloat8E4M3FNUZ;
    case dtype_code::Float8_E5M2: return hi::DType::kFloat8E5M2;
    case dtype_code::Float8_E5M2FNUZ: return hi::DType::kFloat8E5M2FNUZ;
    default: break;
  }
  return std::nullopt;
}

std::optional<nb::dlpack::dtype> dlpack_from_dtype(hi::DType t) {
  auto make = [](dtype_code code, int bits) {
    nb::dlpack::dtype d;
    d.code = static_cast<uint8_t>(code);
    d.bits = static_cast<uint8_t>(bits);
    d.lanes = 1;
    return d;
  };
  switch (t) {
    case hi::DType::kInt8: return make(dtype_code::Int, 8);
    case hi::DType::kInt16: return make(dtype_code::Int, 16);
    case hi::DType::kInt32: return make(dtype_code::Int, 32);
    case hi::DType::kInt64: return make(dtype_code::Int, 64);
    case hi::DType::kUInt8: return make(dtype_code::UInt, 8);
    case hi::DType::kUInt16: return make(dtype_code::UInt, 16);
    case hi::DType::kUInt32: return make(dtype_code::UInt, 32);
    case hi::DType::kUInt64: return make(dtype_code::UInt, 64);
    case hi::DType::kFloat16: return make(dtype_code::Float, 16);
    case hi::DType::kFloat32: return make(dtype_code::Float, 32);
    case hi::DType::kFloat64: return make(dtype_code::Float, 64);
    case hi::DType::kBFloat16: return make(dtype_code::Bfloat, 16);
    case hi::DType::kComplex64: return make(dtype_code::Complex, 64);
    case hi::DType::kComplex128: return make(dtype_code::Complex, 128);
    case hi::DType::kBool: return make(dtype_code::Bool, 8);
    case hi::DType::kFloat8E4M3FN: return make(dtype_code::Float8_E4M3FN, 8);
    case hi::DType::kFloat8E4M3FNUZ: return make(dtype_code::Float8_E4M3FNUZ, 8);
    case hi::DType::kFloat8E5M2: return make(dtype_code::Float8_E5M2, 8);
    case hi::DType::kFloat8E5M2FNUZ: return make(dtype_code::Float8_E5M2FNUZ, 8);
    default: return std::nullopt;
  }
}

// DLPack device types whose memory the CPU can read (kDLCPU, kDLCUDAHost, kDLROCMHost,
// kDLCUDAManaged): the only ones hipinfer can take until the GPU backend exists.
bool host_accessible(int device_type) {
  return device_type == 1 || device_type == 3 || device_type == 11 || device_type == 13;
}

std::string device_string(int device_type, int device_id) {
  switch (device_type) {
    case 1: return "cpu";
    case 2: return "cuda:" + std::to_string(device_id);
    case 10: return "rocm:" + std::to_string(device_id);
    default: return "DLPack device type " + std::to_string(device_type) + ":" + std::to_string(device_id);
  }
}

// ---- Tensors in --------------------------------------------------------------------------------

using AnyArray = nb::ndarray<nb::ro>;

// Keeps an imported array alive for as long as a hi::Tensor points into it. The last reference
// can be dropped on a thread without the GIL (inside a run), so the deleter takes it.
struct ArrayOwner {
  AnyArray array;
};

void release_array_owner(void* p) {
  auto* owner = static_cast<ArrayOwner*>(p);
  if (!Py_IsInitialized()) return;  // interpreter gone: leak rather than touch it
  nb::gil_scoped_acquire gil;
  delete owner;
}

// Copies a strided array (strides in elements, possibly negative) into C order.
void copy_strided(const char* src, const int64_t* shape, const int64_t* strides, size_t ndim, size_t elem, char* dst) {
  std::vector<int64_t> index(ndim, 0);
  const int64_t total = [&] {
    int64_t n = 1;
    for (size_t i = 0; i < ndim; ++i) n *= shape[i];
    return n;
  }();
  for (int64_t k = 0; k < total; ++k) {
    int64_t offset = 0;
    for (size_t i = 0; i < ndim; ++i) offset += index[i] * strides[i];
    std::memcpy(dst + static_cast<size_t>(k) * elem, src + offset * static_cast<int64_t>(elem), elem);
    for (size_t i = ndim; i-- > 0;) {
      if (++index[i] < shape[i]) break;
      index[i] = 0;
    }
  }
}

// Any object with __dlpack__ or the buffer protocol -> hi::Tensor. C-contiguous host memory is
// wrapped (zero copy); other strides are copied. `as_dtype` reinterprets the elements (same
// size), for types the producer cannot name (bfloat16 from numpy arrives as uint16).
hi::Tensor tensor_from_array(const AnyArray& array, std::optional<int> as_dtype) {
  if (!host_accessible(array.device_type()))
    throw_status(
        unsupported("the array is on " + device_string(array.device_type(), array.device_id()) +
                    ", but this hipinfer runs models on the CPU only (its GPU backend is not built yet); pass a CPU "
                    "array (for a torch tensor: .cpu())"));
  auto dtype = dtype_from_dlpack(array.dtype());
  if (!dtype)
    throw_status(invalid("unsupported element type (DLPack code " + std::to_string(array.dtype().code) + ", " +
                         std::to_string(array.dtype().bits) + " bits, " + std::to_string(array.dtype().lanes) +
                         " lanes)"));
  if (as_dtype) {
    const auto target = static_cast<hi::DType>(*as_dtype);
    if (hi::dtype_size(target) != hi::dtype_size(*dtype))
      throw_status(invalid("cannot view " + hi::dtype_name(*dtype) + " elements as " + hi::dtype_name(target)));
    dtype = target;
  }
  const size_t ndim = array.ndim();
  hi::Shape shape(ndim);
  for (size_t i = 0; i < ndim; ++i) shape[i] = static_cast<int64_t>(array.shape(i));
  const int64_t numel = hi::shape_numel(shape);
  bool contiguous = true;
  if (array.stride_ptr()) {
    int64_t expected = 1;
    for (size_t i = ndim; i-- > 0;) {
      if (shape[i] != 1 && array.stride(i) != expected) contiguous = false;
      expected *= shape[i];
    }
  }
  if (numel == 0) return hi::Tensor::empty(*dtype, shape);
  if (contiguous) {
    std::shared_ptr<void> owner(new ArrayOwner{array}, release_array_owner);
    return hi::Tensor::wrap(*dtype, shape, const_cast<void*>(array.data()), std::move(owner));
  }
  hi::Tensor t = hi::Tensor::empty(*dtype, shape);
  copy_strided(static_cast<const char*>(array.data()), array.shape_ptr(), array.stride_ptr(), ndim,
               hi::dtype_size(*dtype), static_cast<char*>(t.raw()));
  return t;
}

// A string tensor from a flat list of str/bytes and a shape (strings are always copied).
hi::Tensor tensor_from_strings(const std::vector<std::string>& values, const hi::Shape& shape) {
  if (hi::shape_numel(shape) != static_cast<int64_t>(values.size()))
    throw_status(
        invalid("string tensor: " + std::to_string(values.size()) + " values for shape " + hi::shape_to_string(shape)));
  hi::Tensor t = hi::Tensor::empty(hi::DType::kString, shape);
  for (size_t i = 0; i < values.size(); ++i) t.strings()[i] = values[i];
  return t;
}

// ---- Tensors out -------------------------------------------------------------------------------

// A capsule that keeps the tensor's storage alive for whoever holds the exported array.
nb::capsule storage_capsule(const hi::Tensor& t) {
  auto* keep = new std::shared_ptr<void>(t.storage());
  return nb::capsule(keep, [](void* p) noexcept { delete static_cast<std::shared_ptr<void>*>(p); });
}

std::vector<size_t> shape_of(const hi::Tensor& t) {
  std::vector<size_t> s;
  for (int64_t d : t.shape()) s.push_back(static_cast<size_t>(d));
  return s;
}

// True when the tensor wraps memory imported from Python (tensor_from_array): memory hipinfer
// only borrows, which may be read-only (bytes, a read-only array), so it is exported read-only.
// Outputs of a run never are: run_session copies any output that shares storage.
bool is_borrowed(const hi::Tensor& t) {
  auto* deleter = std::get_deleter<void (*)(void*)>(t.storage());
  return deleter && *deleter == &release_array_owner;
}

// A view of the tensor for `Framework` (nb::numpy: a numpy array; nb::array_api: an object with
// __dlpack__), read-only when the memory is borrowed.
template <typename Framework>
nb::object export_view(const hi::Tensor& t, nb::dlpack::dtype dtype) {
  const auto shape = shape_of(t);
  if (is_borrowed(t))
    return nb::ndarray<Framework, nb::ro>(t.raw(), shape.size(), shape.data(), storage_capsule(t), nullptr, dtype,
                                          nb::device::cpu::value)
        .cast();
  return nb::ndarray<Framework>(const_cast<void*>(t.raw()), shape.size(), shape.data(), storage_capsule(t), nullptr,
                                dtype, nb::device::cpu::value)
      .cast();
}

nb::object numpy_module() { return nb::module_::import_("numpy"); }

// hi::Tensor -> numpy array sharing its memory (strings: an object array of str, copied).
// Per call of run() for every output, so the common case (a non-empty numeric tensor) touches
// neither the numpy module nor a shape list.
nb::object tensor_to_numpy(const hi::Tensor& t) {
  auto shape_tuple = [&] {
    nb::list shape;
    for (int64_t d : t.shape()) shape.append(d);
    return nb::tuple(shape);
  };
  if (t.dtype() == hi::DType::kString) {
    nb::object np = numpy_module();
    nb::list values;
    for (int64_t i = 0; i < t.numel(); ++i) {
      const std::string& s = t.strings()[i];
      values.append(nb::steal(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape")));
    }
    nb::object flat = np.attr("empty")(t.numel(), "dtype"_a = "object");
    flat[nb::slice(nb::none(), nb::none(), nb::none())] = values;
    return flat.attr("reshape")(shape_tuple());
  }
  nb::object bfloat16;
  auto dtype = dlpack_from_dtype(t.dtype());
  if (t.dtype() == hi::DType::kBFloat16) {
    // numpy has no bfloat16; ml_dtypes (what onnx and JAX use) gives it one.
    try {
      bfloat16 = nb::module_::import_("ml_dtypes").attr("bfloat16");
    } catch (const nb::python_error&) {
      throw_status(
          unsupported("a bfloat16 tensor needs the ml_dtypes package to become a numpy array "
                      "(pip install ml_dtypes), or use DLPack (output_format='dlpack')"));
    }
    dtype = dlpack_from_dtype(hi::DType::kUInt16);
  } else if (!dtype || static_cast<dtype_code>(dtype->code) > dtype_code::Bool) {
    throw_status(unsupported("numpy has no " + hi::dtype_name(t.dtype()) +
                             " type; use DLPack (output_format='dlpack') for this tensor"));
  }
  nb::object array;
  if (t.numel() == 0) {
    array = numpy_module().attr("empty")(
        shape_tuple(), "dtype"_a = hi::dtype_name(t.dtype() == hi::DType::kBFloat16 ? hi::DType::kUInt16 : t.dtype()));
  } else {
    array = export_view<nb::numpy>(t, *dtype);
  }
  return bfloat16.is_valid() ? array.attr("view")(bfloat16) : array;
}

// ---- Sessions ----------------------------------------------------------------------------------

// What InferenceSession's SessionOptions give beyond the load arguments.
struct LoadExtras {
  std::vector<std::string> disabled_passes;  // unknown names fail the load, listing the passes
  std::map<std::string, int64_t> free_dimension_overrides;
  std::map<std::string, hi::Tensor> initializers;  // shared with the caller's arrays
  bool profile = false;
  bool tune = false;  // SessionOptions.tuning: kernel_tuning "time"
};

hi::SessionOptions make_options(int optimization_level, int threads, int64_t memory_limit, const std::string& precision,
                                const std::vector<std::string>& devices, bool gpu_graphs, const LoadExtras& extras) {
  if (optimization_level < 0 || optimization_level > 3)
    throw_status(invalid("graph optimisation level must be 0..3, got " + std::to_string(optimization_level)));
  if (threads < 0) throw_status(invalid("threads must be >= 0, got " + std::to_string(threads)));
  if (memory_limit < 0) throw_status(invalid("memory_limit must be >= 0, got " + std::to_string(memory_limit)));
  hi::SessionOptions o;
  o.optimization_level = optimization_level;
  o.threads = threads;
  o.memory_limit = memory_limit;
  o.precision = precision;  // "fp32" or "bf16"; the session rejects anything else by name
  // The Python layer reads the provider list (hipinfer/_providers.py), warns there for each
  // provider it cannot use, and passes the devices it chose ("cuda", "cpu"); the session places
  // each node on the first of them with a kernel and reports every fallback (placement()).
  o.devices = devices;
  o.gpu_graphs = gpu_graphs;
  o.disabled_passes = extras.disabled_passes;
  o.free_dimension_overrides = extras.free_dimension_overrides;
  o.initializers = extras.initializers;
  o.profile = extras.profile;
  o.kernel_tuning = extras.tune ? "time" : "auto";
  return o;
}

std::unique_ptr<hi::Session> load_path(const std::string& path, int optimization_level, int threads,
                                       int64_t memory_limit, const std::string& precision,
                                       const std::vector<std::string>& devices, bool gpu_graphs,
                                       const std::vector<std::string>& disabled_passes,
                                       const std::map<std::string, int64_t>& free_dimension_overrides, bool profile,
                                       const std::map<std::string, hi::Tensor>& initializers, bool tune) {
  const hi::SessionOptions options =
      make_options(optimization_level, threads, memory_limit, precision, devices, gpu_graphs,
                   {disabled_passes, free_dimension_overrides, initializers, profile, tune});
  hi::Result<std::unique_ptr<hi::Session>> session = hi::Status::ok();
  {
    nb::gil_scoped_release nogil;
    session = hi::Session::create(path, options);
  }
  return value_or_throw(std::move(session));
}

std::unique_ptr<hi::Session> load_bytes(nb::bytes data, int optimization_level, int threads, int64_t memory_limit,
                                        const std::string& precision, const std::vector<std::string>& devices,
                                        bool gpu_graphs, const std::vector<std::string>& disabled_passes,
                                        const std::map<std::string, int64_t>& free_dimension_overrides, bool profile,
                                        const std::map<std::string, hi::Tensor>& initializers, bool tune) {
  const hi::SessionOptions options =
      make_options(optimization_level, threads, memory_limit, precision, devices, gpu_graphs,
                   {disabled_passes, free_dimension_overrides, initializers, profile, tune});
  hi::Result<std::unique_ptr<hi::Session>> session = hi::Status::ok();
  {
    nb::gil_scoped_release nogil;  // `data` is immutable and held by the caller's frame
    session = hi::Session::create_from_bytes(data.c_str(), data.size(), options);
  }
  return value_or_throw(std::move(session));
}

// Where each node runs: {"devices", "nodes": [{"node", "op", "device", "reason"}], "fallbacks",
// "summary", "table", "warnings"} (hipinfer run --explain prints the table).
nb::dict placement_dict(const hi::Session& s) {
  const hi::PlacementReport& p = s.placement();
  nb::list nodes;
  for (const hi::NodePlacement& n : p.nodes) {
    nb::dict e;
    e["node"] = n.node;
    e["op"] = n.op_type;
    e["device"] = n.device;
    e["reason"] = n.reason;
    nodes.append(e);
  }
  nb::dict d;
  d["devices"] = p.devices;
  d["nodes"] = nodes;
  d["fallbacks"] = p.fallbacks;
  d["summary"] = p.summary();
  d["table"] = p.table();
  d["warnings"] = s.warnings();
  return d;
}

// A run's output tensor as handed to Python. use_count 1 is the result map's own reference; more
// means an input, a constant of the model or another output holds the same buffer: a private copy.
hi::Tensor private_output(const hi::Tensor& t) { return t.storage() && t.storage().use_count() > 1 ? t.clone() : t; }

// Runs with the GIL released. Returns the outputs in the order asked for (all outputs, in model
// order, when `output_names` is empty); an output sharing storage with anything is copied first.
std::vector<hi::Tensor> run_session(const hi::Session& session, const std::map<std::string, hi::Tensor>& feed,
                                    const std::vector<std::string>& output_names, const hi::RunOptions* control,
                                    hi::RunStats* stats = nullptr) {
  // `feed` (and the Python Tensors behind it) outlives the run, so the last reference to an input
  // array is never dropped inside it.
  hi::Result<hi::TensorMap> result = hi::Status::ok();
  {
    nb::gil_scoped_release nogil;
    result = session.run(feed, output_names, stats, control);
  }
  hi::TensorMap outputs = value_or_throw(std::move(result));
  std::vector<std::string> names = output_names;
  if (names.empty())
    for (const auto& info : session.outputs()) names.push_back(info.name);
  std::vector<hi::Tensor> list;
  for (const auto& name : names) {
    auto it = outputs.find(name);
    if (it == outputs.end()) throw_status(hi::Status(hi::StatusCode::kInternal, "output '" + name + "' missing"));
    list.push_back(private_output(it->second));
  }
  return list;
}

// run() for the common call, a dict of numpy arrays in and numpy arrays out, without a Python
// Tensor object per input and output (a tenth of a small model's call). None when an input is not
// an ndarray of a type DLPack names (strings, bfloat16, other byte orders, array-likes): the
// caller then takes the general path, which converts or refuses them with its own messages.
nb::object run_session_arrays(const hi::Session& session, nb::dict feed, const std::vector<std::string>& output_names) {
  static const nb::handle ndarray = nb::object(numpy_module().attr("ndarray")).release();  // kept for good
  std::map<std::string, hi::Tensor> tensors;
  for (auto [key, value] : feed) {
    if (!nb::isinstance<nb::str>(key) || !value.type().is(ndarray)) return nb::none();
    AnyArray array;
    if (!nb::try_cast(value, array) || !dtype_from_dlpack(array.dtype()) || !host_accessible(array.device_type()))
      return nb::none();
    tensors.emplace(nb::cast<std::string>(key), tensor_from_array(array, std::nullopt));
  }
  nb::list outputs;
  for (const hi::Tensor& t : run_session(session, tensors, output_names, nullptr)) outputs.append(tensor_to_numpy(t));
  return outputs;
}

// run() plus what a profiled session records (InferenceSession's profiling): (outputs, wall ms of
// the run, [(node, op_type, ms, kernel)] in execution order; empty unless the session profiles).
nb::tuple run_session_profiled(const hi::Session& session, const std::map<std::string, hi::Tensor>& feed,
                               const std::vector<std::string>& output_names, const hi::RunOptions* control) {
  hi::RunStats stats;
  std::vector<hi::Tensor> outputs = run_session(session, feed, output_names, control, &stats);
  nb::list nodes;
  for (const hi::NodeTime& t : stats.node_times) nodes.append(nb::make_tuple(t.node, t.op_type, t.ms, t.kernel));
  return nb::make_tuple(outputs, stats.latency_ms, nodes);
}

// ---- Values that are not tensors: sequences, maps, ZipMap's sequences of maps --------------------

// (keys, values): two 1-D Tensors of one length (the Python side builds them from a dict).
hi::Map map_from_python(const nb::handle& obj, const std::string& what) {
  if (!nb::isinstance<nb::tuple>(obj) || nb::len(obj) != 2 || !nb::isinstance<hi::Tensor>(obj[0]) ||
      !nb::isinstance<hi::Tensor>(obj[1]))
    throw_status(invalid(what + ": a map must be given as a (keys, values) pair of Tensors"));
  return hi::Map{nb::cast<hi::Tensor>(obj[0]), nb::cast<hi::Tensor>(obj[1])};
}

// A Tensor; None (an absent optional); a list of Tensors (a sequence); a (keys, values) pair (a
// map); a list of pairs (a sequence of maps).
hi::Value value_from_python(const nb::handle& obj, const std::string& what) {
  if (obj.is_none()) return hi::Value{};
  if (nb::isinstance<hi::Tensor>(obj)) return hi::Value::of(nb::cast<hi::Tensor>(obj));
  if (nb::isinstance<nb::tuple>(obj)) return hi::Value::of_map(map_from_python(obj, what));
  if (!nb::isinstance<nb::list>(obj))
    throw_status(invalid(what + ": expected a Tensor, a list, a (keys, values) pair or None"));
  nb::list items = nb::borrow<nb::list>(obj);
  if (nb::len(items) > 0 && nb::isinstance<nb::tuple>(items[0])) {
    std::vector<hi::Map> maps;
    for (size_t i = 0; i < nb::len(items); ++i)
      maps.push_back(map_from_python(items[i], what + " element " + std::to_string(i)));
    return hi::Value::of_map_sequence(std::move(maps));
  }
  std::vector<hi::Tensor> tensors;
  for (size_t i = 0; i < nb::len(items); ++i) {
    if (!nb::isinstance<hi::Tensor>(items[i]))
      throw_status(invalid(what + " element " + std::to_string(i) + ": expected a Tensor"));
    tensors.push_back(nb::cast<hi::Tensor>(items[i]));
  }
  return hi::Value::of_sequence(std::move(tensors));
}

// Element i of a map's keys or values as a Python scalar (str, int or float), as onnxruntime
// gives map entries.
nb::object scalar_to_python(const hi::Tensor& t, int64_t i) {
  if (t.dtype() == hi::DType::kString) {
    const std::string& s = t.strings()[i];
    return nb::steal(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "surrogateescape"));
  }
  if (t.dtype() == hi::DType::kBool) return nb::bool_(t.as_int64(i) != 0);
  if (hi::dtype_is_integer(t.dtype())) return nb::int_(t.as_int64(i));
  return nb::float_(t.as_double(i));
}

nb::dict map_to_python(const hi::Map& m) {
  nb::dict d;
  for (int64_t i = 0; i < m.size(); ++i) d[scalar_to_python(m.keys, i)] = scalar_to_python(m.values, i);
  return d;
}

// Tensors stay Tensors (the Python side makes them numpy arrays or keeps them for DLPack);
// sequences become lists, maps dicts, an absent optional None.
nb::object value_to_python(const hi::Value& v) {
  switch (v.kind) {
    case hi::Value::Kind::kNone: return nb::none();
    case hi::Value::Kind::kTensor: return nb::cast(private_output(v.tensor));
    case hi::Value::Kind::kSequence: {
      nb::list l;
      for (const hi::Tensor& t : v.sequence) l.append(nb::cast(private_output(t)));
      return l;
    }
    case hi::Value::Kind::kMap: return v.maps.empty() ? nb::dict() : map_to_python(v.maps[0]);
    case hi::Value::Kind::kMapSequence: {
      nb::list l;
      for (const hi::Map& m : v.maps) l.append(map_to_python(m));
      return l;
    }
  }
  return nb::none();
}

// run() for models with values that are not tensors (Session::run_values), GIL released.
nb::list run_session_values(const hi::Session& session, const nb::dict& feed,
                            const std::vector<std::string>& output_names, const hi::RunOptions* control) {
  hi::ValueMap inputs;
  for (auto [name, obj] : feed) {
    const std::string key = nb::cast<std::string>(name);
    inputs[key] = value_from_python(obj, "input '" + key + "'");
  }
  hi::Result<hi::ValueMap> result = hi::Status::ok();
  {
    nb::gil_scoped_release nogil;
    result = session.run_values(inputs, output_names, nullptr, control);
  }
  hi::ValueMap outputs = value_or_throw(std::move(result));
  std::vector<std::string> names = output_names;
  if (names.empty())
    for (const auto& info : session.outputs()) names.push_back(info.name);
  nb::list list;
  for (const auto& name : names) {
    auto it = outputs.find(name);
    if (it == outputs.end()) throw_status(hi::Status(hi::StatusCode::kInternal, "output '" + name + "' missing"));
    list.append(value_to_python(it->second));
  }
  return list;
}

nb::dict tensor_info_dict(const hi::TensorInfo& info) {
  nb::dict d;
  d["name"] = info.name;
  d["dtype"] = static_cast<int>(info.dtype);
  d["dtype_name"] = hi::dtype_name(info.dtype);
  d["rank_known"] = info.rank_known;
  d["shape"] = info.shape;
  d["dim_names"] = info.dim_names;
  d["kind"] = info.kind;
  d["type"] = info.type;
  d["text"] = info.to_string();
  return d;
}

nb::list tensor_infos(const std::vector<hi::TensorInfo>& infos) {
  nb::list l;
  for (const auto& info : infos) l.append(tensor_info_dict(info));
  return l;
}

// ---- Devices, memory, inspect, doctor ---------------------------------------------------------

nb::dict query_gpus() {
  hi::GpuRuntimeInfo info;
  {
    nb::gil_scoped_release nogil;
    info = hi::query_gpus();
  }
  nb::dict d;
  d["compiled_backends"] = info.compiled_backends;
  d["runtime_version"] = info.runtime_version;
  d["driver_version"] = info.driver_version;
  d["no_gpu_reason"] = info.no_gpu_reason;
  nb::list backends;
  for (const auto& b : info.backends) {
    nb::dict e;
    e["name"] = b.name;
    e["runtime_version"] = b.runtime_version;
    e["driver_version"] = b.driver_version;
    e["device_count"] = b.device_count;
    e["no_gpu_reason"] = b.no_gpu_reason;
    e["warnings"] = b.warnings;
    backends.append(e);
  }
  d["backends"] = backends;
  nb::list devices;
  for (const auto& g : info.devices) {
    nb::dict e;
    e["index"] = g.index;
    e["backend"] = g.backend;
    e["name"] = g.name;
    e["arch"] = g.arch;
    e["total_memory"] = g.total_memory;
    e["free_memory"] = g.free_memory;
    e["multiprocessors"] = g.multiprocessors;
    e["warp_size"] = g.warp_size;
    e["compute_capability"] = nb::make_tuple(g.compute_major, g.compute_minor);
    e["pci_bus_id"] = g.pci_bus_id;
    devices.append(e);
  }
  d["devices"] = devices;
  return d;
}

nb::dict host_memory_stats() {
  const hi::HostMemoryStats s = hi::host_memory_stats();
  nb::dict d;
  d["allocated_bytes"] = s.allocated_bytes;
  d["peak_bytes"] = s.peak_bytes;
  d["allocations"] = s.allocations;
  d["limit_bytes"] = hi::host_allocation_limit();
  return d;
}

nb::dict inspect_model(const std::string& path) {
  hi::Result<hi::ModelSummary> result = hi::Status::ok();
  {
    nb::gil_scoped_release nogil;
    result = hi::inspect_model(path);
  }
  const hi::ModelSummary s = value_or_throw(std::move(result));
  nb::dict d;
  d["path"] = s.path;
  d["file_bytes"] = s.file_bytes;
  d["ir_version"] = s.ir_version;
  nb::dict opsets;
  for (const auto& [domain, version] : s.opsets) opsets[nb::str(domain.c_str())] = version;
  d["opsets"] = opsets;
  d["producer"] = s.producer;
  d["inputs"] = tensor_infos(s.inputs);
  d["outputs"] = tensor_infos(s.outputs);
  d["nodes"] = s.nodes;
  nb::dict ops;
  for (const auto& [op, count] : s.op_histogram) ops[nb::str(op.c_str())] = count;
  d["op_histogram"] = ops;
  d["parameters"] = s.parameters;
  d["parameter_bytes"] = s.parameter_bytes;
  d["flops"] = s.flops;
  d["unsupported"] = s.unsupported;
  d["load_error"] = s.load_error;
  return d;
}

// The doctor on this machine; `self_exe` is the binary whose shared libraries are checked (the
// extension module itself, as the Python process's own executable is the interpreter), and
// `python` the interpreter whose frameworks are read unless $HI_PYTHON names another.
nb::tuple run_doctor(const std::string& self_exe, const std::string& python) {
  std::string json, text;
  {
    nb::gil_scoped_release nogil;
    hi::doctor::DoctorOptions options;
    options.env = hi::doctor::environment_from_process();
    if (!python.empty()) options.env.emplace("HI_PYTHON", python);
    options.self_exe = self_exe;
    const hi::doctor::DoctorResult result = hi::doctor::run_doctor(options);
    json = hi::doctor::to_json(result);
    text = hi::doctor::format_text(result, false);
  }
  return nb::make_tuple(json, text);
}

}  // namespace

NB_MODULE(_hipinfer, m) {
  m.doc() = "hipinfer's C++ core. Use the `hipinfer` package, which builds the public API on it.";
  m.attr("__version__") = hi::version_string();
  m.attr("__git_commit__") = hi::git_commit();
  register_errors(m);

  nb::class_<hi::Tensor>(m, "Tensor",
                         "A tensor in hipinfer's memory (today: host memory). Outputs come back as numpy "
                         "arrays, or as Tensors with run(..., output_format='dlpack'). A Tensor exports "
                         "through DLPack (np.from_dlpack, torch.from_dlpack) and the array protocol, sharing "
                         "its memory.")
      .def_prop_ro(
          "shape",
          [](const hi::Tensor& t) {
            nb::list l;
            for (int64_t d : t.shape()) l.append(d);
            return nb::tuple(l);
          },
          "The dims, as a tuple of ints.")
      .def_prop_ro(
          "dtype", [](const hi::Tensor& t) { return hi::dtype_name(t.dtype()); },
          "The element type's name: 'float32', 'float16', 'bool', 'int64', 'bfloat16', 'string', ...")
      .def_prop_ro("ndim", &hi::Tensor::rank)
      .def_prop_ro("size", &hi::Tensor::numel, "The number of elements.")
      .def_prop_ro("nbytes", &hi::Tensor::nbytes)
      .def_prop_ro(
          "device", [](const hi::Tensor&) { return "cpu"; },
          "Where the data lives: 'cpu' (GPU tensors come with the GPU backend).")
      .def("numpy", &tensor_to_numpy,
           "A numpy array sharing this tensor's memory (string tensors: an object array, copied; bfloat16: "
           "an ml_dtypes.bfloat16 array). Read-only when the tensor wraps memory it borrowed "
           "(hipinfer.from_dlpack), writable for run outputs.")
      .def(
          "__array__",
          [](const hi::Tensor& t, nb::handle dtype, nb::handle copy) {
            nb::object a = tensor_to_numpy(t);
            if (!dtype.is_none()) a = a.attr("astype")(dtype, "copy"_a = false);
            if (!copy.is_none() && nb::cast<bool>(copy)) a = a.attr("copy")();
            return a;
          },
          "dtype"_a = nb::none(), "copy"_a = nb::none())
      .def(
          "__dlpack__",
          [](const hi::Tensor& t, nb::kwargs kwargs) {
            auto dtype = dlpack_from_dtype(t.dtype());
            if (!dtype) throw_status(unsupported("DLPack has no " + hi::dtype_name(t.dtype()) + " type"));
            // nanobind's ndarray object implements the protocol (max_version, dl_device, copy).
            nb::object view = export_view<nb::array_api>(t, *dtype);
            return view.attr("__dlpack__")(**kwargs);
          },
          "kwargs"_a, "DLPack export (the array API's __dlpack__): shares this tensor's memory.")
      .def(
          "__dlpack_device__", [](const hi::Tensor&) { return nb::make_tuple(1, 0); },
          "(kDLCPU, 0): the tensor's device in DLPack's terms.")
      .def("__repr__", [](const hi::Tensor& t) { return "hipinfer.Tensor(" + t.type_string() + ", cpu)"; });

  m.def("_tensor_from_array", &tensor_from_array, "array"_a, "as_dtype"_a = nb::none(),
        "Any object with __dlpack__ or the buffer protocol -> Tensor; wraps C-contiguous host memory "
        "without copying (the Tensor keeps the object alive), copies other strides.");
  m.def("_tensor_from_strings", &tensor_from_strings, "values"_a, "shape"_a);

  nb::class_<hi::Session>(m, "Session", "A loaded, validated model (hi::Session). Use hipinfer.InferenceSession.")
      .def_static("load", &load_path, "path"_a, "optimization_level"_a = 3, "threads"_a = 0, "memory_limit"_a = 0,
                  "precision"_a = "fp32", "devices"_a = std::vector<std::string>{"cpu"}, "gpu_graphs"_a = true,
                  "disabled_passes"_a = std::vector<std::string>{},
                  "free_dimension_overrides"_a = std::map<std::string, int64_t>{}, "profile"_a = false,
                  "initializers"_a = std::map<std::string, hi::Tensor>{}, "tune"_a = false)
      .def_static("load_bytes", &load_bytes, "data"_a, "optimization_level"_a = 3, "threads"_a = 0,
                  "memory_limit"_a = 0, "precision"_a = "fp32", "devices"_a = std::vector<std::string>{"cpu"},
                  "gpu_graphs"_a = true, "disabled_passes"_a = std::vector<std::string>{},
                  "free_dimension_overrides"_a = std::map<std::string, int64_t>{}, "profile"_a = false,
                  "initializers"_a = std::map<std::string, hi::Tensor>{}, "tune"_a = false)
      .def("placement", &placement_dict, "Where each node runs and why each fallback happened.")
      .def("inputs", [](const hi::Session& s) { return tensor_infos(s.inputs()); })
      .def("outputs", [](const hi::Session& s) { return tensor_infos(s.outputs()); })
      .def(
          "metadata",
          [](const hi::Session& s) {
            const hi::ModelMetadata& md = s.metadata();
            nb::dict d;
            d["producer_name"] = md.producer_name;
            d["producer_version"] = md.producer_version;
            d["domain"] = md.domain;
            d["description"] = md.description;
            d["graph_name"] = md.graph_name;
            d["graph_description"] = md.graph_description;
            d["version"] = md.version;
            d["custom_metadata_map"] = md.custom_metadata_map;
            return d;
          },
          "What the model file says about itself (ModelProto's metadata).")
      .def("run_profiled", &run_session_profiled, "inputs"_a, "output_names"_a, "control"_a.none(),
           "run() that also returns the run's wall ms and each node's time (a session loaded with profile=True).")
      .def(
          "run",
          [](const hi::Session& s, const std::map<std::string, hi::Tensor>& feed, const std::vector<std::string>& names,
             const hi::RunOptions* control) { return run_session(s, feed, names, control); },
          "inputs"_a, "output_names"_a = std::vector<std::string>{}, "control"_a = nb::none(),
          "Runs the model with the GIL released; safe from several threads at once.")
      .def("run_arrays", &run_session_arrays, "inputs"_a, "output_names"_a = std::vector<std::string>{},
           "run() from a dict of numpy arrays to a list of numpy arrays; None when an input needs the general path.")
      .def("run_values", &run_session_values, "inputs"_a, "output_names"_a = std::vector<std::string>{},
           "control"_a = nb::none(),
           "run() for any values: inputs Tensor, None, list of Tensors, (keys, values) or a list of those; "
           "outputs Tensor, None, list of Tensors, dict or list of dicts.")
      .def(
          "memory_stats",
          [](const hi::Session& s) {
            const hi::SessionMemoryStats m = s.memory_stats();
            nb::dict d;
            d["in_use_bytes"] = m.in_use_bytes;
            d["peak_bytes"] = m.peak_bytes;
            d["limit_bytes"] = m.limit_bytes;
            return d;
          },
          "Host memory the session holds now, its peak, and its limit (0: none of its own).");

  // hi::RunOptions: RunOptions.terminate and timeout_ms read and write it, so setting terminate
  // from another thread reaches a run in progress.
  nb::class_<hi::RunOptions>(m, "RunControl", "The C++ RunOptions behind hipinfer.RunOptions.")
      .def(nb::init<>())
      .def_prop_rw(
          "terminate", [](const hi::RunOptions& o) { return o.terminate.load(); },
          [](hi::RunOptions& o, bool v) { o.terminate = v; })
      .def_prop_rw(
          "timeout_ms", [](const hi::RunOptions& o) { return o.timeout_ms; },
          [](hi::RunOptions& o, double v) {
            if (!(v >= 0)) throw_status(invalid("timeout_ms must be >= 0 (0: none), got " + std::to_string(v)));
            o.timeout_ms = v;
          });

  m.def("host_memory_stats", &host_memory_stats,
        "Host tensor memory: allocated_bytes (live), peak_bytes, allocations (count since start), limit_bytes.");
  m.def("reset_host_peak", &hi::reset_host_peak);
  m.def(
      "set_host_allocation_limit",
      [](int64_t bytes) {
        if (bytes < 0) throw_status(invalid("the memory limit must be >= 0 (0: physical memory)"));
        hi::set_host_allocation_limit(bytes);
      },
      "bytes"_a);
  m.def("query_gpus", &query_gpus, "The GPUs every compiled backend sees, or why there are none (never fails).");
  m.def("inspect_model", &inspect_model, "path"_a);
  m.def("run_doctor", &run_doctor, "self_exe"_a, "python"_a, "Runs the doctor: returns (json, text).");
}
