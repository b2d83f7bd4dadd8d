// NumPy .npy reading and writing; see include/hipinfer/npy.h for what is accepted and written.
//
// Format (numpy/lib/format.py): "\x93NUMPY", major and minor version bytes, the header length
// (uint16 little-endian for 1.0, uint32 for 2.0 and 3.0), then the header: a Python dict literal
// {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } padded with spaces and ending
// in '\n'. The raw array data follows the header immediately.
#include "hipinfer/npy.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace hi {
namespace {

namespace fs = std::filesystem;

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
constexpr size_t kMinPreamble = 10;          // magic, 2 version bytes, uint16 header length
constexpr size_t kAlign = 64;                // numpy's ARRAY_ALIGN
constexpr size_t kGrowthAxisMaxDigits = 21;  // numpy pads the header for in-place growth
constexpr int kMaxNesting = 32;              // nesting of (), [] and {} in the header literal
// numpy refuses headers over 10000 bytes unless told to trust the file; a plain array's header
// is under 100 bytes plus about 22 per dim, so this bound only stops hostile files.
constexpr uint64_t kMaxHeaderLen = 1 << 20;

Status bad(const std::string& name, const std::string& what) {
  return Status(StatusCode::kInvalidArgument, name + ": " + what);
}

// Up to `max` characters of `s` for a message, with non-printable bytes escaped.
std::string excerpt(std::string_view s, size_t max = 80) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

uint32_t read_le(const uint8_t* p, size_t n) {
  uint32_t v = 0;
  for (size_t i = 0; i < n; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

// ---------------------------------------------------------------------------------------------
// A parser for the Python literals a .npy header holds: dicts, tuples, lists, strings, integers,
// True, False and None. Anything else (floats, expressions) is a parse error.

struct PyValue {
  enum class Kind { kString, kInt, kBool, kNone, kTuple, kList, kDict };
  Kind kind = Kind::kNone;
  std::string s;               // kString
  int64_t i = 0;               // kInt (when !too_big)
  bool too_big = false;        // kInt that does not fit int64
  bool negative = false;       // kInt
  bool b = false;              // kBool
  std::vector<PyValue> items;  // kTuple, kList; kDict: keys and values alternate
  std::string text;            // the literal's source, for messages
};

class LiteralParser {
 public:
  explicit LiteralParser(std::string_view src) : src_(src) {}

  // Parses one literal followed only by whitespace; on failure `error` says where and why.
  std::optional<PyValue> parse_all(std::string* error) {
    auto v = parse_value(0);
    if (v) {
      skip_space();
      if (pos_ != src_.size()) fail("unexpected '" + excerpt(src_.substr(pos_), 20) + "' after the literal");
    }
    if (!error_.empty()) {
      *error = error_;
      return std::nullopt;
    }
    return v;
  }

 private:
  void fail(const std::string& why) {
    if (error_.empty()) error_ = str(why, " at offset ", pos_);
  }
  void skip_space() {
    while (pos_ < src_.size() && (src_[pos_] == ' ' || src_[pos_] == '\t' || src_[pos_] == '\n' || src_[pos_] == '\r' ||
                                  src_[pos_] == '\f' || src_[pos_] == '\v'))
      ++pos_;
  }
  bool peek(char c) {
    skip_space();
    return pos_ < src_.size() && src_[pos_] == c;
  }

  std::optional<PyValue> parse_value(int depth) {
    if (depth > kMaxNesting) {
      fail(str("literal nested more than ", kMaxNesting, " deep"));
      return std::nullopt;
    }
    skip_space();
    if (pos_ >= src_.size()) {
      fail("unexpected end of header");
      return std::nullopt;
    }
    const size_t start = pos_;
    std::optional<PyValue> v;
    const char c = src_[pos_];
    if (c == '{') v = parse_sequence(depth, '}', PyValue::Kind::kDict);
    else if (c == '(') v = parse_sequence(depth, ')', PyValue::Kind::kTuple);
    else if (c == '[') v = parse_sequence(depth, ']', PyValue::Kind::kList);
    else if (c == '\'' || c == '"') v = parse_string();
    else if (c == '-' || c == '+' || (c >= '0' && c <= '9')) v = parse_int();
    else v = parse_name();
    if (v) v->text = std::string(src_.substr(start, pos_ - start));
    return v;
  }

  // {k: v, ...}, (a, b, ...) or [a, b, ...], each allowing a trailing comma. A one-element tuple
  // needs its comma, as in Python: "(3)" is the integer 3.
  std::optional<PyValue> parse_sequence(int depth, char close, PyValue::Kind kind) {
    ++pos_;  // the opening bracket
    PyValue v;
    v.kind = kind;
    bool saw_comma = false;
    while (!peek(close)) {
      auto item = parse_value(depth + 1);
      if (!item) return std::nullopt;
      v.items.push_back(std::move(*item));
      if (kind == PyValue::Kind::kDict) {
        if (!peek(':')) {
          fail("expected ':' after a dict key");
          return std::nullopt;
        }
        ++pos_;
        auto value = parse_value(depth + 1);
        if (!value) return std::nullopt;
        v.items.push_back(std::move(*value));
      }
      if (peek(close)) break;
      if (!peek(',')) {
        fail(str("expected ',' or '", close, "'"));
        return std::nullopt;
      }
      ++pos_;
      saw_comma = true;
    }
    ++pos_;  // the closing bracket
    if (kind == PyValue::Kind::kTuple && v.items.size() == 1 && !saw_comma) {
      PyValue inner = std::move(v.items[0]);
      return inner;  // parenthesised expression, not a tuple
    }
    return v;
  }

  std::optional<PyValue> parse_string() {
    const char quote = src_[pos_++];
    PyValue v;
    v.kind = PyValue::Kind::kString;
    while (pos_ < src_.size() && src_[pos_] != quote) {
      char c = src_[pos_++];
      if (c == '\n') {
        fail("newline inside a string");
        return std::nullopt;
      }
      if (c == '\\') {
        if (pos_ >= src_.size()) break;
        c = src_[pos_++];
        switch (c) {
          case 'n': c = '\n'; break;
          case 't': c = '\t'; break;
          case '\\':
          case '\'':
          case '"': break;
          default:
            // Other escapes never appear in headers numpy writes; keep them verbatim.
            v.s += '\\';
        }
      }
      v.s += c;
    }
    if (pos_ >= src_.size()) {
      fail("unterminated string");
      return std::nullopt;
    }
    ++pos_;  // closing quote
    return v;
  }

  std::optional<PyValue> parse_int() {
    PyValue v;
    v.kind = PyValue::Kind::kInt;
    if (src_[pos_] == '-' || src_[pos_] == '+') v.negative = src_[pos_++] == '-';
    const size_t digits_start = pos_;
    uint64_t mag = 0;
    while (pos_ < src_.size() && src_[pos_] >= '0' && src_[pos_] <= '9') {
      const uint64_t d = static_cast<uint64_t>(src_[pos_++] - '0');
      if (mag > (std::numeric_limits<uint64_t>::max() - d) / 10) v.too_big = true;
      else mag = mag * 10 + d;
    }
    if (pos_ == digits_start) {
      fail("expected digits");
      return std::nullopt;
    }
    if (pos_ < src_.size() && (src_[pos_] == 'L' || src_[pos_] == 'l')) ++pos_;  // Python 2 long
    if (pos_ < src_.size() &&
        (src_[pos_] == '.' || src_[pos_] == 'e' || src_[pos_] == 'E' || src_[pos_] == 'x' || src_[pos_] == '_')) {
      fail("only plain decimal integers are allowed");
      return std::nullopt;
    }
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) + (v.negative ? 1 : 0);
    if (mag > limit) v.too_big = true;
    if (!v.too_big) v.i = v.negative ? static_cast<int64_t>(0 - mag) : static_cast<int64_t>(mag);
    return v;
  }

  std::optional<PyValue> parse_name() {
    const size_t start = pos_;
    while (pos_ < src_.size() && (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '_')) ++pos_;
    const std::string_view word = src_.substr(start, pos_ - start);
    PyValue v;
    if (word == "True" || word == "False") {
      v.kind = PyValue::Kind::kBool;
      v.b = word == "True";
    } else if (word == "None") {
      v.kind = PyValue::Kind::kNone;
    } else {
      pos_ = start;
      fail(word.empty() ? "unexpected '" + excerpt(src_.substr(pos_, 1)) + "'"
                        : "unexpected name '" + excerpt(word, 20) + "'");
      return std::nullopt;
    }
    return v;
  }

  std::string_view src_;
  size_t pos_ = 0;
  std::string error_;
};

// ---------------------------------------------------------------------------------------------
// The header.

struct NpyHeader {
  DType dtype = DType::kUndefined;
  size_t itemsize = 0;
  bool swap = false;     // stored in the other byte order than this machine's
  bool fortran = false;  // stored in Fortran (column-major) order
  Shape shape;
  int64_t numel = 0;
  uint64_t data_offset = 0;  // from the start of the file
  uint64_t data_bytes = 0;
};

std::string describe_shape(const Shape& shape) { return shape_to_string(shape); }

// Maps a descr string ('<f4') to a dtype; false with `why` set when hipinfer cannot hold it.
bool dtype_from_descr(const std::string& descr, NpyHeader& h, std::string* why) {
  std::string_view d = descr;
  char order = '=';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '=' || d[0] == '|')) {
    order = d[0];
    d.remove_prefix(1);
  }
  struct Entry {
    std::string_view code;
    DType dtype;
  };
  static constexpr Entry kTable[] = {
      {"f2", DType::kFloat16}, {"f4", DType::kFloat32}, {"f8", DType::kFloat64}, {"i1", DType::kInt8},
      {"i2", DType::kInt16},   {"i4", DType::kInt32},   {"i8", DType::kInt64},   {"u1", DType::kUInt8},
      {"u2", DType::kUInt16},  {"u4", DType::kUInt32},  {"u8", DType::kUInt64},  {"b1", DType::kBool},
      {"?", DType::kBool},
  };
  for (const auto& e : kTable) {
    if (d != e.code) continue;
    h.dtype = e.dtype;
    h.itemsize = dtype_size(e.dtype);
    constexpr bool kLittleHost = std::endian::native == std::endian::little;
    h.swap = h.itemsize > 1 && ((order == '>' && kLittleHost) || (order == '<' && !kLittleHost));
    return true;
  }
  const char kind = d.empty() ? '\0' : d[0];
  if (descr.find("bfloat16") != std::string::npos || descr == "<V2" || descr == ">V2" || descr == "|V2" ||
      descr == "V2")
    *why =
        "bfloat16 is not a numpy dtype (ml_dtypes saves it as the raw 2-byte type '<V2'); "
        "convert the array to float32 before saving it";
  else if (kind == 'c') *why = "complex arrays are not supported";
  else if (kind == 'U' || kind == 'S' || kind == 'a') *why = "string arrays are not supported";
  else if (kind == 'O') *why = "object arrays (pickled Python objects) are not supported";
  else if (kind == 'M' || kind == 'm') *why = "datetime and timedelta arrays are not supported";
  else if (kind == 'V') *why = "raw void (record) arrays are not supported";
  else if (kind == 'f' || kind == 'i' || kind == 'u' || kind == 'b')
    *why = "this element size is not supported (expected f2 f4 f8, i1 i2 i4 i8, u1 u2 u4 u8 or b1)";
  else *why = "not a dtype descriptor hipinfer knows (expected e.g. '<f4', '<i8', '|u1', '|b1')";
  return false;
}

// Checks the fixed preamble and returns the header text's [start, start + length) in the file.
struct Preamble {
  int major = 0;
  size_t header_start = 0;
  uint64_t header_len = 0;
};

Result<Preamble> parse_preamble(const uint8_t* p, size_t avail, uint64_t total, const std::string& name) {
  // The magic first, on whatever prefix there is, so a short foreign file is called foreign.
  const size_t magic_have = static_cast<size_t>(std::min<uint64_t>(total, kMagicLen));
  if (magic_have > 0 && std::memcmp(p, kMagic, magic_have) != 0) {
    if (p[0] == 'P' && magic_have > 1 && p[1] == 'K')
      return bad(name, "not a .npy file: it starts like a zip archive (an .npz file?); extract the arrays first");
    return bad(name, "not a .npy file: it starts with '" +
                         excerpt(std::string_view(reinterpret_cast<const char*>(p), magic_have)) +
                         "', expected '\\x93NUMPY'");
  }
  if (total < kMinPreamble)
    return bad(name, str("truncated: the file has ", total, " bytes, a .npy file needs at least ", kMinPreamble));
  Preamble pre;
  pre.major = p[6];
  const int minor = p[7];
  if ((pre.major != 1 && pre.major != 2 && pre.major != 3) || minor != 0)
    return bad(name, str("unsupported .npy format version ", pre.major, ".", minor, " (expected 1.0, 2.0 or 3.0)"));
  const size_t len_bytes = pre.major == 1 ? 2 : 4;
  pre.header_start = 8 + len_bytes;
  if (total < pre.header_start || avail < pre.header_start)
    return bad(name, str("truncated: the file has ", total, " bytes, a version ", pre.major, ".0 .npy preamble needs ",
                         pre.header_start));
  pre.header_len = read_le(p + 8, len_bytes);
  if (pre.header_len > kMaxHeaderLen)
    return bad(name, str("the header declares ", pre.header_len, " bytes, more than the ", kMaxHeaderLen,
                         " hipinfer accepts (a plain array's header is a few hundred bytes)"));
  if (pre.header_len > total - pre.header_start)
    return bad(name, str("truncated header: the header declares ", pre.header_len, " bytes but only ",
                         total - pre.header_start, " follow the preamble"));
  return pre;
}

// Parses the header dict (the text after the preamble) into `h`.
Status parse_header_dict(std::string_view text, const std::string& name, NpyHeader& h) {
  std::string why;
  LiteralParser parser(text);
  auto v = parser.parse_all(&why);
  if (!v) return bad(name, "cannot parse the header (" + why + "): '" + excerpt(text) + "'");
  if (v->kind != PyValue::Kind::kDict) return bad(name, "the header is not a dict: '" + excerpt(text) + "'");
  const PyValue* descr = nullptr;
  const PyValue* fortran = nullptr;
  const PyValue* shape = nullptr;
  for (size_t k = 0; k + 1 < v->items.size(); k += 2) {
    const PyValue& key = v->items[k];
    const PyValue* value = &v->items[k + 1];
    const PyValue** slot = nullptr;
    if (key.kind == PyValue::Kind::kString) {
      if (key.s == "descr") slot = &descr;
      else if (key.s == "fortran_order") slot = &fortran;
      else if (key.s == "shape") slot = &shape;
    }
    if (!slot)
      return bad(name, "the header has the unexpected key " + excerpt(key.text, 40) +
                           " (expected exactly 'descr', 'fortran_order' and 'shape')");
    *slot = value;  // a repeated key keeps the last value, as Python does
  }
  for (const auto& [ptr, key] :
       {std::pair{descr, "descr"}, std::pair{fortran, "fortran_order"}, std::pair{shape, "shape"}})
    if (!ptr) return bad(name, std::string("the header has no '") + key + "' key: '" + excerpt(text) + "'");

  if (descr->kind == PyValue::Kind::kList)
    return bad(name, "structured (record) arrays are not supported: descr is " + excerpt(descr->text, 60));
  if (descr->kind != PyValue::Kind::kString)
    return bad(name, "descr must be a string such as '<f4', got " + excerpt(descr->text, 60));
  if (!dtype_from_descr(descr->s, h, &why)) return bad(name, "dtype '" + excerpt(descr->s, 40) + "': " + why);

  if (fortran->kind != PyValue::Kind::kBool)
    return bad(name, "fortran_order must be True or False, got " + excerpt(fortran->text, 40));
  h.fortran = fortran->b;

  if (shape->kind != PyValue::Kind::kTuple)
    return bad(name, "shape must be a tuple of integers such as (2, 3), got " + excerpt(shape->text, 60));
  h.shape.clear();
  for (size_t i = 0; i < shape->items.size(); ++i) {
    const PyValue& d = shape->items[i];
    if (d.kind != PyValue::Kind::kInt)
      return bad(name, str("shape ", excerpt(shape->text, 60), ": dim ", i, " is not an integer"));
    if (d.negative && (d.too_big || d.i != 0))
      return bad(name, str("shape ", excerpt(shape->text, 60), ": dim ", i, " is negative"));
    if (d.too_big) return bad(name, str("shape ", excerpt(shape->text, 60), ": dim ", i, " does not fit in 64 bits"));
    h.shape.push_back(d.i);
  }
  h.numel = shape_numel(h.shape);
  if (h.numel < 0) return bad(name, "shape " + describe_shape(h.shape) + " overflows a 64-bit element count");
  if (static_cast<uint64_t>(h.numel) > std::numeric_limits<uint64_t>::max() / 2 / h.itemsize)
    return bad(name,
               str("shape ", describe_shape(h.shape), " of ", dtype_name(h.dtype), " overflows a 64-bit byte count"));
  h.data_bytes = static_cast<uint64_t>(h.numel) * h.itemsize;
  return Status::ok();
}

// Preamble and header: `p[0, avail)` holds at least the preamble and header; `total` is the
// size of the whole file, for the truncation checks.
Result<NpyHeader> parse_npy_header(const uint8_t* p, size_t avail, uint64_t total, const std::string& name) {
  HI_ASSIGN_OR_RETURN(Preamble pre, parse_preamble(p, avail, total, name));
  HI_ASSERT(avail >= pre.header_start + pre.header_len, "caller must pass the whole header");
  NpyHeader h;
  const std::string_view text(reinterpret_cast<const char*>(p) + pre.header_start, pre.header_len);
  HI_RETURN_IF_ERROR(parse_header_dict(text, name, h));
  h.data_offset = pre.header_start + pre.header_len;
  const uint64_t have = total - h.data_offset;
  if (have < h.data_bytes)
    return bad(name, str("truncated data: ", dtype_name(h.dtype), describe_shape(h.shape), " needs ", h.data_bytes,
                         " bytes after the ", h.data_offset, "-byte header, but the file has ", have));
  return h;
}

Result<Tensor> allocate(const NpyHeader& h, const std::string& name) {
  try {
    return Tensor::empty(h.dtype, h.shape);
  } catch (const OutOfMemory& e) {
    return Status(StatusCode::kOutOfMemory,
                  name + ": " + dtype_name(h.dtype) + describe_shape(h.shape) + ": " + e.what);
  }
}

void byte_swap(void* data, size_t itemsize, int64_t n) {
  auto* p = static_cast<uint8_t*>(data);
  for (int64_t i = 0; i < n; ++i, p += itemsize) std::reverse(p, p + itemsize);
}

// Copies Fortran-order `src` of `shape` into C-order `dst`: walks dst in order while keeping the
// source offset of the current index (source strides: 1, d0, d0*d1, ... elements).
template <size_t kSize>
void fortran_to_c(const uint8_t* src, uint8_t* dst, const Shape& shape, int64_t numel) {
  const size_t rank = shape.size();
  std::vector<int64_t> stride(rank), index(rank, 0);
  int64_t s = 1;
  for (size_t k = 0; k < rank; ++k) {
    stride[k] = s;
    s *= shape[k];
  }
  int64_t off = 0;
  for (int64_t i = 0; i < numel; ++i) {
    std::memcpy(dst + static_cast<size_t>(i) * kSize, src + static_cast<size_t>(off) * kSize, kSize);
    for (size_t k = rank; k-- > 0;) {  // increment the C-order index, last dim fastest
      off += stride[k];
      if (++index[k] < shape[k]) break;
      off -= stride[k] * shape[k];
      index[k] = 0;
    }
  }
}

// Turns raw file bytes already in `t` into what a C-order tensor of this machine holds.
Result<Tensor> finish(Tensor t, const NpyHeader& h, const std::string& name) {
  if (h.swap) byte_swap(t.raw(), h.itemsize, h.numel);
  if (h.dtype == DType::kBool) {  // a bool other than 0 or 1 is undefined behaviour in C++
    auto* p = static_cast<uint8_t*>(t.raw());
    for (int64_t i = 0; i < h.numel; ++i) p[i] = p[i] != 0;
  }
  size_t non_trivial = 0;  // dims > 1; with at most one, both orders are the same bytes
  for (int64_t d : h.shape) non_trivial += d > 1;
  if (!h.fortran || non_trivial <= 1 || h.numel == 0) return t;
  HI_ASSIGN_OR_RETURN(Tensor c, allocate(h, name));
  const auto* src = static_cast<const uint8_t*>(t.raw());
  auto* dst = static_cast<uint8_t*>(c.raw());
  switch (h.itemsize) {
    case 1: fortran_to_c<1>(src, dst, h.shape, h.numel); break;
    case 2: fortran_to_c<2>(src, dst, h.shape, h.numel); break;
    case 4: fortran_to_c<4>(src, dst, h.shape, h.numel); break;
    case 8: fortran_to_c<8>(src, dst, h.shape, h.numel); break;
    default: HI_ASSERT(false, "npy itemsize ", h.itemsize);
  }
  return c;
}

// The text of the header dict numpy writes for this array (before padding).
std::string header_dict(const char* descr, const Shape& shape) {
  std::string h = str("{'descr': '", descr, "', 'fortran_order': False, 'shape': (");
  for (size_t i = 0; i < shape.size(); ++i) h += (i ? ", " : "") + std::to_string(shape[i]);
  h += shape.size() == 1 ? ",), }" : "), }";
  if (!shape.empty()) {
    const size_t digits = std::to_string(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) h.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  return h;
}

const char* descr_for(DType t) {
  switch (t) {
    case DType::kFloat16: return "<f2";
    case DType::kFloat32: return "<f4";
    case DType::kFloat64: return "<f8";
    case DType::kInt8: return "|i1";
    case DType::kInt16: return "<i2";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kUInt8: return "|u1";
    case DType::kUInt16: return "<u2";
    case DType::kUInt32: return "<u4";
    case DType::kUInt64: return "<u8";
    case DType::kBool: return "|b1";
    default: return nullptr;
  }
}

}  // namespace

Result<Tensor> parse_npy(const void* data, size_t size, const std::string& name) {
  const auto* p = static_cast<const uint8_t*>(data);
  if (size > 0 && !p) return bad(name, "no data");
  HI_ASSIGN_OR_RETURN(NpyHeader h, parse_npy_header(p, size, size, name));
  HI_ASSIGN_OR_RETURN(Tensor t, allocate(h, name));
  if (h.data_bytes > 0) std::memcpy(t.raw(), p + h.data_offset, h.data_bytes);
  return finish(std::move(t), h, name);
}

Result<Tensor> read_npy(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return error(StatusCode::kNotFound, "cannot open '", path, "': no such file");
  if (fs::is_directory(st)) return error(StatusCode::kInvalidArgument, "cannot read '", path, "': it is a directory");
  // A pipe or a device has no size to check the header against; /dev/zero never ends and a FIFO
  // without a writer blocks the open itself. So only regular files, checked before opening.
  if (!fs::is_regular_file(st))
    return error(StatusCode::kInvalidArgument, "cannot read '", path,
                 "': not a regular file (a pipe, device or socket)");
  std::ifstream in(path, std::ios::binary);
  if (!in) return error(StatusCode::kNotFound, "cannot open '", path, "': ", std::strerror(errno));
  const uint64_t total = fs::file_size(path, ec);
  if (ec) return error(StatusCode::kInvalidArgument, "cannot read '", path, "': ", ec.message());

  // Preamble, then the header it announces, then the data straight into the tensor.
  std::string head(static_cast<size_t>(std::min<uint64_t>(total, 12)), '\0');
  if (!in.read(head.data(), static_cast<std::streamsize>(head.size())))
    return bad(path, "short read of the .npy preamble");
  HI_ASSIGN_OR_RETURN(Preamble pre,
                      parse_preamble(reinterpret_cast<const uint8_t*>(head.data()), head.size(), total, path));
  const size_t header_end = pre.header_start + static_cast<size_t>(pre.header_len);
  const size_t have = head.size();
  if (header_end > have) {
    head.resize(header_end);
    if (!in.read(head.data() + have, static_cast<std::streamsize>(header_end - have)))
      return bad(path, "short read of the .npy header");
  }
  HI_ASSIGN_OR_RETURN(NpyHeader h,
                      parse_npy_header(reinterpret_cast<const uint8_t*>(head.data()), head.size(), total, path));
  HI_ASSIGN_OR_RETURN(Tensor t, allocate(h, path));
  in.clear();
  in.seekg(static_cast<std::streamoff>(h.data_offset));
  if (h.data_bytes > 0 && !in.read(static_cast<char*>(t.raw()), static_cast<std::streamsize>(h.data_bytes)))
    return bad(path, str("short read: expected ", h.data_bytes, " bytes of data, got ", in.gcount(),
                         " (did the file change while it was read?)"));
  return finish(std::move(t), h, path);
}

// UTF-8 to code points; false at the first invalid sequence.
bool utf8_to_utf32(const std::string& s, std::vector<char32_t>* out) {
  out->clear();
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : -1;
    if (extra < 0 || i + static_cast<size_t>(extra) >= s.size() + (extra == 0 ? 1 : 0)) return false;
    char32_t cp = extra == 0 ? c : c & (0x3f >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
      if ((cc >> 6) != 0x2) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    out->push_back(cp);
    i += static_cast<size_t>(extra) + 1;
  }
  return true;
}

Status write_npy(const std::string& path, const Tensor& t) {
  // String tensors become numpy's fixed-width unicode ('<U<width>', UTF-32LE, zero-padded).
  std::string string_descr;
  std::vector<uint8_t> string_bytes;
  if (t.dtype() == DType::kString) {
    std::vector<std::vector<char32_t>> decoded(static_cast<size_t>(t.numel()));
    size_t width = 1;
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (!utf8_to_utf32(t.strings()[i], &decoded[static_cast<size_t>(i)]))
        return error(StatusCode::kInvalidArgument, "cannot write '", path, "': string ", i, " is not valid UTF-8");
      width = std::max(width, decoded[static_cast<size_t>(i)].size());
    }
    string_descr = str("<U", width);
    string_bytes.assign(decoded.size() * width * 4, 0);
    for (size_t i = 0; i < decoded.size(); ++i)
      for (size_t k = 0; k < decoded[i].size(); ++k)
        for (size_t b = 0; b < 4; ++b)
          string_bytes[(i * width + k) * 4 + b] = static_cast<uint8_t>((decoded[i][k] >> (8 * b)) & 0xff);
  }
  const char* descr = t.dtype() == DType::kString ? string_descr.c_str() : descr_for(t.dtype());
  if (!descr) {
    const std::string hint =
        t.dtype() == DType::kBFloat16 ? " (bfloat16 is not a numpy dtype; convert it to float32 first)" : "";
    return error(StatusCode::kInvalidArgument, "cannot write '", path, "': ", dtype_name(t.dtype()),
                 " tensors have no .npy equivalent", hint);
  }
  if (t.numel() > 0 && t.raw() == nullptr)
    return error(StatusCode::kInvalidArgument, "cannot write '", path, "': the tensor ", t.type_string(),
                 " has no data");

  std::string header = header_dict(descr, t.shape());
  // Version 1.0 stores the header length in 16 bits; numpy moves to 2.0 when it does not fit.
  const size_t hlen = header.size() + 1;  // + the final '\n'
  int major = 1;
  size_t prefix = kMinPreamble;
  size_t padlen = kAlign - (prefix + hlen) % kAlign;
  if (hlen + padlen > std::numeric_limits<uint16_t>::max()) {
    major = 2;
    prefix = kMinPreamble + 2;
    padlen = kAlign - (prefix + hlen) % kAlign;
  }
  header.append(padlen, ' ');
  header += '\n';
  std::string out(kMagic, kMagicLen);
  out += static_cast<char>(major);
  out += '\0';
  const size_t n = header.size();
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((n >> (8 * i)) & 0xff);
  out += header;

  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return error(StatusCode::kInvalidArgument, "cannot write '", path, "': ", std::strerror(errno));
  auto fail = [&](const char* what) {
    const std::string reason = std::strerror(errno);
    std::fclose(f);
    std::remove(path.c_str());
    return error(StatusCode::kRuntimeError, "cannot write '", path, "': ", what, ": ", reason);
  };
  if (std::fwrite(out.data(), 1, out.size(), f) != out.size()) return fail("write failed");
  if (t.dtype() == DType::kString) {
    if (!string_bytes.empty() && std::fwrite(string_bytes.data(), 1, string_bytes.size(), f) != string_bytes.size())
      return fail("write failed");
    if (std::fclose(f) != 0) {
      std::remove(path.c_str());
      return error(StatusCode::kRuntimeError, "cannot write '", path, "': close failed: ", std::strerror(errno));
    }
    return Status::ok();
  }
  const size_t item = dtype_size(t.dtype());
  const auto* data = static_cast<const uint8_t*>(t.raw());
  if (std::endian::native == std::endian::little || item == 1) {
    if (t.nbytes() > 0 && std::fwrite(data, 1, t.nbytes(), f) != t.nbytes()) return fail("write failed");
  } else {  // big-endian machine: swap in chunks
    std::vector<uint8_t> chunk;
    const size_t per = (1 << 16) / item;
    for (int64_t i = 0; i < t.numel(); i += static_cast<int64_t>(per)) {
      const size_t count = std::min<size_t>(per, static_cast<size_t>(t.numel() - i));
      chunk.assign(data + static_cast<size_t>(i) * item, data + (static_cast<size_t>(i) + count) * item);
      byte_swap(chunk.data(), item, static_cast<int64_t>(count));
      if (std::fwrite(chunk.data(), 1, chunk.size(), f) != chunk.size()) return fail("write failed");
    }
  }
  if (std::fflush(f) != 0) return fail("flush failed");
  if (std::fclose(f) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(path.c_str());
    return error(StatusCode::kRuntimeError, "cannot write '", path, "': close failed: ", reason);
  }
  return Status::ok();
}

}  // namespace hi
