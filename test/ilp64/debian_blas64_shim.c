/* Lets Debian's ILP64 test programs (libblas64-test: xblat3s, xscblat3, ...)
 * run on libridge64.so. Debian's ILP64 BLAS keeps the standard names with
 * 64-bit integers (libblas64.so.3 exports sgemm_, cblas_sgemm, ...); ridge
 * follows LAPACK's ILP64 convention, the _64 names. Preloaded before
 * libridge64.so, this shim maps the one naming onto the other and does
 * nothing else: each routine forwards its arguments unchanged, and ridge's
 * error reports (xerbla_64_, cblas_xerbla_64) go on to the test program's own
 * xerbla_ and cblas_xerbla, which check the parameter numbers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ridge's headers are not included: cblas.h declares the standard names with
 * 32-bit integers, which this file defines with 64-bit ones. CBLAS enums are
 * passed as int, so they are taken as int here. */
void sgemm_64_(const char *ta, const char *tb, const int64_t *m, const int64_t *n, const int64_t *k,
               const float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb,
               const float *beta, float *c, const int64_t *ldc);
void sgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha, const float *a,
               const int64_t *lda, const float *x, const int64_t *incx, const float *beta, float *y,
               const int64_t *incy);
void cblas_sgemm_64(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                    int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc);
void cblas_sgemv_64(int layout, int trans, int64_t m, int64_t n, float alpha, const float *a, int64_t lda,
                    const float *x, int64_t incx, float beta, float *y, int64_t incy);

/* The test programs' error routines, under Debian's ILP64 signatures. */
void xerbla_(const char *routine, const int64_t *info, size_t routine_len);
void cblas_xerbla(int64_t info, const char *routine, const char *form, ...);

void sgemm_(const char *ta, const char *tb, const int64_t *m, const int64_t *n, const int64_t *k,
            const float *alpha, const float *a, const int64_t *lda, const float *b, const int64_t *ldb,
            const float *beta, float *c, const int64_t *ldc) {
    sgemm_64_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void sgemv_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha, const float *a,
            const int64_t *lda, const float *x, const int64_t *incx, const float *beta, float *y,
            const int64_t *incy) {
    sgemv_64_(trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void cblas_sgemm(int layout, int ta, int tb, int64_t m, int64_t n, int64_t k, float alpha, const float *a,
                 int64_t lda, const float *b, int64_t ldb, float beta, float *c, int64_t ldc) {
    cblas_sgemm_64(layout, ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void cblas_sgemv(int layout, int trans, int64_t m, int64_t n, float alpha,
                 const float *a, int64_t lda, const float *x, int64_t incx, float beta, float *y,
                 int64_t incy) {
    cblas_sgemv_64(layout, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

void xerbla_64_(const char *routine, const int64_t *info, size_t routine_len) {
    xerbla_(routine, info, routine_len);
}

/* The message is formatted here: a va_list cannot be handed on to a varargs function. */
void cblas_xerbla_64(int64_t info, const char *routine, const char *form, ...) {
    char message[256];
    va_list args;
    va_start(args, form);
    vsnprintf(message, sizeof message, form, args);
    va_end(args);
    cblas_xerbla(info, routine, "%s", message);
}
