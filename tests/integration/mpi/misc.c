/* Miscellaneous calls: MPI_Dims_create (free and preset dimensions, errors),
 * MPI_Get_library_version, MPI_Pcontrol, MPI_Reduce_local and
 * MPI_Op_commutative (predefined and user ops, derived types), communicator
 * names and MPI_Comm_test_inter; argument errors with MPI_ERRORS_RETURN. */
#include <string.h>
#include "lz_test.h"

static void check_dims(int nnodes, int ndims, const int *preset, const int *expect) {
  int dims[8];
  for (int i = 0; i < ndims; ++i) dims[i] = preset ? preset[i] : 0;
  int e = MPI_Dims_create(nnodes, ndims, dims);
  CHECK(e == MPI_SUCCESS, "Dims_create(%d, %d) returned %d", nnodes, ndims, e);
  for (int i = 0; i < ndims; ++i)
    CHECK(dims[i] == expect[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", nnodes, ndims, i, dims[i],
          expect[i]);
}

/* inout = in * 10 + inout: not commutative, shows the operand order. */
static void shift_add(void *in, void *inout, int *len, MPI_Datatype *dt) {
  (void)dt;
  for (int i = 0; i < *len; ++i) ((int *)inout)[i] = ((int *)in)[i] * 10 + ((int *)inout)[i];
}

static void check_comm_name(MPI_Comm c, const char *expect) {
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  CHECK(MPI_Comm_get_name(c, name, &len) == MPI_SUCCESS, "Comm_get_name");
  CHECK(strcmp(name, expect) == 0 && len == (int)strlen(expect), "comm name '%s' (%d), expected '%s'", name, len,
        expect);
}

int main(int argc, char **argv) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int vlen = -1;
  /* allowed before MPI_Init */
  CHECK(MPI_Get_library_version(version, &vlen) == MPI_SUCCESS, "Get_library_version before MPI_Init");
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* ---- MPI_Dims_create (MPI-3.1 section 7.5.2 examples, and more) */
  check_dims(6, 2, NULL, (int[]){3, 2});
  check_dims(7, 2, NULL, (int[]){7, 1});
  check_dims(6, 3, (int[]){0, 3, 0}, (int[]){2, 3, 1});
  check_dims(12, 3, NULL, (int[]){3, 2, 2});
  check_dims(16, 4, NULL, (int[]){2, 2, 2, 2});
  check_dims(24, 2, NULL, (int[]){6, 4});
  check_dims(72, 2, NULL, (int[]){9, 8});
  check_dims(1, 3, NULL, (int[]){1, 1, 1});
  check_dims(30, 3, NULL, (int[]){5, 3, 2});
  check_dims(64, 3, (int[]){0, 0, 2}, (int[]){8, 4, 2});
  check_dims(12, 2, (int[]){3, 4}, (int[]){3, 4});
  check_dims(13, 1, NULL, (int[]){13});
  check_dims(5040, 3, NULL, (int[]){20, 18, 14});
  check_dims(720720, 4, NULL, (int[]){33, 30, 28, 26});
  check_dims(1000003, 2, NULL, (int[]){1000003, 1}); /* a large prime */
  CHECK(MPI_Dims_create(1, 0, NULL) == MPI_SUCCESS, "ndims 0, nnodes 1");
  {
    int dims[2] = {0, 0};
    MPI_Dims_create(size, 2, dims);
    int p = dims[0] * dims[1];
    CHECK(p == size && dims[0] >= dims[1], "Dims_create(size %d): %d x %d", size, dims[0], dims[1]);
  }

  /* ---- library version, Pcontrol */
  CHECK(vlen == (int)strlen(version) && vlen > 0 && vlen < MPI_MAX_LIBRARY_VERSION_STRING, "library version length %d",
        vlen);
  CHECK(strstr(version, "Lazarus") != NULL, "library version '%s'", version);
  CHECK(MPI_Pcontrol(0) == MPI_SUCCESS && MPI_Pcontrol(1) == MPI_SUCCESS && MPI_Pcontrol(2, "extra", 3) == MPI_SUCCESS,
        "Pcontrol");

  /* ---- MPI_Reduce_local, MPI_Op_commutative */
  {
    int in[3] = {1, 2, 3}, io[3] = {10, 20, 30};
    CHECK(MPI_Reduce_local(in, io, 3, MPI_INT, MPI_SUM) == MPI_SUCCESS, "Reduce_local SUM");
    CHECK(io[0] == 11 && io[1] == 22 && io[2] == 33, "SUM: %d %d %d", io[0], io[1], io[2]);
    double din[2] = {1.5, -4}, dio[2] = {0.5, 7};
    MPI_Reduce_local(din, dio, 2, MPI_DOUBLE, MPI_MAX);
    CHECK(dio[0] == 1.5 && dio[1] == 7, "MAX: %g %g", dio[0], dio[1]);
    int pin[4] = {5, 0, 2, 1}, pio[4] = {5, 3, 9, 4}; /* (value, index) pairs */
    MPI_Reduce_local(pin, pio, 2, MPI_2INT, MPI_MAXLOC);
    CHECK(pio[0] == 5 && pio[1] == 0 && pio[2] == 9 && pio[3] == 4, "MAXLOC: %d %d %d %d", pio[0], pio[1], pio[2],
          pio[3]);
    /* a derived type: every other int of 6 */
    MPI_Datatype v;
    MPI_Type_vector(3, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    int vin[6] = {1, 100, 2, 100, 3, 100}, vio[6] = {4, -1, 5, -1, 6, -1};
    MPI_Reduce_local(vin, vio, 1, v, MPI_PROD);
    CHECK(vio[0] == 4 && vio[2] == 10 && vio[4] == 18 && vio[1] == -1 && vio[3] == -1 && vio[5] == -1,
          "PROD over a vector: %d %d %d %d %d %d", vio[0], vio[1], vio[2], vio[3], vio[4], vio[5]);
    MPI_Type_free(&v);
    MPI_Op op;
    MPI_Op_create(shift_add, 0, &op);
    int uin[2] = {1, 2}, uio[2] = {3, 4};
    MPI_Reduce_local(uin, uio, 2, MPI_INT, op);
    CHECK(uio[0] == 13 && uio[1] == 24, "user op order: %d %d", uio[0], uio[1]);
    int c = -1;
    MPI_Op_commutative(op, &c);
    CHECK(c == 0, "user op created non-commutative: %d", c);
    MPI_Op_free(&op);
    MPI_Op_create(shift_add, 1, &op);
    MPI_Op_commutative(op, &c);
    CHECK(c == 1, "user op created commutative: %d", c);
    MPI_Op_free(&op);
    MPI_Op_commutative(MPI_SUM, &c);
    CHECK(c == 1, "MPI_SUM is commutative");
    MPI_Op_commutative(MPI_MINLOC, &c);
    CHECK(c == 1, "MPI_MINLOC is commutative");
  }

  /* ---- communicator names, test_inter */
  {
    check_comm_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    check_comm_name(MPI_COMM_SELF, "MPI_COMM_SELF");
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    check_comm_name(dup, "");
    MPI_Comm_set_name(dup, "my duplicate");
    check_comm_name(dup, "my duplicate");
    check_comm_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    char longname[200];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    MPI_Comm_set_name(dup, longname);
    longname[MPI_MAX_OBJECT_NAME - 1] = '\0';
    check_comm_name(dup, longname);
    int flag = -1;
    MPI_Comm_test_inter(dup, &flag);
    CHECK(flag == 0, "dup is not an intercommunicator");
    MPI_Comm_test_inter(MPI_COMM_WORLD, &flag);
    CHECK(flag == 0, "MPI_COMM_WORLD is not an intercommunicator");
    MPI_Comm_free(&dup);
    MPI_Comm_set_name(MPI_COMM_SELF, "self renamed");
    check_comm_name(MPI_COMM_SELF, "self renamed");
  }

  /* ---- errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  {
    int e, cls, c;
#define EXPECT(call, cls_expected)                                                                   \
  do {                                                                                               \
    e = (call);                                                                                      \
    MPI_Error_class(e, &cls);                                                                        \
    CHECK(e != MPI_SUCCESS && cls == (cls_expected), "%s returned %d (class %d), expected class %d", \
          #call, e, cls, cls_expected);                                                              \
  } while (0)
    int d2[2] = {0, 3};
    EXPECT(MPI_Dims_create(7, 2, d2), MPI_ERR_DIMS); /* 7 is not a multiple of 3 */
    int d3[3] = {0, 3, 0};
    EXPECT(MPI_Dims_create(7, 3, d3), MPI_ERR_DIMS);
    CHECK(d3[0] == 0 && d3[1] == 3 && d3[2] == 0, "dims changed by a failed Dims_create");
    int d4[2] = {2, 2};
    EXPECT(MPI_Dims_create(6, 2, d4), MPI_ERR_DIMS); /* all preset, product 4 != 6 */
    int d5[2] = {-1, 0};
    EXPECT(MPI_Dims_create(4, 2, d5), MPI_ERR_DIMS);
    EXPECT(MPI_Dims_create(4, -1, d5), MPI_ERR_DIMS);
    int d6[2] = {0, 0};
    EXPECT(MPI_Dims_create(0, 2, d6), MPI_ERR_ARG);
    EXPECT(MPI_Dims_create(5, 0, NULL), MPI_ERR_DIMS); /* no dimension to hold 5 nodes */
    int in = 1, io = 2;
    EXPECT(MPI_Reduce_local(&in, &io, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
    EXPECT(MPI_Reduce_local(&in, &io, 1, MPI_DATATYPE_NULL, MPI_SUM), MPI_ERR_TYPE);
    EXPECT(MPI_Reduce_local(&in, &io, 1, MPI_INT, MPI_OP_NULL), MPI_ERR_OP);
    float f = 1, g = 2;
    EXPECT(MPI_Reduce_local(&f, &g, 1, MPI_FLOAT, MPI_BAND), MPI_ERR_OP);
    CHECK(io == 2 && g == 2, "a failed Reduce_local wrote its output");
    EXPECT(MPI_Op_commutative(MPI_OP_NULL, &c), MPI_ERR_OP);
    char name[MPI_MAX_OBJECT_NAME];
    EXPECT(MPI_Comm_get_name(MPI_COMM_NULL, name, &c), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_name(MPI_COMM_NULL, "x"), MPI_ERR_COMM);
    EXPECT(MPI_Comm_set_name(MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    EXPECT(MPI_Comm_test_inter(MPI_COMM_NULL, &c), MPI_ERR_COMM);
#undef EXPECT
  }
  if (rank == 0) printf("misc: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
