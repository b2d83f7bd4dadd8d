// String and version helpers shared by the check families.
#include <cctype>
#include <cstdio>

#include "doctor/context.h"

namespace hi::doctor {

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::vector<std::string> split(std::string_view s, char sep, bool skip_empty) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(sep, start), s.size());
    std::string part(s.substr(start, end - start));
    if (!part.empty() && part.back() == '\r') part.pop_back();
    if (!skip_empty || !part.empty()) out.push_back(std::move(part));
    start = end + 1;
  }
  return out;
}

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string format_bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double b = static_cast<double>(bytes);
  int u = 0;
  while (b >= 1024 && u < 4) {
    b /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

int compare_versions(const std::string& a, const std::string& b) {
  const auto pa = split(a, '.', false), pb = split(b, '.', false);
  for (size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    const std::string x = i < pa.size() ? pa[i] : "0", y = i < pb.size() ? pb[i] : "0";
    const bool nx = !x.empty() && std::isdigit(static_cast<unsigned char>(x[0]));
    const bool ny = !y.empty() && std::isdigit(static_cast<unsigned char>(y[0]));
    if (nx && ny) {
      const long long vx = std::stoll(x), vy = std::stoll(y);
      if (vx != vy) return vx < vy ? -1 : 1;
    } else if (x != y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

static std::string leading_numeric(const std::string& v) {
  size_t e = 0;
  while (e < v.size() && (std::isdigit(static_cast<unsigned char>(v[e])) || v[e] == '.')) ++e;
  return v.substr(0, e);
}

std::string major_of(const std::string& version) {
  return split(leading_numeric(version), '.').empty() ? "" : split(leading_numeric(version), '.')[0];
}

std::string major_minor_of(const std::string& version) {
  const auto parts = split(leading_numeric(version), '.');
  if (parts.empty()) return "";
  return parts.size() == 1 ? parts[0] : parts[0] + "." + parts[1];
}

std::string field(const std::string& text, const std::string& key, char sep) {
  for (const auto& line : split(text, '\n')) {
    const auto t = trim(line);
    if (!starts_with(t, key)) continue;
    const auto rest = trim(std::string_view(t).substr(key.size()));
    if (!rest.empty() && rest[0] == sep) return trim(std::string_view(rest).substr(1));
  }
  return "";
}

std::string shell_quote(const std::string& word) {
  bool plain = !word.empty();
  for (const char c : word)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("/._-:=+,@").find(c) == std::string::npos)
      plain = false;
  if (plain) return word;
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int count_gpus(const SystemFacts& facts, const std::string& vendor) {
  int n = 0;
  for (const auto& g : facts.gpus) n += g.vendor == vendor;
  return n;
}

}  // namespace hi::doctor
