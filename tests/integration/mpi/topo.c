/* Process topologies: Cartesian grids from MPI_Dims_create (periodic and
 * not) whose coordinates, ranks and shifts are checked by real exchanges
 * along the shifts; MPI_Cart_sub rows and columns checked with sums;
 * MPI_Cart_map / _get / dim queries; a ring as a graph (MPI_Graph_create,
 * neighbours exchanged); MPI_Topo_test on world, cart, graph and a dup of
 * a cart; errors through the handler. */
#include <stdlib.h>
#include "lz_test.h"

static void check_grid(MPI_Comm world, int periodic) {
  int size, dims[2] = {0, 0}, periods[2] = {periodic, periodic};
  MPI_Comm_size(world, &size);
  MPI_Dims_create(size, 2, dims);
  MPI_Comm cart;
  CHECK(MPI_Cart_create(world, 2, dims, periods, 1, &cart) == MPI_SUCCESS, "Cart_create");
  CHECK(cart != MPI_COMM_NULL, "every rank belongs to a %dx%d grid of %d", dims[0], dims[1], size);
  int me, nd = -1, c[2], gd[2], gp[2], gc[2];
  MPI_Comm_rank(cart, &me);
  MPI_Cartdim_get(cart, &nd);
  CHECK(nd == 2, "Cartdim_get: %d", nd);
  MPI_Cart_coords(cart, me, 2, c);
  CHECK(c[0] == me / dims[1] && c[1] == me % dims[1], "rank %d at (%d,%d) in %dx%d: not row-major", me, c[0], c[1],
        dims[0], dims[1]);
  MPI_Cart_get(cart, 2, gd, gp, gc);
  CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == periodic && gc[0] == c[0] && gc[1] == c[1], "Cart_get");
  for (int r = 0; r < size; ++r) {
    int rc[2], back = -1;
    MPI_Cart_coords(cart, r, 2, rc);
    MPI_Cart_rank(cart, rc, &back);
    CHECK(back == r, "coords of %d map back to %d", r, back);
  }
  /* Each rank sends its rank along every shift; what arrives is the source. */
  for (int dir = 0; dir < 2; ++dir)
    for (int disp = 1; disp <= 2; ++disp) {
      int src, dst, got = -7;
      MPI_Cart_shift(cart, dir, disp, &src, &dst);
      int expect_dst, expect_src, cc[2] = {c[0], c[1]};
      cc[dir] = c[dir] + disp;
      if (cc[dir] >= dims[dir] && !periodic) expect_dst = MPI_PROC_NULL;
      else {
        cc[dir] %= dims[dir];
        expect_dst = cc[0] * dims[1] + cc[1];
      }
      cc[dir] = c[dir] - disp;
      if (cc[dir] < 0 && !periodic) expect_src = MPI_PROC_NULL;
      else {
        cc[dir] = ((cc[dir] % dims[dir]) + dims[dir]) % dims[dir];
        expect_src = cc[0] * dims[1] + cc[1];
      }
      CHECK(src == expect_src && dst == expect_dst, "shift dir %d disp %d: %d -> %d, expected %d -> %d", dir, disp,
            src, dst, expect_src, expect_dst);
      MPI_Sendrecv(&me, 1, MPI_INT, dst, dir * 10 + disp, &got, 1, MPI_INT, src, dir * 10 + disp, cart,
                   MPI_STATUS_IGNORE);
      CHECK(got == (src == MPI_PROC_NULL ? -7 : src), "shift dir %d disp %d: got %d from %d", dir, disp, got, src);
    }
  /* rows (keep dim 1) and columns (keep dim 0) */
  for (int keep = 0; keep < 2; ++keep) {
    int remain[2] = {keep == 0, keep == 1}, sub_size, sub_rank, sum = 0, nds;
    MPI_Comm sub;
    CHECK(MPI_Cart_sub(cart, remain, &sub) == MPI_SUCCESS, "Cart_sub");
    MPI_Comm_size(sub, &sub_size);
    MPI_Comm_rank(sub, &sub_rank);
    CHECK(sub_size == dims[keep], "Cart_sub keeping dim %d: size %d, expected %d", keep, sub_size, dims[keep]);
    CHECK(sub_rank == c[keep], "Cart_sub keeping dim %d: rank %d, expected %d", keep, sub_rank, c[keep]);
    MPI_Cartdim_get(sub, &nds);
    CHECK(nds == 1, "a subgrid has %d dims", nds);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, sub);
    int expect = 0;
    for (int k = 0; k < dims[keep]; ++k) expect += keep == 1 ? c[0] * dims[1] + k : k * dims[1] + c[1];
    CHECK(sum == expect, "Cart_sub keeping dim %d: sum of ranks %d, expected %d", keep, sum, expect);
    MPI_Comm_free(&sub);
  }
  /* a dup keeps the topology */
  MPI_Comm dup;
  int status = -1;
  MPI_Comm_dup(cart, &dup);
  MPI_Topo_test(dup, &status);
  CHECK(status == MPI_CART, "Topo_test on a dup of a cart: %d", status);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&cart);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, status = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Topo_test(MPI_COMM_WORLD, &status);
  CHECK(status == MPI_UNDEFINED, "Topo_test(MPI_COMM_WORLD): %d", status);

  check_grid(MPI_COMM_WORLD, 0);
  check_grid(MPI_COMM_WORLD, 1);

  /* a grid smaller than the communicator: the rest get MPI_COMM_NULL */
  {
    int dims[1] = {size > 1 ? size - 1 : 1}, periods[1] = {0}, newrank = -5;
    MPI_Comm line;
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line);
    MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank);
    if (rank < dims[0]) {
      CHECK(line != MPI_COMM_NULL && newrank == rank, "rank %d left out of a line of %d", rank, dims[0]);
      MPI_Comm_free(&line);
    } else {
      CHECK(line == MPI_COMM_NULL && newrank == MPI_UNDEFINED, "rank %d in a line of %d", rank, dims[0]);
    }
  }

  /* a ring as a graph: each node's neighbours are the one before and after */
  {
    int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * 2 * (size_t)size);
    for (int i = 0; i < size; ++i) {
      index[i] = 2 * (i + 1);
      edges[2 * i] = (i + size - 1) % size;
      edges[2 * i + 1] = (i + 1) % size;
    }
    MPI_Comm ring;
    CHECK(MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &ring) == MPI_SUCCESS, "Graph_create");
    MPI_Topo_test(ring, &status);
    CHECK(status == MPI_GRAPH, "Topo_test on a graph: %d", status);
    int nn, ne, cnt, nb[2], gi[64], ge[128];
    MPI_Graphdims_get(ring, &nn, &ne);
    CHECK(nn == size && ne == 2 * size, "Graphdims_get: %d nodes %d edges", nn, ne);
    if (size <= 64) {
      MPI_Graph_get(ring, size, 2 * size, gi, ge);
      for (int i = 0; i < size; ++i) CHECK(gi[i] == index[i], "Graph_get index[%d] = %d", i, gi[i]);
      for (int i = 0; i < 2 * size; ++i) CHECK(ge[i] == edges[i], "Graph_get edges[%d] = %d", i, ge[i]);
    }
    MPI_Graph_neighbors_count(ring, rank, &cnt);
    CHECK(cnt == 2, "Graph_neighbors_count: %d", cnt);
    MPI_Graph_neighbors(ring, rank, 2, nb);
    int from[2] = {-1, -1};
    MPI_Request rq[4];
    for (int k = 0; k < 2; ++k) {
      MPI_Irecv(&from[k], 1, MPI_INT, nb[k], 3, ring, &rq[k]);
      MPI_Isend(&rank, 1, MPI_INT, nb[1 - k], 3, ring, &rq[2 + k]);
    }
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    if (size > 2)
      CHECK(from[0] == nb[0] && from[1] == nb[1], "ring: from %d and %d, neighbours %d and %d", from[0], from[1], nb[0],
            nb[1]);
    int newrank;
    MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank);
    CHECK(newrank == rank, "Graph_map: %d", newrank);
    MPI_Comm_free(&ring);
    free(index);
    free(edges);
  }

  /* errors through the handler */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls = -1, coords[2] = {0, 0}, r, e;
  e = MPI_Cart_rank(MPI_COMM_WORLD, coords, &r);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_TOPOLOGY, "Cart_rank on a communicator without a grid: class %d", cls);
  int big[2] = {size, 2}, per[2] = {0, 0};
  MPI_Comm none = MPI_COMM_WORLD;
  e = MPI_Cart_create(MPI_COMM_WORLD, 2, big, per, 0, &none);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_DIMS && none == MPI_COMM_NULL, "a %dx2 grid of %d ranks: class %d", size, size, cls);
  {
    int d1[1] = {size}, p1[1] = {0}, out[1] = {size};
    MPI_Comm line;
    MPI_Cart_create(MPI_COMM_WORLD, 1, d1, p1, 0, &line);
    MPI_Comm_set_errhandler(line, MPI_ERRORS_RETURN);
    e = MPI_Cart_rank(line, out, &r);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_ARG, "Cart_rank outside a non-periodic line: class %d", cls);
    e = MPI_Cart_shift(line, 1, 1, &r, &r);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_ARG, "Cart_shift along dimension 1 of 1: class %d", cls);
    e = MPI_Graph_neighbors_count(line, 0, &r);
    MPI_Error_class(e, &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Graph_neighbors_count on a grid: class %d", cls);
    MPI_Comm_free(&line);
  }
  int idx[1] = {1}, edg[1] = {5};
  MPI_Comm g = MPI_COMM_WORLD;
  e = MPI_Graph_create(MPI_COMM_WORLD, 1, idx, edg, 0, &g);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_ARG && g == MPI_COMM_NULL, "an edge to a node that does not exist: class %d", cls);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("topo: ok (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
