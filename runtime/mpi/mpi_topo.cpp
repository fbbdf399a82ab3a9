// MPI binding: topology helpers (MPI-3.1 section 7.5.2, MPI_Dims_create).
// Cartesian communicators: mpi_cart.cpp; graph ones and MPI_Topo_test:
// mpi_graph.cpp.
#include <string>
#include <vector>

#include "mpi.h"
#include "mpi/entry.h"
#include "mpi/errors.h"

using lz::rt::mpi_error;

namespace {

// The best split of `n` into `k` factors, each <= `max_factor`, in
// nonincreasing order: the smallest spread (largest - smallest factor), ties
// broken by the smallest largest factor. False when no split fits. `divs`
// holds, ascending, the divisors of a multiple of n (those of the first n).
bool best_split(int n, int k, int max_factor, const std::vector<int>& divs, std::vector<int>* out) {
  if (k == 0) return n == 1;
  if (k == 1) {
    if (n > max_factor) return false;
    out->assign(1, n);
    return true;
  }
  bool found = false;
  std::vector<int> best, rest;
  // The largest factor is at least the k-th root of n (and at most max_factor).
  for (int d : divs) {
    if (d > n || d > max_factor) break;
    if (n % d != 0) continue;
    long long p = 1;
    for (int i = 0; i < k && p < n; ++i) p *= d;
    if (p < n) continue;
    rest.clear();
    if (!best_split(n / d, k - 1, d, divs, &rest)) continue;
    const int spread = d - rest.back();
    if (!found || spread < best.front() - best.back() ||
        (spread == best.front() - best.back() && d < best.front())) {
      best.assign(1, d);
      best.insert(best.end(), rest.begin(), rest.end());
      found = true;
    }
  }
  if (found) *out = best;
  return found;
}

}  // namespace

extern "C" {

int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  static constexpr const char* kFn = "MPI_Dims_create";
  LZ_MPI_ENTRY(kFn);
  if (ndims < 0) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_DIMS, "invalid ndims " + std::to_string(ndims));
  if (nnodes <= 0) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "invalid nnodes " + std::to_string(nnodes));
  if (ndims > 0 && dims == nullptr) return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_ARG, "dims is NULL");
  long long preset = 1;
  int free_dims = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) {
      return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_DIMS,
                       "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is negative");
    }
    if (dims[i] == 0) {
      ++free_dims;
    } else {
      preset *= dims[i];
      if (preset > nnodes) break;  // cannot divide nnodes; reported below
    }
  }
  if (preset > nnodes || nnodes % preset != 0) {
    return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_DIMS,
                     "nnodes " + std::to_string(nnodes) + " is not a multiple of the product of the nonzero dims");
  }
  const int left = static_cast<int>(nnodes / preset);
  if (free_dims == 0) {
    if (left != 1) {
      return mpi_error(MPI_COMM_NULL, kFn, MPI_ERR_DIMS,
                       "the product of dims is not nnodes " + std::to_string(nnodes) + " and no dimension is free");
    }
    return MPI_SUCCESS;
  }
  std::vector<int> divs, high;
  for (int d = 1; d <= left / d; ++d) {
    if (left % d != 0) continue;
    divs.push_back(d);
    if (d != left / d) high.push_back(left / d);
  }
  divs.insert(divs.end(), high.rbegin(), high.rend());
  std::vector<int> split;
  best_split(left, free_dims, left, divs, &split);  // always succeeds: max_factor == n
  size_t next = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = split[next++];
  return MPI_SUCCESS;
}

}  // extern "C"
