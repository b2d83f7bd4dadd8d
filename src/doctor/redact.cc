// Keeping secrets out of bug reports: an allow-list for environment variables and a scanner for
// tokens, keys and passwords in logs and commands. Redaction errs on the side of hiding.
//
// The scanner is linear in its input and uses no regular expressions: std::regex recursed once
// per character on long lines (a 30,000-character log line overflowed the stack). It works a line
// at a time, a whitespace-separated token at a time, and looks at:
//   - private key blocks: the BEGIN line and the base64 lines after it, up to and including the
//     END line (a BEGIN without END hides only its own block, not the rest of the log);
//   - token shapes, wherever a token or a part of one starts: Hugging Face, GitHub, GitLab,
//     OpenAI-style, Stripe, Slack, npm, PyPI, Google API keys, AWS access keys (AKIA, ASIA) and
//     40-character AWS secrets, JWTs, Slack webhook URLs;
//   - key=value and "key": value where the key names a secret (token, secret, password, pwd,
//     api key, access key, private key, credential, AccountKey, auth, sig), also inside URLs'
//     query strings and ';'-separated connection strings;
//   - the word after Bearer / Basic / token, after --password / --token / --api-key, the
//     password of -u / --user user:password (curl), -pPASSWORD on a mysql command line;
//   - URL passwords (scheme://user:password@host), the password itself containing '/' or '@'.
#include <cctype>
#include <string_view>

#include "doctor/context.h"

namespace hi::doctor {

bool report_may_show_variable(const std::string& name) {
  // A variable named like a secret stays out even under an allowed prefix (HI_API_TOKEN).
  static const char* kSecretWords[] = {"TOKEN",      "SECRET", "KEY",    "PASSWORD", "PASSWD", "PWD",
                                       "CREDENTIAL", "AUTH",   "COOKIE", "SESSION",  "PRIVATE"};
  for (const char* w : kSecretWords)
    if (name.find(w) != std::string::npos) return false;
  static const char* kPrefixes[] = {"HIP_",     "HSA_",       "ROCR_", "ROCM_",    "AMD_",   "GPU_",    "MIOPEN_",
                                    "ROCBLAS_", "HIPBLASLT_", "CUDA_", "NVIDIA_",  "CUDNN_", "CUBLAS_", "NCCL_",
                                    "OMP_",     "MKL_",       "HI_",   "PYTORCH_", "TORCH_", "ORT_"};
  for (const char* p : kPrefixes)
    if (starts_with(name, p)) return true;
  static const char* kNames[] = {"LD_LIBRARY_PATH", "LD_PRELOAD",  "PATH", "PYTHONPATH",
                                 "CONDA_PREFIX",    "VIRTUAL_ENV", "LANG", "LC_ALL"};
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

namespace {

constexpr std::string_view kMark = "[REDACTED]";

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool token_char(char c) { return alnum(c) || c == '_' || c == '-'; }

// A key (lowercase, quotes and leading dashes stripped) whose value is a secret.
bool secret_key(std::string key) {
  // Dashes of flags, quotes and brackets around JSON keys: {"auth", --password, 'token'.
  while (!key.empty() && !alnum(key.front())) key.erase(0, 1);
  while (!key.empty() && !alnum(key.back())) key.pop_back();
  for (const char* w :
       {"token", "secret", "password", "passwd", "credential", "apikey", "api_key", "api-key", "accesskey",
        "access_key", "access-key", "privatekey", "private_key", "private-key", "accountkey"})
    if (key.find(w) != std::string::npos) return true;
  if (key == "auth" || key == "sig") return true;  // Docker's "auth", Azure SAS signatures
  return key.size() > 4 && key.ends_with("_pwd");  // MYSQL_PWD (not PWD, the current folder)
}

// The length of a secret token starting at s[i] (a token shape from the list above), or 0.
size_t token_shape_at(std::string_view s, size_t i) {
  auto run = [&](size_t from, auto ok) {
    size_t j = from;
    while (j < s.size() && ok(s[j])) ++j;
    return j - from;
  };
  auto with_prefix = [&](std::string_view prefix, size_t min, auto ok) -> size_t {
    if (s.substr(i, prefix.size()) != prefix) return 0;
    const size_t n = run(i + prefix.size(), ok);
    return n >= min ? prefix.size() + n : 0;
  };
  auto word = [](char c) { return alnum(c) || c == '_'; };
  auto dashed = [](char c) { return token_char(c); };
  auto upper_digit = [](char c) {
    return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c));
  };
  for (std::string_view p : {"hf_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"})
    if (size_t n = with_prefix(p, 20, word)) return n;
  for (std::string_view p : {"glpat-", "sk-"})
    if (size_t n = with_prefix(p, 20, dashed)) return n;
  for (std::string_view p : {"sk_live_", "sk_test_", "rk_live_", "rk_test_"})
    if (size_t n = with_prefix(p, 10, word)) return n;
  for (std::string_view p : {"xoxa-", "xoxb-", "xoxp-", "xoxr-", "xoxs-"})
    if (size_t n = with_prefix(p, 10, dashed)) return n;
  if (size_t n = with_prefix("npm_", 30, word)) return n;
  if (size_t n = with_prefix("pypi-", 40, dashed)) return n;
  if (size_t n = with_prefix("AIza", 30, dashed)) return n;
  for (std::string_view p : {"AKIA", "ASIA"})
    if (s.substr(i, 4) == p && run(i + 4, upper_digit) == 16) return 20;
  // A JWT: three base64url parts, the first one a JSON object ("eyJ").
  if (s.substr(i, 3) == "eyJ") {
    size_t j = i, parts = 0;
    while (parts < 3) {
      const size_t n = run(j, dashed);
      if (n < 10) break;
      j += n;
      ++parts;
      if (parts < 3 && (j >= s.size() || s[j] != '.')) break;
      if (parts < 3) ++j;
    }
    if (parts == 3) return j - i;
  }
  // An AWS secret access key: exactly 40 characters of [A-Za-z0-9/+] with upper and lower case
  // and a digit or symbol (git hashes, lower-case hex, do not look like one).
  auto b64 = [](char c) { return alnum(c) || c == '/' || c == '+'; };
  if (i == 0 || !b64(s[i - 1])) {
    const size_t n = run(i, b64);
    if (n == 40) {
      bool up = false, low = false, other = false;
      for (size_t j = i; j < i + n; ++j) {
        up |= std::isupper(static_cast<unsigned char>(s[j])) != 0;
        low |= std::islower(static_cast<unsigned char>(s[j])) != 0;
        other |= !std::isalpha(static_cast<unsigned char>(s[j]));
      }
      if (up && low && other) return n;
    }
  }
  return 0;
}

// Redacts one whitespace-free token: URL passwords, token shapes, key=value parts.
std::string redact_token(std::string_view t) {
  std::string out;
  out.reserve(t.size());
  // URL password: scheme://user:password@host, up to the last '@' of the token.
  if (size_t scheme = t.find("://"); scheme != std::string_view::npos) {
    const size_t at = t.rfind('@');
    const size_t colon = t.find(':', scheme + 3);
    if (at != std::string_view::npos && colon != std::string_view::npos && colon < at) {
      std::string rest = std::string(t.substr(0, colon + 1)) + std::string(kMark) + "@";
      return rest + redact_token(t.substr(at + 1));
    }
    // Slack webhooks carry their secret in the path.
    if (size_t hook = t.find("hooks.slack.com/services/"); hook != std::string_view::npos)
      return std::string(t.substr(0, hook + 25)) + std::string(kMark);
  }
  size_t i = 0;
  while (i < t.size()) {
    // key=value (and key: value inside a token, as JSON without spaces writes it).
    const bool starts_part = i == 0 || !token_char(t[i - 1]);
    if (starts_part) {
      if (size_t n = token_shape_at(t, i)) {
        out += kMark;
        i += n;
        continue;
      }
      size_t j = i;
      while (j < t.size() && t[j] != '=' && t[j] != ':' && t[j] != '&' && t[j] != ';' && t[j] != ',' && t[j] != '?')
        ++j;
      if (j < t.size() && (t[j] == '=' || t[j] == ':') && j > i && secret_key(lower(t.substr(i, j - i)))) {
        size_t v = j + 1;
        while (v < t.size() && (t[v] == '"' || t[v] == '\'')) ++v;
        size_t e = v;
        while (e < t.size() && t[e] != '&' && t[e] != ';' && t[e] != ',' && t[e] != '"' && t[e] != '\'') ++e;
        if (e > v) {
          out.append(t.substr(i, v - i));
          out += kMark;
          i = e;
          continue;
        }
      }
    }
    out += t[i++];
  }
  return out;
}

// Whether the token after this one is a secret: authorization schemes, password flags, and a key
// ending in ':' that names a secret ("password: hunter2", "\"auth\": \"...\"").
enum class Next { kKeep, kSecret, kUserPassword };
Next what_follows(std::string_view token) {
  const std::string t = lower(token);
  for (const char* w : {"bearer", "basic", "token", "--password", "--passwd", "--token", "--api-key", "--secret"})
    if (t == w) return Next::kSecret;
  if (t == "-u" || t == "--user") return Next::kUserPassword;
  if (t.size() > 1 && t.back() == ':' && t.find('=') == std::string::npos && secret_key(t.substr(0, t.size() - 1)))
    return Next::kSecret;
  return Next::kKeep;
}

bool base64_line(std::string_view line) {
  for (char c : line)
    if (!alnum(c) && c != '+' && c != '/' && c != '=' && c != '\r') return false;
  return true;
}

}  // namespace

std::string redact_secrets(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  bool in_private_key = false;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string_view line(text.data() + start, end - start);
    const bool newline = end < text.size();
    start = end + 1;
    if (line.find("-----BEGIN ") != std::string_view::npos && line.find("PRIVATE KEY-----") != std::string_view::npos) {
      out += "[REDACTED PRIVATE KEY]";
      in_private_key = line.find("-----END ") == std::string_view::npos;
      if (newline) out += '\n';
      continue;
    }
    if (in_private_key) {
      if (line.find("-----END ") != std::string_view::npos) {
        in_private_key = false;
        continue;  // the END line goes with the block
      }
      if (base64_line(line) || line.starts_with("Proc-Type:") || line.starts_with("DEK-Info:")) continue;
      in_private_key = false;  // a BEGIN without END: the block ended at its last base64 line
    }
    const bool mysql = lower(line).find("mysql") != std::string::npos;
    Next next = Next::kKeep;
    size_t i = 0;
    while (i < line.size()) {
      if (std::isspace(static_cast<unsigned char>(line[i]))) {
        out += line[i++];
        continue;
      }
      size_t j = i;
      while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
      const std::string_view token = line.substr(i, j - i);
      i = j;
      if (next == Next::kSecret && token.size() >= 2) {
        // The value, keeping its quotes and what closes around it ("...\"}}," stays "}},").
        const bool quoted = token.front() == '"' || token.front() == '\'';
        const size_t close = quoted ? token.find(token.front(), 1) : std::string_view::npos;
        size_t rest = close != std::string_view::npos ? close + 1 : token.size();
        if (!quoted)
          while (rest > 0 &&
                 (token[rest - 1] == ',' || token[rest - 1] == '}' || token[rest - 1] == ']' || token[rest - 1] == ';'))
            --rest;
        if (quoted) out += token.front();
        out += kMark;
        if (quoted && close != std::string_view::npos) out += token.front();
        out.append(token.substr(rest));
        next = Next::kKeep;
        continue;
      }
      if (next == Next::kUserPassword && token.find(':') != std::string_view::npos) {
        out.append(token.substr(0, token.find(':') + 1));
        out += kMark;
        next = Next::kKeep;
        continue;
      }
      if (mysql && token.size() > 2 && token.starts_with("-p") && token != "-p") {
        out += "-p";
        out += kMark;
        next = Next::kKeep;
        continue;
      }
      next = what_follows(token);
      out += redact_token(token);
    }
    if (newline) out += '\n';
    if (end == text.size()) break;
  }
  return out;
}

}  // namespace hi::doctor
