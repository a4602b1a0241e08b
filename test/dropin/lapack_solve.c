/* LAPACK's LU solver on a 500 x 500 system, as any program calls it: sgesv_
 * from liblapack, which nobody here wrote. Its blocked LU (sgetrf, block 64)
 * spends its time in sgemm_ and strsm_ of whatever BLAS the process has.
 * Prints the scaled residual ||b - A x||_inf / (n ||A||_inf ||x||_inf eps)
 * (LAPACK's own tests accept < 30) and which object served sgemm_, and exits 0
 * when the residual is small. run_dropin_test.cmake runs it with and without
 * LD_PRELOAD=libridge.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void sgesv_(const int *n, const int *nrhs, float *a, const int *lda, int *ipiv, float *b, const int *ldb,
            int *info);
void sgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k, const float *alpha,
            const float *a, const int *lda, const float *b, const int *ldb, const float *beta, float *c,
            const int *ldc);

enum { N = 500 };

int main(void) {
    float *a = malloc(sizeof(float) * N * N), *lu = malloc(sizeof(float) * N * N);
    float *x = malloc(sizeof(float) * N), *b = malloc(sizeof(float) * N);
    int *ipiv = malloc(sizeof(int) * N);
    if (!a || !lu || !x || !b || !ipiv) return 2;
    /* A fixed pseudo-random matrix in [-1, 1] (a 32-bit LCG: same system every run). */
    unsigned state = 12345u;
    for (int i = 0; i < N * N; ++i) {
        state = state * 1664525u + 1013904223u;
        a[i] = (float)(state >> 8) / (float)(1u << 24) * 2.0f - 1.0f;
        lu[i] = a[i];
    }
    for (int i = 0; i < N; ++i) x[i] = b[i] = (float)(i % 10) - 4.5f;

    const int n = N, nrhs = 1;
    int info = 0;
    sgesv_(&n, &nrhs, lu, &n, ipiv, x, &n, &info);
    if (info != 0) {
        printf("sgesv_: info = %d\n", info);
        return 1;
    }

    double norm_a = 0.0, norm_x = 0.0, norm_r = 0.0;
    for (int i = 0; i < N; ++i) {
        double row = 0.0, r = b[i];
        for (int j = 0; j < N; ++j) {
            row += fabs(a[i + j * N]);
            r -= (double)a[i + j * N] * x[j];
        }
        if (row > norm_a) norm_a = row;
        if (fabs(r) > norm_r) norm_r = fabs(r);
        if (fabs(x[i]) > norm_x) norm_x = fabs(x[i]);
    }
    const double ratio = norm_r / (N * norm_a * norm_x * FLT_EPSILON);
    double checksum = 0.0;
    for (int i = 0; i < N; ++i) checksum += x[i];
    printf("scaled residual %.3f\n", ratio);
    printf("solution checksum %.6e\n", checksum);

    Dl_info where;
    if (dladdr((void *)&sgemm_, &where) != 0 && where.dli_fname != NULL)
        printf("sgemm_ served by %s\n", where.dli_fname);
    Dl_info solver;
    if (dladdr((void *)&sgesv_, &solver) != 0 && solver.dli_fname != NULL)
        printf("sgesv_ served by %s\n", solver.dli_fname);
    return ratio < 30.0 ? 0 : 1;
}
