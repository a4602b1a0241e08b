// Argument checks shared by the Fortran, CBLAS and native entry points.
#pragma once

#include <cstdint>

namespace ridge {

// BLAS transpose characters: N/n no transpose; T/t and C/c (real types) transpose.
bool is_trans_char(char c);
bool is_valid_trans_char(char c);

// netlib xGEMM's checks (SGEMM's, which every GEMM variant shares), in its order,
// on a column-major call.
// Returns 0 when all is well, else netlib's parameter number:
// 1 transa, 2 transb, 3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc.
int gemm_netlib_info(char transa, char transb, int64_t m, int64_t n, int64_t k, int64_t lda,
                      int64_t ldb, int64_t ldc);

// netlib SGEMV's checks, in its order: 0, or 1 trans, 2 m, 3 n, 6 lda, 8 incx, 11 incy.
int gemv_netlib_info(char trans, int64_t m, int64_t n, int64_t lda, int64_t incx, int64_t incy);

// netlib's quick returns: a checked call that changes nothing (C or y has no
// element, or it is only multiplied by beta == 1). Taken at the door, before
// any planning: sizes that are legal but astronomically large along an empty
// dimension (m = 2^63 - 1 with n = 0) never reach arithmetic that could overflow.
bool gemm_changes_nothing(int64_t m, int64_t n, int64_t k, float alpha, float beta);
bool gemv_changes_nothing(int64_t m, int64_t n, float alpha, float beta);

}  // namespace ridge
