// A small recursive-descent JSON parser (RFC 8259, no extensions) and string quoting.
#include "doctor/json.h"

#include <cstdio>
#include <cstdlib>

namespace hi::doctor {

class JsonParser {
 public:
  explicit JsonParser(const std::string& text) : s_(text) {}

  Result<Json> parse_document() {
    Json v;
    HI_RETURN_IF_ERROR(value(v, 0));
    skip_space();
    HI_RETURN_IF(pos_ != s_.size(), kInvalidArgument, "JSON: trailing text at offset ", pos_);
    return v;
  }

 private:
  Status fail(const char* what) const {
    return error(StatusCode::kInvalidArgument, "JSON: ", what, " at offset ", pos_);
  }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\r' || s_[pos_] == '\t')) ++pos_;
  }
  bool eat(char c) {
    skip_space();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool literal(const char* word) {
    const std::string w = word;
    if (s_.compare(pos_, w.size(), w) != 0) return false;
    pos_ += w.size();
    return true;
  }

  Status value(Json& out, int depth) {
    if (depth > 64) return fail("nesting too deep");
    skip_space();
    if (pos_ >= s_.size()) return fail("unexpected end");
    const char c = s_[pos_];
    if (c == '{') return object(out, depth);
    if (c == '[') return array(out, depth);
    if (c == '"') {
      out.type_ = Json::Type::kString;
      return string(out.string_);
    }
    if (literal("true") || literal("false")) {
      out.type_ = Json::Type::kBool;
      out.bool_ = s_[pos_ - 1] == 'e' && s_[pos_ - 2] == 'u';
      return Status::ok();
    }
    if (literal("null")) return Status::ok();
    const char* begin = s_.c_str() + pos_;
    char* end = nullptr;
    out.number_ = std::strtod(begin, &end);
    if (end == begin) return fail("unexpected character");
    out.type_ = Json::Type::kNumber;
    pos_ += static_cast<size_t>(end - begin);
    return Status::ok();
  }

  Status object(Json& out, int depth) {
    out.type_ = Json::Type::kObject;
    ++pos_;
    if (eat('}')) return Status::ok();
    do {
      skip_space();
      std::string key;
      if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a key");
      HI_RETURN_IF_ERROR(string(key));
      if (!eat(':')) return fail("expected ':'");
      HI_RETURN_IF_ERROR(value(out.object_[key], depth + 1));
    } while (eat(','));
    return eat('}') ? Status::ok() : fail("expected '}'");
  }

  Status array(Json& out, int depth) {
    out.type_ = Json::Type::kArray;
    ++pos_;
    if (eat(']')) return Status::ok();
    do {
      out.array_.emplace_back();
      HI_RETURN_IF_ERROR(value(out.array_.back(), depth + 1));
    } while (eat(','));
    return eat(']') ? Status::ok() : fail("expected ']'");
  }

  Status string(std::string& out) {
    ++pos_;  // opening quote
    while (pos_ < s_.size()) {
      const char c = s_[pos_++];
      if (c == '"') return Status::ok();
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= s_.size()) break;
      const char e = s_[pos_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return fail("bad \\u escape");
          const unsigned cp = static_cast<unsigned>(std::strtoul(s_.substr(pos_, 4).c_str(), nullptr, 16));
          pos_ += 4;
          append_utf8(out, cp);  // surrogate pairs are kept as two code points; fine for our data
          break;
        }
        default: out += e;  // \" \\ \/
      }
    }
    return fail("unterminated string");
  }

  static void append_utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  const std::string& s_;
  size_t pos_ = 0;
};

Result<Json> Json::parse(const std::string& text) { return JsonParser(text).parse_document(); }

const Json& Json::operator[](const std::string& key) const {
  static const Json kNull;
  if (type_ != Type::kObject) return kNull;
  const auto it = object_.find(key);
  return it == object_.end() ? kNull : it->second;
}

std::vector<std::string> Json::strings() const {
  std::vector<std::string> out;
  for (const auto& v : array_)
    if (v.is_string()) out.push_back(v.string_);
  return out;
}

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

}  // namespace hi::doctor
