// MPI binding: the tool interface's categories (MPI-3.1 section 14.3.8):
// frameworks, their components and the runtime's parts (tool.h).
#include <algorithm>
#include <vector>

#include "mpi.h"
#include "mpi/tool/tool.h"

using lz::rt::tool::Category;
using lz::rt::tool::copy_out;

namespace {

int copy_indices(const std::vector<int>& from, int len, int* indices) {
  if (len < 0 || (len > 0 && indices == nullptr)) return MPI_ERR_ARG;
  const size_t n = std::min(from.size(), static_cast<size_t>(len));
  std::copy(from.begin(), from.begin() + static_cast<long>(n), indices);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int MPI_T_category_get_num(int* num_cat) {
  LZ_MPI_T_ENTRY();
  if (num_cat == nullptr) return MPI_ERR_ARG;
  *num_cat = static_cast<int>(tool.categories.size());
  return MPI_SUCCESS;
}

int MPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                            int* num_pvars, int* num_categories) {
  LZ_MPI_T_ENTRY();
  if (cat_index < 0 || cat_index >= static_cast<int>(tool.categories.size())) return MPI_T_ERR_INVALID_INDEX;
  const Category& c = tool.categories[static_cast<size_t>(cat_index)];
  copy_out(c.name, name, name_len);
  copy_out(c.desc, desc, desc_len);
  if (num_cvars != nullptr) *num_cvars = static_cast<int>(c.cvars.size());
  if (num_pvars != nullptr) *num_pvars = static_cast<int>(c.pvars.size());
  if (num_categories != nullptr) *num_categories = static_cast<int>(c.categories.size());
  return MPI_SUCCESS;
}

int MPI_T_category_get_index(const char* name, int* cat_index) {
  LZ_MPI_T_ENTRY();
  if (name == nullptr || cat_index == nullptr) return MPI_ERR_ARG;
  *cat_index = lz::rt::tool::index_of(tool.categories, name);
  return *cat_index >= 0 ? MPI_SUCCESS : MPI_T_ERR_INVALID_NAME;
}

int MPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  LZ_MPI_T_ENTRY();
  if (cat_index < 0 || cat_index >= static_cast<int>(tool.categories.size())) return MPI_T_ERR_INVALID_INDEX;
  return copy_indices(tool.categories[static_cast<size_t>(cat_index)].cvars, len, indices);
}

int MPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  LZ_MPI_T_ENTRY();
  if (cat_index < 0 || cat_index >= static_cast<int>(tool.categories.size())) return MPI_T_ERR_INVALID_INDEX;
  return copy_indices(tool.categories[static_cast<size_t>(cat_index)].pvars, len, indices);
}

int MPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  LZ_MPI_T_ENTRY();
  if (cat_index < 0 || cat_index >= static_cast<int>(tool.categories.size())) return MPI_T_ERR_INVALID_INDEX;
  return copy_indices(tool.categories[static_cast<size_t>(cat_index)].categories, len, indices);
}

// The tables are built once and never change: the stamp never moves.
int MPI_T_category_changed(int* stamp) {
  LZ_MPI_T_ENTRY();
  if (stamp == nullptr) return MPI_ERR_ARG;
  *stamp = 0;
  return MPI_SUCCESS;
}

}  // extern "C"
