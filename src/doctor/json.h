// A small JSON value with a parser and string escaping: enough for the compatibility matrix,
// `rocm-smi --json` output and the doctor's own --json. Not a general-purpose library.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "hipinfer/status.h"

namespace hi::doctor {

class Json {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };

  Json() = default;
  static Result<Json> parse(const std::string& text);

  Type type() const { return type_; }
  bool is_object() const { return type_ == Type::kObject; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_string() const { return type_ == Type::kString; }
  // Missing keys and wrong types read as null / "" / 0 / empty, so lookups chain safely.
  const Json& operator[](const std::string& key) const;
  const std::vector<Json>& items() const { return array_; }
  const std::map<std::string, Json>& members() const { return object_; }
  std::string str() const { return type_ == Type::kString ? string_ : ""; }
  double num() const { return type_ == Type::kNumber ? number_ : 0; }
  std::vector<std::string> strings() const;  // an array of strings

 private:
  friend class JsonParser;
  Type type_ = Type::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string string_;
  std::vector<Json> array_;
  std::map<std::string, Json> object_;
};

// "text" -> "\"text\"" with JSON escapes.
std::string json_quote(const std::string& text);

}  // namespace hi::doctor
