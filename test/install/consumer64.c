/* The ILP64 counterpart of consumer.c: libridge64.so's _64 symbols with
 * 64-bit integers, and the native API as libridge64.so exports it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

#include <ridge/cblas_64.h>
#include <ridge/ridge.h>

enum { M = 5, N = 4, K = 3 };

static void expected(const float *a, const float *b, float *c) {
    for (int j = 0; j < N; ++j)
        for (int i = 0; i < M; ++i) {
            float sum = 0.0f;
            for (int p = 0; p < K; ++p) sum += a[i + p * M] * b[p + j * K];
            c[i + j * M] = sum;
        }
}

static int check(const char *what, const float *got, const float *want) {
    for (int i = 0; i < M * N; ++i)
        if (fabsf(got[i] - want[i]) > 1e-5f) {
            printf("%s: C[%d] = %g, expected %g\n", what, i, got[i], want[i]);
            return 1;
        }
    printf("%s: ok\n", what);
    return 0;
}

int main(void) {
    float a[M * K], b[K * N], want[M * N], c[M * N];
    for (int i = 0; i < M * K; ++i) a[i] = (float)(i % 7) - 3.0f;
    for (int i = 0; i < K * N; ++i) b[i] = (float)(i % 5) * 0.5f;
    expected(a, b, want);
    int failures = 0;

    cblas_sgemm_64(CblasColMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, M, b, K, 0.0f, c, M);
    failures += check("cblas_sgemm_64", c, want);

    const char no = 'N';
    const int64_t m = M, n = N, k = K;
    const float one = 1.0f, zero = 0.0f;
    sgemm_64_(&no, &no, &m, &n, &k, &one, a, &m, b, &k, &zero, c, &m);
    failures += check("sgemm_64_", c, want);

    const ridge_status s = ridge_sgemm(RIDGE_COL_MAJOR, RIDGE_NO_TRANS, RIDGE_NO_TRANS, M, N, K, 1.0f, a,
                                       M, b, K, 0.0f, c, M);
    if (s != RIDGE_SUCCESS) {
        printf("ridge_sgemm: %s\n", ridge_status_string(s));
        ++failures;
    } else {
        failures += check("ridge_sgemm", c, want);
    }

    Dl_info where;
    if (dladdr((void *)&sgemm_64_, &where) != 0 && where.dli_fname != NULL)
        printf("libridge64: %s\n", where.dli_fname);
    return failures == 0 ? 0 : 1;
}
