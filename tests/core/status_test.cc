// Status, Result and the error macros.
#include <gtest/gtest.h>

#include "hipinfer/status.h"

namespace hi {
namespace {

Status fails_when(bool c) {
  HI_RETURN_IF(c, kInvalidArgument, "value was ", 42);
  return Status::ok();
}

Result<int> half(int x) {
  if (x % 2) return error(StatusCode::kInvalidArgument, x, " is odd");
  return x / 2;
}

Status quarter(int x, int* out) {
  HI_ASSIGN_OR_RETURN(int h, half(x));
  HI_ASSIGN_OR_RETURN(int q, half(h));
  *out = q;
  return Status::ok();
}

TEST(Status, OkAndError) {
  EXPECT_TRUE(Status::ok().is_ok());
  Status s = fails_when(true);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "value was 42");
  EXPECT_EQ(s.to_string(), "InvalidArgument: value was 42");
  EXPECT_TRUE(fails_when(false).is_ok());
}

TEST(Status, ContextKeepsCode) {
  Status s = Status(StatusCode::kNotFound, "x").with_context("while y");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "while y: x");
}

TEST(Status, AssignOrReturnPropagates) {
  int q = 0;
  EXPECT_TRUE(quarter(8, &q).is_ok());
  EXPECT_EQ(q, 2);
  Status s = quarter(6, &q);
  EXPECT_FALSE(s.is_ok());
  EXPECT_EQ(s.message(), "3 is odd");
}

}  // namespace
}  // namespace hi
