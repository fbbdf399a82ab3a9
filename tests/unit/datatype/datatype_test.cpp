// The datatype engine (runtime/datatype): constructors, extents as MPI
// specifies them, pack/unpack round trips, partial (truncated) unpacks,
// MPI_Get_elements semantics, and reference counting.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <numeric>
#include <vector>

#include "lazarus/datatype/copy.h"
#include "lazarus/datatype/datatype.h"

namespace lz::dt {
namespace {

const Datatype& INT() { return internal_type(Basic::kInt); }
const Datatype& DBL() { return internal_type(Basic::kDouble); }
const Datatype& CHR() { return internal_type(Basic::kChar); }

struct Owned {
  explicit Owned(StatusOr<Datatype*> t) : dt(t.ok() ? *t : nullptr) { if (dt) dt->commit(); }
  ~Owned() { Datatype::release(dt); }
  const Datatype& operator*() const { return *dt; }
  const Datatype* operator->() const { return dt; }
  Datatype* dt;
};

// Packs `count` elements of `dt` from a buffer filled with distinct bytes,
// unpacks into a zeroed buffer, and checks that exactly the type's bytes
// came back (and the gaps stayed zero).
void round_trip(const Datatype& dt, int count) {
  const ptrdiff_t lo = dt.true_lb();
  const size_t span = count > 0 ? static_cast<size_t>((count - 1) * dt.extent() + dt.true_extent()) : 0;
  std::vector<unsigned char> src(span + 64), dst(span + 64, 0), packed(dt.size() * count);
  for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
  char* s = reinterpret_cast<char*>(src.data()) + 32 - lo;
  char* d = reinterpret_cast<char*>(dst.data()) + 32 - lo;
  dt.pack(s, count, packed.data());
  dt.unpack(packed.data(), packed.size(), count, d);
  // Expected: the bytes covered by the blocks.
  std::vector<unsigned char> expect(dst.size(), 0);
  for (int e = 0; e < count; ++e)
    for (const auto& b : dt.blocks())
      for (size_t k = 0; k < b.length; ++k) {
        size_t at = 32 - lo + e * dt.extent() + b.offset + k;
        expect[at] = src[at];
      }
  EXPECT_EQ(dst, expect) << dt.name();
  // pack_range in odd-sized chunks gives the same bytes.
  std::vector<char> chunked(packed.size());
  for (size_t off = 0; off < chunked.size(); off += 5) dt.pack_range(s, count, off, 5, chunked.data() + off);
  EXPECT_EQ(0, std::memcmp(chunked.data(), packed.data(), packed.size()));
}

TEST(Datatype, PredefinedSizesAndExtents) {
  EXPECT_EQ(INT().size(), 4u);
  EXPECT_EQ(INT().extent(), 4);
  EXPECT_TRUE(INT().is_contiguous());
  const Datatype& di = internal_type(Basic::kDoubleInt);
  EXPECT_EQ(di.size(), 12u);
  EXPECT_EQ(di.extent(), 16);
  EXPECT_EQ(di.true_extent(), 12);
  EXPECT_FALSE(di.is_contiguous());
  const Datatype& si = internal_type(Basic::kShortInt);
  EXPECT_EQ(si.size(), 6u);
  EXPECT_EQ(si.extent(), 8);
  EXPECT_EQ(internal_type(Basic::k2Int).size(), 8u);
  EXPECT_TRUE(internal_type(Basic::k2Int).is_contiguous());
  EXPECT_EQ(internal_type(Basic::kLongDoubleInt).extent(), static_cast<ptrdiff_t>(sizeof(long double) * 2));
  EXPECT_EQ(internal_type(Basic::kCBool).size(), sizeof(bool));
  EXPECT_EQ(internal_type(Basic::kWchar).size(), sizeof(wchar_t));
  EXPECT_STREQ(internal_type(Basic::kUint16).name().c_str(), "MPI_UINT16_T");
  for (int b = 0; b < static_cast<int>(Basic::kNumBasic); ++b) round_trip(internal_type(static_cast<Basic>(b)), 3);
}

TEST(Datatype, Contiguous) {
  Owned t(Datatype::contiguous(5, INT()));
  EXPECT_EQ(t->size(), 20u);
  EXPECT_EQ(t->extent(), 20);
  EXPECT_TRUE(t->is_contiguous());
  round_trip(*t, 3);
  Owned empty(Datatype::contiguous(0, INT()));
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_EQ(empty->extent(), 0);
  EXPECT_FALSE(Datatype::contiguous(-1, INT()).ok());
}

TEST(Datatype, VectorExtentsAndRoundTrip) {
  // 3 blocks of 2 ints, 4 ints apart: extent = (2*4 + 2) ints; size 6 ints.
  Owned v(Datatype::vector(3, 2, 4, INT()));
  EXPECT_EQ(v->size(), 24u);
  EXPECT_EQ(v->lb(), 0);
  EXPECT_EQ(v->extent(), 40);
  EXPECT_EQ(v->true_extent(), 40);
  EXPECT_FALSE(v->is_contiguous());
  EXPECT_EQ(v->blocks().size(), 3u);
  round_trip(*v, 1);
  round_trip(*v, 4);
  // Stride == blocklength: contiguous after merging.
  Owned c(Datatype::vector(4, 2, 2, DBL()));
  EXPECT_TRUE(c->is_contiguous());
  EXPECT_EQ(c->blocks().size(), 1u);
  // Negative stride: lb below zero.
  Owned n(Datatype::vector(3, 1, -2, INT()));
  EXPECT_EQ(n->lb(), -16);
  EXPECT_EQ(n->extent(), 20);
  round_trip(*n, 2);
}

TEST(Datatype, HvectorAndIndexed) {
  Owned h(Datatype::hvector(3, 1, 10, DBL()));  // doubles at 0, 10, 20 bytes
  EXPECT_EQ(h->size(), 24u);
  EXPECT_EQ(h->extent(), 28);
  round_trip(*h, 3);
  int bl[] = {2, 1, 3};
  int disp[] = {5, 0, 9};  // out of address order: pack follows the type map
  Owned ix(Datatype::indexed(3, bl, disp, INT()));
  EXPECT_EQ(ix->size(), 24u);
  EXPECT_EQ(ix->lb(), 0);
  EXPECT_EQ(ix->extent(), 48);
  int src[12];
  std::iota(src, src + 12, 100);
  int packed[6];
  ix->pack(src, 1, packed);
  int expect[] = {105, 106, 100, 109, 110, 111};
  EXPECT_EQ(0, std::memcmp(packed, expect, sizeof expect));
  round_trip(*ix, 2);
}

struct Particle {
  int id;
  double pos[3];
  char tag;
};

TEST(Datatype, StructExtentPaddedToAlignment) {
  int bl[] = {1, 3, 1};
  ptrdiff_t disp[] = {offsetof(Particle, id), offsetof(Particle, pos), offsetof(Particle, tag)};
  const Datatype* types[] = {&INT(), &DBL(), &CHR()};
  Owned s(Datatype::create_struct(3, bl, disp, types));
  EXPECT_EQ(s->size(), 4u + 24u + 1u);
  EXPECT_EQ(s->extent(), static_cast<ptrdiff_t>(sizeof(Particle)));  // epsilon: rounded to alignof(double)
  EXPECT_EQ(s->true_extent(), static_cast<ptrdiff_t>(offsetof(Particle, tag) + 1));
  Particle in[4], out[4];
  std::memset(out, 0, sizeof out);
  for (int i = 0; i < 4; ++i) in[i] = {i, {i + 0.5, i + 1.5, i + 2.5}, static_cast<char>('a' + i)};
  std::vector<char> packed(s->size() * 4);
  s->pack(in, 4, packed.data());
  s->unpack(packed.data(), packed.size(), 4, out);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(out[i].id, i);
    EXPECT_EQ(out[i].pos[2], i + 2.5);
    EXPECT_EQ(out[i].tag, 'a' + i);
  }
  // A struct that starts at a displacement: lb and true_lb follow it.
  int one = 1;
  ptrdiff_t d8 = 8;
  const Datatype* it = &INT();
  Owned off(Datatype::create_struct(1, &one, &d8, &it));
  EXPECT_EQ(off->lb(), 8);
  EXPECT_EQ(off->true_lb(), 8);
  EXPECT_EQ(off->extent(), 4);
  round_trip(*off, 3);
}

TEST(Datatype, ResizedSetsBoundsAndStopsStructPadding) {
  Owned r(Datatype::resized(INT(), -4, 12));
  EXPECT_EQ(r->lb(), -4);
  EXPECT_EQ(r->extent(), 12);
  EXPECT_EQ(r->true_lb(), 0);
  EXPECT_EQ(r->true_extent(), 4);
  EXPECT_TRUE(r->explicit_bounds());
  round_trip(*r, 3);
  // A contiguous of it strides by the new extent and keeps the bounds.
  Owned c(Datatype::contiguous(2, *r));
  EXPECT_EQ(c->lb(), -4);
  EXPECT_EQ(c->extent(), 24);
  EXPECT_EQ(c->true_extent(), 16);
  // A struct {double, char} resized to 9 bytes: no alignment padding added
  // to a struct built from it (its bounds are explicit).
  int bl[] = {1, 1};
  ptrdiff_t disp[] = {0, 8};
  const Datatype* types[] = {&DBL(), &CHR()};
  Owned s(Datatype::create_struct(2, bl, disp, types));
  EXPECT_EQ(s->extent(), 16);
  Owned s9(Datatype::resized(*s, 0, 9));
  int one = 1;
  ptrdiff_t zero = 0;
  const Datatype* t9 = s9.dt;
  Owned outer(Datatype::create_struct(1, &one, &zero, &t9));
  EXPECT_EQ(outer->extent(), 9);
}

TEST(Datatype, DupIsEqualAndKeepsCommit) {
  Owned v(Datatype::vector(3, 2, 5, INT()));
  auto d = Datatype::dup(*v);
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE((*d)->is_committed());
  EXPECT_EQ((*d)->size(), v->size());
  EXPECT_EQ((*d)->lb(), v->lb());
  EXPECT_EQ((*d)->extent(), v->extent());
  EXPECT_EQ((*d)->true_extent(), v->true_extent());
  round_trip(**d, 2);
  EXPECT_EQ((*d)->label(), "");
  Datatype::release(*d);
}

TEST(Datatype, BlockConstructors) {
  ptrdiff_t hd[] = {40, 4, 20};
  int bl[] = {2, 1, 3};
  Owned h(Datatype::hindexed(3, bl, hd, INT()));
  EXPECT_EQ(h->lb(), 4);
  EXPECT_EQ(h->extent(), 44);
  round_trip(*h, 2);
  int d[] = {7, 1, 4};
  Owned ib(Datatype::indexed_block(3, 2, d, INT()));
  int src[10];
  std::iota(src, src + 10, 0);
  int packed[6];
  ib->pack(src, 1, packed);
  int expect[] = {7, 8, 1, 2, 4, 5};
  EXPECT_EQ(0, std::memcmp(packed, expect, sizeof expect));
  ptrdiff_t hbd[] = {16, 0};
  Owned hb(Datatype::hindexed_block(2, 1, hbd, DBL()));
  EXPECT_EQ(hb->extent(), 24);
  round_trip(*hb, 3);
  EXPECT_FALSE(Datatype::indexed_block(-1, 1, d, INT()).ok());
  EXPECT_FALSE(Datatype::hindexed_block(1, -1, hbd, INT()).ok());
}

TEST(Datatype, SubarrayCAndFortranOrder) {
  int sizes[] = {4, 5}, sub[] = {2, 3}, starts[] = {1, 2};
  Owned c(Datatype::subarray(2, sizes, sub, starts, true, INT()));
  EXPECT_EQ(c->lb(), 0);
  EXPECT_EQ(c->extent(), 80);
  EXPECT_EQ(c->size(), 24u);
  int a[20];
  std::iota(a, a + 20, 0);
  int packed[6];
  c->pack(a, 1, packed);
  int expect_c[] = {7, 8, 9, 12, 13, 14};  // rows 1-2, columns 2-4 of a[4][5]
  EXPECT_EQ(0, std::memcmp(packed, expect_c, sizeof expect_c));
  EXPECT_EQ(c->true_lb(), 28);
  EXPECT_EQ(c->true_extent(), 32);
  round_trip(*c, 2);
  Owned f(Datatype::subarray(2, sizes, sub, starts, false, INT()));
  f->pack(a, 1, packed);
  // column-major A(4,5): rows 1-2 of columns 2-4 -> a[1 + 4*j]
  int expect_f[] = {9, 10, 13, 14, 17, 18};
  EXPECT_EQ(0, std::memcmp(packed, expect_f, sizeof expect_f));
  int bad_sub[] = {2, 6};
  EXPECT_FALSE(Datatype::subarray(2, sizes, bad_sub, starts, true, INT()).ok());
  int bad_start[] = {3, 0};
  EXPECT_FALSE(Datatype::subarray(2, sizes, sub, bad_start, true, INT()).ok());
  EXPECT_FALSE(Datatype::subarray(0, sizes, sub, starts, true, INT()).ok());
}

TEST(Datatype, Labels) {
  EXPECT_EQ(INT().label(), "MPI_INT");
  Owned v(Datatype::contiguous(2, INT()));
  EXPECT_EQ(v->label(), "");
  v.dt->set_label("pair");
  EXPECT_EQ(v->label(), "pair");
}

TEST(Datatype, NestedStructOfVectors) {
  Owned col(Datatype::vector(3, 1, 4, DBL()));  // a column of a 3x4 double matrix
  int bl[] = {2, 1};
  ptrdiff_t disp[] = {0, 200};
  const Datatype* types[] = {col.dt, &INT()};
  Owned s(Datatype::create_struct(2, bl, disp, types));
  EXPECT_EQ(s->size(), 2 * 24u + 4u);
  // Two columns back to back at 0 and extent(col) = 9 doubles = 72 bytes.
  EXPECT_EQ(s->lb(), 0);
  EXPECT_EQ(s->extent(), 208);  // ub = 204, rounded to 8
  round_trip(*s, 3);
  Basic b;
  EXPECT_FALSE(s->homogeneous(&b, nullptr));
  Owned c2(Datatype::contiguous(2, *col));
  size_t per = 0;
  ASSERT_TRUE(c2->homogeneous(&b, &per));
  EXPECT_EQ(b, Basic::kDouble);
  EXPECT_EQ(per, 6u);
  round_trip(*c2, 2);
}

TEST(Datatype, PartialUnpackForTruncatedReceive) {
  Owned v(Datatype::vector(2, 1, 2, INT()));  // ints at 0 and 2
  int src[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};  // 3 elements of extent 3 ints
  int packed[6];
  v->pack(src, 3, packed);
  int expect_packed[] = {1, 3, 4, 6, 7, 9};
  EXPECT_EQ(0, std::memcmp(packed, expect_packed, sizeof packed));
  int out[9];
  std::fill(out, out + 9, -1);
  v->unpack(packed, 3 * sizeof(int), 3, out);  // one and a half elements
  int expect[] = {1, -1, 3, 4, -1, -1, -1, -1, -1};
  EXPECT_EQ(0, std::memcmp(out, expect, sizeof expect));
}

TEST(Datatype, GetElements) {
  Owned v(Datatype::vector(2, 3, 5, INT()));
  EXPECT_EQ(v->elements_in(0), 0u);
  EXPECT_EQ(v->elements_in(24), 6u);
  EXPECT_EQ(v->elements_in(24 * 2 + 8), 14u);
  EXPECT_EQ(v->elements_in(10), Datatype::kUndefinedElements);
  // A pair counts as two basic elements; its value alone as one.
  const Datatype& di = internal_type(Basic::kDoubleInt);
  EXPECT_EQ(di.elements_in(24), 4u);
  EXPECT_EQ(di.elements_in(12 + 8), 3u);
  EXPECT_EQ(di.elements_in(12 + 4), Datatype::kUndefinedElements);
  // Struct {int, double}: 1 int then 1 double.
  int bl[] = {1, 1};
  ptrdiff_t disp[] = {0, 8};
  const Datatype* types[] = {&INT(), &DBL()};
  Owned s(Datatype::create_struct(2, bl, disp, types));
  EXPECT_EQ(s->elements_in(4), 1u);
  EXPECT_EQ(s->elements_in(12), 2u);
  EXPECT_EQ(s->elements_in(16), 3u);
  EXPECT_EQ(s->elements_in(8), Datatype::kUndefinedElements);
}

TEST(Datatype, CopyBetweenTypes) {
  Owned v(Datatype::vector(4, 1, 2, INT()));
  int src[4] = {10, 20, 30, 40};
  int dst[8] = {0};
  copy(src, 4, INT(), dst, 1, *v);
  int expect[8] = {10, 0, 20, 0, 30, 0, 40, 0};
  EXPECT_EQ(0, std::memcmp(dst, expect, sizeof dst));
}

TEST(Datatype, InvalidArgumentsNamed) {
  int bl[] = {1, -2};
  int disp[] = {0, 1};
  auto t = Datatype::indexed(2, bl, disp, INT());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("-2"), std::string::npos);
  const Datatype* types[] = {&INT(), nullptr};
  int bl2[] = {1, 1};
  ptrdiff_t d2[] = {0, 4};
  EXPECT_FALSE(Datatype::create_struct(2, bl2, d2, types).ok());
}

TEST(Datatype, ReferenceCountingKeepsFreedTypeAlive) {
  auto t = Datatype::contiguous(3, INT());
  ASSERT_TRUE(t.ok());
  Datatype* dt = *t;
  dt->retain();              // a pending request
  Datatype::release(dt);     // MPI_Type_free by the user
  EXPECT_EQ(dt->size(), 12u);  // still usable by the request
  Datatype::release(dt);     // request completes: freed (ASan checks)
  Datatype::release(&INT());  // predefined: never freed
  EXPECT_EQ(INT().size(), 4u);
}

}  // namespace
}  // namespace lz::dt
