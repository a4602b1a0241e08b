// CBLAS entry points for fp32. Row-major calls become column-major ones on the
// transposed problem (C^T = op(B)^T op(A)^T): operands swap, nothing is copied.
#include "api/cblas_gemm.h"
#include "api/checks.h"
#include "api/errors.h"
#include "dispatch/dispatch.h"
#include "ridge/ridge.h"

namespace ridge {
namespace {

// CBLAS enum to a BLAS character; 0 for a value that is not a transpose.
char trans_char(CBLAS_TRANSPOSE t) {
    switch (t) {
        case CblasNoTrans:
            return 'N';
        case CblasTrans:
            return 'T';
        case CblasConjTrans:
            return 'C';
    }
    return 0;
}

}  // namespace

// Parameter numbers as netlib's CBLAS reports them: its own for layout (1) and
// the transposes (2, 3), then the Fortran routine's number plus one. For
// row-major calls that is the number in the swapped call; cblas_xerbla swaps
// it back (netlib's test programs expect exactly this).
bool cblas_gemm_prologue(const char* routine, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                         CBLAS_TRANSPOSE trans_b, int m, int n, int k, const void* a, int lda,
                         const void* b, int ldb, int ldc, GemmArgs* g) {
    const char ta = trans_char(trans_a), tb = trans_char(trans_b);
    const bool row_major = layout == CblasRowMajor;
    set_cblas_row_major(row_major);
    if (layout != CblasColMajor && layout != CblasRowMajor) {
        cblas_xerbla(1, routine, "Illegal layout setting, %d\n", int(layout));
        return false;
    }
    if (ta == 0) {
        cblas_xerbla(2, routine, "Illegal TransA setting, %d\n", int(trans_a));
        return false;
    }
    if (tb == 0) {
        cblas_xerbla(3, routine, "Illegal TransB setting, %d\n", int(trans_b));
        return false;
    }
    const int info = row_major ? gemm_netlib_info(tb, ta, n, m, k, ldb, lda, ldc)
                               : gemm_netlib_info(ta, tb, m, n, k, lda, ldb, ldc);
    if (info != 0) {
        cblas_xerbla(info + 1, routine, "");
        return false;
    }
    g->k = k;
    g->ldc = ldc;
    if (!row_major) {
        g->trans_a = is_trans_char(ta), g->trans_b = is_trans_char(tb);
        g->m = m, g->n = n;
        g->a = a, g->lda = lda, g->b = b, g->ldb = ldb;
    } else {
        g->trans_a = is_trans_char(tb), g->trans_b = is_trans_char(ta);
        g->m = n, g->n = m;
        g->a = b, g->lda = ldb, g->b = a, g->ldb = lda;
    }
    return true;
}

bool cblas_gemv_prologue(const char* routine, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m,
                         int n, const void* a, int lda, const void* x, int incx, int incy,
                         GemvArgs* g) {
    const char t = trans_char(trans);
    const bool row_major = layout == CblasRowMajor;
    set_cblas_row_major(row_major);
    if (layout != CblasColMajor && layout != CblasRowMajor) {
        cblas_xerbla(1, routine, "Illegal layout setting, %d\n", int(layout));
        return false;
    }
    if (t == 0) {
        cblas_xerbla(2, routine, "Illegal TransA setting, %d\n", int(trans));
        return false;
    }
    // Row-major A (m x n) is column-major A^T (n x m): transpose flips, dimensions swap.
    const bool col_trans = row_major ? !is_trans_char(t) : is_trans_char(t);
    const int cm = row_major ? n : m, cn = row_major ? m : n;
    const int info = gemv_netlib_info(col_trans ? 'T' : 'N', cm, cn, lda, incx, incy);
    if (info != 0) {
        cblas_xerbla(info + 1, routine, "");
        return false;
    }
    g->trans = col_trans, g->m = cm, g->n = cn;
    g->a = a, g->lda = lda, g->x = x, g->incx = incx, g->incy = incy;
    return true;
}

}  // namespace ridge

extern "C" RIDGE_API void cblas_sgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n,
                                      float alpha, const float* a, int lda, const float* x, int incx,
                                      float beta, float* y, int incy) {
    ridge::GemvArgs g;
    if (!ridge::cblas_gemv_prologue("cblas_sgemv", layout, trans, m, n, a, lda, x, incx, incy, &g)) return;
    g.input = ridge::Dtype::f32;
    g.alpha = alpha, g.beta = beta, g.y = y;
    ridge::dispatch_gemv(g);
}

extern "C" RIDGE_API void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                      CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                                      const float* a, int lda, const float* b, int ldb, float beta,
                                      float* c, int ldc) {
    ridge::GemmArgs g;
    if (!ridge::cblas_gemm_prologue("cblas_sgemm", layout, trans_a, trans_b, m, n, k, a, lda, b, ldb,
                                    ldc, &g))
        return;
    g.input = ridge::Dtype::f32;
    g.alpha = alpha, g.beta = beta, g.c = c;
    ridge::dispatch_gemm(g);
}
