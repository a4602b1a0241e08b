# Installs the build tree into a fresh prefix, then builds and runs, as a user
# would, a small C program against it twice: through find_package(ridge) and
# through pkg-config (and the same for the ILP64 library).
# Fails on anything missing from the install, anything there that must not be
# (the build-only ridge_internal archive), OpenMP or hwloc leaking into what a
# consumer is asked to link, or a consumer that does not compute the right
# product on the installed library.
#
# -D variables: BUILD_DIR (the tree to install), SOURCE_DIR (test/install),
# WORKDIR (scratch, emptied first), C_COMPILER, PKG_CONFIG, OBJDUMP, VERSION,
# SOVERSION, LIBDIR, INCLUDEDIR, BINDIR (the GNUInstallDirs values, relative),
# EXPECT_BENCH (ON when ridge-bench was built).
foreach(var BUILD_DIR SOURCE_DIR WORKDIR C_COMPILER PKG_CONFIG OBJDUMP VERSION SOVERSION LIBDIR
            INCLUDEDIR BINDIR EXPECT_BENCH)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_install_test.cmake: -D${var}=... is required")
  endif()
endforeach()

# run(<output variable> <command>...): runs a command, fails the test with its
# output when it fails, else stores its stdout.
function(run out_var)
  execute_process(COMMAND ${ARGN} OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " shown "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${shown}\n--- stdout\n${out}\n--- stderr\n${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(require_file path)
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "not installed: ${path}")
  endif()
endfunction()

# The consumer's report names the library it ran on: it must be the installed one.
function(require_ran_on_prefix output what)
  string(REGEX MATCH "${what}: ([^\n ]+)" line "${output}")
  set(path "${CMAKE_MATCH_1}")
  if(path STREQUAL "")
    message(FATAL_ERROR "the consumer did not say which ${what} it ran on:\n${output}")
  endif()
  file(REAL_PATH "${path}" real)
  file(REAL_PATH "${prefix}" real_prefix)
  string(FIND "${real}" "${real_prefix}/" at)
  if(NOT at EQUAL 0)
    message(FATAL_ERROR "the consumer ran on ${path}, not on the library installed in ${prefix}")
  endif()
endfunction()

file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
set(prefix "${WORKDIR}/prefix")
run(out ${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

# --- what must be there ---
foreach(header ridge.h cblas.h cblas_64.h)
  require_file("${prefix}/${INCLUDEDIR}/ridge/${header}")
endforeach()
foreach(lib ridge ridge64)
  set(base "${prefix}/${LIBDIR}/lib${lib}.so")
  foreach(f "${base}" "${base}.${SOVERSION}" "${base}.${VERSION}")
    require_file("${f}")
  endforeach()
  # The SONAME carries the ABI version: programs record libridge.so.<SOVERSION>.
  run(dynamic ${OBJDUMP} -p "${base}.${VERSION}")
  if(NOT dynamic MATCHES "SONAME +lib${lib}\\.so\\.${SOVERSION}\n")
    message(FATAL_ERROR "lib${lib}.so.${VERSION} has no SONAME lib${lib}.so.${SOVERSION}:\n${dynamic}")
  endif()
  require_file("${prefix}/${LIBDIR}/pkgconfig/${lib}.pc")
endforeach()
set(package_dir "${prefix}/${LIBDIR}/cmake/ridge")
foreach(f ridgeConfig.cmake ridgeConfigVersion.cmake ridgeTargets.cmake)
  require_file("${package_dir}/${f}")
endforeach()
if(EXPECT_BENCH)
  require_file("${prefix}/${BINDIR}/ridge-bench")
endif()
require_file("${prefix}/${BINDIR}/ridge-tune")  # always built: the per-machine tuner

# --- what must not be ---
file(GLOB_RECURSE internal "${prefix}/*ridge_internal*" "${prefix}/*ridge_core*")
if(internal)
  message(FATAL_ERROR "build-only archives were installed: ${internal}")
endif()
file(GLOB target_files "${package_dir}/ridgeTargets*.cmake")
foreach(f ${target_files})
  file(READ "${f}" text)
  foreach(leak ridge_internal ridge_core ridge_build_usage OpenMP hwloc HWLOC gomp)
    string(FIND "${text}" "${leak}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${f} mentions ${leak}: the imported targets must not ask consumers for it")
    endif()
  endforeach()
endforeach()

# --- a consumer through find_package(ridge) ---
# No LD_LIBRARY_PATH: CMake puts the imported library's directory in the
# consumer's RPATH, as it would for any user.
set(cmake_build "${WORKDIR}/find_package")
run(out ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${cmake_build}" -DCMAKE_BUILD_TYPE=Release
    "-DCMAKE_PREFIX_PATH=${prefix}" "-DCMAKE_C_COMPILER=${C_COMPILER}")
run(out ${CMAKE_COMMAND} --build "${cmake_build}")
run(out "${cmake_build}/consumer")
message("find_package(ridge), ridge::ridge:\n${out}")
require_ran_on_prefix("${out}" libridge)
run(out "${cmake_build}/consumer64")
message("find_package(ridge), ridge::ridge64:\n${out}")
require_ran_on_prefix("${out}" libridge64)

# A version the package must refuse: 0.x promises nothing across minor versions.
file(WRITE "${WORKDIR}/wrong_version/CMakeLists.txt"
  "cmake_minimum_required(VERSION 3.25)\nproject(wrong_version LANGUAGES NONE)\nfind_package(ridge 0.99 REQUIRED)\n")
execute_process(COMMAND ${CMAKE_COMMAND} -S "${WORKDIR}/wrong_version" -B "${WORKDIR}/wrong_version/build"
                        "-DCMAKE_PREFIX_PATH=${prefix}"
                OUTPUT_QUIET ERROR_QUIET RESULT_VARIABLE rc)
if(rc EQUAL 0)
  message(FATAL_ERROR "find_package(ridge 0.99) accepted version ${VERSION}")
endif()

# --- a consumer through pkg-config ---
set(ENV{PKG_CONFIG_PATH} "${prefix}/${LIBDIR}/pkgconfig")
foreach(pair "ridge;consumer;libridge" "ridge64;consumer64;libridge64")
  list(GET pair 0 module)
  list(GET pair 1 program)
  list(GET pair 2 report)
  run(modversion ${PKG_CONFIG} --modversion ${module})
  string(STRIP "${modversion}" modversion)
  if(NOT modversion STREQUAL VERSION)
    message(FATAL_ERROR "pkg-config --modversion ${module} says '${modversion}', expected ${VERSION}")
  endif()
  run(flags ${PKG_CONFIG} --cflags --libs ${module})
  message("pkg-config --cflags --libs ${module}: ${flags}")
  separate_arguments(flag_list UNIX_COMMAND "${flags}")
  set(exe "${WORKDIR}/pkg-config-${program}")
  run(out ${C_COMPILER} "${SOURCE_DIR}/${program}.c" ${flag_list} -lm -o "${exe}")
  # A pkg-config build records no RPATH: the loader is told where the prefix is.
  run(out ${CMAKE_COMMAND} -E env "LD_LIBRARY_PATH=${prefix}/${LIBDIR}" "${exe}")
  message("pkg-config ${module}:\n${out}")
  require_ran_on_prefix("${out}" ${report})
endforeach()
