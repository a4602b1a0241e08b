// CBLAS entry points. Row-major calls become column-major ones on the
// transposed problem (C^T = op(B)^T op(A)^T): operands swap, nothing is copied.
#include "api/checks.h"
#include "api/errors.h"
#include "dispatch/dispatch.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"

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
extern "C" RIDGE_API void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                      CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                                      const float* a, int lda, const float* b, int ldb, float beta,
                                      float* c, int ldc) {
    const char ta = trans_char(trans_a), tb = trans_char(trans_b);
    const bool row_major = layout == CblasRowMajor;
    ridge::set_cblas_row_major(row_major);
    if (layout != CblasColMajor && layout != CblasRowMajor) {
        cblas_xerbla(1, "cblas_sgemm", "Illegal layout setting, %d\n", int(layout));
        return;
    }
    if (ta == 0) {
        cblas_xerbla(2, "cblas_sgemm", "Illegal TransA setting, %d\n", int(trans_a));
        return;
    }
    if (tb == 0) {
        cblas_xerbla(3, "cblas_sgemm", "Illegal TransB setting, %d\n", int(trans_b));
        return;
    }
    ridge::GemmArgsF32 g;
    g.alpha = alpha;
    g.beta = beta;
    g.c = c;
    g.ldc = ldc;
    g.k = k;
    int info;
    if (!row_major) {
        info = ridge::sgemm_netlib_info(ta, tb, m, n, k, lda, ldb, ldc);
        g.trans_a = ridge::is_trans_char(ta);
        g.trans_b = ridge::is_trans_char(tb);
        g.m = m, g.n = n;
        g.a = a, g.lda = lda;
        g.b = b, g.ldb = ldb;
    } else {
        info = ridge::sgemm_netlib_info(tb, ta, n, m, k, ldb, lda, ldc);
        g.trans_a = ridge::is_trans_char(tb);
        g.trans_b = ridge::is_trans_char(ta);
        g.m = n, g.n = m;
        g.a = b, g.lda = ldb;
        g.b = a, g.ldb = lda;
    }
    if (info != 0) {
        cblas_xerbla(info + 1, "cblas_sgemm", "");
        return;
    }
    ridge::dispatch_sgemm(g);
}
