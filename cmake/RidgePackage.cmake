# What `cmake --install` adds for consumers besides the libraries and headers:
# a CMake package (find_package(ridge) -> ridge::ridge, ridge::ridge64) and
# pkg-config files (ridge.pc, ridge64.pc). Included from lib/CMakeLists.txt,
# after the ridge and ridge64 targets exist.
include(CMakePackageConfigHelpers)

set(RIDGE_CMAKE_PACKAGE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/ridge)
install(EXPORT ridgeTargets
  NAMESPACE ridge::
  DESTINATION ${RIDGE_CMAKE_PACKAGE_DIR})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/ridgeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ridgeConfig.cmake
  INSTALL_DESTINATION ${RIDGE_CMAKE_PACKAGE_DIR})
# 0.x: a minor release may change the ABI (the SONAME carries only the major
# number), so a request for 0.1 accepts 0.1.y and nothing else.
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/ridgeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/ridgeConfig.cmake
  ${PROJECT_BINARY_DIR}/ridgeConfigVersion.cmake
  DESTINATION ${RIDGE_CMAKE_PACKAGE_DIR})

# The .pc files find their prefix from where they are (${pcfiledir}), so they
# stay right when the prefix is chosen at install time (cmake --install
# --prefix) or the tree is moved. An absolute CMAKE_INSTALL_<dir> is used as is.
set(RIDGE_PC_PCFILEDIR_TO_PREFIX ".")
if(NOT IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  file(RELATIVE_PATH RIDGE_PC_PCFILEDIR_TO_PREFIX
    "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
endif()
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${dir}}")
    set(RIDGE_PC_${dir} "${CMAKE_INSTALL_${dir}}")
  else()
    set(RIDGE_PC_${dir} "\${prefix}/${CMAKE_INSTALL_${dir}}")
  endif()
endforeach()

set(RIDGE_PC_NAME ridge)
set(RIDGE_PC_DESCRIPTION "CPU GEMM/GEMV: standard BLAS and CBLAS symbols (32-bit integers) and the native ridge_* API")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ridge.pc.in ${PROJECT_BINARY_DIR}/ridge.pc @ONLY)
set(RIDGE_PC_NAME ridge64)
set(RIDGE_PC_DESCRIPTION "CPU GEMM/GEMV: ILP64 BLAS and CBLAS symbols (64-bit integers, LAPACK's _64 names) and the native ridge_* API")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ridge.pc.in ${PROJECT_BINARY_DIR}/ridge64.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ridge.pc ${PROJECT_BINARY_DIR}/ridge64.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
