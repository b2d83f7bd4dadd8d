// Tests for .npy reading and writing: round trips of every dtype and awkward shapes, files as
// numpy writes them (versions, byte orders, Fortran order), and every malformed input we reject.
#include "hipinfer/npy.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace hi {
namespace {

namespace fs = std::filesystem;

class NpyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("hi_npy_test_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write_file(const std::string& name, const std::string& bytes) const {
    const std::string p = path(name);
    std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }
  fs::path dir_;
};

std::string read_file(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A .npy file with the given header dict text, padded like numpy pads it, then `data`.
std::string make_npy(const std::string& dict, const std::string& data = "", int major = 1, int minor = 0) {
  const size_t prefix = major == 1 ? 10 : 12;
  std::string header = dict;
  const size_t hlen = header.size() + 1;
  header.append(64 - (prefix + hlen) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += static_cast<char>(minor);
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string bytes_of(const void* p, size_t n) { return std::string(static_cast<const char*>(p), n); }

template <typename T>
std::string le_bytes(const std::vector<T>& v) {
  return bytes_of(v.data(), v.size() * sizeof(T));
}

template <typename T>
std::string be_bytes(const std::vector<T>& v) {
  std::string s = le_bytes(v);
  for (size_t i = 0; i < s.size(); i += sizeof(T))
    std::reverse(s.begin() + static_cast<long>(i), s.begin() + static_cast<long>(i + sizeof(T)));
  return s;
}

// Fills a tensor with bytes that exercise every bit (but valid bools).
void fill_random(Tensor& t, uint32_t seed) {
  std::mt19937 rng(seed);
  auto* p = static_cast<uint8_t*>(t.raw());
  for (size_t i = 0; i < t.nbytes(); ++i) p[i] = static_cast<uint8_t>(rng());
  if (t.dtype() == DType::kBool)
    for (size_t i = 0; i < t.nbytes(); ++i) p[i] &= 1;
}

void expect_same(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.dtype(), b.dtype());
  ASSERT_EQ(a.shape(), b.shape());
  ASSERT_EQ(a.nbytes(), b.nbytes());
  if (a.nbytes() > 0) {
    EXPECT_EQ(0, std::memcmp(a.raw(), b.raw(), a.nbytes()));
  }
}

// Expects failure with `code` and a message containing every one of `parts`.
template <typename R>
void expect_error(const R& r, StatusCode code, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(r.is_ok()) << "expected an error containing '" << *parts.begin() << "'";
  const Status& s = [&]() -> const Status& {
    if constexpr (std::is_same_v<R, Status>) return r;
    else return r.status();
  }();
  EXPECT_EQ(s.code(), code) << s.to_string();
  for (const auto& p : parts)
    EXPECT_NE(s.message().find(p), std::string::npos) << "'" << p << "' not in: " << s.message();
}

const DType kAllDTypes[] = {DType::kFloat16, DType::kFloat32, DType::kFloat64, DType::kInt8,
                            DType::kInt16,   DType::kInt32,   DType::kInt64,   DType::kUInt8,
                            DType::kUInt16,  DType::kUInt32,  DType::kUInt64,  DType::kBool};

const Shape kAwkwardShapes[] = {
    {}, {0}, {1}, {7}, {3, 5}, {0, 3}, {3, 0, 2}, {2, 3, 5}, {1, 1, 1, 1}, {2, 1, 3, 1, 5}, {13, 17}, {1, 0}};

// Only regular files: a FIFO without a writer would block the open, /dev/zero never ends.
TEST_F(NpyTest, RefusesWhatIsNotARegularFile) {
  const std::string fifo = path("fifo.npy");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& p : {fifo, std::string("/dev/zero")}) {
    auto r = read_npy(p);
    ASSERT_FALSE(r.is_ok()) << p;
    EXPECT_NE(r.status().message().find("not a regular file"), std::string::npos) << r.status().message();
    EXPECT_NE(r.status().message().find(p), std::string::npos) << r.status().message();
  }
}

TEST_F(NpyTest, RoundTripsEveryDTypeAndShape) {
  uint32_t seed = 1;
  for (DType dt : kAllDTypes) {
    for (const Shape& shape : kAwkwardShapes) {
      SCOPED_TRACE(dtype_name(dt) + shape_to_string(shape));
      Tensor t = Tensor::empty(dt, shape);
      fill_random(t, seed++);
      const std::string p = path("t.npy");
      ASSERT_TRUE(write_npy(p, t).is_ok());
      const std::string bytes = read_file(p);
      // The data starts on a 64-byte boundary and fills the rest of the file.
      ASSERT_GE(bytes.size(), 64u);
      const size_t header_len = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
      EXPECT_EQ((10 + header_len) % 64, 0u);
      EXPECT_EQ(bytes.size(), 10 + header_len + t.nbytes());
      EXPECT_EQ(bytes[6], 1);
      EXPECT_EQ(bytes[10 + header_len - 1], '\n');

      auto from_file = read_npy(p);
      ASSERT_TRUE(from_file.is_ok()) << from_file.status().to_string();
      expect_same(t, from_file.value());
      auto from_memory = parse_npy(bytes.data(), bytes.size(), "mem.npy");
      ASSERT_TRUE(from_memory.is_ok()) << from_memory.status().to_string();
      expect_same(t, from_memory.value());
    }
  }
}

TEST_F(NpyTest, WritesExactlyWhatNumpyWrites) {
  // np.save(f, np.arange(6, dtype=np.float32).reshape(2, 3)) with numpy 2.x.
  std::vector<float> v = {0, 1, 2, 3, 4, 5};
  Tensor t = Tensor::from_vector(v, {2, 3});
  ASSERT_TRUE(write_npy(path("a.npy"), t).is_ok());
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  std::string expected = std::string("\x93NUMPY\x01\x00\x76\x00", 10) + dict;
  expected.append(20, ' ');  // numpy's room to grow the first axis: 21 - len("2")
  expected.append(128 - 1 - expected.size(), ' ');
  expected += '\n';
  expected += le_bytes(v);
  EXPECT_EQ(read_file(path("a.npy")), expected);

  // 0-d and 1-d headers: "()" and "(5,)"; one-byte types use '|'.
  ASSERT_TRUE(write_npy(path("b.npy"), Tensor::scalar<bool>(true)).is_ok());
  EXPECT_NE(read_file(path("b.npy")).find("{'descr': '|b1', 'fortran_order': False, 'shape': (), }"),
            std::string::npos);
  ASSERT_TRUE(write_npy(path("c.npy"), Tensor::zeros(DType::kInt8, {5})).is_ok());
  EXPECT_NE(read_file(path("c.npy")).find("'descr': '|i1', 'fortran_order': False, 'shape': (5,), }"),
            std::string::npos);
}

TEST_F(NpyTest, WritesStringsAsFixedWidthUnicode) {
  // np.array(["a", "h\u00e9llo", ""]) is '<U5': five UTF-32LE code units per element, zero-padded.
  Tensor t = Tensor::empty(DType::kString, {3});
  t.strings()[0] = "a";
  t.strings()[1] = "h\xc3\xa9llo";
  t.strings()[2] = "";
  ASSERT_TRUE(write_npy(path("s.npy"), t).is_ok());
  const std::string file = read_file(path("s.npy"));
  EXPECT_NE(file.find("{'descr': '<U5', 'fortran_order': False, 'shape': (3,), }"), std::string::npos) << file;
  std::vector<uint32_t> units(15, 0);
  units[0] = 'a';
  const uint32_t hello[] = {'h', 0xe9, 'l', 'l', 'o'};
  for (size_t k = 0; k < 5; ++k) units[5 + k] = hello[k];
  ASSERT_GE(file.size(), 60u);
  EXPECT_EQ(file.substr(file.size() - 60), le_bytes(units));

  t.strings()[2] = "\xff";
  const Status bad = write_npy(path("bad.npy"), t);
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.message().find("string 2 is not valid UTF-8"), std::string::npos) << bad.to_string();
}

TEST_F(NpyTest, WritesVersion2WhenTheHeaderOutgrowsVersion1) {
  Shape shape(23000, 1);  // "1, " per dim: more than 65535 header bytes
  Tensor t = Tensor::empty(DType::kInt32, shape);
  *t.data<int32_t>() = 42;
  ASSERT_TRUE(write_npy(path("v2.npy"), t).is_ok());
  const std::string bytes = read_file(path("v2.npy"));
  EXPECT_EQ(bytes[6], 2);
  uint32_t hlen = 0;
  for (int i = 0; i < 4; ++i) hlen |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[8 + i])) << (8 * i);
  EXPECT_GT(hlen, 65535u);
  EXPECT_EQ((12 + hlen) % 64, 0u);
  auto r = read_npy(path("v2.npy"));
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->shape(), shape);
  EXPECT_EQ(*r->data<int32_t>(), 42);
}

TEST_F(NpyTest, ReadsVersions2And3) {
  std::vector<int16_t> v = {1, -2, 3};
  for (int major : {1, 2, 3}) {
    const std::string f = make_npy("{'descr': '<i2', 'fortran_order': False, 'shape': (3,), }", le_bytes(v), major);
    auto r = parse_npy(f.data(), f.size(), "v.npy");
    ASSERT_TRUE(r.is_ok()) << r.status().to_string();
    EXPECT_EQ(r->dtype(), DType::kInt16);
    EXPECT_EQ(r->to_int64_vector(), (std::vector<int64_t>{1, -2, 3}));
  }
}

template <typename T>
void check_big_endian(const std::string& code, DType dt, const std::vector<T>& v) {
  SCOPED_TRACE(code);
  const std::string f =
      make_npy("{'descr': '>" + code + "', 'fortran_order': False, 'shape': (" + std::to_string(v.size()) + ",), }",
               be_bytes(v));
  auto r = parse_npy(f.data(), f.size(), "be.npy");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  ASSERT_EQ(r->dtype(), dt);
  EXPECT_EQ(0, std::memcmp(r->raw(), v.data(), v.size() * sizeof(T)));
}

TEST_F(NpyTest, ByteSwapsBigEndianData) {
  check_big_endian<uint16_t>("f2", DType::kFloat16, {Float16(1.5f).bits, Float16(-2.0f).bits});
  check_big_endian<float>("f4", DType::kFloat32, {1.5f, -2.25f, 1e30f});
  check_big_endian<double>("f8", DType::kFloat64, {1.5, -2.25, 1e300});
  check_big_endian<int8_t>("i1", DType::kInt8, {-1, 2});
  check_big_endian<int16_t>("i2", DType::kInt16, {-1, 0x1234});
  check_big_endian<int32_t>("i4", DType::kInt32, {-1, 0x12345678});
  check_big_endian<int64_t>("i8", DType::kInt64, {-1, 0x123456789abcdef0});
  check_big_endian<uint8_t>("u1", DType::kUInt8, {255, 2});
  check_big_endian<uint16_t>("u2", DType::kUInt16, {0xfffe, 0x1234});
  check_big_endian<uint32_t>("u4", DType::kUInt32, {0xfffffffe, 0x12345678});
  check_big_endian<uint64_t>("u8", DType::kUInt64, {0xfffffffffffffffe, 0x123456789abcdef0});
}

TEST_F(NpyTest, AcceptsEveryByteOrderMarkAndBoolSpelling) {
  std::vector<int32_t> v = {7, -8};
  for (const char* descr : {"<i4", "=i4", "|i4"}) {
    const std::string f =
        make_npy(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (2,), }", le_bytes(v));
    auto r = parse_npy(f.data(), f.size(), "o.npy");
    ASSERT_TRUE(r.is_ok()) << descr << ": " << r.status().to_string();
    EXPECT_EQ(r->to_int64_vector(), (std::vector<int64_t>{7, -8}));
  }
  for (const char* descr : {"|b1", "?", "<b1", "b1"}) {
    const std::string f = make_npy(std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (3,), }",
                                   std::string("\x00\x01\x02", 3));
    auto r = parse_npy(f.data(), f.size(), "b.npy");
    ASSERT_TRUE(r.is_ok()) << descr << ": " << r.status().to_string();
    ASSERT_EQ(r->dtype(), DType::kBool);
    // Bytes other than 0 and 1 are normalised, never handed on as an invalid bool.
    const auto* p = static_cast<const uint8_t*>(r->raw());
    EXPECT_EQ(p[0], 0);
    EXPECT_EQ(p[1], 1);
    EXPECT_EQ(p[2], 1);
  }
}

TEST_F(NpyTest, TransposesFortranOrder) {
  // a = np.arange(24).reshape(2, 3, 4); np.asfortranarray(a) stores a.T's C-order bytes.
  std::vector<int64_t> f_order;
  for (int k = 0; k < 4; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 2; ++i) f_order.push_back(i * 12 + j * 4 + k);
  const std::string f = make_npy("{'descr': '<i8', 'fortran_order': True, 'shape': (2, 3, 4), }", le_bytes(f_order));
  auto r = parse_npy(f.data(), f.size(), "f.npy");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->shape(), (Shape{2, 3, 4}));
  std::vector<int64_t> expected(24);
  for (int i = 0; i < 24; ++i) expected[static_cast<size_t>(i)] = i;
  EXPECT_EQ(r->to_int64_vector(), expected);

  // Big-endian Fortran 2-D, through a file; and shapes where both orders coincide.
  std::vector<float> col = {1, 4, 2, 5, 3, 6};  // [[1, 2, 3], [4, 5, 6]] column by column
  const std::string p =
      write_file("fbe.npy", make_npy("{'descr': '>f4', 'fortran_order': True, 'shape': (2, 3), }", be_bytes(col)));
  auto r2 = read_npy(p);
  ASSERT_TRUE(r2.is_ok()) << r2.status().to_string();
  EXPECT_EQ(std::vector<float>(r2->data<float>(), r2->data<float>() + 6), (std::vector<float>{1, 2, 3, 4, 5, 6}));
  const std::vector<std::pair<std::string, Shape>> same_in_both_orders = {
      {"()", {}}, {"(0, 3)", {0, 3}}, {"(4,)", {4}}, {"(1, 5, 1)", {1, 5, 1}}};
  for (const auto& [shape, s] : same_in_both_orders) {
    const int64_t n = shape_numel(s);
    std::vector<uint8_t> data(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) data[static_cast<size_t>(i)] = static_cast<uint8_t>(i + 1);
    const std::string g =
        make_npy(std::string("{'descr': '|u1', 'fortran_order': True, 'shape': ") + shape + ", }", le_bytes(data));
    auto r3 = parse_npy(g.data(), g.size(), "g.npy");
    ASSERT_TRUE(r3.is_ok()) << shape << ": " << r3.status().to_string();
    EXPECT_EQ(r3->shape(), s);
    for (int64_t i = 0; i < n; ++i) EXPECT_EQ(r3->data<uint8_t>()[i], i + 1);
  }
}

TEST_F(NpyTest, AcceptsHeaderSpellingsNumpyAccepts) {
  std::vector<int32_t> v = {5, 6};
  const char* dicts[] = {
      "{'descr': '<i4', 'fortran_order': False, 'shape': (2,)}",          // no trailing comma
      "{\"shape\": (2,), \"descr\": \"<i4\", \"fortran_order\": False}",  // any order, double quotes
      "{'descr':'<i4','fortran_order':False,'shape':(2L,),}",             // Python 2 long
      "{ 'descr' : '<i4' ,\t'fortran_order' : False , 'shape' : ( 2 , ) }",
      "{'descr': '<i4', 'fortran_order': False, 'shape': (+2,), }",
  };
  for (const char* d : dicts) {
    const std::string f = make_npy(d, le_bytes(v));
    auto r = parse_npy(f.data(), f.size(), "h.npy");
    ASSERT_TRUE(r.is_ok()) << d << ": " << r.status().to_string();
    EXPECT_EQ(r->shape(), Shape{2});
  }
  // Data after the array (np.save called twice on one file) is ignored, as np.load does.
  const std::string f = make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", le_bytes(v) + "trailing");
  auto r = parse_npy(f.data(), f.size(), "t.npy");
  ASSERT_TRUE(r.is_ok()) << r.status().to_string();
  EXPECT_EQ(r->to_int64_vector(), (std::vector<int64_t>{5, 6}));
  // A header without padding or newline.
  std::string raw = std::string("\x93NUMPY\x01\x00", 8);
  const std::string dict = "{'descr':'<i4','fortran_order':False,'shape':(2,)}";
  raw += static_cast<char>(dict.size());
  raw += '\0';
  raw += dict + le_bytes(v);
  auto r2 = parse_npy(raw.data(), raw.size(), "u.npy");
  ASSERT_TRUE(r2.is_ok()) << r2.status().to_string();
}

TEST_F(NpyTest, RejectsTruncatedAndForeignFiles) {
  expect_error(parse_npy(nullptr, 0, "empty.npy"), StatusCode::kInvalidArgument,
               {"empty.npy", "truncated", "0 bytes", "10"});
  expect_error(parse_npy("\x93NUMPY", 6, "short.npy"), StatusCode::kInvalidArgument,
               {"short.npy", "truncated", "6 bytes"});
  expect_error(parse_npy("\x93NU", 3, "tiny.npy"), StatusCode::kInvalidArgument, {"tiny.npy", "truncated", "3 bytes"});
  expect_error(parse_npy("abc", 3, "text.npy"), StatusCode::kInvalidArgument, {"text.npy", "not a .npy file", "'abc'"});
  const std::string png("\x89PNG\r\n\x1a\n\0\0\0\0", 12);
  expect_error(parse_npy(png.data(), png.size(), "pic.npy"), StatusCode::kInvalidArgument,
               {"pic.npy", "not a .npy file", "\\x89PNG", "\\x93NUMPY"});
  const std::string zip = std::string("PK\x03\x04", 4) + std::string(20, '\0');
  expect_error(parse_npy(zip.data(), zip.size(), "a.npz"), StatusCode::kInvalidArgument, {"a.npz", "zip", ".npz"});
  std::string v4 = make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", "abcd");
  v4[6] = 4;
  expect_error(parse_npy(v4.data(), v4.size(), "v4.npy"), StatusCode::kInvalidArgument,
               {"v4.npy", "version 4.0", "1.0, 2.0 or 3.0"});
  std::string v11 = make_npy("{'descr': '<i4', 'fortran_order': False, 'shape': (), }", "abcd");
  v11[7] = 1;
  expect_error(parse_npy(v11.data(), v11.size(), "v11.npy"), StatusCode::kInvalidArgument, {"version 1.1"});
  // Version 2.0 needs a 4-byte header length: 11 bytes are too few.
  const std::string v2short = std::string("\x93NUMPY\x02\x00\x10\x00\x00", 11);
  expect_error(parse_npy(v2short.data(), v2short.size(), "v2.npy"), StatusCode::kInvalidArgument,
               {"v2.npy", "truncated", "11 bytes", "12"});

  // Cut in the header, and cut in the data: every prefix of a good file fails cleanly.
  std::vector<double> v = {1, 2, 3, 4, 5, 6};
  const std::string good = make_npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", le_bytes(v));
  expect_error(parse_npy(good.data(), 40, "cut.npy"), StatusCode::kInvalidArgument,
               {"cut.npy", "truncated header", "118 bytes", "30 follow"});
  expect_error(parse_npy(good.data(), good.size() - 5, "cut.npy"), StatusCode::kInvalidArgument,
               {"cut.npy", "truncated data", "float64[2, 3]", "needs 48 bytes", "128-byte header", "has 43"});
  for (size_t n = 0; n < good.size(); ++n) {
    auto r = parse_npy(good.data(), n, "prefix.npy");
    EXPECT_FALSE(r.is_ok()) << n;
  }
  // The same through a file on disk.
  const std::string p = write_file("cut.npy", good.substr(0, good.size() - 1));
  expect_error(read_npy(p), StatusCode::kInvalidArgument, {p, "truncated data", "needs 48 bytes", "has 47"});
}

TEST_F(NpyTest, RejectsMalformedHeaders) {
  struct Case {
    std::string dict;
    std::vector<std::string> parts;
  };
  const std::vector<Case> cases = {
      {"['descr', '<f4']", {"header is not a dict", "['descr'"}},
      {"42", {"header is not a dict"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), ", {"cannot parse the header"}},
      {"{'descr': '<f4' 'fortran_order': False}", {"cannot parse the header", "expected ','"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)} junk",
       {"cannot parse the header", "after the literal"}},
      {"{'descr': '<f4', 'fortran_order': false, 'shape': (2,)}", {"cannot parse the header", "'false'"}},
      {"{'descr': '<f4, 'fortran_order': False, 'shape': (2,)}", {"cannot parse the header"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2.5,)}", {"cannot parse the header", "decimal integers"}},
      {"{'descr': '<f4', 'fortran_order': False}", {"no 'shape' key"}},
      {"{'fortran_order': False, 'shape': (2,)}", {"no 'descr' key"}},
      {"{'descr': '<f4', 'shape': (2,)}", {"no 'fortran_order' key"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}",
       {"unexpected key 'extra'", "'descr', 'fortran_order' and 'shape'"}},
      {"{1: 2, 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}", {"unexpected key 1"}},
      {"{'descr': 4, 'fortran_order': False, 'shape': (2,)}", {"descr must be a string", "got 4"}},
      {"{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (2,)}",
       {"structured (record) arrays are not supported"}},
      {"{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}", {"fortran_order must be True or False", "got 0"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3]}", {"shape must be a tuple", "got [2, 3]"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': 2}", {"shape must be a tuple", "got 2"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2)}", {"shape must be a tuple", "got (2)"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, -3)}", {"dim 1 is negative", "(2, -3)"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 'a')}", {"dim 1 is not an integer"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", {"dim 0 does not fit in 64 bits"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
       {"[4294967296, 4294967296]", "overflows a 64-bit element count"}},
      {"{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,)}", {"overflows a 64-bit byte count"}},
      {"{'descr': '<f4', 'fortran_order': False, 'shape': " + std::string(100, '(') + std::string(100, ')') + "}",
       {"nested more than 32 deep"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.dict);
    const std::string f = make_npy(c.dict, std::string(64, '\0'));
    auto r = parse_npy(f.data(), f.size(), "bad.npy");
    ASSERT_FALSE(r.is_ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message().rfind("bad.npy: ", 0), 0u) << r.status().message();
    for (const auto& p : c.parts)
      EXPECT_NE(r.status().message().find(p), std::string::npos) << "'" << p << "' not in: " << r.status().message();
  }
}

TEST_F(NpyTest, RejectsDTypesHipinferCannotHold) {
  struct Case {
    std::string descr;
    std::string why;
  };
  const std::vector<Case> cases = {
      {"<V2", "bfloat16 is not a numpy dtype"},  // what ml_dtypes' bfloat16 becomes
      {"bfloat16", "bfloat16 is not a numpy dtype"},
      {"<c8", "complex"},
      {"<c16", "complex"},
      {"<U3", "string arrays"},
      {"|S5", "string arrays"},
      {"|O", "object arrays"},
      {"<M8[ns]", "datetime"},
      {"|V16", "raw void"},
      {"<f16", "element size is not supported"},
      {"<i3", "element size is not supported"},
      {"xyz", "not a dtype descriptor"},
      {"", "not a dtype descriptor"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.descr);
    const std::string f =
        make_npy("{'descr': '" + c.descr + "', 'fortran_order': False, 'shape': (1,), }", std::string(32, '\0'));
    expect_error(parse_npy(f.data(), f.size(), "dt.npy"), StatusCode::kInvalidArgument,
                 {"dt.npy", "'" + c.descr + "'", c.why});
  }
}

TEST_F(NpyTest, ForgedHugeShapesFailBeforeAllocating) {
  const int64_t before = host_memory_stats().allocations;
  const std::string f = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", "abcd");
  expect_error(parse_npy(f.data(), f.size(), "huge.npy"), StatusCode::kInvalidArgument,
               {"huge.npy", "truncated data", "float32[1099511627776]", "4398046511104 bytes", "has 4"});
  EXPECT_EQ(host_memory_stats().allocations, before);
  // A header length larger than any plain array needs, in a version 2.0 file.
  std::string big = std::string("\x93NUMPY\x02\x00", 8);
  big += std::string("\x00\x00\x00\x40", 4);  // 1 GiB header
  big += std::string(100, ' ');
  expect_error(parse_npy(big.data(), big.size(), "bighdr.npy"), StatusCode::kInvalidArgument,
               {"bighdr.npy", "1073741824 bytes"});
}

TEST_F(NpyTest, ReportsOutOfMemoryAsAStatus) {
  std::vector<float> v(1024, 1.0f);
  const std::string f = make_npy("{'descr': '<f4', 'fortran_order': False, 'shape': (1024,), }", le_bytes(v));
  const std::string p = write_file("big.npy", f);
  set_host_allocation_limit(1000);
  auto r = parse_npy(f.data(), f.size(), "big.npy");
  auto r2 = read_npy(p);
  set_host_allocation_limit(0);  // back to the default
  expect_error(r, StatusCode::kOutOfMemory, {"big.npy", "float32[1024]"});
  expect_error(r2, StatusCode::kOutOfMemory, {"big.npy", "float32[1024]"});
}

TEST_F(NpyTest, ReadReportsMissingFilesAndDirectories) {
  expect_error(read_npy(path("nope.npy")), StatusCode::kNotFound, {"nope.npy", "no such file"});
  expect_error(read_npy(dir_.string()), StatusCode::kInvalidArgument, {dir_.string(), "directory"});
}

TEST_F(NpyTest, WriteRejectsTypesWithoutANumpyEquivalent) {
  expect_error(write_npy(path("bf.npy"), Tensor::zeros(DType::kBFloat16, {2})), StatusCode::kInvalidArgument,
               {"bf.npy", "bfloat16", "convert it to float32"});
  expect_error(write_npy(path("f8.npy"), Tensor::zeros(DType::kFloat8E4M3FN, {2})), StatusCode::kInvalidArgument,
               {"f8.npy", "float8"});
  expect_error(write_npy(path("u.npy"), Tensor()), StatusCode::kInvalidArgument, {"u.npy", "undefined"});
  EXPECT_FALSE(fs::exists(path("bf.npy")));
  expect_error(write_npy(path("no/such/dir/x.npy"), Tensor::zeros(DType::kFloat32, {2})), StatusCode::kInvalidArgument,
               {"no/such/dir/x.npy"});
}

TEST_F(NpyTest, SurvivesRandomCorruption) {
  // Flip bytes of a good file at random: every outcome is a clean success or a clean error.
  Tensor t = Tensor::empty(DType::kInt16, {3, 4, 5});
  fill_random(t, 7);
  ASSERT_TRUE(write_npy(path("c.npy"), t).is_ok());
  const std::string good = read_file(path("c.npy"));
  std::mt19937 rng(123);
  for (int iter = 0; iter < 2000; ++iter) {
    std::string f = good;
    const int flips = 1 + static_cast<int>(rng() % 4);
    for (int k = 0; k < flips; ++k) f[rng() % 128] = static_cast<char>(rng());
    f.resize(rng() % 3 == 0 ? rng() % f.size() : f.size());
    auto r = parse_npy(f.data(), f.size(), "fuzz.npy");
    if (!r.is_ok()) {
      EXPECT_EQ(r.status().message().rfind("fuzz.npy: ", 0), 0u) << r.status().message();
    }
  }
}

}  // namespace
}  // namespace hi
