// `hipinfer report`: every section filled, the failing command captured, no secret leaks.
#include <gtest/gtest.h>

#include <chrono>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "doctor/doctor_test_util.h"

namespace hi::doctor {
namespace {

const char* kSections[] = {"## Describe the problem",
                           "## Versions",
                           "## GPU and CPU",
                           "## Model",
                           "## Steps to reproduce",
                           "## Error log",
                           "## What was already tried",
                           "## hipinfer doctor",
                           "## Environment variables"};

// Text between a section's heading and the next one, without blank lines.
std::string section_body(const std::string& report, const std::string& heading) {
  const auto at = report.find(heading + "\n");
  if (at == std::string::npos) return "";
  const auto start = at + heading.size() + 1, end = report.find("\n## ", start);
  std::string body = report.substr(start, end == std::string::npos ? std::string::npos : end - start);
  body.erase(std::remove(body.begin(), body.end(), '\n'), body.end());
  return body;
}

ReportOptions secret_laden_options(const std::string& model, const std::string& log) {
  ReportOptions o;
  o.doctor = testing::root_options("no_gpu");
  o.doctor.env["AWS_SECRET_ACCESS_KEY"] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  o.doctor.env["GITHUB_TOKEN"] = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
  o.doctor.env["HI_API_TOKEN"] = "do-not-show-me";
  o.doctor.env["DATABASE_URL"] = "postgres://dave:hunter2@db.example/prod";
  o.doctor.env["HIP_VISIBLE_DEVICES"] = "0";
  o.hipinfer_version = "0.1.0";
  o.model_path = model;
  o.log_path = log;
  o.command =
      "echo 'loading /home/dave/models/resnet.onnx'; "
      "echo 'hipinfer: error: cannot open missing.onnx: No such file or directory' >&2; "
      "echo 'retrying with HF_TOKEN=hf_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 password: hunter2'; exit 4";
  o.mask_home = true;
  return o;
}

TEST(Report, EverySectionIsFilledAndTheCommandIsCaptured) {
  const auto dir = std::filesystem::temp_directory_path() / "hi_report_test";
  std::filesystem::create_directories(dir);
  const std::string model = (dir / "model.onnx").string(), log = (dir / "run.log").string();
  std::ofstream(model, std::ios::binary) << std::string("\x08\x07\x12\x04test", 8);
  std::ofstream(log) << "step 1\nAuthorization: Bearer abcdefghijklmnop0123\n";
  const auto report = make_report(secret_laden_options(model, log));
  ASSERT_TRUE(report.is_ok()) << report.status().message();
  const std::string& r = report.value();
  for (const char* s : kSections) EXPECT_FALSE(section_body(r, s).empty()) << s << "\n" << r;
  EXPECT_NE(r.find("# Bug report: hipinfer: error: cannot open missing.onnx"), std::string::npos) << r;
  EXPECT_NE(r.find("exited with status 4"), std::string::npos);
  EXPECT_NE(r.find("| hipinfer | 0.1.0"), std::string::npos);
  EXPECT_NE(r.find("torch 2.5.1+cpu"), std::string::npos);
  EXPECT_NE(r.find("- cannot be read: "), std::string::npos) << r;  // the stand-in is not a whole model
  EXPECT_NE(r.find("step 1"), std::string::npos);
  EXPECT_NE(r.find("HIP_VISIBLE_DEVICES=0"), std::string::npos);
}

TEST(Report, LeaksNoSecretAndMasksHome) {
  const auto report = make_report(secret_laden_options("", ""));
  ASSERT_TRUE(report.is_ok());
  const std::string& r = report.value();
  for (const char* secret : {"wJalrXUtnFEMI", "ghp_abcdef", "do-not-show-me", "hunter2", "hf_ABCDEFGH", "AWS_SECRET",
                             "GITHUB_TOKEN", "HI_API_TOKEN", "DATABASE_URL"})
    EXPECT_EQ(r.find(secret), std::string::npos) << secret;
  EXPECT_EQ(r.find("/home/dave"), std::string::npos);
  EXPECT_NE(r.find("~/models/resnet.onnx"), std::string::npos);
  EXPECT_NE(r.find("No model given"), std::string::npos);
}

TEST(Report, NothingGivenStillFillsEverySection) {
  ReportOptions o;
  o.doctor = testing::root_options("amd_not_in_group");
  const auto report = make_report(o);
  ASSERT_TRUE(report.is_ok());
  for (const char* s : kSections) EXPECT_FALSE(section_body(report.value(), s).empty()) << s;
  EXPECT_NE(report.value().find("sudo usermod -a -G render,video alice"), std::string::npos);  // what to try
  EXPECT_NE(report.value().find("| 0 | AMD Radeon RX 7900 XTX | gfx1100 |"), std::string::npos);
}

TEST(Redaction, VariablesPassAnAllowList) {
  for (const char* ok : {"HIP_VISIBLE_DEVICES", "HSA_OVERRIDE_GFX_VERSION", "LD_LIBRARY_PATH", "OMP_NUM_THREADS",
                         "CUDA_VISIBLE_DEVICES"})
    EXPECT_TRUE(report_may_show_variable(ok)) << ok;
  for (const char* hidden :
       {"HOME", "USER", "SSH_AUTH_SOCK", "HF_TOKEN", "HI_API_KEY", "CUDA_SECRET", "AWS_ACCESS_KEY_ID", "MY_PASSWORD"})
    EXPECT_FALSE(report_may_show_variable(hidden)) << hidden;
}

TEST(Redaction, TokensInTextAreReplaced) {
  const std::string text =
      "hf_abcdefghijklmnopqrstuvwxyz1234 ghp_0123456789abcdefghijABCDEFGHIJ AKIAIOSFODNN7EXAMPLE "
      "api_key=12345678 \"password\": \"s3cr3t\" Authorization: Bearer xyz0123456789abc https://u:pw@host/x "
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
  const std::string out = redact_secrets(text);
  for (const char* secret :
       {"hf_abc", "ghp_012", "AKIAIOSF", "12345678", "s3cr3t", "xyz0123456789abc", ":pw@", "eyJhbGci"})
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " in " << out;
  EXPECT_NE(out.find("api_key="), std::string::npos);  // the key stays, so the reader knows what was there
  // Ordinary log lines survive.
  const std::string log =
      "gfx1100 sm_90 /opt/rocm-6.2.0/lib version `GLIBCXX_3.4.30' not found (required by libtorch_cpu.so)";
  EXPECT_EQ(redact_secrets(log), log);
}

// The formats the first redaction missed (issue 24), each beside text that must survive.
TEST(Redaction, CommonSecretFormatsAndPasswordForms) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"key ASIAY34FZKBOKMUTVV7A in use", "ASIAY34FZKBOKMUTVV7A"},
      {"aws AKIAIOSFODNN7EXAMPLE wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI"},
      {"google AIzaSyA-1234567890abcdefghijklmnopqrstu", "AIzaSyA-123"},
      {"stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "4eC39HqLyjWDarjtT1zdp7dc"},
      {"npm_abcdefghijklmnopqrstuvwxyz0123456789 registry", "npm_abcdef"},
      {"pypi-AgEIcHlwaS5vcmcCJGE0ZjYxYzYwLTk3ZDAtNDBlOC05YzZiLTQ0ZGQ0NzI2 upload", "pypi-AgEIc"},
      {"post https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX ok", "T000/B000/XXXX"},
      {"{\"auths\": {\"r.io\": {\"auth\": \"ZGF2ZTpodW50ZXIy\"}}}", "ZGF2ZTpodW50ZXIy"},
      {"DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=abc123def456==;EndpointSuffix=core", "abc123def456"},
      {"https://acct.blob.core.windows.net/c?sv=2021&sig=Zm9vYmFyYmF6%3D&se=2026", "Zm9vYmFyYmF6"},
      {"mysql --user=root --password hunter2 db", "hunter2"},
      {"mysql -u root -phunter2 db", "hunter2"},
      {"curl -u dave:hunter2 https://x.example", "hunter2"},
      {"MYSQL_PWD=hunter2 mysql", "hunter2"},
      {"postgres://dave:pa/ss@wd@db.example/prod", "pa/ss@wd"},
  };
  for (const auto& [text, secret] : cases) {
    const std::string out = redact_secrets(text);
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " in " << out;
    EXPECT_NE(out.find("[REDACTED"), std::string::npos) << out;
  }
  for (const char* keep : {"commit 3f2a9c1d0b8e7f6a5c4d3e2f1a0b9c8d7e6f5a4b merged", "PWD=/srv/project",
                           "mysql -u root -p db", "export OMP_NUM_THREADS=8"})
    EXPECT_EQ(redact_secrets(keep), keep);
}

// A BEGIN line without an END hides its own block only, not the rest of the log.
TEST(Redaction, PrivateKeyWithoutEndHidesOnlyItsBlock) {
  const std::string log =
      "before\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nAbCd+/==\nerror: the real message\n"
      "-----END CERTIFICATE-----\nafter\n";
  const std::string out = redact_secrets(log);
  EXPECT_EQ(out.find("MIIEpAIBAAKCAQEA"), std::string::npos) << out;
  EXPECT_NE(out.find("error: the real message"), std::string::npos) << out;
  EXPECT_NE(out.find("after"), std::string::npos) << out;
  const std::string whole = "a\n-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\nb\n";
  EXPECT_EQ(redact_secrets(whole), "a\n[REDACTED PRIVATE KEY]\nb\n");
}

// Linear time and no recursion: a 30,000-character line crashed the regex redaction; 4 MiB of
// one line, and of many, go through quickly.
TEST(Redaction, LongLinesAreLinear) {
  const std::string one(30000, 'a');
  EXPECT_EQ(redact_secrets(one), one);
  std::string big(4 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 97) big[i] = i % 2 ? ' ' : '=';
  const auto t0 = std::chrono::steady_clock::now();
  const std::string out = redact_secrets(big);
  EXPECT_EQ(out.size(), big.size());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(ShellCommand, TimesOutAndKillsTheGroup) {
  const auto r = run_shell_command("sleep 30 & sleep 30; echo never", 1, {{"PATH", "/usr/bin:/bin"}});
  ASSERT_TRUE(r.is_ok());
  EXPECT_TRUE(r.value().timed_out);
  EXPECT_LT(r.value().seconds, 10);
  EXPECT_EQ(r.value().output.find("never"), std::string::npos);
}

TEST(ShellCommand, CapturesOutputAndStatus) {
  const auto r = run_shell_command("echo out; echo err >&2; exit 3", 10, {{"PATH", "/usr/bin:/bin"}});
  ASSERT_TRUE(r.is_ok());
  EXPECT_EQ(r.value().exit_status, 3);
  EXPECT_EQ(r.value().output, "out\nerr\n");
}

}  // namespace
}  // namespace hi::doctor
