# Runs one netlib test program under LD_PRELOAD=libridge.so and checks its report.
# The BLAS underneath is netlib's reference (LD_LIBRARY_PATH=NETLIB_DIR), whatever
# libblas.so.3 points to: the CBLAS programs need its RowMajorStrg, and it makes
# clear that only what ridge exports is replaced.
# Fails unless every routine in ROUTINES is reported PASSED (the programs print
# "<routine> PASSED THE COMPUTATIONAL TESTS" and "... PASSED THE TESTS OF ERROR-EXITS")
# and nothing reports FAIL or an undetected illegal parameter.
if(NOT EXISTS "${PROGRAM}")
  message(FATAL_ERROR "${PROGRAM} not found: install libblas-test")
endif()
file(REMOVE_RECURSE "${WORKDIR}")
file(MAKE_DIRECTORY "${WORKDIR}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E env RIDGE_VERBOSE=1 LD_PRELOAD=${LIBRIDGE} LD_LIBRARY_PATH=${NETLIB_DIR} ${PROGRAM}
  INPUT_FILE "${INPUT}"
  WORKING_DIRECTORY "${WORKDIR}"
  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
# The summary goes to a file named in the input (Fortran programs) or to stdout (CBLAS ones).
file(GLOB summaries "${WORKDIR}/*.out" "${WORKDIR}/*.SUMM")
set(report "${out}")
foreach(f ${summaries})
  file(READ "${f}" text)
  string(APPEND report "${text}")
endforeach()
file(WRITE "${WORKDIR}/report.txt" "${report}\n${err}")
message("${report}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${PROGRAM} exited with ${rc}")
endif()
# RIDGE_VERBOSE makes ridge say which kernel it chose: proof that ridge, not the
# system BLAS, did the multiplications.
string(FIND "${err}" "ridge: f32 gemm kernel" ridge_ran)
if(ridge_ran EQUAL -1)
  message(FATAL_ERROR "${PROGRAM}: libridge was not used (no 'ridge: f32 gemm kernel' on stderr)")
endif()
string(REGEX MATCH "FAIL|NOT DETECTED|XERBLA WAS CALLED WITH|\\*\\*\\*\\*\\* FATAL" bad "${report}")
if(bad)
  message(FATAL_ERROR "${PROGRAM}: the report contains '${bad}' (see ${WORKDIR}/report.txt)")
endif()
# Fortran programs print one computational verdict per routine, CBLAS ones two
# (column-major and row-major): PASSES is how many this program must print.
foreach(r ${ROUTINES})
  string(REGEX MATCHALL "${r} *PASSED THE [A-Z -]*COMPUTATIONAL TESTS" computed "${report}")
  list(LENGTH computed n_computed)
  string(REGEX MATCH "${r} *PASSED THE TESTS OF ERROR-EXITS" exits "${report}")
  if(NOT n_computed EQUAL PASSES OR NOT exits)
    message(FATAL_ERROR "${PROGRAM}: ${r} reported ${n_computed} of ${PASSES} computational PASSED lines; error exits: '${exits}'")
  endif()
endforeach()
