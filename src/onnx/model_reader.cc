// ModelProto -> ir::Model, with every check a malformed or hostile file needs.
#include "onnx/model_reader.h"

#include "hipinfer/tensor_proto.h"
#include "ops/op.h"

#include "core/low_precision.h"
#include "core/memory_budget.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>
#include <onnx/onnx_pb.h>  // first: defines ONNX_API for the generated headers
#include <onnx/onnx-data.pb.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <utility>
#include <vector>

namespace hi::onnx_reader {
namespace {

namespace fs = std::filesystem;

// Context carried through the conversion: where we are, for messages and external data.
struct ReadContext {
  std::string display_name;  // the model's path, for messages
  std::string base_dir;      // folder external data must stay inside ("" = none allowed)
};

Status model_error(const ReadContext& ctx, const std::string& what) {
  return Status(StatusCode::kInvalidModel, ctx.display_name + ": " + what);
}

// A whole file's bytes: mapped read-only where the system can (no copy of a 100 MB model, no
// zero-filled buffer to fault in), read into memory where it cannot.
class FileBytes {
 public:
  FileBytes() = default;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  FileBytes(FileBytes&& o) noexcept
      : mapped_(std::exchange(o.mapped_, nullptr)), size_(o.size_), read_(std::move(o.read_)) {}
  ~FileBytes() {
    if (mapped_) munmap(mapped_, size_);
  }
  const char* data() const { return mapped_ ? static_cast<const char*>(mapped_) : read_.data(); }
  size_t size() const { return mapped_ ? size_ : read_.size(); }

  // Maps `fd`'s `size` bytes; false where the file system cannot map them.
  bool map(int fd, size_t size) {
    if (size == 0) return false;
    void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) return false;
    mapped_ = p;
    size_ = size;
    return true;
  }
  std::string& buffer() { return read_; }

 private:
  void* mapped_ = nullptr;
  size_t size_ = 0;
  std::string read_;
};

Result<FileBytes> read_whole_file(const std::string& path, const std::string& what) {
  std::error_code ec;
  if (!fs::exists(path, ec)) return error(StatusCode::kNotFound, "cannot open ", what, " '", path, "': no such file");
  if (fs::is_directory(path, ec))
    return error(StatusCode::kInvalidArgument, "cannot read ", what, " '", path, "': it is a directory");
  // Checked before opening: a FIFO without a writer would block the open, /dev/zero never ends.
  if (!fs::is_regular_file(path, ec))
    return error(StatusCode::kInvalidArgument, "cannot read ", what, " '", path,
                 "': not a regular file (a pipe, device or socket)");
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return error(StatusCode::kNotFound, "cannot open ", what, " '", path, "': ", std::strerror(errno));
  struct stat st {};
  FileBytes bytes;
  const bool sized = fstat(fd, &st) == 0 && st.st_size >= 0;
  if (sized && bytes.map(fd, static_cast<size_t>(st.st_size))) {
    close(fd);
    return bytes;
  }
  std::string& buffer = bytes.buffer();
  char chunk[1 << 16];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return error(StatusCode::kInvalidModel, "cannot read ", what, " '", path, "': ", std::strerror(err));
    }
    if (n == 0) break;
    buffer.append(chunk, static_cast<size_t>(n));
  }
  close(fd);
  return bytes;
}

// How deep protobuf lets messages nest while parsing (its default is 100). Each subgraph costs
// three levels (attribute -> graph -> node), so this leaves room for convert_graph's 64 levels
// of subgraphs; deeper means a hostile or broken file, which protobuf rejects without saying why.
constexpr int kMaxMessageDepth = 200;

// What nests deepest in a message that protobuf refused for its depth: the messages on the path
// past kMaxMessageDepth, and how many of them are graphs and types.
struct Nesting {
  bool too_deep = false;
  int graphs = 0, types = 0;
};

// Walks the wire format of `data` as a `root` message, descending only into fields that the
// schema says are messages, without recursion (an explicit stack), and stops as soon as the
// nesting passes kMaxMessageDepth. Used only after a failed parse, to say why it failed.
Nesting find_nesting(const void* data, size_t size, const google::protobuf::Descriptor* root) {
  using google::protobuf::FieldDescriptor;
  using google::protobuf::internal::WireFormatLite;
  google::protobuf::io::CodedInputStream in(static_cast<const uint8_t*>(data), static_cast<int>(size));
  in.SetTotalBytesLimit(INT_MAX);
  struct Frame {
    const google::protobuf::Descriptor* type;
    google::protobuf::io::CodedInputStream::Limit outer;
  };
  std::vector<Frame> stack = {{root, 0}};
  Nesting n;
  while (true) {
    if (stack.size() > 1 && in.BytesUntilLimit() == 0) {  // the innermost message ends here
      in.PopLimit(stack.back().outer);
      stack.pop_back();
      continue;
    }
    const uint32_t tag = in.ReadTag();
    if (tag == 0) break;  // the end, or bytes that are no message
    const FieldDescriptor* f =
        stack.back().type->FindFieldByNumber(static_cast<int>(WireFormatLite::GetTagFieldNumber(tag)));
    if (f && f->type() == FieldDescriptor::TYPE_MESSAGE &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      uint32_t length = 0;
      if (!in.ReadVarint32(&length) || length > static_cast<uint32_t>(INT_MAX)) break;
      stack.push_back({f->message_type(), in.PushLimit(static_cast<int>(length))});
      if (static_cast<int>(stack.size()) - 1 > kMaxMessageDepth) {
        n.too_deep = true;
        for (const Frame& fr : stack) {
          n.graphs += fr.type == onnx::GraphProto::descriptor() ? 1 : 0;
          n.types += fr.type == onnx::TypeProto::descriptor() ? 1 : 0;
        }
        return n;
      }
    } else if (!WireFormatLite::SkipField(&in, tag)) {
      break;
    }
  }
  return n;
}

// Parses `msg` with protobuf's limits. On failure, `why` is empty (the bytes are not such a
// message) or says that they nest deeper than kMaxMessageDepth, and what nests.
bool parse_limited(google::protobuf::Message* msg, const void* data, size_t size, std::string* why) {
  why->clear();
  if (size > static_cast<size_t>(INT_MAX)) return false;  // protobuf's own hard limit
  google::protobuf::io::ArrayInputStream raw(data, static_cast<int>(size));
  google::protobuf::io::CodedInputStream coded(&raw);
  coded.SetTotalBytesLimit(INT_MAX);
  coded.SetRecursionLimit(kMaxMessageDepth);
  if (msg->ParseFromCodedStream(&coded) && coded.ConsumedEntireMessage()) return true;
  const Nesting n = find_nesting(data, size, msg->GetDescriptor());
  if (!n.too_deep) return false;
  std::string what = "messages";
  // Which nests more: a subgraph costs 3 levels (the main graph is none), a type in a type 2.
  if (n.graphs > 1 && 3 * (n.graphs - 1) >= 2 * n.types)
    what = str("subgraphs (If/Loop/Scan bodies, ", n.graphs - 1, " levels so far; at most 64 are supported)");
  else if (n.types > 1) what = str("types (sequences, optionals or maps of each other, ", n.types, " levels so far)");
  *why = str("it nests ", what, " deeper than the reader's limit of ", kMaxMessageDepth, " protobuf message levels");
  return false;
}

// Protobuf's objects can take far more memory than their bytes on disk (an empty string costs 2
// bytes there and about 40 parsed, an empty message more), so a 100 MB model could need gigabytes
// before any check of ours runs. Models are parsed on an arena whose blocks are charged to this
// thread's memory budget (the session's limit, or the machine's memory): parsing past it throws
// OutOfMemory from the block allocation, and the arena frees what was built.
struct ChargedArena {
  // Each block carries the ScratchBytes that charged it, in a header before the block.
  static constexpr size_t kHeader = 32;
  static_assert(sizeof(ScratchBytes) <= kHeader && kHeader % alignof(std::max_align_t) == 0);

  static void* allocate(size_t size) {
    void* raw = std::malloc(size + kHeader);
    if (!raw) throw OutOfMemory{size, str("allocating ", size, " bytes while parsing failed")};
    try {
      new (raw) ScratchBytes(static_cast<int64_t>(size + kHeader));
    } catch (...) {
      std::free(raw);
      throw;
    }
    return static_cast<char*>(raw) + kHeader;
  }
  static void deallocate(void* block, size_t) {
    void* raw = static_cast<char*>(block) - kHeader;
    static_cast<ScratchBytes*>(raw)->~ScratchBytes();
    std::free(raw);
  }
  static google::protobuf::ArenaOptions options() {
    google::protobuf::ArenaOptions o;
    o.start_block_size = 256;  // protobuf's default: a tiny model under a tiny limit still loads
    o.max_block_size = 1 << 20;
    o.block_alloc = &allocate;
    o.block_dealloc = &deallocate;
    return o;
  }
};

Result<ir::ValueType> convert_type(const ReadContext& ctx, const onnx::TypeProto& tp, const std::string& where);

Result<Tensor> convert_tensor(const ReadContext& ctx, const onnx::TensorProto& tp, const std::string& where);
Result<Tensor> convert_sparse_tensor(const ReadContext& ctx, const onnx::SparseTensorProto& sp,
                                     const std::string& where);

// Where a tensor's external data lives, found and checked before the tensor is allocated.
struct ExternalData {
  fs::path path;
  std::string location;  // as written in the model, for messages
  int64_t offset = 0;
};

// Resolves and checks external data of `need` bytes for a tensor of `type` ("float32[2, 3]"):
// the file must lie inside the model's folder and hold the bytes at the offset.
Result<ExternalData> locate_external(const ReadContext& ctx, const onnx::TensorProto& tp, const std::string& where,
                                     const std::string& type, int64_t need) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : tp.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset" || kv.key() == "length") {
      char* end = nullptr;
      errno = 0;
      const long long v = std::strtoll(kv.value().c_str(), &end, 10);
      if (errno || end == kv.value().c_str() || *end || v < 0)
        return model_error(
            ctx, str(where, ": external data ", kv.key(), " '", kv.value(), "' is not a non-negative integer"));
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty()) return model_error(ctx, where + ": external data has no location");
  if (ctx.base_dir.empty())
    return model_error(ctx, where + ": external data '" + location + "' needs the model to be loaded from a file");
  const fs::path rel(location);
  if (rel.is_absolute())
    return model_error(ctx, where + ": external data location '" + location +
                                "' is absolute; it must be relative to the model's folder");
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::path(ctx.base_dir), ec);
  const fs::path full = fs::weakly_canonical(base / rel, ec);
  const std::string base_s = base.string() + "/";
  if (ec || full.string().compare(0, base_s.size(), base_s) != 0)
    return model_error(ctx, where + ": external data location '" + location + "' leaves the model's folder");
  struct stat st {};
  if (::stat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    return model_error(ctx, where + ": external data file '" + location + "' does not exist beside the model");
  const int64_t file_size = st.st_size;
  if (length >= 0 && length != need)
    return model_error(
        ctx, str(where, ": external data length ", length, " bytes does not match ", type, " (", need, " bytes)"));
  if (offset > file_size || need > file_size - offset)
    return model_error(ctx, str(where, ": external data '", location, "' at offset ", offset, " needs ", need,
                                " bytes but the file has ", file_size));
  return ExternalData{full, location, offset};
}

Status read_external(const ReadContext& ctx, const ExternalData& ext, const std::string& where, Tensor& t) {
  std::ifstream in(ext.path, std::ios::binary);
  in.seekg(ext.offset);
  const auto need = static_cast<std::streamsize>(t.nbytes());
  if (need > 0 && !in.read(static_cast<char*>(t.raw()), need))
    return model_error(ctx, where + ": short read of external data '" + ext.location + "'");
  return Status::ok();
}

// Bytes other than 0 and 1 in a bool tensor would be undefined behaviour when loaded as bool.
void normalize_bools(Tensor& t) {
  auto* p = static_cast<uint8_t*>(t.raw());
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = p[i] != 0;
}

// Copies a typed repeated field into the tensor with a conversion.
template <typename Dst, typename Field, typename Conv>
Status copy_field(const ReadContext& ctx, const std::string& where, const Field& field, Tensor& t, Conv conv,
                  const char* field_name) {
  if (static_cast<int64_t>(field.size()) != t.numel())
    return model_error(ctx, str(where, ": ", t.type_string(), " needs ", t.numel(), " values but ", field_name,
                                " holds ", field.size()));
  Dst* out = t.data<Dst>();
  for (int i = 0; i < field.size(); ++i) out[i] = conv(field.Get(i));
  return Status::ok();
}

Result<Tensor> convert_tensor(const ReadContext& ctx, const onnx::TensorProto& tp, const std::string& where_in) {
  const std::string where = where_in + (tp.name().empty() ? "" : " '" + tp.name() + "'");
  const auto dtype = static_cast<DType>(tp.data_type());
  if (tp.data_type() == 0) return model_error(ctx, where + ": tensor has no data type");
  Shape shape;
  for (int64_t d : tp.dims()) {
    if (d < 0) return model_error(ctx, str(where, ": dim ", d, " is negative"));
    shape.push_back(d);
  }
  const int64_t n = shape_numel(shape);
  if (n < 0) return model_error(ctx, where + ": shape " + shape_to_string(shape) + " overflows a 64-bit element count");
  if (!dtype_is_supported(dtype) || dtype_size(dtype) == 0)
    return error(StatusCode::kUnsupported, ctx.display_name, ": ", where, ": data type ", dtype_name(dtype),
                 " is not supported");
  const bool external = tp.data_location() == onnx::TensorProto::EXTERNAL;
  // Check the declared size against the bytes that back it before allocating anything, so a
  // forged dims field cannot make us allocate terabytes.
  const size_t elem = dtype_size(dtype);
  // int4/uint4/float4e2m1 and int2/uint2 are packed in the file (several per byte, also in
  // int32_data: one packed byte per entry) and unpacked to one element per byte in memory.
  const bool sub_byte = dtype_bits(dtype) > 0 && dtype_bits(dtype) < 8;
  const int64_t packed_bytes = sub_byte ? packed_size(dtype, n) : 0;
  if (dtype == DType::kString) {
    // External data is raw bytes; read into std::string objects it would corrupt the heap.
    if (external) return model_error(ctx, where + ": a string tensor cannot use external data");
    if (tp.string_data_size() != n)
      return model_error(ctx,
                         str(where, ": string tensor of ", n, " elements holds ", tp.string_data_size(), " strings"));
  } else if (!external && sub_byte) {
    const int64_t held = tp.has_raw_data() ? static_cast<int64_t>(tp.raw_data().size()) : tp.int32_data_size();
    if (held != packed_bytes)
      return model_error(ctx, str(where, ": declares ", dtype_name(dtype), shape_to_string(shape), " (", n,
                                  " elements, ", packed_bytes, " packed bytes) but holds ", held, " bytes in ",
                                  tp.has_raw_data() ? "raw_data" : "int32_data"));
  } else if (!external) {
    const uint64_t declared = static_cast<uint64_t>(n);
    uint64_t held = 0;
    if (tp.has_raw_data()) held = tp.raw_data().size() / elem;
    else
      held = static_cast<uint64_t>(tp.float_data_size() + tp.int32_data_size() + tp.int64_data_size() +
                                   tp.double_data_size() + tp.uint64_data_size());
    if (declared != held)
      return model_error(ctx, str(where, ": declares ", dtype_name(dtype), shape_to_string(shape), " (", n,
                                  " elements) but holds data for ", held));
  }
  const std::string type = dtype_name(dtype) + shape_to_string(shape);
  if (n > 0 && static_cast<uint64_t>(n) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / elem)
    return model_error(ctx, where + ": " + type + " overflows a 64-bit byte count");
  const int64_t bytes = n * static_cast<int64_t>(elem);
  // The external file must hold the bytes before we allocate for them.
  ExternalData ext;
  if (external) {
    HI_ASSIGN_OR_RETURN(ext, locate_external(ctx, tp, where, type, sub_byte ? packed_bytes : bytes));
  }
  if (bytes > host_allocation_limit())
    return error(StatusCode::kOutOfMemory, ctx.display_name, ": ", where, ": ", type,
                 " is larger than the host memory limit");
  Tensor t;
  try {
    t = Tensor::empty(dtype, shape);
  } catch (const OutOfMemory& e) {
    return error(StatusCode::kOutOfMemory, ctx.display_name, ": ", where, ": ", e.what);
  }
  if (sub_byte) {
    std::vector<uint8_t> packed(static_cast<size_t>(packed_bytes));
    if (external) {
      std::ifstream in(ext.path, std::ios::binary);
      in.seekg(ext.offset);
      if (packed_bytes > 0 && !in.read(reinterpret_cast<char*>(packed.data()), packed_bytes))
        return model_error(ctx, where + ": short read of external data '" + ext.location + "'");
    } else if (tp.has_raw_data()) {
      if (packed_bytes > 0) std::memcpy(packed.data(), tp.raw_data().data(), packed.size());
    } else {
      for (int i = 0; i < tp.int32_data_size(); ++i)
        packed[static_cast<size_t>(i)] = static_cast<uint8_t>(tp.int32_data(i));
    }
    unpack_sub_byte(dtype, packed.data(), n, static_cast<uint8_t*>(t.raw()));
    return t;
  }
  if (external) {
    HI_RETURN_IF_ERROR(read_external(ctx, ext, where, t));
    if (dtype == DType::kBool) normalize_bools(t);
    return t;
  }
  if (dtype == DType::kString) {
    for (int i = 0; i < tp.string_data_size(); ++i) t.strings()[i] = tp.string_data(i);
    return t;
  }
  if (tp.has_raw_data()) {
    if (tp.raw_data().size() != t.nbytes())
      return model_error(
          ctx, str(where, ": raw_data has ", tp.raw_data().size(), " bytes, ", t.type_string(), " needs ", t.nbytes()));
    if (n > 0) std::memcpy(t.raw(), tp.raw_data().data(), t.nbytes());
    if (dtype == DType::kBool) normalize_bools(t);
    return t;
  }
  auto as_is = [](auto v) { return v; };
  switch (dtype) {
    case DType::kFloat32:
      HI_RETURN_IF_ERROR(copy_field<float>(ctx, where, tp.float_data(), t, as_is, "float_data"));
      break;
    case DType::kFloat64:
      HI_RETURN_IF_ERROR(copy_field<double>(ctx, where, tp.double_data(), t, as_is, "double_data"));
      break;
    case DType::kInt64:
      HI_RETURN_IF_ERROR(copy_field<int64_t>(ctx, where, tp.int64_data(), t, as_is, "int64_data"));
      break;
    case DType::kUInt64:
      HI_RETURN_IF_ERROR(copy_field<uint64_t>(ctx, where, tp.uint64_data(), t, as_is, "uint64_data"));
      break;
    case DType::kUInt32:
      HI_RETURN_IF_ERROR(copy_field<uint32_t>(
          ctx, where, tp.uint64_data(), t, [](uint64_t v) { return static_cast<uint32_t>(v); }, "uint64_data"));
      break;
    case DType::kInt32:
      HI_RETURN_IF_ERROR(copy_field<int32_t>(ctx, where, tp.int32_data(), t, as_is, "int32_data"));
      break;
    case DType::kInt16:
      HI_RETURN_IF_ERROR(copy_field<int16_t>(
          ctx, where, tp.int32_data(), t, [](int32_t v) { return static_cast<int16_t>(v); }, "int32_data"));
      break;
    case DType::kUInt16:
      HI_RETURN_IF_ERROR(copy_field<uint16_t>(
          ctx, where, tp.int32_data(), t, [](int32_t v) { return static_cast<uint16_t>(v); }, "int32_data"));
      break;
    case DType::kInt8:
      HI_RETURN_IF_ERROR(copy_field<int8_t>(
          ctx, where, tp.int32_data(), t, [](int32_t v) { return static_cast<int8_t>(v); }, "int32_data"));
      break;
    case DType::kUInt8:
      HI_RETURN_IF_ERROR(copy_field<uint8_t>(
          ctx, where, tp.int32_data(), t, [](int32_t v) { return static_cast<uint8_t>(v); }, "int32_data"));
      break;
    case DType::kBool:
      HI_RETURN_IF_ERROR(copy_field<bool>(
          ctx, where, tp.int32_data(), t, [](int32_t v) { return v != 0; }, "int32_data"));
      break;
    case DType::kFloat16:
    case DType::kBFloat16:
      HI_RETURN_IF_ERROR(copy_field<uint16_t>(
          ctx, where, tp.int32_data(), t, [](int32_t v) { return static_cast<uint16_t>(v); }, "int32_data"));
      break;
    default:
      HI_RETURN_IF_ERROR(copy_field<uint8_t>(
          ctx, where, tp.int32_data(), t, [](int32_t v) { return static_cast<uint8_t>(v); }, "int32_data"));
      break;
  }
  return t;
}

Result<ir::ValueType> convert_type(const ReadContext& ctx, const onnx::TypeProto& tp, const std::string& where) {
  ir::ValueType vt;
  if (tp.has_sparse_tensor_type())
    return error(StatusCode::kUnsupported, ctx.display_name, ": ", where, ": sparse tensors are not supported");
  if (tp.has_tensor_type()) {
    const auto& tt = tp.tensor_type();
    vt.kind = ir::ValueKind::kTensor;
    vt.dtype = static_cast<DType>(tt.elem_type());
    if (tt.has_shape()) {
      std::vector<ir::Dim> dims;
      for (const auto& d : tt.shape().dim()) {
        if ((d.has_dim_value() && d.dim_value() < 0) || (d.has_dim_param() && d.dim_param() == "?")) {
          // Paddle2ONNX (PP-OCR among others) and older converters write -1, or the name "?",
          // for a dimension they do not know instead of leaving it unset; ONNX Runtime takes
          // either as dynamic, and so do we: "?" is not one symbol that binds every dim it
          // names to the same size. (A negative dim in a tensor's data stays an error.)
          dims.push_back(ir::Dim::named(""));
        } else if (d.has_dim_value()) {
          dims.push_back(ir::Dim::known(d.dim_value()));
        } else {
          dims.push_back(ir::Dim::named(d.dim_param()));
        }
      }
      vt.shape = std::move(dims);
    }
    return vt;
  }
  if (tp.has_sequence_type() || tp.has_optional_type()) {
    vt.kind = tp.has_sequence_type() ? ir::ValueKind::kSequence : ir::ValueKind::kOptional;
    const auto& inner = tp.has_sequence_type() ? tp.sequence_type().elem_type() : tp.optional_type().elem_type();
    HI_ASSIGN_OR_RETURN(auto e, convert_type(ctx, inner, where));
    vt.elem = std::make_shared<ir::ValueType>(std::move(e));
    return vt;
  }
  if (tp.has_map_type()) {
    vt.kind = ir::ValueKind::kMap;
    vt.dtype = static_cast<DType>(tp.map_type().key_type());
    HI_ASSIGN_OR_RETURN(auto v, convert_type(ctx, tp.map_type().value_type(), where));
    vt.elem = std::make_shared<ir::ValueType>(std::move(v));
    return vt;
  }
  vt.kind = ir::ValueKind::kUnknown;
  return vt;
}

Result<ir::Graph> convert_graph(const ReadContext& ctx, const onnx::GraphProto& gp, int depth);

Result<ir::Attribute> convert_attribute(const ReadContext& ctx, const onnx::AttributeProto& ap,
                                        const std::string& where, int depth) {
  using K = ir::Attribute::Kind;
  ir::Attribute a;
  const std::string w = where + " attribute '" + ap.name() + "'";
  // Inside a function body an attribute may refer to the caller's attribute by name.
  if (!ap.ref_attr_name().empty()) {
    a.s = ap.ref_attr_name();
    return a;
  }
  switch (ap.type()) {
    case onnx::AttributeProto::FLOAT:
      a.kind = K::kFloat;
      a.f = ap.f();
      break;
    case onnx::AttributeProto::INT:
      a.kind = K::kInt;
      a.i = ap.i();
      break;
    case onnx::AttributeProto::STRING:
      a.kind = K::kString;
      a.s = ap.s();
      break;
    case onnx::AttributeProto::TENSOR: {
      a.kind = K::kTensor;
      HI_ASSIGN_OR_RETURN(a.t, convert_tensor(ctx, ap.t(), w));
      break;
    }
    case onnx::AttributeProto::SPARSE_TENSOR: {  // as its dense tensor (Constant's sparse_value)
      a.kind = K::kTensor;
      HI_ASSIGN_OR_RETURN(a.t, convert_sparse_tensor(ctx, ap.sparse_tensor(), w));
      break;
    }
    case onnx::AttributeProto::GRAPH: {
      a.kind = K::kGraph;
      HI_ASSIGN_OR_RETURN(auto g, convert_graph(ctx, ap.g(), depth + 1));
      a.g = std::make_shared<ir::Graph>(std::move(g));
      break;
    }
    case onnx::AttributeProto::FLOATS:
      a.kind = K::kFloats;
      a.floats.assign(ap.floats().begin(), ap.floats().end());
      break;
    case onnx::AttributeProto::INTS:
      a.kind = K::kInts;
      a.ints.assign(ap.ints().begin(), ap.ints().end());
      break;
    case onnx::AttributeProto::STRINGS:
      a.kind = K::kStrings;
      a.strings.assign(ap.strings().begin(), ap.strings().end());
      break;
    case onnx::AttributeProto::TENSORS:
      a.kind = K::kTensors;
      for (const auto& t : ap.tensors()) {
        HI_ASSIGN_OR_RETURN(auto tt, convert_tensor(ctx, t, w));
        a.tensors.push_back(std::move(tt));
      }
      break;
    case onnx::AttributeProto::GRAPHS:
      a.kind = K::kGraphs;
      for (const auto& g : ap.graphs()) {
        HI_ASSIGN_OR_RETURN(auto gg, convert_graph(ctx, g, depth + 1));
        a.graphs.push_back(std::make_shared<ir::Graph>(std::move(gg)));
      }
      break;
    case onnx::AttributeProto::TYPE_PROTO: {
      a.kind = K::kTypeProto;
      HI_ASSIGN_OR_RETURN(a.type, convert_type(ctx, ap.tp(), w));
      break;
    }
    default:
      // Old exporters leave `type` unset; infer it from the one field that is filled.
      if (ap.has_f()) {
        a.kind = K::kFloat;
        a.f = ap.f();
      } else if (ap.has_i()) {
        a.kind = K::kInt;
        a.i = ap.i();
      } else if (ap.has_s()) {
        a.kind = K::kString;
        a.s = ap.s();
      } else if (ap.ints_size()) {
        a.kind = K::kInts;
        a.ints.assign(ap.ints().begin(), ap.ints().end());
      } else if (ap.floats_size()) {
        a.kind = K::kFloats;
        a.floats.assign(ap.floats().begin(), ap.floats().end());
      } else if (ap.strings_size()) {
        a.kind = K::kStrings;
        a.strings.assign(ap.strings().begin(), ap.strings().end());
      } else if (ap.has_t()) {
        a.kind = K::kTensor;
        HI_ASSIGN_OR_RETURN(a.t, convert_tensor(ctx, ap.t(), w));
      } else return model_error(ctx, w + " has no type and no value");
  }
  return a;
}

Result<ir::Node> convert_node(const ReadContext& ctx, const onnx::NodeProto& np, int index, int depth) {
  ir::Node n;
  n.name = np.name();
  n.op_type = np.op_type();
  n.domain = np.domain() == "ai.onnx" ? "" : np.domain();
  n.inputs.assign(np.input().begin(), np.input().end());
  n.outputs.assign(np.output().begin(), np.output().end());
  const std::string where = n.name.empty() ? str("node #", index, " (", n.op_type, ")") : n.describe();
  if (n.op_type.empty()) return model_error(ctx, where + " has no op_type");
  for (const auto& ap : np.attribute()) {
    if (ap.name().empty()) return model_error(ctx, where + " has an attribute without a name");
    HI_ASSIGN_OR_RETURN(auto a, convert_attribute(ctx, ap, where, depth));
    if (!ap.ref_attr_name().empty()) {
      a.s = ap.ref_attr_name();
      n.attributes["@ref:" + ap.name()] = a;  // resolved when a function is expanded
      continue;
    }
    if (!n.attributes.emplace(ap.name(), std::move(a)).second)
      return model_error(ctx, where + " has the attribute '" + ap.name() + "' twice");
  }
  return n;
}

// A SparseTensorProto as the dense tensor it stands for: `values` (rank 1, NNZ elements) at
// `indices` (int64, [NNZ] offsets into the dense tensor or [NNZ, rank] coordinates), zero (or
// "") elsewhere. Sparse initializers and the sparse_value of Constant are dense from here on.
Result<Tensor> convert_sparse_tensor(const ReadContext& ctx, const onnx::SparseTensorProto& sp,
                                     const std::string& where_in) {
  const std::string where = where_in + (sp.values().name().empty() ? "" : " '" + sp.values().name() + "'");
  Shape shape;
  for (int64_t d : sp.dims()) {
    if (d < 0) return model_error(ctx, str(where, ": dim ", d, " is negative"));
    shape.push_back(d);
  }
  const int64_t numel = shape_numel(shape);
  if (numel < 0) return model_error(ctx, where + ": shape " + shape_to_string(shape) + " overflows");
  HI_ASSIGN_OR_RETURN(const Tensor values, convert_tensor(ctx, sp.values(), where + ": values"));
  HI_ASSIGN_OR_RETURN(const Tensor indices, convert_tensor(ctx, sp.indices(), where + ": indices"));
  if (values.rank() != 1) return model_error(ctx, str(where, ": values must have rank 1, got ", values.type_string()));
  const int64_t nnz = values.numel(), rank = static_cast<int64_t>(shape.size());
  if (indices.dtype() != DType::kInt64)
    return model_error(ctx, str(where, ": indices must be int64, got ", indices.type_string()));
  const bool linear = indices.rank() == 1 && indices.dim(0) == nnz;
  const bool coordinates = indices.rank() == 2 && indices.dim(0) == nnz && indices.dim(1) == rank;
  if (nnz > 0 && !linear && !coordinates)
    return model_error(ctx, str(where, ": indices are ", indices.type_string(), "; ", nnz, " values in a rank-", rank,
                                " tensor need [", nnz, "] or [", nnz, ", ", rank, "]"));
  // The dense tensor may be far larger than the file: bound it before allocating.
  if (numel > host_allocation_limit() / static_cast<int64_t>(std::max<size_t>(dtype_size(values.dtype()), 1)))
    return error(StatusCode::kOutOfMemory, ctx.display_name, ": ", where, ": ", dtype_name(values.dtype()),
                 shape_to_string(shape), " is larger than the host memory limit");
  Tensor dense;
  try {
    dense = Tensor::zeros(values.dtype(), shape);
  } catch (const OutOfMemory& e) {
    return error(StatusCode::kOutOfMemory, ctx.display_name, ": ", where, ": ", e.what);
  }
  const int64_t* at = indices.data<int64_t>();
  const size_t elem = dtype_size(values.dtype());
  for (int64_t i = 0; i < nnz; ++i) {
    int64_t offset = 0;
    if (linear) {
      offset = at[i];
    } else {
      for (int64_t d = 0; d < rank; ++d) {
        const int64_t c = at[i * rank + d];
        if (c < 0 || c >= shape[static_cast<size_t>(d)])
          return model_error(ctx, str(where, ": value ", i, " has coordinate ", c, " on axis ", d, ", outside [0, ",
                                      shape[static_cast<size_t>(d)], ")"));
        offset = offset * shape[static_cast<size_t>(d)] + c;
      }
    }
    if (offset < 0 || offset >= numel)
      return model_error(ctx, str(where, ": value ", i, " has index ", offset, ", outside [0, ", numel, ")"));
    if (values.dtype() == DType::kString) dense.strings()[offset] = values.strings()[i];
    else
      std::memcpy(static_cast<char*>(dense.raw()) + offset * static_cast<int64_t>(elem),
                  static_cast<const char*>(values.raw()) + i * static_cast<int64_t>(elem), elem);
  }
  return dense;
}

Result<ir::Graph> convert_graph(const ReadContext& ctx, const onnx::GraphProto& gp, int depth) {
  if (depth > 64) return model_error(ctx, "subgraphs are nested more than 64 deep");
  ir::Graph g;
  g.name = gp.name();
  for (const auto& tp : gp.initializer()) {
    HI_ASSIGN_OR_RETURN(auto t, convert_tensor(ctx, tp, "initializer"));
    if (tp.name().empty()) return model_error(ctx, "an initializer has no name");
    if (!g.initializers.emplace(tp.name(), std::move(t)).second)
      return model_error(ctx, "initializer '" + tp.name() + "' is defined twice");
  }
  for (const auto& sp : gp.sparse_initializer()) {
    HI_ASSIGN_OR_RETURN(auto t, convert_sparse_tensor(ctx, sp, "sparse initializer"));
    const std::string& name = sp.values().name();
    if (name.empty()) return model_error(ctx, "a sparse initializer has no name (its values tensor names it)");
    if (!g.initializers.emplace(name, std::move(t)).second)
      return model_error(ctx, "initializer '" + name + "' is defined twice");
  }
  std::set<std::string> input_names;
  for (const auto& vi : gp.input()) {
    if (vi.name().empty()) return model_error(ctx, "a graph input has no name");
    if (!input_names.insert(vi.name()).second)
      return model_error(ctx, "graph input '" + vi.name() + "' is listed twice");
    HI_ASSIGN_OR_RETURN(auto type, convert_type(ctx, vi.type(), "input '" + vi.name() + "'"));
    if (g.initializers.count(vi.name())) g.overridable_initializers.push_back({vi.name(), std::move(type)});
    else g.inputs.push_back({vi.name(), std::move(type)});
  }
  for (const auto& vi : gp.output()) {
    HI_ASSIGN_OR_RETURN(auto type, convert_type(ctx, vi.type(), "output '" + vi.name() + "'"));
    g.outputs.push_back({vi.name(), std::move(type)});
  }
  for (const auto& vi : gp.value_info()) {
    HI_ASSIGN_OR_RETURN(auto type, convert_type(ctx, vi.type(), "value '" + vi.name() + "'"));
    g.value_infos.push_back({vi.name(), std::move(type)});
  }
  int index = 0;
  for (const auto& np : gp.node()) {
    HI_ASSIGN_OR_RETURN(auto n, convert_node(ctx, np, index++, depth));
    g.nodes.push_back(std::move(n));
  }
  return g;
}

Result<ir::Model> convert_model(const ReadContext& ctx, const onnx::ModelProto& mp) {
  ir::Model m;
  m.path = ctx.display_name;
  m.ir_version = mp.ir_version();
  m.producer_name = mp.producer_name();
  m.producer_version = mp.producer_version();
  m.domain = mp.domain();
  m.doc_string = mp.doc_string();
  m.model_version = mp.model_version();
  m.graph_doc_string = mp.graph().doc_string();
  // A key given twice keeps its last value (protobuf's rule for map fields, and onnxruntime's).
  for (const auto& kv : mp.metadata_props()) m.metadata_props[kv.key()] = kv.value();
  if (!mp.has_graph()) return model_error(ctx, "the model has no graph (is this an ONNX model?)");
  if (m.ir_version < kMinIrVersion || m.ir_version > kMaxIrVersion)
    return error(StatusCode::kUnsupported, ctx.display_name, ": IR version ", m.ir_version,
                 " is outside the supported range ", kMinIrVersion, "..", kMaxIrVersion);
  for (const auto& os : mp.opset_import()) {
    const std::string domain = os.domain() == "ai.onnx" ? "" : os.domain();
    m.opsets[domain] = os.version();
  }
  if (!m.opsets.count("")) m.opsets[""] = 1;  // IR 3 allows omitting it
  const int64_t opset = m.opsets[""];
  if (opset < kMinOpset || opset > kMaxOpset)
    return error(StatusCode::kUnsupported, ctx.display_name, ": default-domain opset ", opset,
                 " is outside the supported range ", kMinOpset, "..", kMaxOpset);
  for (const auto& fp : mp.functions()) {
    ir::Function f;
    f.name = fp.name();
    f.domain = fp.domain();
    f.inputs.assign(fp.input().begin(), fp.input().end());
    f.outputs.assign(fp.output().begin(), fp.output().end());
    f.attribute_names.assign(fp.attribute().begin(), fp.attribute().end());
    for (const auto& os : fp.opset_import()) f.opsets[os.domain() == "ai.onnx" ? "" : os.domain()] = os.version();
    int index = 0;
    for (const auto& np : fp.node()) {
      HI_ASSIGN_OR_RETURN(auto n, convert_node(ctx, np, index++, 1));
      f.nodes.push_back(std::move(n));
    }
    m.functions.push_back(std::move(f));
  }
  HI_ASSIGN_OR_RETURN(m.graph, convert_graph(ctx, mp.graph(), 0));
  return m;
}

}  // namespace

Result<ir::Model> read_model_bytes(const void* data, size_t size, const std::string& base_dir,
                                   const std::string& display_name) {
  ReadContext ctx{display_name, base_dir};
  if (size == 0) return model_error(ctx, "the model is empty (0 bytes)");
  // Without a session's budget (inspect), parsing is still bounded by the machine's memory.
  const auto budget = current_memory_budget() ? current_memory_budget() : std::make_shared<MemoryBudget>(0);
  const MemoryBudgetScope scope(budget);
  try {
    google::protobuf::Arena arena(ChargedArena::options());
    auto* mp = google::protobuf::Arena::CreateMessage<onnx::ModelProto>(&arena);
    std::string why;
    if (!parse_limited(mp, data, size, &why)) {
      if (!why.empty()) return model_error(ctx, "not a model hipinfer reads: " + why);
      return model_error(ctx, str("not a valid ONNX model: protobuf parsing failed (", size,
                                  " bytes; the file is truncated, corrupt, or not ONNX)"));
    }
    return convert_model(ctx, *mp);
  } catch (const OutOfMemory& oom) {
    return error(StatusCode::kOutOfMemory, ctx.display_name, ": parsing the model (", size, " bytes): ", oom.what);
  }
}

Result<ir::Model> read_model_file(const std::string& path) {
  HI_ASSIGN_OR_RETURN(auto bytes, read_whole_file(path, "model file"));
  std::error_code ec;
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  return read_model_bytes(bytes.data(), bytes.size(), dir, path);
}

namespace {

Result<Tensor> parse_tensor(const ReadContext& ctx, const void* data, size_t size, std::string* name) {
  onnx::TensorProto tp;
  std::string why;
  if (!parse_limited(&tp, data, size, &why))
    return model_error(ctx, why.empty() ? "not a serialized TensorProto" : why);
  if (name) *name = tp.name();
  return convert_tensor(ctx, tp, "tensor");
}

}  // namespace

Result<Tensor> parse_tensor_bytes(const void* data, size_t size, const std::string& display_name, std::string* name) {
  return parse_tensor(ReadContext{display_name, ""}, data, size, name);
}

Result<Tensor> read_tensor_file(const std::string& path, std::string* name) {
  HI_ASSIGN_OR_RETURN(auto bytes, read_whole_file(path, "tensor file"));
  return parse_tensor(ReadContext{path, fs::path(path).parent_path().string()}, bytes.data(), bytes.size(), name);
}

namespace {

Result<std::vector<Tensor>> convert_sequence(const ReadContext& ctx, const onnx::SequenceProto& sp) {
  std::vector<Tensor> elems;
  if (sp.elem_type() != onnx::SequenceProto::TENSOR) {
    const bool empty = sp.tensor_values_size() + sp.sequence_values_size() + sp.map_values_size() +
                           sp.optional_values_size() + sp.sparse_tensor_values_size() ==
                       0;
    if (sp.elem_type() == onnx::SequenceProto::UNDEFINED && empty) return elems;
    return error(StatusCode::kUnsupported, ctx.display_name, ": sequence of element type ",
                 onnx::SequenceProto::DataType_Name(sp.elem_type()), " (only sequences of tensors are supported)");
  }
  for (int i = 0; i < sp.tensor_values_size(); ++i) {
    HI_ASSIGN_OR_RETURN(auto t, convert_tensor(ctx, sp.tensor_values(i), str("sequence element ", i)));
    elems.push_back(std::move(t));
  }
  return elems;
}

Result<Value> parse_value(const ReadContext& ctx, const void* data, size_t size, const ir::ValueType& type) {
  switch (type.kind) {
    case ir::ValueKind::kSequence: {
      onnx::SequenceProto sp;
      std::string why;
      if (!parse_limited(&sp, data, size, &why))
        return model_error(ctx, why.empty() ? "not a serialized SequenceProto" : why);
      HI_ASSIGN_OR_RETURN(auto elems, convert_sequence(ctx, sp));
      return Value::of_sequence(std::move(elems));
    }
    case ir::ValueKind::kOptional: {
      onnx::OptionalProto op;
      std::string why;
      if (!parse_limited(&op, data, size, &why))
        return model_error(ctx, why.empty() ? "not a serialized OptionalProto" : why);
      // An empty optional may still name its element type (onnx's from_optional does).
      if (op.elem_type() == onnx::OptionalProto::TENSOR) {
        if (!op.has_tensor_value()) return Value{};
        HI_ASSIGN_OR_RETURN(auto t, convert_tensor(ctx, op.tensor_value(), "optional element"));
        return Value::of(std::move(t));
      }
      if (op.elem_type() == onnx::OptionalProto::SEQUENCE) {
        if (!op.has_sequence_value()) return Value{};
        HI_ASSIGN_OR_RETURN(auto elems, convert_sequence(ctx, op.sequence_value()));
        return Value::of_sequence(std::move(elems));
      }
      if (op.elem_type() == onnx::OptionalProto::UNDEFINED) return Value{};  // an empty optional
      return error(StatusCode::kUnsupported, ctx.display_name, ": optional of element type ",
                   onnx::OptionalProto::DataType_Name(op.elem_type()),
                   " (only tensors and sequences of tensors are supported)");
    }
    case ir::ValueKind::kMap:
      return error(StatusCode::kUnsupported, ctx.display_name, ": map values are not supported");
    case ir::ValueKind::kTensor:
    case ir::ValueKind::kUnknown: break;
  }
  HI_ASSIGN_OR_RETURN(auto t, parse_tensor(ctx, data, size, nullptr));
  return Value::of(std::move(t));
}

}  // namespace

Result<Value> parse_value_bytes(const void* data, size_t size, const ir::ValueType& type,
                                const std::string& display_name) {
  return parse_value(ReadContext{display_name, ""}, data, size, type);
}

Result<Value> read_value_file(const std::string& path, const ir::ValueType& type) {
  HI_ASSIGN_OR_RETURN(auto bytes, read_whole_file(path, "value file"));
  return parse_value(ReadContext{path, fs::path(path).parent_path().string()}, bytes.data(), bytes.size(), type);
}

}  // namespace hi::onnx_reader

namespace hi {

Result<Tensor> read_tensor_proto(const std::string& path, std::string* name) {
  return onnx_reader::read_tensor_file(path, name);
}

Result<Value> read_value_proto(const std::string& path, const std::string& type) {
  std::optional<ir::ValueType> t = ir::ValueType::from_ort_string(type);
  if (!t) return Status(StatusCode::kInvalidArgument, str(path, ": cannot read a value of type '", type, "'"));
  return onnx_reader::read_value_file(path, *t);
}

}  // namespace hi
