/* An ordinary BLAS program, linked with -lblas and nothing of ridge: it calls
 * sgemm_, sgemv_ (which ridge provides) and saxpy_ (which it does not),
 * checks each result against a plain loop, and says which shared object
 * served each routine. run_dropin_test.cmake runs it with and without
 * LD_PRELOAD=libridge.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

/* The Fortran BLAS ABI (gfortran): every argument by reference. */
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);
void sgemv_(const char *t, const int *m, const int *n, const float *alpha, const float *a, const int *lda,
            const float *x, const int *incx, const float *beta, float *y, const int *incy);
void saxpy_(const int *n, const float *alpha, const float *x, const int *incx, float *y, const int *incy);

enum { M = 37, N = 29, K = 41 };

static void say_where(const char *name, void *fn) {
    Dl_info where;
    if (dladdr(fn, &where) != 0 && where.dli_fname != NULL)
        printf("%s served by %s\n", name, where.dli_fname);
    else
        printf("%s served by an unknown object\n", name);
}

static int near(const char *what, int i, float got, double want, double scale) {
    if (fabs((double)got - want) <= 1e-5 * scale) return 1;
    printf("%s: element %d is %g, expected %g\n", what, i, got, want);
    return 0;
}

int main(void) {
    static float a[M * K], b[K * N], c[M * N], x[K], y[M];
    for (int i = 0; i < M * K; ++i) a[i] = (float)((i * 7) % 13) / 13.0f - 0.5f;
    for (int i = 0; i < K * N; ++i) b[i] = (float)((i * 5) % 11) / 11.0f - 0.5f;
    for (int i = 0; i < K; ++i) x[i] = (float)(i % 3) - 1.0f;
    int ok = 1;

    const char no = 'N';
    const int m = M, n = N, k = K, one_i = 1;
    const float one = 1.0f, zero = 0.0f, two = 2.0f;
    sgemm_(&no, &no, &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
    for (int j = 0; j < N && ok; ++j)
        for (int i = 0; i < M && ok; ++i) {
            double want = 0.0;
            for (int p = 0; p < K; ++p) want += (double)a[i + p * M] * b[p + j * K];
            ok = near("sgemm_", i + j * M, c[i + j * M], want, K);
        }

    sgemv_(&no, &m, &k, &one, a, &m, x, &one_i, &zero, y, &one_i);
    for (int i = 0; i < M && ok; ++i) {
        double want = 0.0;
        for (int p = 0; p < K; ++p) want += (double)a[i + p * M] * x[p];
        ok = near("sgemv_", i, y[i], want, K);
    }

    float before[M];
    for (int i = 0; i < M; ++i) before[i] = y[i];
    saxpy_(&m, &two, a, &one_i, y, &one_i); /* y += 2 * (first column of A) */
    for (int i = 0; i < M && ok; ++i) ok = near("saxpy_", i, y[i], before[i] + 2.0 * a[i], 1.0);

    say_where("sgemm_", (void *)&sgemm_);
    say_where("sgemv_", (void *)&sgemv_);
    say_where("saxpy_", (void *)&saxpy_);
    printf(ok ? "results: ok\n" : "results: WRONG\n");
    return ok ? 0 : 1;
}
