// The ILP64 (64-bit integer) BLAS and CBLAS symbols of libridge64.so, under
// LAPACK's ILP64 names: `_64_` after Fortran names, `_64` after C ones, error
// routines included (xerbla_64_ with a 64-bit INFO, cblas_xerbla_64). Each is
// one call into api/interface.h; blas32.cpp is the same list for LP64.
#include <cstdarg>

#include "api/interface.h"
#include "ridge/cblas_64.h"
#include "ridge/ridge.h"

namespace {

struct Ilp64 {
    using Int = int64_t;
    static void xerbla(const char* routine, int64_t info) { xerbla_64_(routine, &info, 6); }
    static void cblas_xerbla(int64_t info, const char* routine, const char* form, int value) {
        ::cblas_xerbla_64(info, routine, form, value);
    }
};

}  // namespace

using ridge::Dtype;

extern "C" {

RIDGE_API void sgemm_64_(const char* transa, const char* transb, const int64_t* m, const int64_t* n,
                         const int64_t* k, const float* alpha, const float* a, const int64_t* lda,
                         const float* b, const int64_t* ldb, const float* beta, float* c,
                         const int64_t* ldc) {
    ridge::sgemm_impl<Ilp64>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void sgemv_64_(const char* trans, const int64_t* m, const int64_t* n, const float* alpha,
                         const float* a, const int64_t* lda, const float* x, const int64_t* incx,
                         const float* beta, float* y, const int64_t* incy) {
    ridge::sgemv_impl<Ilp64>(trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

// OpenBLAS's Fortran 16-bit routines (blas32.cpp), ILP64.
RIDGE_API void sbgemm_64_(const char* transa, const char* transb, const int64_t* m, const int64_t* n,
                          const int64_t* k, const float* alpha, const uint16_t* a, const int64_t* lda,
                          const uint16_t* b, const int64_t* ldb, const float* beta, float* c, const int64_t* ldc) {
    ridge::fortran_gemm_f32_output<Ilp64>("SBGEMM", Dtype::bf16, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                          beta, c, ldc);
}

RIDGE_API void shgemm_64_(const char* transa, const char* transb, const int64_t* m, const int64_t* n,
                          const int64_t* k, const float* alpha, const uint16_t* a, const int64_t* lda,
                          const uint16_t* b, const int64_t* ldb, const float* beta, float* c, const int64_t* ldc) {
    ridge::fortran_gemm_f32_output<Ilp64>("SHGEMM", Dtype::f16, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                          beta, c, ldc);
}

RIDGE_API void sbgemv_64_(const char* trans, const int64_t* m, const int64_t* n, const float* alpha,
                          const uint16_t* a, const int64_t* lda, const uint16_t* x, const int64_t* incx,
                          const float* beta, float* y, const int64_t* incy) {
    ridge::fortran_gemv_f32_output<Ilp64>("SBGEMV", Dtype::bf16, trans, m, n, alpha, a, lda, x, incx, beta, y,
                                          incy);
}

RIDGE_API void shgemv_64_(const char* trans, const int64_t* m, const int64_t* n, const float* alpha,
                          const uint16_t* a, const int64_t* lda, const uint16_t* x, const int64_t* incx,
                          const float* beta, float* y, const int64_t* incy) {
    ridge::fortran_gemv_f32_output<Ilp64>("SHGEMV", Dtype::f16, trans, m, n, alpha, a, lda, x, incx, beta, y,
                                          incy);
}

RIDGE_API void sbstobf16_64_(const int64_t* n, const float* in, const int64_t* incin, uint16_t* out,
                             const int64_t* incout) {
    ridge::convert_strided<Ilp64, float, uint16_t, ridge::f32_to_bf16>(*n, in, *incin, out, *incout);
}
RIDGE_API void sbf16tos_64_(const int64_t* n, const uint16_t* in, const int64_t* incin, float* out,
                            const int64_t* incout) {
    ridge::convert_strided<Ilp64, uint16_t, float, ridge::bf16_to_f32>(*n, in, *incin, out, *incout);
}

// Weak: a program's own xerbla_64_ (or cblas_xerbla_64) replaces these, as with any BLAS.
// netlib's XERBLA prints and STOPs; ridge's returns, and prints only under RIDGE_VERBOSE.
RIDGE_API __attribute__((weak)) void xerbla_64_(const char* routine, const int64_t* info,
                                                size_t routine_len) {
    ridge::default_xerbla(routine, routine_len, info != nullptr ? *info : 0);
}

RIDGE_API __attribute__((weak)) void cblas_xerbla_64(int64_t info, const char* routine,
                                                     const char* form, ...) {
    va_list args;
    va_start(args, form);
    ridge::default_cblas_xerbla(info, routine, form, args);
    va_end(args);
}

// Routine names in messages stay the standard ones ("cblas_sgemm"), as in
// LAPACK's ILP64 CBLAS, so one cblas_xerbla_64 serves code written for both.
RIDGE_API void cblas_sgemm_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                              int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                              int64_t lda, const float* b, int64_t ldb, float beta, float* c,
                              int64_t ldc) {
    ridge::cblas_gemm_f32_output<Ilp64>("cblas_sgemm", Dtype::f32, layout, trans_a, trans_b, m, n, k,
                                        alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_sgemm_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                            CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                                            const float* a, int64_t lda, int64_t stridea, const float* b,
                                            int64_t ldb, int64_t strideb, float beta, float* c, int64_t ldc,
                                            int64_t stridec, int64_t batch_size) {
    ridge::cblas_gemm_batch_strided_f32_output<Ilp64>("cblas_sgemm_batch_strided", Dtype::f32, layout, trans_a,
                                                      trans_b, m, n, k, alpha, a, lda, stridea, b, ldb, strideb, beta,
                                                      c, ldc, stridec, batch_size);
}

RIDGE_API void cblas_sgemm_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* transa_array,
                                    const CBLAS_TRANSPOSE* transb_array, const int64_t* m_array, const int64_t* n_array,
                                    const int64_t* k_array, const float* alpha_array, const float** a_array,
                                    const int64_t* lda_array, const float** b_array, const int64_t* ldb_array,
                                    const float* beta_array, float** c_array, const int64_t* ldc_array,
                                    int64_t group_count, const int64_t* group_size) {
    ridge::cblas_gemm_batch_f32_output<Ilp64, float>(
        "cblas_sgemm_batch", Dtype::f32,
        {layout, transa_array, transb_array, m_array, n_array, k_array, alpha_array, a_array, lda_array, b_array,
         ldb_array, beta_array, c_array, ldc_array, group_count, group_size});
}

RIDGE_API void cblas_sbgemm_batch_strided_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                             CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n, int64_t k, float alpha,
                                             const uint16_t* a, int64_t lda, int64_t stridea, const uint16_t* b,
                                             int64_t ldb, int64_t strideb, float beta, float* c, int64_t ldc,
                                             int64_t stridec, int64_t batch_size) {
    ridge::cblas_gemm_batch_strided_f32_output<Ilp64>("cblas_sbgemm_batch_strided", Dtype::bf16, layout, trans_a,
                                                      trans_b, m, n, k, alpha, a, lda, stridea, b, ldb, strideb, beta,
                                                      c, ldc, stridec, batch_size);
}

RIDGE_API void cblas_sbgemm_batch_64(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* transa_array,
                                     const CBLAS_TRANSPOSE* transb_array, const int64_t* m_array,
                                     const int64_t* n_array, const int64_t* k_array, const float* alpha_array,
                                     const uint16_t** a_array, const int64_t* lda_array, const uint16_t** b_array,
                                     const int64_t* ldb_array, const float* beta_array, float** c_array,
                                     const int64_t* ldc_array, int64_t group_count, const int64_t* group_size) {
    ridge::cblas_gemm_batch_f32_output<Ilp64, uint16_t>(
        "cblas_sbgemm_batch", Dtype::bf16,
        {layout, transa_array, transb_array, m_array, n_array, k_array, alpha_array, a_array, lda_array, b_array,
         ldb_array, beta_array, c_array, ldc_array, group_count, group_size});
}

RIDGE_API void cblas_sgemv_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n,
                              float alpha, const float* a, int64_t lda, const float* x, int64_t incx,
                              float beta, float* y, int64_t incy) {
    ridge::cblas_gemv_f32_output<Ilp64>("cblas_sgemv", Dtype::f32, layout, trans, m, n, alpha, a, lda,
                                        x, incx, beta, y, incy);
}

RIDGE_API void cblas_hgemm_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                              int64_t m, int64_t n, int64_t k, uint16_t alpha, const uint16_t* a,
                              int64_t lda, const uint16_t* b, int64_t ldb, uint16_t beta, uint16_t* c,
                              int64_t ldc) {
    ridge::cblas_hgemm_impl<Ilp64>(layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c,
                                   ldc);
}

RIDGE_API void cblas_gemm_f16f16f32_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                       CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n, int64_t k,
                                       float alpha, const uint16_t* a, int64_t lda, const uint16_t* b,
                                       int64_t ldb, float beta, float* c, int64_t ldc) {
    ridge::cblas_gemm_f32_output<Ilp64>("cblas_gemm_f16f16f32", Dtype::f16, layout, trans_a, trans_b,
                                        m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_gemm_bf16bf16f32_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                         CBLAS_TRANSPOSE trans_b, int64_t m, int64_t n, int64_t k,
                                         float alpha, const uint16_t* a, int64_t lda,
                                         const uint16_t* b, int64_t ldb, float beta, float* c,
                                         int64_t ldc) {
    ridge::cblas_gemm_f32_output<Ilp64>("cblas_gemm_bf16bf16f32", Dtype::bf16, layout, trans_a,
                                        trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_sbgemm_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                               int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                               int64_t lda, const uint16_t* b, int64_t ldb, float beta, float* c,
                               int64_t ldc) {
    ridge::cblas_gemm_f32_output<Ilp64>("cblas_sbgemm", Dtype::bf16, layout, trans_a, trans_b, m, n, k,
                                        alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_shgemm_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                               int64_t m, int64_t n, int64_t k, float alpha, const uint16_t* a,
                               int64_t lda, const uint16_t* b, int64_t ldb, float beta, float* c,
                               int64_t ldc) {
    ridge::cblas_gemm_f32_output<Ilp64>("cblas_shgemm", Dtype::f16, layout, trans_a, trans_b, m, n, k,
                                        alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_sbgemv_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n,
                               float alpha, const uint16_t* a, int64_t lda, const uint16_t* x,
                               int64_t incx, float beta, float* y, int64_t incy) {
    ridge::cblas_gemv_f32_output<Ilp64>("cblas_sbgemv", Dtype::bf16, layout, trans, m, n, alpha, a,
                                        lda, x, incx, beta, y, incy);
}

RIDGE_API void cblas_shgemv_64(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int64_t m, int64_t n,
                               float alpha, const uint16_t* a, int64_t lda, const uint16_t* x,
                               int64_t incx, float beta, float* y, int64_t incy) {
    ridge::cblas_gemv_f32_output<Ilp64>("cblas_shgemv", Dtype::f16, layout, trans, m, n, alpha, a,
                                        lda, x, incx, beta, y, incy);
}

RIDGE_API void cblas_sbstobf16_64(int64_t n, const float* in, int64_t incin, uint16_t* out,
                                  int64_t incout) {
    ridge::convert_strided<Ilp64, float, uint16_t, ridge::f32_to_bf16>(n, in, incin, out, incout);
}
RIDGE_API void cblas_sbf16tos_64(int64_t n, const uint16_t* in, int64_t incin, float* out,
                                 int64_t incout) {
    ridge::convert_strided<Ilp64, uint16_t, float, ridge::bf16_to_f32>(n, in, incin, out, incout);
}
RIDGE_API void cblas_shstohf16_64(int64_t n, const float* in, int64_t incin, uint16_t* out,
                                  int64_t incout) {
    ridge::convert_strided<Ilp64, float, uint16_t, ridge::f32_to_f16>(n, in, incin, out, incout);
}
RIDGE_API void cblas_shf16tos_64(int64_t n, const uint16_t* in, int64_t incin, float* out,
                                 int64_t incout) {
    ridge::convert_strided<Ilp64, uint16_t, float, ridge::f16_to_f32>(n, in, incin, out, incout);
}

}  // extern "C"
