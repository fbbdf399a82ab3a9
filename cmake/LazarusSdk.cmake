# The SDK for out-of-tree components: what `cmake --install` adds beside the
# libraries and headers so that a vendor builds a plugin from the install
# prefix alone:
#   <libdir>/cmake/Lazarus/LazarusConfig.cmake (+ ConfigVersion): imported
#     targets Lazarus::lazarus, Lazarus::mpi and lazarus_add_component();
#   <libdir>/pkgconfig/lazarus.pc;
#   <libexecdir>/lazarus/lazarus-component-check, run after every plugin build.
# The interface versions are read from the headers, so the config file says
# which ones this install provides (LAZARUS_<FW>_INTERFACE_VERSION).
include(CMakePackageConfigHelpers)

set(lz_sdk_versions "")
foreach(fw transport coll cr crcp)
  file(STRINGS ${PROJECT_SOURCE_DIR}/framework/include/lazarus/frameworks/${fw}.h line
    REGEX "kInterfaceVersion = [0-9]+")
  string(REGEX REPLACE ".*= ([0-9]+).*" "\\1" v "${line}")
  string(TOUPPER ${fw} FW)
  string(APPEND lz_sdk_versions "set(LAZARUS_${FW}_INTERFACE_VERSION ${v})\n")
endforeach()
file(STRINGS ${PROJECT_SOURCE_DIR}/framework/include/lazarus/component.h line REGEX "kComponentAbiVersion = [0-9]+")
string(REGEX REPLACE ".*= ([0-9]+).*" "\\1" v "${line}")
string(APPEND lz_sdk_versions "set(LAZARUS_COMPONENT_ABI_VERSION ${v})\n")
set(LZ_COMPONENT_ABI_VERSION ${v})
set(LZ_SDK_INTERFACE_VERSIONS "${lz_sdk_versions}")

set(LZ_SDK_CONFIG_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Lazarus)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/LazarusConfig.cmake.in
  ${CMAKE_BINARY_DIR}/sdk/LazarusConfig.cmake
  INSTALL_DESTINATION ${LZ_SDK_CONFIG_DIR}
  PATH_VARS CMAKE_INSTALL_INCLUDEDIR CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_LIBEXECDIR CMAKE_INSTALL_BINDIR)
# 0.x: every minor release may change the ABI, so only the same minor matches.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/sdk/LazarusConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/sdk/LazarusConfig.cmake ${CMAKE_BINARY_DIR}/sdk/LazarusConfigVersion.cmake
  ${PROJECT_SOURCE_DIR}/cmake/LazarusAddComponent.cmake
  DESTINATION ${LZ_SDK_CONFIG_DIR})

file(RELATIVE_PATH LZ_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" LZ_PC_TO_PREFIX "${LZ_PC_TO_PREFIX}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/lazarus.pc.in ${CMAKE_BINARY_DIR}/sdk/lazarus.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/sdk/lazarus.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
