// What every CBLAS GEMM entry point (sgemm, hgemm, the mixed 16-bit ones) shares.
#pragma once

#include "gemm/gemm.h"
#include "gemm/gemv.h"
#include "ridge/cblas.h"

namespace ridge {

// Checks a CBLAS GEMM call in netlib CBLAS's order and maps it onto a
// column-major problem in *g (row-major: C^T = op(B)^T op(A)^T, operands
// swapped, nothing copied). On a bad argument calls cblas_xerbla(info,
// routine) with netlib's numbering and returns false. Sets everything in *g
// but input, alpha, beta and c.
bool cblas_gemm_prologue(const char* routine, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                         CBLAS_TRANSPOSE trans_b, int m, int n, int k, const void* a, int lda,
                         const void* b, int ldb, int ldc, GemmArgs* g);

// The same for GEMV: layout 1, trans 2, then netlib SGEMV's number plus one
// (row-major: the call on A^T, (trans flipped, n, m)). Sets all of *g but
// input, alpha, beta, y.
bool cblas_gemv_prologue(const char* routine, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m,
                         int n, const void* a, int lda, const void* x, int incx, int incy,
                         GemvArgs* g);

}  // namespace ridge
