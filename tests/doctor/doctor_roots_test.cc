// Each fake machine in roots/ gives exactly the findings listed in its `expected` file.
#include <gtest/gtest.h>

#include "doctor/doctor_test_util.h"

namespace hi::doctor {
namespace {

using testing::finding_keys;
using testing::root_expected;
using testing::root_options;

class DoctorRoot : public ::testing::TestWithParam<std::string> {};

TEST_P(DoctorRoot, GivesExactlyTheExpectedFindings) {
  const DoctorResult result = run_doctor(root_options(GetParam()));
  EXPECT_EQ(finding_keys(result), root_expected(GetParam())) << format_text(result, false);
  // Every warning and error says why; every fix is one line.
  for (const auto& f : result.findings) {
    if (f.level != Level::kOk) {
      EXPECT_FALSE(f.detail.empty()) << f.id;
    }
    EXPECT_EQ(f.fix.find('\n'), std::string::npos) << f.id;
  }
}

INSTANTIATE_TEST_SUITE_P(Roots, DoctorRoot, ::testing::ValuesIn(testing::root_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace hi::doctor
