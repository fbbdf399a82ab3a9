// Collective conformance, in process: every coll component the Registry
// knows (built in, or a plugin on component_path), selected through the coll
// framework as the runtime selects it, runs every function it provides on
// np = 1..9 and 16 simulated ranks (threads sharing an in-memory network,
// thread_comm.h), for every predefined op and basic type, non-commutative user
// ops, derived datatypes and MPI_IN_PLACE. A component with size switch points
// also runs with a few parameter settings that force each alternative
// algorithm (kVariants). Each result is compared byte for byte with the one
// computed locally in rank order (x0 op x1 op ... op xn-1), which is what MPI
// specifies and what coll/basic, the reference, computes (coll/basic is one of
// the instances, so the reference itself is checked against the same
// expectations). The MPI-level suite (mpi/ next to this folder) checks the
// same through mpirun and the real p2p engine, and compares tuned with basic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <ostream>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "lazarus/datatype/datatype.h"
#include "lazarus/datatype/op.h"
#include "lazarus/frameworks/coll.h"
#include "lazarus/registry.h"
#include "thread_comm.h"

namespace lz::coll {
namespace {

using dt::Basic;
using dt::Datatype;
using dt::Op;
using Kind = Op::Kind;

void* kInPlace = reinterpret_cast<void*>(1);

using test::ThreadComm;

// Parameter settings run in addition to a component's defaults. An entry
// whose component is not registered is dropped; one whose parameters the
// component does not have fails the configuration (and the test), so a
// renamed parameter is noticed.
struct Variant {
  const char* component;
  const char* suffix;
  std::vector<std::pair<std::string, std::string>> mca;
};
const std::vector<Variant>& variants() {
  static const std::vector<Variant> v = {
      // Every switch point at 0: Rabenseifner, ring, pairwise whenever allowed.
      {"tuned",
       "large",
       {{"coll_tuned_allreduce_rabenseifner_min", "0"},
        {"coll_tuned_allreduce_ring_min", "1T"},
        {"coll_tuned_allgather_bruck_max", "0"},
        {"coll_tuned_alltoall_pairwise_min", "0"}}},
      // Every switch point far above any message here: recursive doubling,
      // Bruck, linear.
      {"tuned",
       "small",
       {{"coll_tuned_allreduce_rabenseifner_min", "1T"},
        {"coll_tuned_allreduce_ring_min", "1T"},
        {"coll_tuned_allgather_bruck_max", "1T"},
        {"coll_tuned_alltoall_pairwise_min", "1T"}}},
      // The ring allreduce whenever allowed (commutative, count >= size).
      {"tuned", "ring", {{"coll_tuned_allreduce_ring_min", "0"}}},
      // Forced by name (coll_tuned_<op>_algorithm) where no switch point
      // reaches: scatter + allgather bcast at every size, Bruck's alltoall,
      // the reduce-scatter through a reduce for commutative ops too,
      // Rabenseifner for the smallest vectors it can take.
      {"tuned",
       "forced",
       {{"coll_tuned_bcast_algorithm", "scatter_allgather"},
        {"coll_tuned_alltoall_algorithm", "bruck"},
        {"coll_tuned_reduce_scatter_algorithm", "reduce_scatterv"},
        {"coll_tuned_allreduce_algorithm", "rabenseifner"},
        {"coll_tuned_allgather_algorithm", "ring"},
        {"coll_tuned_scan_algorithm", "linear"}}},
      // Recursive doubling for scan and exscan on every size (the chain is
      // the default on few ranks).
      {"tuned", "scan_rd", {{"coll_tuned_scan_algorithm", "recursive_doubling"}}},
  };
  return v;
}

// One instance of the suite: a component and the parameters it runs with.
struct ModuleCase {
  std::string name;       // "basic", "tuned", "tuned_large"
  std::string component;  // as registered
  std::vector<std::pair<std::string, std::string>> mca;
};

// gtest prints parameters in failure messages: the case's name says it all.
void PrintTo(const ModuleCase& mc, std::ostream* os) { *os << mc.name; }

Registry& empty_registry() {
  static Registry reg;  // built-in components only: never configured
  return reg;
}

// Every registered coll component (plugins included), each with its defaults
// and then its variants.
std::vector<ModuleCase> module_cases() {
  std::vector<ModuleCase> cases;
  Registry reg;
  ConfigOptions o;
  o.read_user_file = false;
  std::vector<std::string> names;
  if (reg.configure(o).ok()) {
    names = reg.framework("coll")->component_names();
  } else {
    // A broken user/environment setting must not hide the built-in list.
    names = empty_registry().framework("coll")->component_names();
  }
  for (const auto& c : names) {
    cases.push_back({c, c, {}});
    for (const auto& v : variants()) {
      if (c == v.component) cases.push_back({c + "_" + v.suffix, c, v.mca});
    }
  }
  return cases;
}

// A module of the case's component, selected through the coll framework with
// only that component included (`--mca coll <name>`), as MPI_Init selects.
std::unique_ptr<Module> make_module(const ModuleCase& mc) {
  Registry reg;
  ConfigOptions o;
  o.read_user_file = false;
  o.mca = mc.mca;
  o.mca.push_back({"coll", mc.component});
  Status s = reg.configure(o);
  EXPECT_TRUE(s.ok()) << mc.name << ": " << s.to_string();
  if (!s.ok()) return nullptr;
  auto sel = reg.framework("coll")->select(reg.query_context());
  EXPECT_TRUE(sel.ok()) << mc.name << ": " << sel.status().to_string();
  if (!sel.ok() || sel->empty() || !sel->front().module) return nullptr;
  return std::unique_ptr<Module>(static_cast<Module*>(sel->front().module.release()));
}

// Runs body(comm) on n threads, one per rank.
void run_job(int n, const std::function<void(Comm&)>& body) {
  test::World world(n);
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) {
    threads.emplace_back([&, r] {
      ThreadComm comm(&world, r, n);
      body(comm);
    });
  }
  for (auto& t : threads) t.join();
}

// The floating type of one part of a complex basic type (kNone for the
// others); REAL16 is one quad part.
enum class Part { kNone, kFloat, kDouble, kX87, kQuad };
Part complex_part(Basic b) {
  switch (b) {
    case Basic::kComplex: case Basic::kCFloatComplex: case Basic::kCxxFloatComplex: case Basic::kComplex8:
      return Part::kFloat;
    case Basic::kDoubleComplex: case Basic::kCDoubleComplex: case Basic::kCxxDoubleComplex: case Basic::kComplex16:
      return Part::kDouble;
    case Basic::kCLongDoubleComplex: case Basic::kCxxLongDoubleComplex: return Part::kX87;
    case Basic::kComplex32: return Part::kQuad;
    default: return Part::kNone;
  }
}
size_t part_size(Part p) {
  return p == Part::kFloat ? sizeof(float) : p == Part::kDouble ? sizeof(double) : p == Part::kNone ? 0 : 16;
}

// A small integer stored as a part of kind `p`.
void store_real(Part p, int v, char* out) {
  switch (p) {
    case Part::kFloat: { float x = v; std::memcpy(out, &x, sizeof x); break; }
    case Part::kDouble: { double x = v; std::memcpy(out, &x, sizeof x); break; }
    case Part::kX87: { long double x = v; std::memcpy(out, &x, sizeof x); break; }
    case Part::kQuad: { __float128 x = v; std::memcpy(out, &x, sizeof x); break; }
    case Part::kNone: break;
  }
}

bool is_zero_real(Part p, const char* in) {
  switch (p) {
    case Part::kFloat: { float x; std::memcpy(&x, in, sizeof x); return x == 0; }
    case Part::kDouble: { double x; std::memcpy(&x, in, sizeof x); return x == 0; }
    case Part::kX87: { long double x; std::memcpy(&x, in, sizeof x); return x == 0; }
    case Part::kQuad: { __float128 x; std::memcpy(&x, in, sizeof x); return x == 0; }
    case Part::kNone: break;
  }
  return false;
}

// Deterministic small values, valid for every basic type (0..6; pairs get an
// index too). Bools are 0/1.
void fill(Basic b, int seed, void* buf, size_t n) {
  const auto& info = dt::basic_info(b);
  std::mt19937 rng(seed * 7919 + 13);
  char* p = static_cast<char*>(buf);
  for (size_t i = 0; i < n; ++i, p += info.extent) {
    int v = static_cast<int>(rng() % 7);
    if (b == Basic::kCBool || b == Basic::kCxxBool || b == Basic::kLogical) v &= 1;
    if (info.elements == 2) {
      std::memset(p, 0, info.extent);
      switch (b) {
        case Basic::kFloatInt: { float x = v; std::memcpy(p, &x, sizeof x); break; }
        case Basic::kDoubleInt: { double x = v; std::memcpy(p, &x, sizeof x); break; }
        case Basic::kLongInt: { long x = v; std::memcpy(p, &x, sizeof x); break; }
        case Basic::k2Int: { int x = v; std::memcpy(p, &x, sizeof x); break; }
        case Basic::kShortInt: { short x = v; std::memcpy(p, &x, sizeof x); break; }
        case Basic::k2Integer: { int x = v; std::memcpy(p, &x, sizeof x); break; }
        case Basic::k2Real: { float x = v; std::memcpy(p, &x, sizeof x); break; }
        case Basic::k2DoublePrecision: { double x = v; std::memcpy(p, &x, sizeof x); break; }
        default: { long double x = v; std::memcpy(p, &x, sizeof x); break; }
      }
      // Fortran's pairs carry an index of the value's type.
      if (b == Basic::k2Real) { float x = rng() % 5; std::memcpy(p + info.second_offset, &x, sizeof x); continue; }
      if (b == Basic::k2DoublePrecision) { double x = rng() % 5; std::memcpy(p + info.second_offset, &x, sizeof x); continue; }
      int idx = static_cast<int>(rng() % 5);
      std::memcpy(p + info.second_offset, &idx, sizeof idx);
      continue;
    }
    std::memset(p, 0, info.extent);
    switch (b) {
      case Basic::kFloat: case Basic::kReal: case Basic::kReal4: { float x = v; std::memcpy(p, &x, sizeof x); break; }
      case Basic::kDouble: case Basic::kDoublePrecision: case Basic::kReal8: { double x = v; std::memcpy(p, &x, sizeof x); break; }
      // 0, 1, -1, i or -i: products in any order stay exact (byte-exact
      // comparison against the rank-order reference).
      case Basic::kComplex: case Basic::kCFloatComplex: case Basic::kCxxFloatComplex:
      case Basic::kDoubleComplex: case Basic::kCDoubleComplex: case Basic::kCxxDoubleComplex:
      case Basic::kCLongDoubleComplex: case Basic::kCxxLongDoubleComplex: case Basic::kComplex8:
      case Basic::kComplex16: case Basic::kComplex32: {
        static const int kUnit[5][2] = {{0, 0}, {1, 0}, {-1, 0}, {0, 1}, {0, -1}};
        const int* z = kUnit[v % 5];
        const Part part = complex_part(b);
        for (int k = 0; k < 2; ++k) store_real(part, z[k], p + k * part_size(part));
        break;
      }
      case Basic::kReal16: store_real(Part::kQuad, v, p); break;
      case Basic::kLongDouble: { long double x = v; std::memcpy(p, &x, sizeof x); break; }
      default: {
        // Integers of every width, little endian: the low byte is the value
        // (INTEGER16's upper half stays zero).
        unsigned long long x = static_cast<unsigned long long>(v);
        std::memcpy(p, &x, std::min<size_t>(sizeof x, info.size));
        break;
      }
    }
  }
}

// Compares the meaningful bytes (the type's blocks) of n elements.
bool same(const Datatype& dt, const void* a, const void* b, int n) {
  std::vector<char> pa(dt.size() * n), pb(dt.size() * n);
  dt.pack(a, n, pa.data());
  dt.pack(b, n, pb.data());
  // x87 long double: 10 value bytes in a 16-byte slot; the rest is padding
  // that arithmetic leaves undefined.
  Basic t;
  size_t per = 0;
  if (dt.homogeneous(&t, &per) &&
      (t == Basic::kLongDouble || t == Basic::kLongDoubleInt || complex_part(t) == Part::kX87)) {
    const size_t stride = complex_part(t) == Part::kX87 ? sizeof(long double) : dt::basic_info(t).size;
    for (size_t off = 0; off < pa.size(); off += stride) {
      std::memset(pa.data() + off + 10, 0, sizeof(long double) - 10);
      std::memset(pb.data() + off + 10, 0, sizeof(long double) - 10);
    }
  }
  // Complex products: the sign of a zero part depends on the order of the
  // factors (re = ac - bd with b = 0 or d = 0); -0 and +0 are the same value.
  if (dt.homogeneous(&t, &per) && complex_part(t) != Part::kNone) {
    const Part part = complex_part(t);
    const size_t size = part_size(part);
    auto plus_zero = [&](std::vector<char>& v) {
      for (size_t off = 0; off + size <= v.size(); off += size) {
        if (is_zero_real(part, v.data() + off)) std::memset(v.data() + off, 0, size);
      }
    };
    plus_zero(pa);
    plus_zero(pb);
  }
  return pa == pb;
}

// Affine maps x -> m*x + c (mod 2^32) composed left to right: associative,
// not commutative. The element is a contiguous pair of uint32.
void affine_compose(void* in, void* inout, int* len, lz_datatype_s**) {
  auto* a = static_cast<uint32_t*>(in);
  auto* b = static_cast<uint32_t*>(inout);
  for (int i = 0; i < *len; ++i) {
    uint32_t m = a[2 * i] * b[2 * i];
    uint32_t c = b[2 * i] * a[2 * i + 1] + b[2 * i + 1];
    b[2 * i] = m;
    b[2 * i + 1] = c;
  }
}

struct TypeOp {
  Basic type;
  Kind op;
};

// Every (basic type, predefined op) pair MPI allows.
std::vector<TypeOp> all_valid_pairs() {
  std::vector<TypeOp> v;
  for (int b = 0; b < static_cast<int>(Basic::kNumBasic); ++b) {
    for (int k = 0; k < static_cast<int>(Kind::kUser); ++k) {
      if (dt::op_defined_on(static_cast<Kind>(k), static_cast<Basic>(b))) {
        v.push_back({static_cast<Basic>(b), static_cast<Kind>(k)});
      }
    }
  }
  return v;
}

// x0 op x1 op ... op x(upto-1), over inputs[r] of `count` elements.
std::vector<char> expected_reduce(const std::vector<std::vector<char>>& inputs, int upto, int count,
                                  const Datatype& dt, const Op& op) {
  std::vector<char> acc = inputs[upto - 1];
  for (int r = upto - 2; r >= 0; --r) op.apply(inputs[r].data(), acc.data(), count, dt);
  return acc;
}

class Coll : public ::testing::TestWithParam<std::tuple<ModuleCase, int>> {
 protected:
  void SetUp() override {
    mc_ = std::get<0>(GetParam());
    np_ = std::get<1>(GetParam());
    // One module per simulated rank, as every process selects its own.
    for (int r = 0; r < np_; ++r) {
      modules_.push_back(make_module(mc_));
      ASSERT_NE(modules_.back(), nullptr);
    }
    test::World w(1);
    ThreadComm c(&w, 0, 1);
    auto probe = make_module(mc_);
    ASSERT_NE(probe, nullptr);
    provided_ = probe->enable(c);
    probe->disable(c);
  }
  // Whether the module provides function f (tests skip what it does not).
  bool provides(Function f) const { return (provided_ & bit(f)) != 0; }
  // Runs body(module, comm) on every rank: enable, body, disable, as the
  // runtime does for a communicator's lifetime.
  void job(const std::function<void(Module&, Comm&)>& body) {
    run_job(np_, [&](Comm& comm) {
      Module& m = *modules_[static_cast<size_t>(comm.rank())];
      m.enable(comm);
      body(m, comm);
      m.disable(comm);
    });
  }
  ModuleCase mc_;
  int np_ = 1;
  uint32_t provided_ = 0;
  std::vector<std::unique_ptr<Module>> modules_;
};

#define SKIP_UNLESS(f) \
  if (!provides(f)) GTEST_SKIP() << mc_.name << " does not provide " << function_name(f) << " (basic does)"

TEST_P(Coll, Barrier) {
  SKIP_UNLESS(kBarrier);
  job([&](Module& m, Comm& comm) {
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(m.barrier(comm).ok());
  });
}

TEST_P(Coll, BcastEveryRootAndSize) {
  SKIP_UNLESS(kBcast);
  const Datatype& dt = dt::internal_type(Basic::kInt);
  for (int count : {0, 1, 7, 1000}) {
    for (int root = 0; root < np_; ++root) {
      job([&](Module& m, Comm& comm) {
        std::vector<int> buf(count, -1);
        if (comm.rank() == root) std::iota(buf.begin(), buf.end(), root * 100);
        ASSERT_TRUE(m.bcast(buf.data(), count, dt, root, comm).ok());
        for (int i = 0; i < count; ++i) ASSERT_EQ(buf[i], root * 100 + i) << "rank " << comm.rank();
      });
    }
  }
}

TEST_P(Coll, BcastDerivedType) {
  SKIP_UNLESS(kBcast);
  // Every other int of a 2*count array.
  auto col = Datatype::vector(5, 1, 2, dt::internal_type(Basic::kInt));
  ASSERT_TRUE(col.ok());
  (*col)->commit();
  job([&](Module& m, Comm& comm) {
    std::vector<int> buf(30, -1);
    if (comm.rank() == 0) std::iota(buf.begin(), buf.end(), 0);
    ASSERT_TRUE(m.bcast(buf.data(), 3, **col, 0, comm).ok());
    // Element e starts at int 9e (extent 9 ints) and covers ints 9e + 2k, k < 5.
    std::vector<int> expect(30, -1);
    for (int e = 0; e < 3; ++e)
      for (int k = 0; k < 5; ++k) expect[9 * e + 2 * k] = 9 * e + 2 * k;
    if (comm.rank() != 0) {
      ASSERT_EQ(buf, expect);
    }
  });
  Datatype::release(*col);
}

// Reduce, allreduce, scan, exscan and reduce_scatter_block for every valid
// (type, op) pair: byte-exact against the rank-order reference. One job runs
// every pair (threads made once, not once per pair); the checks do not stop
// a rank, so every rank takes part in every collective even after a failure.
TEST_P(Coll, ReductionsEveryTypeAndOp) {
  const int count = 5;
  struct Case {
    TypeOp p;
    std::vector<std::vector<char>> in;  // per rank
    std::vector<char> all;              // the reduction of every element
  };
  std::vector<Case> cases;
  for (TypeOp p : all_valid_pairs()) {
    const Datatype& dt = dt::internal_type(p.type);
    Case c{p, std::vector<std::vector<char>>(np_), {}};
    for (int r = 0; r < np_; ++r) {
      c.in[r].assign(dt.extent() * count * np_, 0);
      fill(p.type, r + 31 * static_cast<int>(p.op), c.in[r].data(), count * np_);
    }
    c.all = expected_reduce(c.in, np_, count * np_, dt, Op(p.op));
    cases.push_back(std::move(c));
  }
  const int root = np_ / 2;
  job([&](Module& m, Comm& comm) {
    const int me = comm.rank();
    for (const Case& c : cases) {
      const Datatype& dt = dt::internal_type(c.p.type);
      Op op(c.p.op);
      const auto& in = c.in;
      const std::string what = std::string(dt::basic_info(c.p.type).mpi_name) + " " + op.name() + ": ";
      std::vector<char> out(dt.extent() * count * np_, 0);
      if (provides(kReduce)) {
        EXPECT_TRUE(m.reduce(in[me].data(), out.data(), count, dt, op, root, comm).ok()) << what << "reduce";
        if (me == root) {
          auto e = expected_reduce(in, np_, count, dt, op);
          EXPECT_TRUE(same(dt, out.data(), e.data(), count)) << what << "reduce";
        }
      }
      if (provides(kAllreduce)) {
        EXPECT_TRUE(m.allreduce(in[me].data(), out.data(), count * np_, dt, op, comm).ok()) << what << "allreduce";
        EXPECT_TRUE(same(dt, out.data(), c.all.data(), count * np_)) << what << "allreduce rank " << me;
      }
      if (provides(kScan)) {
        EXPECT_TRUE(m.scan(in[me].data(), out.data(), count, dt, op, comm).ok()) << what << "scan";
        auto e = expected_reduce(in, me + 1, count, dt, op);
        EXPECT_TRUE(same(dt, out.data(), e.data(), count)) << what << "scan rank " << me;
      }
      if (provides(kExscan)) {
        EXPECT_TRUE(m.exscan(in[me].data(), out.data(), count, dt, op, comm).ok()) << what << "exscan";
        if (me > 0) {
          auto e = expected_reduce(in, me, count, dt, op);
          EXPECT_TRUE(same(dt, out.data(), e.data(), count)) << what << "exscan rank " << me;
        }
      }
      if (provides(kReduceScatterBlock)) {
        EXPECT_TRUE(m.reduce_scatter_block(in[me].data(), out.data(), count, dt, op, comm).ok()) << what << "rsb";
        EXPECT_TRUE(same(dt, out.data(), c.all.data() + me * count * dt.extent(), count)) << what << "rsb rank " << me;
      }
    }
  });
}

// Non-commutative user op on a derived type, every reduction, with and
// without MPI_IN_PLACE, counts around the power-of-two thresholds.
TEST_P(Coll, NonCommutativeUserOp) {
  auto pair = Datatype::contiguous(2, dt::internal_type(Basic::kUint32));
  ASSERT_TRUE(pair.ok());
  (*pair)->commit();
  const Datatype& dt = **pair;
  std::unique_ptr<Op, void (*)(Op*)> op(Op::create_user(&affine_compose, false), [](Op* o) { Op::release(o); });
  for (int count : {1, 3, 17}) {
    for (bool in_place : {false, true}) {
      std::vector<std::vector<char>> in(np_);
      for (int r = 0; r < np_; ++r) {
        in[r].resize(8 * count * np_);
        auto* u = reinterpret_cast<uint32_t*>(in[r].data());
        for (int i = 0; i < 2 * count * np_; ++i) u[i] = 3 + 2 * r + 5 * i + (i % 2) * 1000 * (r + 1);
      }
      auto all = expected_reduce(in, np_, count * np_, dt, *op);
      SCOPED_TRACE("count " + std::to_string(count) + (in_place ? " in place" : ""));
      job([&](Module& m, Comm& comm) {
        const int me = comm.rank();
        std::vector<char> out(8 * count * np_);
        auto prep = [&](int n) -> const void* {  // input for this call
          if (!in_place) return in[me].data();
          std::memcpy(out.data(), in[me].data(), 8 * n);
          return kInPlace;
        };
        if (provides(kReduce)) {
          for (int root : {0, np_ - 1}) {
            const void* s = me == root ? prep(count) : in[me].data();
            ASSERT_TRUE(m.reduce(s, out.data(), count, dt, *op, root, comm).ok());
            if (me == root) {
              auto e = expected_reduce(in, np_, count, dt, *op);
              ASSERT_EQ(0, std::memcmp(out.data(), e.data(), 8 * count)) << "reduce root " << root;
            }
          }
        }
        if (provides(kAllreduce)) {
          ASSERT_TRUE(m.allreduce(prep(count * np_), out.data(), count * np_, dt, *op, comm).ok());
          ASSERT_EQ(0, std::memcmp(out.data(), all.data(), 8 * count * np_)) << "allreduce rank " << me;
        }
        if (provides(kScan)) {
          ASSERT_TRUE(m.scan(prep(count), out.data(), count, dt, *op, comm).ok());
          auto e = expected_reduce(in, me + 1, count, dt, *op);
          ASSERT_EQ(0, std::memcmp(out.data(), e.data(), 8 * count)) << "scan rank " << me;
        }
        if (provides(kExscan)) {
          ASSERT_TRUE(m.exscan(prep(count), out.data(), count, dt, *op, comm).ok());
          if (me > 0) {
            auto e = expected_reduce(in, me, count, dt, *op);
            ASSERT_EQ(0, std::memcmp(out.data(), e.data(), 8 * count)) << "exscan rank " << me;
          }
        }
        if (provides(kReduceScatter)) {
          // Uneven counts, some zero.
          std::vector<int> rc(np_);
          for (int r = 0; r < np_; ++r) rc[r] = (r % 3 == 1) ? 0 : (count * np_) / np_;
          int total = std::accumulate(rc.begin(), rc.end(), 0);
          int disp = std::accumulate(rc.begin(), rc.begin() + me, 0);
          auto e = expected_reduce(in, np_, total, dt, *op);
          ASSERT_TRUE(m.reduce_scatter(prep(total), out.data(), rc.data(), dt, *op, comm).ok());
          ASSERT_EQ(0, std::memcmp(out.data(), e.data() + 8 * disp, 8 * rc[me])) << "reduce_scatter rank " << me;
        }
      });
    }
  }
  Datatype::release(*pair);
}

// Large commutative allreduce (Rabenseifner territory) and in-place.
TEST_P(Coll, AllreduceLargeInPlace) {
  SKIP_UNLESS(kAllreduce);
  const Datatype& dt = dt::internal_type(Basic::kLongLong);
  Op sum(Kind::kSum);
  for (int count : {np_, 1000, 20000 + 3}) {
    job([&](Module& m, Comm& comm) {
      std::vector<long long> buf(count);
      for (int i = 0; i < count; ++i) buf[i] = (long long)comm.rank() * 1000003 + i;
      ASSERT_TRUE(m.allreduce(kInPlace, buf.data(), count, dt, sum, comm).ok());
      for (int i = 0; i < count; ++i) {
        long long e = (long long)i * np_ + 1000003LL * np_ * (np_ - 1) / 2;
        ASSERT_EQ(buf[i], e) << "rank " << comm.rank() << " i " << i;
      }
    });
  }
}

TEST_P(Coll, GatherScatterFamilies) {
  const Datatype& it = dt::internal_type(Basic::kInt);
  for (int count : {0, 1, 4, 3000}) {
    job([&](Module& m, Comm& comm) {
      const int me = comm.rank(), n = comm.size();
      std::vector<int> mine(count), all(count * n, -1), expect(count * n);
      for (int i = 0; i < count; ++i) mine[i] = me * 10000 + i;
      for (int r = 0; r < n; ++r)
        for (int i = 0; i < count; ++i) expect[r * count + i] = r * 10000 + i;
      const int root = n - 1;
      if (provides(kGather)) {
        ASSERT_TRUE(m.gather(mine.data(), count, it, all.data(), count, it, root, comm).ok());
        if (me == root) {
          ASSERT_EQ(all, expect);
        }
      }
      if (provides(kScatter)) {
        std::vector<int> got(count, -1);
        ASSERT_TRUE(m.scatter(expect.data(), count, it, got.data(), count, it, root, comm).ok());
        ASSERT_EQ(got, mine);
      }
      if (provides(kAllgather)) {
        std::fill(all.begin(), all.end(), -1);
        ASSERT_TRUE(m.allgather(mine.data(), count, it, all.data(), count, it, comm).ok());
        ASSERT_EQ(all, expect) << "allgather rank " << me;
        std::fill(all.begin(), all.end(), -1);
        std::copy(mine.begin(), mine.end(), all.begin() + me * count);
        ASSERT_TRUE(m.allgather(kInPlace, 0, it, all.data(), count, it, comm).ok());
        ASSERT_EQ(all, expect) << "allgather in place rank " << me;
      }
      // v-variants: rank r contributes r % 3 * count / 2 + 1 elements, packed
      // back to back in reverse rank order.
      std::vector<int> rc(n), displs(n);
      int total = 0;
      for (int r = n - 1; r >= 0; --r) {
        rc[r] = (r % 3) * count / 2 + 1;
        displs[r] = total;
        total += rc[r];
      }
      std::vector<int> vexp(total), vall(total, -1), vmine(rc[me]);
      for (int r = 0; r < n; ++r)
        for (int i = 0; i < rc[r]; ++i) vexp[displs[r] + i] = r * 10000 + i;
      for (int i = 0; i < rc[me]; ++i) vmine[i] = me * 10000 + i;
      if (provides(kGatherv)) {
        ASSERT_TRUE(m.gatherv(vmine.data(), rc[me], it, vall.data(), rc.data(), displs.data(), it, 0, comm).ok());
        if (me == 0) {
          ASSERT_EQ(vall, vexp);
        }
      }
      if (provides(kScatterv)) {
        std::vector<int> got(rc[me], -1);
        ASSERT_TRUE(m.scatterv(vexp.data(), rc.data(), displs.data(), it, got.data(), rc[me], it, 0, comm).ok());
        ASSERT_EQ(got, vmine);
      }
      if (provides(kAllgatherv)) {
        std::fill(vall.begin(), vall.end(), -1);
        ASSERT_TRUE(m.allgatherv(vmine.data(), rc[me], it, vall.data(), rc.data(), displs.data(), it, comm).ok());
        ASSERT_EQ(vall, vexp) << "allgatherv rank " << me;
      }
    });
  }
}

TEST_P(Coll, AllgatherDerivedTypes) {
  SKIP_UNLESS(kAllgather);
  // Send 4 contiguous ints, receive them as 2 elements of a strided pair type.
  const Datatype& it = dt::internal_type(Basic::kInt);
  auto strided = Datatype::vector(2, 1, 3, it);  // ints at 0 and 3, extent 4 ints
  ASSERT_TRUE(strided.ok());
  (*strided)->commit();
  job([&](Module& m, Comm& comm) {
    const int me = comm.rank(), n = comm.size();
    int mine[4] = {me * 4, me * 4 + 1, me * 4 + 2, me * 4 + 3};
    // 2 elements of extent 4 ints (last one's extent is ... 4 ints each).
    std::vector<int> out(8 * n + 4, -1);
    ASSERT_TRUE(m.allgather(mine, 4, it, out.data(), 2, **strided, comm).ok());
    for (int r = 0; r < n; ++r) {
      // Element e of block r starts at int (2r + e) * 4; holds ints at +0 and +3.
      for (int e = 0; e < 2; ++e) {
        ASSERT_EQ(out[(2 * r + e) * 4 + 0], r * 4 + 2 * e);
        ASSERT_EQ(out[(2 * r + e) * 4 + 3], r * 4 + 2 * e + 1);
        ASSERT_EQ(out[(2 * r + e) * 4 + 1], -1);
      }
    }
  });
  Datatype::release(*strided);
}

TEST_P(Coll, AlltoallFamilies) {
  const Datatype& it = dt::internal_type(Basic::kInt);
  for (int count : {0, 1, 5, 600}) {
    job([&](Module& m, Comm& comm) {
      const int me = comm.rank(), n = comm.size();
      std::vector<int> send(count * n), recv(count * n, -1), expect(count * n);
      for (int d = 0; d < n; ++d)
        for (int i = 0; i < count; ++i) {
          send[d * count + i] = me * 1000000 + d * 1000 + i;
          expect[d * count + i] = d * 1000000 + me * 1000 + i;
        }
      if (provides(kAlltoall)) {
        ASSERT_TRUE(m.alltoall(send.data(), count, it, recv.data(), count, it, comm).ok());
        ASSERT_EQ(recv, expect) << "alltoall rank " << me;
        std::vector<int> inplace = send;
        ASSERT_TRUE(m.alltoall(kInPlace, 0, it, inplace.data(), count, it, comm).ok());
        ASSERT_EQ(inplace, expect) << "alltoall in place rank " << me;
      }
      if (provides(kAlltoallv)) {
        // me sends (me + d) % 3 * count / 2 elements to d, at reversed offsets.
        auto cnt = [&](int from, int to) { return ((from + to) % 3) * count / 2; };
        std::vector<int> sc(n), sd(n), rc(n), rd(n);
        int so = 0, ro = 0;
        for (int d = n - 1; d >= 0; --d) {
          sc[d] = cnt(me, d); sd[d] = so; so += sc[d];
          rc[d] = cnt(d, me); rd[d] = ro; ro += rc[d];
        }
        std::vector<int> vs(so), vr(ro, -1), ve(ro);
        for (int d = 0; d < n; ++d) {
          for (int i = 0; i < sc[d]; ++i) vs[sd[d] + i] = me * 1000000 + d * 1000 + i;
          for (int i = 0; i < rc[d]; ++i) ve[rd[d] + i] = d * 1000000 + me * 1000 + i;
        }
        ASSERT_TRUE(m.alltoallv(vs.data(), sc.data(), sd.data(), it, vr.data(), rc.data(), rd.data(), it, comm).ok());
        ASSERT_EQ(vr, ve) << "alltoallv rank " << me;
      }
    });
  }
}

std::string name_of(const ::testing::TestParamInfo<std::tuple<ModuleCase, int>>& info) {
  return std::get<0>(info.param).name + "_np" + std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(All, Coll,
                         ::testing::Combine(::testing::ValuesIn(module_cases()),
                                            ::testing::Values(1, 2, 3, 4, 5, 6, 7, 8, 9, 16)),
                         name_of);

}  // namespace
}  // namespace lz::coll
