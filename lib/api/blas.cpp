// Fortran BLAS entry points (gfortran ABI: every argument by reference; the
// hidden string lengths gfortran appends are not read).
#include "api/checks.h"
#include "dispatch/dispatch.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"

extern "C" RIDGE_API void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                 const int* k, const float* alpha, const float* a, const int* lda,
                                 const float* b, const int* ldb, const float* beta, float* c,
                                 const int* ldc) {
    const int info = ridge::gemm_netlib_info(*transa, *transb, *m, *n, *k, *lda, *ldb, *ldc);
    if (info != 0) {
        xerbla_("SGEMM ", &info, 6);
        return;
    }
    ridge::GemmArgs g;
    g.trans_a = ridge::is_trans_char(*transa);
    g.trans_b = ridge::is_trans_char(*transb);
    g.m = *m;
    g.n = *n;
    g.k = *k;
    g.alpha = *alpha;
    g.a = a;
    g.lda = *lda;
    g.b = b;
    g.ldb = *ldb;
    g.beta = *beta;
    g.c = c;
    g.ldc = *ldc;
    ridge::dispatch_gemm(g);
}

extern "C" RIDGE_API void sgemv_(const char* trans, const int* m, const int* n, const float* alpha,
                                 const float* a, const int* lda, const float* x, const int* incx,
                                 const float* beta, float* y, const int* incy) {
    const int info = ridge::gemv_netlib_info(*trans, *m, *n, *lda, *incx, *incy);
    if (info != 0) {
        xerbla_("SGEMV ", &info, 6);
        return;
    }
    ridge::GemvArgs g;
    g.trans = ridge::is_trans_char(*trans);
    g.m = *m, g.n = *n, g.alpha = *alpha, g.a = a, g.lda = *lda;
    g.x = x, g.incx = *incx, g.beta = *beta, g.y = y, g.incy = *incy;
    ridge::dispatch_gemv(g);
}
