# Configures and builds a separate tree of this project with sanitizer flags,
# then runs something in it: its own ctest (ASan+UBSan: the whole suite), or
# one program (the ThreadSanitizer stress test, the libFuzzer target).
# The tree is kept between runs, so a rerun only rebuilds what changed.
# Configured with RIDGE_SANITIZER_SUITES=OFF: the tree defines none of these
# entries itself, so nothing recurses.
#
# -D variables:
#   SOURCE_DIR, BINARY_DIR        the project, and the tree to build
#   C_COMPILER, CXX_COMPILER      compilers for the tree
#   FLAGS                         compile and link flags (a ;-list)
#   JOBS                          parallel jobs, for the build and for its ctest
#   TARGETS                       targets to build (empty: all)
#   EXTRA_CACHE                   more -D settings for the tree (a ;-list, optional)
#   then either CTEST_ARGS        arguments for ctest in the tree
#   or          RUN               a program of the tree (relative path) and its arguments
#   ENV                           NAME=value settings for what runs (a ;-list, optional)
foreach(var SOURCE_DIR BINARY_DIR C_COMPILER CXX_COMPILER FLAGS JOBS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_sanitized_tree.cmake: -D${var}=... is required")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endfunction()

string(REPLACE ";" " " flags "${FLAGS}")
# A tree configured with other compilers or flags starts over: CMake cannot
# change the compiler of a configured tree (it would drop the flags silently).
set(identity "${C_COMPILER}\n${CXX_COMPILER}\n${flags}\n${EXTRA_CACHE}\n")
set(stamp "${BINARY_DIR}/ridge-sanitized-tree.txt")
if(EXISTS "${stamp}")
  file(READ "${stamp}" previous)
else()
  set(previous "")
endif()
if(NOT previous STREQUAL identity)
  file(REMOVE_RECURSE "${BINARY_DIR}")
  file(MAKE_DIRECTORY "${BINARY_DIR}")
  file(WRITE "${stamp}" "${identity}")
endif()
run("configure ${BINARY_DIR}"
  ${CMAKE_COMMAND} -S "${SOURCE_DIR}" -B "${BINARY_DIR}"
    -DCMAKE_BUILD_TYPE=None
    "-DCMAKE_C_COMPILER=${C_COMPILER}" "-DCMAKE_CXX_COMPILER=${CXX_COMPILER}"
    "-DCMAKE_C_FLAGS=${flags}" "-DCMAKE_CXX_FLAGS=${flags}"
    "-DCMAKE_EXE_LINKER_FLAGS=${flags}" "-DCMAKE_SHARED_LINKER_FLAGS=${flags}"
    -DRIDGE_BUILD_BENCH=OFF -DRIDGE_SANITIZER_SUITES=OFF
    ${EXTRA_CACHE})
set(target_args "")
foreach(t ${TARGETS})
  list(APPEND target_args --target ${t})
endforeach()
run("build ${BINARY_DIR}" ${CMAKE_COMMAND} --build "${BINARY_DIR}" -j ${JOBS} ${target_args})

if(DEFINED CTEST_ARGS)
  run("ctest in ${BINARY_DIR}"
    ${CMAKE_COMMAND} -E env ${ENV} ${CMAKE_CTEST_COMMAND} --test-dir "${BINARY_DIR}" --output-on-failure -j ${JOBS} ${CTEST_ARGS})
elseif(DEFINED RUN)
  list(GET RUN 0 program)
  list(REMOVE_AT RUN 0)
  run("${program}" ${CMAKE_COMMAND} -E env ${ENV} "${BINARY_DIR}/${program}" ${RUN})
else()
  message(FATAL_ERROR "run_sanitized_tree.cmake: give CTEST_ARGS or RUN")
endif()
