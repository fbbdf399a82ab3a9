/* Communicator attributes: keyvals with copy and delete callbacks (counted
 * and checked on dup, overwrite, delete, free and at MPI_Finalize for
 * MPI_COMM_SELF), MPI_COMM_DUP_FN / MPI_COMM_NULL_COPY_FN, a keyval freed
 * while in use, the MPI-1 names, the predefined attributes, and errors. */
#include <stdlib.h>
#include "lz_test.h"

static int copies = 0, deletes = 0, self_deletes = 0;

/* Copies a heap int, adding 100: the dup's value shows the callback ran. */
static int copy_plus(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)old, (void)keyval;
  CHECK(*(int *)extra == 42, "extra_state not passed to the copy callback");
  int *v = malloc(sizeof(int));
  *v = *(int *)in + 100;
  *(void **)out = v;
  *flag = 1;
  ++copies;
  return MPI_SUCCESS;
}

static int delete_free(MPI_Comm comm, int keyval, void *val, void *extra) {
  (void)comm, (void)keyval, (void)extra;
  free(val);
  ++deletes;
  return MPI_SUCCESS;
}

/* Frees its own keyval (MPICH's keyval_double_free). */
static int delete_frees_keyval(MPI_Comm comm, int keyval, void *val, void *extra) {
  (void)comm, (void)val, (void)extra;
  return MPI_Comm_free_keyval(&keyval);
}

static int delete_self(MPI_Comm comm, int keyval, void *val, void *extra) {
  (void)keyval, (void)val, (void)extra;
  if (comm == MPI_COMM_SELF) ++self_deletes;
  /* Printed at MPI_Finalize: the test looks for this line. */
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) printf("self attribute deleted at finalize\n");
  fflush(stdout);
  return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm old, int keyval, void *extra, void *in, void *out, int *flag) {
  (void)old, (void)keyval, (void)extra, (void)in, (void)out, (void)flag;
  return MPI_ERR_OTHER;
}

static int *boxed(int v) {
  int *p = malloc(sizeof(int));
  *p = v;
  return p;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, flag = -1, extra = 42;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* predefined attributes */
  int *v = NULL;
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag);
  CHECK(flag && *v >= 32767, "MPI_TAG_UB: flag %d value %d", flag, flag ? *v : 0);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_HOST, &v, &flag);
  CHECK(flag && *v == MPI_PROC_NULL, "MPI_HOST: %d", *v);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_IO, &v, &flag);
  CHECK(flag && (*v == MPI_ANY_SOURCE || (*v >= 0 && *v < size)), "MPI_IO: %d", *v);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &v, &flag);
  CHECK(flag && (*v == 0 || *v == 1), "MPI_WTIME_IS_GLOBAL: %d", *v);
  MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag); /* MPI-1 name */
  CHECK(flag && *v >= 32767, "MPI_Attr_get(MPI_TAG_UB)");

  /* copy and delete callbacks */
  int kv;
  CHECK(MPI_Comm_create_keyval(copy_plus, delete_free, &kv, &extra) == MPI_SUCCESS, "Comm_create_keyval");
  MPI_Comm_set_attr(MPI_COMM_WORLD, kv, boxed(rank));
  MPI_Comm_get_attr(MPI_COMM_WORLD, kv, &v, &flag);
  CHECK(flag && *v == rank, "get after set: flag %d", flag);
  MPI_Comm dup, dup2;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  CHECK(copies == 1, "copy callback ran %d times on dup", copies);
  MPI_Comm_get_attr(dup, kv, &v, &flag);
  CHECK(flag && *v == rank + 100, "the dup's attribute: %d", flag ? *v : -1);
  MPI_Comm_set_attr(dup, kv, boxed(7)); /* overwrite: the old value is deleted */
  CHECK(deletes == 1, "overwrite ran the delete callback %d times", deletes);
  MPI_Comm_dup(dup, &dup2);
  MPI_Comm_get_attr(dup2, kv, &v, &flag);
  CHECK(flag && *v == 107 && copies == 2, "dup of dup: %d (%d copies)", flag ? *v : -1, copies);
  MPI_Comm_free(&dup2);
  CHECK(deletes == 2, "MPI_Comm_free ran the delete callback %d times", deletes);
  MPI_Comm_delete_attr(dup, kv);
  CHECK(deletes == 3, "delete_attr: %d deletes", deletes);
  MPI_Comm_get_attr(dup, kv, &v, &flag);
  CHECK(flag == 0, "an attribute deleted is still there");

  /* MPI_COMM_DUP_FN copies the pointer, MPI_COMM_NULL_COPY_FN nothing */
  int kdup, knull, payload = 5;
  MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL);
  MPI_Comm_set_attr(dup, kdup, &payload);
  MPI_Comm_set_attr(dup, knull, &payload);
  MPI_Comm_dup(dup, &dup2);
  MPI_Comm_get_attr(dup2, kdup, &v, &flag);
  CHECK(flag && v == &payload, "MPI_COMM_DUP_FN did not copy the pointer");
  MPI_Comm_get_attr(dup2, knull, &v, &flag);
  CHECK(flag == 0, "MPI_COMM_NULL_COPY_FN copied");
  MPI_Comm_free(&dup2);

  /* a keyval freed while an attribute uses it stays usable for it */
  MPI_Comm_set_attr(dup, kv, boxed(9));
  int kv_copy = kv;
  MPI_Comm_free_keyval(&kv);
  CHECK(kv == MPI_KEYVAL_INVALID, "free_keyval did not reset the handle");
  MPI_Comm_get_attr(dup, kv_copy, &v, &flag);
  CHECK(flag && *v == 9, "the attribute of a freed keyval is gone");
  int before = deletes;
  MPI_Comm_free(&dup);
  CHECK(deletes == before + 1, "the freed keyval's delete callback did not run at MPI_Comm_free");

  /* MPI-1 names */
  int k1;
  MPI_Keyval_create(MPI_DUP_FN, MPI_NULL_DELETE_FN, &k1, NULL);
  MPI_Attr_put(MPI_COMM_WORLD, k1, &payload);
  MPI_Attr_get(MPI_COMM_WORLD, k1, &v, &flag);
  CHECK(flag && v == &payload, "MPI_Attr_get after MPI_Attr_put");
  MPI_Attr_delete(MPI_COMM_WORLD, k1);
  MPI_Keyval_free(&k1);

  /* errors: read-only predefined, unknown keyval, a failing copy callback */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int cls, e = MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, &payload);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "set_attr on MPI_TAG_UB: class %d", cls);
  e = MPI_Comm_get_attr(MPI_COMM_WORLD, kv_copy + 1000, &v, &flag);
  MPI_Error_class(e, &cls);
  CHECK(cls == MPI_ERR_KEYVAL, "get_attr of an unknown keyval: class %d", cls);
  int kfail;
  MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &kfail, NULL);
  MPI_Comm_set_attr(MPI_COMM_WORLD, kfail, &payload);
  MPI_Comm bad = MPI_COMM_WORLD;
  e = MPI_Comm_dup(MPI_COMM_WORLD, &bad);
  CHECK(e == MPI_ERR_OTHER && bad == MPI_COMM_NULL, "dup with a failing copy callback: %d", e);
  MPI_Comm_delete_attr(MPI_COMM_WORLD, kfail);

  /* A keyval freed by its own delete callback, then freed again through the
   * handle and a copy of it, while MPI_COMM_SELF still holds an attribute
   * of it (MPICH's keyval_double_free): no error, and the attribute keeps
   * working until its deletion at MPI_Finalize. */
  {
    int kd, kd_copy, *got = NULL;
    MPI_Comm duped;
    MPI_Comm_dup(MPI_COMM_SELF, &duped);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_frees_keyval, &kd, NULL);
    kd_copy = kd;
    MPI_Comm_set_attr(MPI_COMM_SELF, kd, &payload);
    MPI_Comm_set_attr(duped, kd, &payload);
    MPI_Comm_free(&duped); /* the callback frees kd */
    CHECK(MPI_Comm_get_attr(MPI_COMM_SELF, kd, &got, &flag) == MPI_SUCCESS && flag && got == &payload,
          "the attribute of a keyval freed while in use");
    CHECK(MPI_Comm_free_keyval(&kd) == MPI_SUCCESS && kd == MPI_KEYVAL_INVALID, "second free");
    CHECK(MPI_Comm_free_keyval(&kd_copy) == MPI_SUCCESS, "third free, through a copy of the handle");
  }
  /* MPI_Comm_dup_with_info takes MPI_INFO_NULL: no hints. */
  {
    MPI_Comm d = MPI_COMM_NULL;
    CHECK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d) == MPI_SUCCESS && d != MPI_COMM_NULL,
          "dup_with_info(MPI_INFO_NULL)");
    MPI_Comm_free(&d);
  }

  /* deleted at MPI_Finalize */
  int kself;
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_self, &kself, NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, kself, &payload);

  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("attr: ok (%d ranks)\n", size);
  MPI_Finalize();

  if (self_deletes != 1) {
    fprintf(stderr, "rank %d: MPI_COMM_SELF's attribute was deleted %d times at MPI_Finalize\n", rank, self_deletes);
    return 1;
  }
  return 0;
}
