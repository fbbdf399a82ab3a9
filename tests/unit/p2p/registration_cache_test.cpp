// RegistrationCache (runtime/p2p/registration_cache.h): MPI_Alloc_mem areas
// registered once per transport, reused by every send from inside them,
// deregistered at MPI_Free_mem and before a checkpoint.
#include "p2p/registration_cache.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace lz::rt {
namespace {

// A transport that records what it registers and deregisters.
class CountingModule : public transport::Module {
 public:
  Status init(transport::Host&) override { return Status::Ok(); }
  Status connect() override { return Status::Ok(); }
  bool reaches(int) const override { return true; }
  size_t max_frame() const override { return 1 << 16; }
  Status send(int, const struct iovec*, int) override { return Status::Ok(); }
  int progress() override { return 0; }
  Status finalize() override { return Status::Ok(); }
  Status register_memory(const void* addr, size_t len, transport::MemoryRegion* out) override {
    if (refuse) return Unavailable("refused");
    registered.emplace_back(addr, len);
    out->handle = ++next;
    out->key = "key" + std::to_string(next);
    return Status::Ok();
  }
  void deregister_memory(const transport::MemoryRegion& r) override { deregistered.push_back(r.handle); }

  bool refuse = false;
  uint64_t next = 0;
  std::vector<std::pair<const void*, size_t>> registered;
  std::vector<uint64_t> deregistered;
};

TEST(RegistrationCache, RegistersAnAreaOncePerTransportAndServesEveryRangeInsideIt) {
  RegistrationCache cache;
  std::vector<char> area(4096), other(64);
  CountingModule ucx, ofi;
  EXPECT_FALSE(cache.find(&ucx, area.data(), 100)) << "no area yet";
  cache.add_area(area.data(), area.size());
  auto r1 = cache.find(&ucx, area.data() + 100, 1000);
  ASSERT_TRUE(r1);
  EXPECT_EQ(r1->key, "key1");
  ASSERT_EQ(ucx.registered.size(), 1u);
  EXPECT_EQ(ucx.registered[0].first, area.data()) << "the whole area is registered, not the buffer";
  EXPECT_EQ(ucx.registered[0].second, area.size());
  auto r2 = cache.find(&ucx, area.data(), area.size());  // the whole area, again
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->handle, r1->handle);
  EXPECT_EQ(ucx.registered.size(), 1u) << "a second send reuses the registration";
  auto r3 = cache.find(&ofi, area.data() + 4000, 96);  // another transport: its own registration
  ASSERT_TRUE(r3);
  EXPECT_EQ(ofi.registered.size(), 1u);
  EXPECT_EQ(cache.counts().registrations, 2u);
  EXPECT_EQ(cache.counts().hits, 1u);
  EXPECT_TRUE(ucx.deregistered.empty());
}

TEST(RegistrationCache, RangesNotWhollyInsideOneAreaAreNotServed) {
  RegistrationCache cache;
  std::vector<char> mem(8192);
  cache.add_area(mem.data() + 1024, 1024);
  CountingModule m;
  EXPECT_FALSE(cache.find(&m, mem.data(), 10)) << "before the area";
  EXPECT_FALSE(cache.find(&m, mem.data() + 1000, 100)) << "starts before, ends inside";
  EXPECT_FALSE(cache.find(&m, mem.data() + 2000, 100)) << "starts inside, ends after";
  EXPECT_FALSE(cache.find(&m, mem.data() + 4096, 1)) << "after the area";
  EXPECT_TRUE(cache.find(&m, mem.data() + 2047, 1)) << "its last byte";
  EXPECT_TRUE(cache.find(&m, mem.data() + 1024, 1024)) << "all of it";
  CountingModule refusing;
  refusing.refuse = true;
  EXPECT_FALSE(cache.find(&refusing, mem.data() + 1024, 8)) << "a transport that refuses: the caller registers itself";
}

TEST(RegistrationCache, FreeDeregistersTheAreaAndForgetsIt) {
  RegistrationCache cache;
  std::vector<char> a(256), b(256);
  cache.add_area(a.data(), a.size());
  cache.add_area(b.data(), b.size());
  CountingModule m;
  auto ra = cache.find(&m, a.data(), 8);
  auto rb = cache.find(&m, b.data(), 8);
  ASSERT_TRUE(ra && rb);
  EXPECT_FALSE(cache.remove_area(a.data() + 1)) << "not an area's base";
  EXPECT_TRUE(cache.remove_area(a.data()));
  EXPECT_EQ(m.deregistered, std::vector<uint64_t>{ra->handle});
  EXPECT_FALSE(cache.remove_area(a.data())) << "freed twice";
  EXPECT_FALSE(cache.find(&m, a.data(), 8));
  EXPECT_EQ(cache.areas(), 1u);
}

TEST(RegistrationCache, ACheckpointDropsEveryRegistrationAndTheNextSendRegistersAgain) {
  RegistrationCache cache;
  std::vector<char> a(256);
  cache.add_area(a.data(), a.size());
  CountingModule m;
  auto before = cache.find(&m, a.data(), 8);
  ASSERT_TRUE(before);
  cache.drop_registrations();
  EXPECT_EQ(m.deregistered, std::vector<uint64_t>{before->handle});
  EXPECT_EQ(cache.areas(), 1u) << "the area stays";
  auto after = cache.find(&m, a.data(), 8);
  ASSERT_TRUE(after);
  EXPECT_NE(after->handle, before->handle) << "registered again with the transport of after the checkpoint";
  EXPECT_EQ(m.registered.size(), 2u);
  cache.drop_registrations();
  cache.drop_registrations();  // nothing left to deregister
  EXPECT_EQ(m.deregistered.size(), 2u);
}

}  // namespace
}  // namespace lz::rt
