/* ridge: the CBLAS and Fortran BLAS symbols that libridge exports.
 * Same signatures as netlib's cblas.h, so either header works. */
#ifndef RIDGE_CBLAS_H
#define RIDGE_CBLAS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CBLAS_INDEX
enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 };
enum CBLAS_TRANSPOSE { CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113 };
typedef enum CBLAS_ORDER CBLAS_LAYOUT;
#define CBLAS_INDEX size_t
#endif

void cblas_sgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a, enum CBLAS_TRANSPOSE trans_b,
                 int m, int n, int k, float alpha, const float *a, int lda, const float *b,
                 int ldb, float beta, float *c, int ldc);

/* Error report of the CBLAS layer: 'info' is the parameter number, 'routine'
 * e.g. "cblas_sgemm". ridge's default records the error and prints it only
 * when RIDGE_VERBOSE is set; a program may define its own. */
void cblas_xerbla(int info, const char *routine, const char *form, ...);

/* Fortran BLAS (gfortran calling convention; hidden string lengths ignored). */
void sgemm_(const char *trans_a, const char *trans_b, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void xerbla_(const char *routine, const int *info, size_t routine_len);

#ifdef __cplusplus
}
#endif

#endif /* RIDGE_CBLAS_H */
