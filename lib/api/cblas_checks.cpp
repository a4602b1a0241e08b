#include "api/cblas_checks.h"

#include "api/checks.h"
#include "api/errors.h"

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

CblasError check_cblas_gemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                            int64_t m, int64_t n, int64_t k, const void* a, int64_t lda,
                            const void* b, int64_t ldb, int64_t ldc, GemmArgs* g) {
    const char ta = trans_char(trans_a), tb = trans_char(trans_b);
    const bool row_major = layout == CblasRowMajor;
    set_cblas_row_major(row_major);
    if (layout != CblasColMajor && layout != CblasRowMajor)
        return {1, "Illegal layout setting, %d\n", int(layout)};
    if (ta == 0) return {2, "Illegal TransA setting, %d\n", int(trans_a)};
    if (tb == 0) return {3, "Illegal TransB setting, %d\n", int(trans_b)};
    const int info = row_major ? gemm_netlib_info(tb, ta, n, m, k, ldb, lda, ldc)
                               : gemm_netlib_info(ta, tb, m, n, k, lda, ldb, ldc);
    if (info != 0) return {info + 1, "", 0};
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
    return {};
}

CblasError check_cblas_gemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n,
                            const void* a, int64_t lda, const void* x, int64_t incx, int64_t incy,
                            GemvArgs* g) {
    const char t = trans_char(trans);
    const bool row_major = layout == CblasRowMajor;
    set_cblas_row_major(row_major);
    if (layout != CblasColMajor && layout != CblasRowMajor)
        return {1, "Illegal layout setting, %d\n", int(layout)};
    if (t == 0) return {2, "Illegal TransA setting, %d\n", int(trans)};
    // Row-major A (m x n) is column-major A^T (n x m): transpose flips, dimensions swap.
    const bool col_trans = row_major ? !is_trans_char(t) : is_trans_char(t);
    const int64_t cm = row_major ? n : m, cn = row_major ? m : n;
    const int info = gemv_netlib_info(col_trans ? 'T' : 'N', cm, cn, lda, incx, incy);
    if (info != 0) return {info + 1, "", 0};
    g->trans = col_trans, g->m = cm, g->n = cn;
    g->a = a, g->lda = lda, g->x = x, g->incx = incx, g->incy = incy;
    return {};
}

}  // namespace ridge
