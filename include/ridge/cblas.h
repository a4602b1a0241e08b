/* ridge: the CBLAS and Fortran BLAS symbols that libridge exports.
 * Same signatures as netlib's cblas.h, so either header works. */
#ifndef RIDGE_CBLAS_H
#define RIDGE_CBLAS_H

#include <stddef.h>
#include <stdint.h>

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

/* MKL's strided batch: batch_size problems of one shape, problem i reading
 * a + i*stridea and b + i*strideb and writing c + i*stridec (elements).
 * stridea or strideb may be 0 (one A or B for all); the problems' C must not
 * overlap (stridec >= ldc * n column-major, ldc * m row-major). Errors go to
 * cblas_xerbla with the argument's position in this signature. */
void cblas_sgemm_batch_strided(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a,
                               enum CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                               const float *a, int lda, int stridea, const float *b, int ldb,
                               int strideb, float beta, float *c, int ldc, int stridec,
                               int batch_size);
/* MKL's group batch (BLIS has it too): group_count groups; group g holds
 * group_size[g] problems sharing transa_array[g], ..., ldc_array[g], and the
 * problems' own matrices are a_array[p], b_array[p], c_array[p], numbered
 * group after group. No two problems' C may overlap (as in MKL; ridge then
 * runs them in order, on one thread). Every argument is checked before any C
 * is written; errors go to cblas_xerbla with the argument's position in this
 * signature (a NULL listed pointer a problem needs: 8, 10 or 13). */
void cblas_sgemm_batch(CBLAS_LAYOUT layout, const enum CBLAS_TRANSPOSE *transa_array,
                       const enum CBLAS_TRANSPOSE *transb_array, const int *m_array, const int *n_array,
                       const int *k_array, const float *alpha_array, const float **a_array,
                       const int *lda_array, const float **b_array, const int *ldb_array,
                       const float *beta_array, float **c_array, const int *ldc_array, int group_count,
                       const int *group_size);
/* OpenBLAS's bf16 batches: the two above with bfloat16 A and B (uint16_t bit
 * patterns; C, alpha and beta fp32), the same checks and positions. */
void cblas_sbgemm_batch_strided(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a,
                                enum CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                                const uint16_t *a, int lda, int stridea, const uint16_t *b, int ldb,
                                int strideb, float beta, float *c, int ldc, int stridec, int batch_size);
void cblas_sbgemm_batch(CBLAS_LAYOUT layout, const enum CBLAS_TRANSPOSE *transa_array,
                        const enum CBLAS_TRANSPOSE *transb_array, const int *m_array, const int *n_array,
                        const int *k_array, const float *alpha_array, const uint16_t **a_array,
                        const int *lda_array, const uint16_t **b_array, const int *ldb_array,
                        const float *beta_array, float **c_array, const int *ldc_array, int group_count,
                        const int *group_size);

/* 16-bit GEMM under MKL's and OpenBLAS's names. 16-bit values are raw
 * IEEE binary16 or bfloat16 bit patterns in uint16_t (MKL_F16, MKL_BF16,
 * OpenBLAS's bfloat16 and hfloat16 are all 16-bit integers). Accumulation is
 * fp32; cblas_hgemm rounds C to fp16 once, at the end (nearest even). */
void cblas_hgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a, enum CBLAS_TRANSPOSE trans_b,
                 int m, int n, int k, uint16_t alpha, const uint16_t *a, int lda, const uint16_t *b,
                 int ldb, uint16_t beta, uint16_t *c, int ldc);
void cblas_gemm_f16f16f32(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a,
                          enum CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                          const uint16_t *a, int lda, const uint16_t *b, int ldb, float beta,
                          float *c, int ldc);
void cblas_gemm_bf16bf16f32(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a,
                            enum CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                            const uint16_t *a, int lda, const uint16_t *b, int ldb, float beta,
                            float *c, int ldc);
void cblas_sbgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a, enum CBLAS_TRANSPOSE trans_b,
                  int m, int n, int k, float alpha, const uint16_t *a, int lda, const uint16_t *b,
                  int ldb, float beta, float *c, int ldc);
void cblas_shgemm(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans_a, enum CBLAS_TRANSPOSE trans_b,
                  int m, int n, int k, float alpha, const uint16_t *a, int lda, const uint16_t *b,
                  int ldb, float beta, float *c, int ldc);
void cblas_sgemv(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                 const float *a, int lda, const float *x, int incx, float beta, float *y, int incy);
/* OpenBLAS's 16-bit GEMV: 16-bit A and x, fp32 y (cblas_shgemv: ridge's fp16 counterpart). */
void cblas_sbgemv(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                  const uint16_t *a, int lda, const uint16_t *x, int incx, float beta, float *y,
                  int incy);
void cblas_shgemv(CBLAS_LAYOUT layout, enum CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                  const uint16_t *a, int lda, const uint16_t *x, int incx, float beta, float *y,
                  int incy);
/* OpenBLAS's conversions (float <-> bfloat16, rounding to nearest even), and
 * ridge's fp16 pair named after them (OpenBLAS has none). BLAS increments:
 * a negative one walks the array from its far end. */
void cblas_sbstobf16(int n, const float *in, int incin, uint16_t *out, int incout);
void cblas_sbf16tos(int n, const uint16_t *in, int incin, float *out, int incout);
void cblas_shstohf16(int n, const float *in, int incin, uint16_t *out, int incout);
void cblas_shf16tos(int n, const uint16_t *in, int incin, float *out, int incout);

/* Error report of the CBLAS layer: 'info' is the parameter number, 'routine'
 * e.g. "cblas_sgemm". ridge's default returns, printing only when
 * RIDGE_VERBOSE is set; a program may define its own (ridge's is weak).
 * info == 1089 (MKL's number for insufficient workspace): the routine could not
 * allocate its packing buffers and wrote nothing. xerbla_ receives the same
 * 1089, with the routine's name, for the Fortran routines. */
void cblas_xerbla(int info, const char *routine, const char *form, ...);

/* Fortran BLAS (gfortran calling convention; hidden string lengths ignored). */
void sgemm_(const char *trans_a, const char *trans_b, const int *m, const int *n, const int *k,
            const float *alpha, const float *a, const int *lda, const float *b, const int *ldb,
            const float *beta, float *c, const int *ldc);
void sgemv_(const char *trans, const int *m, const int *n, const float *alpha, const float *a,
            const int *lda, const float *x, const int *incx, const float *beta, float *y,
            const int *incy);
void xerbla_(const char *routine, const int *info, size_t routine_len);
/* OpenBLAS's Fortran 16-bit routines: bf16 (sb) or fp16 (sh) A and B (or x),
 * fp32 alpha, beta and C (or y); checked as sgemm_ / sgemv_ are, xerbla_
 * told "SBGEMM", "SHGEMM", "SBGEMV" or "SHGEMV". And its conversions. */
void sbgemm_(const char *trans_a, const char *trans_b, const int *m, const int *n, const int *k,
             const float *alpha, const uint16_t *a, const int *lda, const uint16_t *b, const int *ldb,
             const float *beta, float *c, const int *ldc);
void shgemm_(const char *trans_a, const char *trans_b, const int *m, const int *n, const int *k,
             const float *alpha, const uint16_t *a, const int *lda, const uint16_t *b, const int *ldb,
             const float *beta, float *c, const int *ldc);
void sbgemv_(const char *trans, const int *m, const int *n, const float *alpha, const uint16_t *a,
             const int *lda, const uint16_t *x, const int *incx, const float *beta, float *y,
             const int *incy);
void shgemv_(const char *trans, const int *m, const int *n, const float *alpha, const uint16_t *a,
             const int *lda, const uint16_t *x, const int *incx, const float *beta, float *y,
             const int *incy);
void sbstobf16_(const int *n, const float *in, const int *incin, uint16_t *out, const int *incout);
void sbf16tos_(const int *n, const uint16_t *in, const int *incin, float *out, const int *incout);

/* Thread control under OpenBLAS's and MKL's names, for programs that
 * call them. The setters set ridge's count for every thread that has not set
 * its own (ridge_set_global_num_threads; a count below 1 is ignored, as those
 * libraries do), then pass the call on to the next library in the process that
 * defines the same name (the BLAS ridge was preloaded over), so that its own
 * routines get the setting too. mkl_set_num_threads_local sets the calling
 * thread's count (ridge_set_num_threads; 0 returns the thread to the global
 * count) and returns the previous one. The getters answer for ridge: the
 * threads a call from the calling thread may use. openblas_get_parallel
 * returns 2 (an OpenMP build). */
void openblas_set_num_threads(int num_threads);
void goto_set_num_threads(int num_threads);
int openblas_get_num_threads(void);
int openblas_get_num_procs(void);
int openblas_get_parallel(void);
void mkl_set_num_threads(int nt);
void MKL_Set_Num_Threads(int nt);
int mkl_set_num_threads_local(int nt);
int MKL_Set_Num_Threads_Local(int nt);
int mkl_get_max_threads(void);
int MKL_Get_Max_Threads(void);

#ifdef __cplusplus
}
#endif

#endif /* RIDGE_CBLAS_H */
