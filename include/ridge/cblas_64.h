/* ridge: the ILP64 BLAS and CBLAS symbols that libridge64.so exports.
 *
 * The same routines as cblas.h with 64-bit integers, under the names of
 * LAPACK's 64-bit-integer API (reference LAPACK >= 3.11 built with
 * BUILD_INDEX64_EXT_API, cblas_64.h): a `_64` suffix on every C name and
 * `_64_` on every Fortran one, including the error routines: ridge calls
 * xerbla_64_ (64-bit INFO) and cblas_xerbla_64, whose defaults are weak, like
 * the 32-bit ones. Enums and element types are cblas.h's.
 * Link with -lridge64 (pkg-config ridge64, CMake target ridge::ridge64). */
#ifndef RIDGE_CBLAS_64_H
#define RIDGE_CBLAS_64_H

#include "cblas.h"

#ifdef __cplusplus
extern "C" {
#endif

void cblas_sgemm_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a, enum CBLAS_TRANSPOSE trans_b,
                    int64_t m, int64_t n, int64_t k, float alpha, const float *a, int64_t lda,
                    const float *b, int64_t ldb, float beta, float *c, int64_t ldc);
void cblas_sgemm_batch_strided_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a,
                                  enum CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n, int64_t k,
                                  float alpha, const float *a, int64_t lda, int64_t stridea,
                                  const float *b, int64_t ldb, int64_t strideb, float beta, float *c,
                                  int64_t ldc, int64_t stridec, int64_t batch_size);
void cblas_sgemm_batch_64(CBLAS_LAYOUT layout, const enum CBLAS_TRANSPOSE *transa_array,
                          const enum CBLAS_TRANSPOSE *transb_array, const int64_t *m_array,
                          const int64_t *n_array, const int64_t *k_array, const float *alpha_array,
                          const float **a_array, const int64_t *lda_array, const float **b_array,
                          const int64_t *ldb_array, const float *beta_array, float **c_array,
                          const int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_sbgemm_batch_strided_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a,
                                   enum CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                                   const uint16_t *a, int64_t lda, int64_t stridea, const uint16_t *b, int64_t ldb,
                                   int64_t strideb, float beta, float *c, int64_t ldc, int64_t stridec,
                                   int64_t batch_size);
void cblas_sbgemm_batch_64(CBLAS_LAYOUT layout, const enum CBLAS_TRANSPOSE *transa_array,
                           const enum CBLAS_TRANSPOSE *transb_array, const int64_t *m_array,
                           const int64_t *n_array, const int64_t *k_array, const float *alpha_array,
                           const uint16_t **a_array, const int64_t *lda_array, const uint16_t **b_array,
                           const int64_t *ldb_array, const float *beta_array, float **c_array,
                           const int64_t *ldc_array, int64_t group_count, const int64_t *group_size);
void cblas_sgemv_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans, int64_t m, int64_t n, float alpha,
                    const float *a, int64_t lda, const float *x, int64_t incx, float beta, float *y,
                    int64_t incy);

void cblas_hgemm_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a, enum CBLAS_TRANSPOSE trans_b,
                    int64_t m, int64_t n, int64_t k, uint16_t alpha, const uint16_t *a, int64_t lda,
                    const uint16_t *b, int64_t ldb, uint16_t beta, uint16_t *c, int64_t ldc);
void cblas_gemm_f16f16f32_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a,
                             enum CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                             const uint16_t *a, int64_t lda, const uint16_t *b, int64_t ldb, float beta,
                             float *c, int64_t ldc);
void cblas_gemm_bf16bf16f32_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a,
                               enum CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n, int64_t k,
                               float alpha, const uint16_t *a, int64_t lda, const uint16_t *b,
                               int64_t ldb, float beta, float *c, int64_t ldc);
void cblas_sbgemm_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a, enum CBLAS_TRANSPOSE trans_b,
                     int64_t m, int64_t n, int64_t k, float alpha, const uint16_t *a, int64_t lda,
                     const uint16_t *b, int64_t ldb, float beta, float *c, int64_t ldc);
void cblas_shgemm_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a, enum CBLAS_TRANSPOSE trans_b,
                     int64_t m, int64_t n, int64_t k, float alpha, const uint16_t *a, int64_t lda,
                     const uint16_t *b, int64_t ldb, float beta, float *c, int64_t ldc);
void cblas_sbgemv_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans, int64_t m, int64_t n, float alpha,
                     const uint16_t *a, int64_t lda, const uint16_t *x, int64_t incx, float beta,
                     float *y, int64_t incy);
void cblas_shgemv_64(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans, int64_t m, int64_t n, float alpha,
                     const uint16_t *a, int64_t lda, const uint16_t *x, int64_t incx, float beta,
                     float *y, int64_t incy);
void cblas_sbstobf16_64(int64_t n, const float *in, int64_t incin, uint16_t *out, int64_t incout);
void cblas_sbf16tos_64(int64_t n, const uint16_t *in, int64_t incin, float *out, int64_t incout);
void cblas_shstohf16_64(int64_t n, const float *in, int64_t incin, uint16_t *out, int64_t incout);
void cblas_shf16tos_64(int64_t n, const uint16_t *in, int64_t incin, float *out, int64_t incout);

/* Error report of the ILP64 CBLAS layer (LAPACK's cblas_64.h signature). On a
 * failed allocation of packing buffers (nothing written) info is 1089, as for
 * cblas_xerbla. */
void cblas_xerbla_64(int64_t info, const char *routine, const char *form, ...);

/* Fortran BLAS, ILP64 (every INTEGER is 64-bit; hidden string lengths ignored). */
void sgemm_64_(const char *trans_a, const char *trans_b, const int64_t *m, const int64_t *n,
               const int64_t *k, const float *alpha, const float *a, const int64_t *lda,
               const float *b, const int64_t *ldb, const float *beta, float *c, const int64_t *ldc);
void sgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha,
               const float *a, const int64_t *lda, const float *x, const int64_t *incx,
               const float *beta, float *y, const int64_t *incy);
void xerbla_64_(const char *routine, const int64_t *info, size_t routine_len);
/* OpenBLAS's Fortran 16-bit routines (cblas.h), ILP64. */
void sbgemm_64_(const char *trans_a, const char *trans_b, const int64_t *m, const int64_t *n,
                const int64_t *k, const float *alpha, const uint16_t *a, const int64_t *lda,
                const uint16_t *b, const int64_t *ldb, const float *beta, float *c, const int64_t *ldc);
void shgemm_64_(const char *trans_a, const char *trans_b, const int64_t *m, const int64_t *n,
                const int64_t *k, const float *alpha, const uint16_t *a, const int64_t *lda,
                const uint16_t *b, const int64_t *ldb, const float *beta, float *c, const int64_t *ldc);
void sbgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha,
                const uint16_t *a, const int64_t *lda, const uint16_t *x, const int64_t *incx,
                const float *beta, float *y, const int64_t *incy);
void shgemv_64_(const char *trans, const int64_t *m, const int64_t *n, const float *alpha,
                const uint16_t *a, const int64_t *lda, const uint16_t *x, const int64_t *incx,
                const float *beta, float *y, const int64_t *incy);
void sbstobf16_64_(const int64_t *n, const float *in, const int64_t *incin, uint16_t *out,
                   const int64_t *incout);
void sbf16tos_64_(const int64_t *n, const uint16_t *in, const int64_t *incin, float *out,
                  const int64_t *incout);

#ifdef __cplusplus
}
#endif

#endif /* RIDGE_CBLAS_64_H */
