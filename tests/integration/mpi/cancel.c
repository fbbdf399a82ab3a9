/* placeholder, replaced below */
#include "lz_test.h"
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 0; }
