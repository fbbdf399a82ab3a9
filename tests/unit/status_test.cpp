// Status / StatusOr: the error type crossing every component boundary.
#include "lazarus/status.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string>

namespace lz {
namespace {

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Code::kOk);
  EXPECT_EQ(s.to_string(), "OK");
  EXPECT_TRUE(Status::Ok().ok());
}

TEST(Status, HelpersCarryCodeAndMessage) {
  EXPECT_EQ(InvalidArgument("m").code(), Code::kInvalidArgument);
  EXPECT_EQ(NotFound("m").code(), Code::kNotFound);
  EXPECT_EQ(Unavailable("m").code(), Code::kUnavailable);
  EXPECT_EQ(Unimplemented("m").code(), Code::kUnimplemented);
  EXPECT_EQ(Internal("m").code(), Code::kInternal);
  EXPECT_EQ(IoError("m").code(), Code::kIo);
  EXPECT_EQ(Timeout("m").code(), Code::kTimeout);
  EXPECT_EQ(PermissionDenied("m").code(), Code::kPermissionDenied);
  EXPECT_EQ(DataLoss("m").code(), Code::kDataLoss);
  EXPECT_EQ(ProtocolError("m").code(), Code::kProtocol);
  Status s = Unavailable("no device");
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "no device");
  EXPECT_EQ(s.to_string(), "UNAVAILABLE: no device");
}

TEST(Status, WithContextPrefixesAndKeepsCode) {
  Status s = NotFound("no such file").with_context("--config a.yaml");
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_EQ(s.message(), "--config a.yaml: no such file");
  EXPECT_TRUE(Status::Ok().with_context("ignored").ok());
  EXPECT_EQ(Status::Ok().with_context("ignored").message(), "");
}

TEST(Status, ErrnoErrorNamesWhatAndStrerror) {
  Status s = ErrnoError("open /x", ENOENT);
  EXPECT_EQ(s.code(), Code::kIo);
  EXPECT_EQ(s.message(), std::string("open /x: ") + std::strerror(ENOENT));
}

TEST(Status, CodeNamesAreDistinct) {
  for (int a = 0; a <= static_cast<int>(Code::kAborted); ++a)
    for (int b = a + 1; b <= static_cast<int>(Code::kAborted); ++b)
      EXPECT_STRNE(code_name(static_cast<Code>(a)), code_name(static_cast<Code>(b)));
}

StatusOr<int> half(int x) {
  if (x % 2) return InvalidArgument(std::to_string(x) + " is odd");
  return x / 2;
}

Status quarter(int x, int& out) {
  LZ_ASSIGN_OR_RETURN(int h, half(x));
  LZ_ASSIGN_OR_RETURN(int q, half(h));
  out = q;
  return Status::Ok();
}

TEST(StatusOr, HoldsValueOrError) {
  auto ok = half(8);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(*ok, 4);
  EXPECT_TRUE(ok.status().ok());
  auto bad = half(3);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "3 is odd");
}

TEST(StatusOr, MoveOnlyValues) {
  StatusOr<std::unique_ptr<int>> p = std::make_unique<int>(7);
  ASSERT_TRUE(p.ok());
  std::unique_ptr<int> taken = std::move(p).value();
  EXPECT_EQ(*taken, 7);
}

TEST(StatusMacros, PropagateErrorsAndSetOutputOnlyOnSuccess) {
  int out = -1;
  EXPECT_TRUE(quarter(8, out).ok());
  EXPECT_EQ(out, 2);
  out = -1;
  Status s = quarter(6, out);  // 6 -> 3, odd
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "3 is odd");
  EXPECT_EQ(out, -1);
}

}  // namespace
}  // namespace lz
