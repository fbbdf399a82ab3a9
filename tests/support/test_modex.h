// TestModex: the modex a transport sees in tests. On its own it is an
// in-memory table (put is visible to get() at once, fence() does nothing,
// and a test may plant another rank's entries), possibly one table shared by
// several ranks living in one process; given a put and a fence function it
// becomes the channel modex of a forked job (transport_job.h): put() is
// forwarded, and fence() replaces the table with every rank's entries.
//
//   lz::test::TestModex modex(/*rank=*/0);
//   modex.set(1, "transport.tcp.addr", "127.0.0.1:9");  // rank 1, played by the test
//   auto mine = modex.get(0, "transport.tcp.addr");
//
//   lz::test::TestModex::Entries table;                  // two ranks, one process
//   lz::test::TestModex m0(0, &table), m1(1, &table);
#pragma once

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "lazarus/modex.h"
#include "lazarus/status.h"

namespace lz::test {

class TestModex final : public Modex {
 public:
  using Entries = std::map<int, std::map<std::string, std::string>>;  // rank -> key -> value
  using PutFn = std::function<Status(std::string_view key, std::string_view value)>;
  using FenceFn = std::function<Status(Entries* all)>;

  // In memory; `shared` (which must outlive the modex) is one table for
  // several ranks of this process, else the modex has its own.
  explicit TestModex(int rank, Entries* shared = nullptr) : rank_(rank), table_(shared ? shared : &own_) {}
  // The channel modex of a forked job.
  TestModex(int rank, PutFn put, FenceFn fence)
      : rank_(rank), put_(std::move(put)), fence_(std::move(fence)), table_(&own_) {}
  TestModex(const TestModex&) = delete;
  TestModex& operator=(const TestModex&) = delete;

  Status put(std::string_view key, std::string_view value) override;
  Status fence() override;
  // kNotFound when `rank` published no `key` (before the last fence, with a channel).
  StatusOr<std::string> get(int rank, std::string_view key) const override;

  void set(int rank, const std::string& key, const std::string& value) { (*table_)[rank][key] = value; }
  // A value a test edits in place (say, to put a dead address first).
  std::string& at(int rank, const std::string& key) { return (*table_)[rank][key]; }
  const Entries& entries() const { return *table_; }
  // Every rank's entries at once (what a fence outside fence() learned).
  void set_entries(Entries all) { *table_ = std::move(all); }

 private:
  int rank_;
  PutFn put_;
  FenceFn fence_;
  Entries own_;
  Entries* table_;
};

}  // namespace lz::test
