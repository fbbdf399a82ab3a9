/* Derived datatypes through point-to-point: a matrix column (MPI_Type_vector)
 * sent to a contiguous receive and back into a column, eager and rendezvous
 * sizes, and a struct type. */
#include <stddef.h>
#include "lz_test.h"

struct item { int id; double value; char tag; };

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  static const int rows_list[] = {10, 20000};
  for (int k = 0; k < 2; ++k) {
    int rows = rows_list[k], cols = 5;
    double *m = malloc(sizeof(double) * (size_t)(rows * cols)), *col = malloc(sizeof(double) * (size_t)rows);
    for (int i = 0; i < rows * cols; ++i) m[i] = rank * 1e7 + i;
    MPI_Datatype column;
    MPI_Type_vector(rows, 1, cols, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    MPI_Request req;
    MPI_Isend(m + 2, 1, column, next, 1, MPI_COMM_WORLD, &req); /* column 2 */
    MPI_Status st;
    MPI_Recv(col, rows, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &st);
    for (int i = 0; i < rows; ++i) CHECK(col[i] == prev * 1e7 + i * cols + 2, "row %d of column", i);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    /* contiguous -> column */
    for (int i = 0; i < rows; ++i) col[i] = -(rank * 1e7 + i);
    MPI_Isend(col, rows, MPI_DOUBLE, next, 2, MPI_COMM_WORLD, &req);
    MPI_Recv(m + 4, 1, column, prev, 2, MPI_COMM_WORLD, &st);
    for (int i = 0; i < rows; ++i) {
      CHECK(m[i * cols + 4] == -(prev * 1e7 + i), "column element %d", i);
      CHECK(m[i * cols + 3] == rank * 1e7 + i * cols + 3, "neighbour column touched at %d", i);
    }
    int count;
    MPI_Get_count(&st, column, &count);
    CHECK(count == 1, "Get_count with the column type: %d", count);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Type_free(&column);
    free(m), free(col);
  }
  struct item items[3], got[3];
  for (int i = 0; i < 3; ++i) items[i] = (struct item){rank * 10 + i, rank + i * 0.5, (char)('a' + i)};
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {offsetof(struct item, id), offsetof(struct item, value), offsetof(struct item, tag)};
  MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, itype;
  MPI_Type_create_struct(3, bl, disp, types, &itype);
  MPI_Type_commit(&itype);
  MPI_Sendrecv(items, 3, itype, next, 3, got, 3, itype, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  for (int i = 0; i < 3; ++i)
    CHECK(got[i].id == prev * 10 + i && got[i].value == prev + i * 0.5 && got[i].tag == 'a' + i, "struct item %d", i);
  MPI_Type_free(&itype);
  if (rank == 0) printf("dtype: %d ranks ok\n", size);
  MPI_Finalize();
  return 0;
}
