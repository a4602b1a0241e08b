# Drop-in use, shown on programs that know nothing of ridge.
#
# MODE=blas: PROGRAM (blas_program.c, linked with -lblas) runs
#   1. as built: every routine from the system BLAS;
#   2. with LD_PRELOAD=libridge.so over the system's libblas.so.3 (whatever
#      update-alternatives selects, OpenBLAS on this project's machines);
#   3. the same over netlib's reference libblas.so.3;
#   under 2 and 3 ridge must serve sgemm_ and sgemv_ (each program says which
#   object served each routine, and RIDGE_VERBOSE=1 makes ridge print the kernel
#   it chose), the system BLAS must still serve saxpy_, and results must be right.
# MODE=lapack: PROGRAM (lapack_solve.c, linked with -llapack -lblas) solves a
#   500 x 500 system with LAPACK's sgesv_ on netlib's reference LAPACK and BLAS,
#   once as built and once with LD_PRELOAD=libridge.so: both must reach a small
#   residual, and under the preload ridge must serve the sgemm_ calls of
#   LAPACK's blocked LU. (Reference LAPACK, because OpenBLAS's LAPACK calls its
#   own GEMM internally: no preload can reach those calls.)
#
# -D variables: MODE, PROGRAM, LIBRIDGE, NETLIB_BLAS_DIR, NETLIB_LAPACK_DIR.
foreach(var MODE PROGRAM LIBRIDGE NETLIB_BLAS_DIR NETLIB_LAPACK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_dropin_test.cmake: -D${var}=... is required")
  endif()
endforeach()

# run_program(<prefix> <env>...): runs PROGRAM in `env`, sets <prefix>_out and
# <prefix>_err, fails the test when the program fails.
function(run_program prefix)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env ${ARGN} "${PROGRAM}"
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  message("--- ${prefix} (${ARGN})\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${prefix}: ${PROGRAM} exited with ${rc}")
  endif()
  set(${prefix}_out "${out}" PARENT_SCOPE)
  set(${prefix}_err "${err}" PARENT_SCOPE)
endfunction()

# served_by(<output> <routine> <variable>): the object the program says served <routine>.
function(served_by output routine var)
  string(REGEX MATCH "${routine} served by ([^\n]+)" line "${output}")
  if(CMAKE_MATCH_1 STREQUAL "")
    message(FATAL_ERROR "the program did not say which object served ${routine}")
  endif()
  set(${var} "${CMAKE_MATCH_1}" PARENT_SCOPE)
endfunction()

function(require_ridge output err routine)
  served_by("${output}" ${routine} object)
  if(NOT object STREQUAL LIBRIDGE)
    message(FATAL_ERROR "${routine} was served by ${object}, not by ${LIBRIDGE}")
  endif()
  string(FIND "${err}" "ridge: f32 gemm kernel" verbose_at)
  if(verbose_at EQUAL -1)
    message(FATAL_ERROR "RIDGE_VERBOSE=1 printed nothing: ridge was never called")
  endif()
endfunction()

function(require_not_ridge output routine)
  served_by("${output}" ${routine} object)
  if(object STREQUAL LIBRIDGE OR object MATCHES "libridge")
    message(FATAL_ERROR "${routine} was served by ${object}: ridge does not provide it")
  endif()
endfunction()

if(MODE STREQUAL "blas")
  run_program(plain RIDGE_VERBOSE=1)
  foreach(routine sgemm_ sgemv_ saxpy_)
    require_not_ridge("${plain_out}" ${routine})
  endforeach()
  string(FIND "${plain_err}" "ridge:" ridge_at)
  if(NOT ridge_at EQUAL -1)
    message(FATAL_ERROR "ridge printed something in a run that does not load it")
  endif()

  run_program(system_blas RIDGE_VERBOSE=1 "LD_PRELOAD=${LIBRIDGE}")
  run_program(netlib_blas RIDGE_VERBOSE=1 "LD_PRELOAD=${LIBRIDGE}" "LD_LIBRARY_PATH=${NETLIB_BLAS_DIR}")
  foreach(run system_blas netlib_blas)
    require_ridge("${${run}_out}" "${${run}_err}" sgemm_)
    require_ridge("${${run}_out}" "${${run}_err}" sgemv_)
    require_not_ridge("${${run}_out}" saxpy_)
  endforeach()
  served_by("${netlib_blas_out}" saxpy_ object)
  if(NOT object MATCHES "^${NETLIB_BLAS_DIR}/")
    message(FATAL_ERROR "saxpy_ came from ${object}, not from netlib's BLAS in ${NETLIB_BLAS_DIR}")
  endif()
elseif(MODE STREQUAL "lapack")
  set(reference "LD_LIBRARY_PATH=${NETLIB_LAPACK_DIR}:${NETLIB_BLAS_DIR}")
  run_program(netlib RIDGE_VERBOSE=1 ${reference})
  run_program(ridge RIDGE_VERBOSE=1 ${reference} "LD_PRELOAD=${LIBRIDGE}")
  require_not_ridge("${netlib_out}" sgemm_)
  require_ridge("${ridge_out}" "${ridge_err}" sgemm_)
  foreach(run netlib ridge)
    served_by("${${run}_out}" sgesv_ object)
    if(NOT object MATCHES "^${NETLIB_LAPACK_DIR}/")
      message(FATAL_ERROR "sgesv_ came from ${object}, not from reference LAPACK in ${NETLIB_LAPACK_DIR}")
    endif()
  endforeach()
  # For the record (each run already checked its own residual; CMake cannot compare floats).
  string(REGEX MATCH "solution checksum ([^\n]+)" line "${netlib_out}")
  set(netlib_sum "${CMAKE_MATCH_1}")
  string(REGEX MATCH "solution checksum ([^\n]+)" line "${ridge_out}")
  set(ridge_sum "${CMAKE_MATCH_1}")
  message("checksums: netlib ${netlib_sum}, ridge ${ridge_sum}")
else()
  message(FATAL_ERROR "MODE must be blas or lapack")
endif()
