// The checks every CBLAS GEMM and GEMV entry point shares, whatever its
// integer width (sizes arrive here widened to int64_t, which loses nothing).
#pragma once

#include <cstdint>

#include "gemm/gemm.h"
#include "gemm/gemv.h"
#include "ridge/cblas.h"

namespace ridge {

// What cblas_xerbla is to be told about a bad call: netlib CBLAS's parameter
// number (0: the call is valid) and its message, a printf format that reads
// `value` (or reads nothing).
struct CblasError {
    int info = 0;
    const char* form = "";
    int value = 0;
};

// Checks a CBLAS GEMM call in netlib CBLAS's order and, when it is valid, maps
// it onto a column-major problem in *g (row-major: C^T = op(B)^T op(A)^T,
// operands swapped, nothing copied), setting everything but input, alpha,
// beta and c. Parameter numbers: netlib CBLAS's own for layout (1) and the
// transposes (2, 3), then the Fortran routine's number plus one; for row-major
// calls, the number in the swapped call (cblas_xerbla swaps it back, as
// netlib's does, and netlib's test programs expect exactly this).
// Records the layout for cblas_xerbla (set_cblas_row_major).
CblasError check_cblas_gemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                            int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
                            const void* b, int64_t ldb, int64_t ldc, GemmArgs* g);

// The same for GEMV: layout 1, trans 2, then netlib SGEMV's number plus one
// (row-major: the call on A^T, with trans flipped and m, n swapped). Sets all
// of *g but input, alpha, beta and y.
CblasError check_cblas_gemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n,
                            const void* a, int64_t lda, const void* x, int64_t incx, int64_t incy,
                            GemvArgs* g);

}  // namespace ridge
