// A small streaming JSON writer for `hipinfer bench --json`: objects are indented one member per
// line, arrays stay on one line (the per-run latencies), non-finite numbers become null.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hi::cli {

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& k);  // inside an object, before each value
  JsonWriter& value(const std::string& s);
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(double d);
  JsonWriter& value(int64_t i);
  JsonWriter& value(int i) { return value(static_cast<int64_t>(i)); }
  JsonWriter& value(bool b);
  JsonWriter& null();
  JsonWriter& value(const std::vector<double>& numbers);  // an array of numbers
  const std::string& str() const { return out_; }

 private:
  struct Level {
    bool is_object;
    bool empty = true;
  };
  void before_value();
  void newline();
  std::string out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

// The JSON string literal for `s`, quotes included (control characters as \uXXXX).
std::string json_quote(const std::string& s);

}  // namespace hi::cli
