# The datatype engine (datatype.cpp, op.cpp): no MPI binding, no runtime
# dependency. Linked into liblazarus by runtime/p2p (next to the coll
# components and the p2p engine that call it); included by
# runtime/mpi/datatype/CMakeLists.txt and by the unit tests; defined once.
include_guard(GLOBAL)
add_library(lz_mpi_datatype OBJECT
  ${CMAKE_CURRENT_LIST_DIR}/datatype.cpp
  ${CMAKE_CURRENT_LIST_DIR}/op.cpp)
target_include_directories(lz_mpi_datatype PUBLIC
  ${PROJECT_SOURCE_DIR}/runtime
  ${PROJECT_SOURCE_DIR}/runtime/mpi/include)
target_link_libraries(lz_mpi_datatype PUBLIC lazarus_headers)
set_target_properties(lz_mpi_datatype PROPERTIES POSITION_INDEPENDENT_CODE ON)
