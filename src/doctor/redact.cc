// Keeping secrets out of bug reports: an allow-list for environment variables and patterns for
// tokens, keys and passwords in logs. Redaction errs on the side of hiding.
#include <regex>

#include "doctor/context.h"

namespace hi::doctor {

bool report_may_show_variable(const std::string& name) {
  // A variable named like a secret stays out even under an allowed prefix (HI_API_TOKEN).
  static const char* kSecretWords[] = {"TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH", "COOKIE", "SESSION", "PRIVATE"};
  for (const char* w : kSecretWords)
    if (name.find(w) != std::string::npos) return false;
  static const char* kPrefixes[] = {"HIP_", "HSA_", "ROCR_", "ROCM_", "AMD_", "GPU_", "MIOPEN_", "ROCBLAS_", "HIPBLASLT_",
                                    "CUDA_", "NVIDIA_", "CUDNN_", "CUBLAS_", "NCCL_", "OMP_", "MKL_", "HI_", "PYTORCH_", "TORCH_", "ORT_"};
  for (const char* p : kPrefixes)
    if (starts_with(name, p)) return true;
  static const char* kNames[] = {"LD_LIBRARY_PATH", "LD_PRELOAD", "PATH", "PYTHONPATH", "CONDA_PREFIX", "VIRTUAL_ENV", "LANG", "LC_ALL"};
  for (const char* n : kNames)
    if (name == n) return true;
  return false;
}

std::string redact_secrets(const std::string& text) {
  using std::regex;
  static const std::vector<std::pair<regex, std::string>> kRules = [] {
    const auto icase = regex::ECMAScript | regex::icase;
    std::vector<std::pair<regex, std::string>> r;
    // Private key blocks, whole.
    r.push_back({regex("-----BEGIN [A-Z ]*PRIVATE KEY-----[\\s\\S]*?-----END [A-Z ]*PRIVATE KEY-----"), "[REDACTED PRIVATE KEY]"});
    // Well-known token shapes: Hugging Face, GitHub, GitLab, OpenAI-style, Slack, AWS access keys, JWTs.
    r.push_back({regex("\\b(hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|"
                       "sk-[A-Za-z0-9_-]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|"
                       "eyJ[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,}\\.[A-Za-z0-9_-]{10,})"),
                 "[REDACTED]"});
    // Authorization headers.
    r.push_back({regex("\\b(Bearer|Basic|token)\\s+[A-Za-z0-9._~+/=-]{8,}", icase), "$1 [REDACTED]"});
    // key=value / key: value where the key names a secret.
    r.push_back({regex("\\b([A-Za-z0-9_.-]*(token|secret|password|passwd|api[_-]?key|access[_-]?key|private[_-]?key|credential)[A-Za-z0-9_.-]*"
                       "[\"']?\\s*[:=]\\s*)[\"']?[^\\s\"',;]+[\"']?",
                       icase),
                 "$1[REDACTED]"});
    // Passwords in URLs: scheme://user:password@host.
    r.push_back({regex("(://[^/\\s:@]+:)[^@\\s/]+@"), "$1[REDACTED]@"});
    return r;
  }();
  std::string out = text;
  for (const auto& [re, replacement] : kRules) out = std::regex_replace(out, re, replacement);
  return out;
}

}  // namespace hi::doctor
