/* MPI_Info (set, get, valuelen, nkeys, nthkey order, overwrite, delete,
 * dup independence, free, the error classes), MPI-4.0's MPI_Info_create_env
 * before MPI_Init (command, argv, maxprocs, host, wdir), the communicator
 * hints, and MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) on one host. */
#include <string.h>
#include <unistd.h>
#include "lz_test.h"

int main(int argc, char **argv) {
  MPI_Info env;
  const int env_rc = MPI_Info_create_env(argc, argv, &env);
  MPI_Init(&argc, &argv);
  int rank, size, flag = -1, len = -1, n = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char val[MPI_MAX_INFO_VAL + 1], key[MPI_MAX_INFO_KEY + 1];

  CHECK(env_rc == MPI_SUCCESS, "MPI_Info_create_env before MPI_Init: %d", env_rc);
  MPI_Info_get(env, "command", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(flag && strcmp(val, argv[0]) == 0, "env command '%s'", flag ? val : "");
  MPI_Info_get(env, "argv", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(argc > 1 ? flag && strcmp(val, argv[1]) == 0 : !flag, "env argv '%s' (argc %d)", flag ? val : "", argc);
  MPI_Info_get(env, "maxprocs", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(flag && atoi(val) == size, "env maxprocs '%s', size %d", flag ? val : "", size);
  char here[4096];
  MPI_Info_get(env, "wdir", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(flag && getcwd(here, sizeof here) && strcmp(val, here) == 0, "env wdir '%s'", flag ? val : "");
  MPI_Info_get(env, "host", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(flag && gethostname(here, sizeof here) == 0 && strcmp(val, here) == 0, "env host '%s'", flag ? val : "");
  MPI_Info_free(&env);

  MPI_Info info, copy;
  MPI_Info_create(&info);
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 0, "a new info has %d keys", n);
  MPI_Info_set(info, "zeta", "1");
  MPI_Info_set(info, "alpha", "two");
  MPI_Info_set(info, "mid", "three3");
  MPI_Info_set(info, "zeta", "one"); /* overwrite keeps the position */
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 3, "nkeys %d", n);
  const char *order[3] = {"zeta", "alpha", "mid"};
  for (int i = 0; i < 3; ++i) {
    MPI_Info_get_nthkey(info, i, key);
    CHECK(strcmp(key, order[i]) == 0, "nthkey %d: '%s', expected '%s'", i, key, order[i]);
  }
  MPI_Info_get(info, "zeta", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(flag && strcmp(val, "one") == 0, "get zeta: '%s'", val);
  MPI_Info_get_valuelen(info, "mid", &len, &flag);
  CHECK(flag && len == 6, "valuelen of mid: %d", len);
  MPI_Info_get(info, "mid", 3, val, &flag); /* truncated to 3 characters */
  CHECK(flag && strcmp(val, "thr") == 0, "truncated get: '%s'", val);
  MPI_Info_get(info, "nope", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(flag == 0, "a missing key was found");

  MPI_Info_dup(info, &copy);
  MPI_Info_delete(info, "alpha");
  MPI_Info_get_nkeys(info, &n);
  CHECK(n == 2, "after delete: %d keys", n);
  MPI_Info_get(copy, "alpha", MPI_MAX_INFO_VAL, val, &flag);
  CHECK(flag && strcmp(val, "two") == 0, "the dup lost a key deleted in the original");
  MPI_Info_free(&copy);
  CHECK(copy == MPI_INFO_NULL, "Info_free did not reset the handle");

  /* errors */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls, e = MPI_Info_delete(info, "alpha");
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_INFO_NOKEY, "delete of a missing key: class %d", cls);
  char longkey[MPI_MAX_INFO_KEY + 2];
  memset(longkey, 'k', sizeof longkey - 1);
  longkey[sizeof longkey - 1] = '\0';
  e = MPI_Info_set(info, longkey, "x");
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_INFO_KEY, "a key of %d characters: class %d", (int)strlen(longkey), cls);
  static char longval[MPI_MAX_INFO_VAL + 2];
  memset(longval, 'v', sizeof longval - 1);
  e = MPI_Info_set(info, "k", longval);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_INFO_VALUE, "a value of %d characters: class %d", (int)strlen(longval), cls);
  e = MPI_Info_get_nthkey(info, 5, key);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_ARG, "nthkey 5 of 2: class %d", cls);
  MPI_Info none = MPI_INFO_NULL;
  e = MPI_Info_get_nkeys(none, &n);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_INFO, "nkeys of MPI_INFO_NULL: class %d", cls);

  /* communicator hints: accepted; none in use */
  MPI_Info used;
  CHECK(MPI_Comm_set_info(MPI_COMM_WORLD, info) == MPI_SUCCESS, "Comm_set_info");
  MPI_Comm_get_info(MPI_COMM_WORLD, &used);
  MPI_Info_get_nkeys(used, &n);
  CHECK(n == 0, "hints in use: %d", n);
  MPI_Info_free(&used);
  MPI_Info_free(&info);
  MPI_Info_get_nkeys(MPI_INFO_ENV, &n);
  CHECK(n >= 0, "MPI_INFO_ENV");

  /* split by shared memory: one host here, so everyone, ordered by key */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &node);
  int nsize, nrank, sum = 0;
  MPI_Comm_size(node, &nsize);
  MPI_Comm_rank(node, &nrank);
  CHECK(nsize == size, "shared-memory comm of %d ranks, expected %d", nsize, size);
  CHECK(nrank == size - 1 - rank, "ordered by key: rank %d, expected %d", nrank, size - 1 - rank);
  MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, node);
  CHECK(sum == size * (size - 1) / 2, "sum over the node: %d", sum);
  MPI_Comm_free(&node);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node);
  CHECK(node == MPI_COMM_NULL, "MPI_UNDEFINED gave a communicator");

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("info: ok (%d ranks)\n", size);
  MPI_Finalize();
  return 0;
}
