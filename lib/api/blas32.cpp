// The standard (LP64: 32-bit integer) BLAS and CBLAS symbols of libridge.so.
// Each is one call into api/interface.h; blas64.cpp is the same list for ILP64.
#include <cstdarg>

#include "api/interface.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"

namespace {

struct Lp64 {
    using Int = int;
    static void xerbla(const char* routine, int info) { xerbla_(routine, &info, 6); }
    static void cblas_xerbla(int info, const char* routine, const char* form, int value) {
        ::cblas_xerbla(info, routine, form, value);
    }
};

}  // namespace

using ridge::Dtype;

extern "C" {

RIDGE_API void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                      const float* alpha, const float* a, const int* lda, const float* b,
                      const int* ldb, const float* beta, float* c, const int* ldc) {
    ridge::sgemm_impl<Lp64>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
                      const int* lda, const float* x, const int* incx, const float* beta, float* y,
                      const int* incy) {
    ridge::sgemv_impl<Lp64>(trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

// MKL's C-callable spellings of the same two routines: mkl_blas.h declares
// sgemm, SGEMM and sgemm_ alike (no hidden string lengths), so a program
// written against MKL's headers may call any of them. Same checks, same
// xerbla_ reports ("SGEMM ", netlib's parameter numbers), same results.
RIDGE_API void sgemm(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                     const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                     const float* beta, float* c, const int* ldc) {
    ridge::sgemm_impl<Lp64>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void SGEMM(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                     const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
                     const float* beta, float* c, const int* ldc) {
    ridge::sgemm_impl<Lp64>(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void sgemv(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
                     const int* lda, const float* x, const int* incx, const float* beta, float* y,
                     const int* incy) {
    ridge::sgemv_impl<Lp64>(trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

RIDGE_API void SGEMV(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
                     const int* lda, const float* x, const int* incx, const float* beta, float* y,
                     const int* incy) {
    ridge::sgemv_impl<Lp64>(trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

// OpenBLAS's Fortran 16-bit GEMM and GEMV (16-bit A and B or x, fp32 alpha,
// beta and C or y), and its two conversions: the CBLAS routines' Fortran
// twins, checked as sgemm_ and sgemv_ are (netlib's parameter numbers, xerbla_
// told "SBGEMM", "SHGEMM", "SBGEMV", "SHGEMV").
RIDGE_API void sbgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b, const int* ldb,
                       const float* beta, float* c, const int* ldc) {
    ridge::fortran_gemm_f32_output<Lp64>("SBGEMM", Dtype::bf16, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                         beta, c, ldc);
}

RIDGE_API void shgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                       const float* alpha, const uint16_t* a, const int* lda, const uint16_t* b, const int* ldb,
                       const float* beta, float* c, const int* ldc) {
    ridge::fortran_gemm_f32_output<Lp64>("SHGEMM", Dtype::f16, transa, transb, m, n, k, alpha, a, lda, b, ldb,
                                         beta, c, ldc);
}

RIDGE_API void sbgemv_(const char* trans, const int* m, const int* n, const float* alpha, const uint16_t* a,
                       const int* lda, const uint16_t* x, const int* incx, const float* beta, float* y,
                       const int* incy) {
    ridge::fortran_gemv_f32_output<Lp64>("SBGEMV", Dtype::bf16, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

RIDGE_API void shgemv_(const char* trans, const int* m, const int* n, const float* alpha, const uint16_t* a,
                       const int* lda, const uint16_t* x, const int* incx, const float* beta, float* y,
                       const int* incy) {
    ridge::fortran_gemv_f32_output<Lp64>("SHGEMV", Dtype::f16, trans, m, n, alpha, a, lda, x, incx, beta, y, incy);
}

RIDGE_API void sbstobf16_(const int* n, const float* in, const int* incin, uint16_t* out, const int* incout) {
    ridge::convert_strided<Lp64, float, uint16_t, ridge::f32_to_bf16>(*n, in, *incin, out, *incout);
}
RIDGE_API void sbf16tos_(const int* n, const uint16_t* in, const int* incin, float* out, const int* incout) {
    ridge::convert_strided<Lp64, uint16_t, float, ridge::bf16_to_f32>(*n, in, *incin, out, *incout);
}

// Weak: a program's own xerbla_ (or cblas_xerbla) replaces these, as with any BLAS.
// netlib's XERBLA prints and STOPs; ridge's returns, and prints only under RIDGE_VERBOSE.
RIDGE_API __attribute__((weak)) void xerbla_(const char* routine, const int* info, size_t routine_len) {
    ridge::default_xerbla(routine, routine_len, info != nullptr ? *info : 0);
}

RIDGE_API __attribute__((weak)) void cblas_xerbla(int info, const char* routine, const char* form, ...) {
    va_list args;
    va_start(args, form);
    ridge::default_cblas_xerbla(info, routine, form, args);
    va_end(args);
}

RIDGE_API void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int m,
                           int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
                           float beta, float* c, int ldc) {
    ridge::cblas_gemm_f32_output<Lp64>("cblas_sgemm", Dtype::f32, layout, trans_a, trans_b, m, n, k,
                                       alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_sgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                                         int m, int n, int k, float alpha, const float* a, int lda, int stridea,
                                         const float* b, int ldb, int strideb, float beta, float* c, int ldc,
                                         int stridec, int batch_size) {
    ridge::cblas_gemm_batch_strided_f32_output<Lp64>("cblas_sgemm_batch_strided", Dtype::f32, layout, trans_a,
                                                     trans_b, m, n, k, alpha, a, lda, stridea, b, ldb, strideb, beta,
                                                     c, ldc, stridec, batch_size);
}

RIDGE_API void cblas_sgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* transa_array,
                                 const CBLAS_TRANSPOSE* transb_array, const int* m_array, const int* n_array,
                                 const int* k_array, const float* alpha_array, const float** a_array,
                                 const int* lda_array, const float** b_array, const int* ldb_array,
                                 const float* beta_array, float** c_array, const int* ldc_array, int group_count,
                                 const int* group_size) {
    ridge::cblas_gemm_batch_f32_output<Lp64, float>(
        "cblas_sgemm_batch", Dtype::f32,
        {layout, transa_array, transb_array, m_array, n_array, k_array, alpha_array, a_array, lda_array, b_array,
         ldb_array, beta_array, c_array, ldc_array, group_count, group_size});
}

// OpenBLAS's bf16 batches: cblas_sgemm_batch_strided's and cblas_sgemm_batch's
// signatures with bf16 A and B (C, alpha and beta fp32), the same checks.
RIDGE_API void cblas_sbgemm_batch_strided(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                                          int m, int n, int k, float alpha, const uint16_t* a, int lda, int stridea,
                                          const uint16_t* b, int ldb, int strideb, float beta, float* c, int ldc,
                                          int stridec, int batch_size) {
    ridge::cblas_gemm_batch_strided_f32_output<Lp64>("cblas_sbgemm_batch_strided", Dtype::bf16, layout, trans_a,
                                                     trans_b, m, n, k, alpha, a, lda, stridea, b, ldb, strideb, beta,
                                                     c, ldc, stridec, batch_size);
}

RIDGE_API void cblas_sbgemm_batch(CBLAS_LAYOUT layout, const CBLAS_TRANSPOSE* transa_array,
                                  const CBLAS_TRANSPOSE* transb_array, const int* m_array, const int* n_array,
                                  const int* k_array, const float* alpha_array, const uint16_t** a_array,
                                  const int* lda_array, const uint16_t** b_array, const int* ldb_array,
                                  const float* beta_array, float** c_array, const int* ldc_array, int group_count,
                                  const int* group_size) {
    ridge::cblas_gemm_batch_f32_output<Lp64, uint16_t>(
        "cblas_sbgemm_batch", Dtype::bf16,
        {layout, transa_array, transb_array, m_array, n_array, k_array, alpha_array, a_array, lda_array, b_array,
         ldb_array, beta_array, c_array, ldc_array, group_count, group_size});
}

RIDGE_API void cblas_sgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                           const float* a, int lda, const float* x, int incx, float beta, float* y,
                           int incy) {
    ridge::cblas_gemv_f32_output<Lp64>("cblas_sgemv", Dtype::f32, layout, trans, m, n, alpha, a, lda, x,
                                       incx, beta, y, incy);
}

// 16-bit GEMM under MKL's names (cblas_hgemm, cblas_gemm_f16f16f32,
// cblas_gemm_bf16bf16f32) and OpenBLAS's (cblas_sbgemm, cblas_shgemm).
RIDGE_API void cblas_hgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int m,
                           int n, int k, uint16_t alpha, const uint16_t* a, int lda, const uint16_t* b,
                           int ldb, uint16_t beta, uint16_t* c, int ldc) {
    ridge::cblas_hgemm_impl<Lp64>(layout, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_gemm_f16f16f32(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                                    int m, int n, int k, float alpha, const uint16_t* a, int lda,
                                    const uint16_t* b, int ldb, float beta, float* c, int ldc) {
    ridge::cblas_gemm_f32_output<Lp64>("cblas_gemm_f16f16f32", Dtype::f16, layout, trans_a, trans_b, m,
                                       n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_gemm_bf16bf16f32(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                      CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                                      const uint16_t* a, int lda, const uint16_t* b, int ldb,
                                      float beta, float* c, int ldc) {
    ridge::cblas_gemm_f32_output<Lp64>("cblas_gemm_bf16bf16f32", Dtype::bf16, layout, trans_a, trans_b,
                                       m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_sbgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int m,
                            int n, int k, float alpha, const uint16_t* a, int lda, const uint16_t* b,
                            int ldb, float beta, float* c, int ldc) {
    ridge::cblas_gemm_f32_output<Lp64>("cblas_sbgemm", Dtype::bf16, layout, trans_a, trans_b, m, n, k,
                                       alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_shgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int m,
                            int n, int k, float alpha, const uint16_t* a, int lda, const uint16_t* b,
                            int ldb, float beta, float* c, int ldc) {
    ridge::cblas_gemm_f32_output<Lp64>("cblas_shgemm", Dtype::f16, layout, trans_a, trans_b, m, n, k,
                                       alpha, a, lda, b, ldb, beta, c, ldc);
}

// OpenBLAS's 16-bit GEMV (bf16) and ridge's fp16 counterpart.
RIDGE_API void cblas_sbgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                            const uint16_t* a, int lda, const uint16_t* x, int incx, float beta,
                            float* y, int incy) {
    ridge::cblas_gemv_f32_output<Lp64>("cblas_sbgemv", Dtype::bf16, layout, trans, m, n, alpha, a, lda,
                                       x, incx, beta, y, incy);
}

RIDGE_API void cblas_shgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                            const uint16_t* a, int lda, const uint16_t* x, int incx, float beta,
                            float* y, int incy) {
    ridge::cblas_gemv_f32_output<Lp64>("cblas_shgemv", Dtype::f16, layout, trans, m, n, alpha, a, lda,
                                       x, incx, beta, y, incy);
}

RIDGE_API void cblas_sbstobf16(int n, const float* in, int incin, uint16_t* out, int incout) {
    ridge::convert_strided<Lp64, float, uint16_t, ridge::f32_to_bf16>(n, in, incin, out, incout);
}
RIDGE_API void cblas_sbf16tos(int n, const uint16_t* in, int incin, float* out, int incout) {
    ridge::convert_strided<Lp64, uint16_t, float, ridge::bf16_to_f32>(n, in, incin, out, incout);
}
RIDGE_API void cblas_shstohf16(int n, const float* in, int incin, uint16_t* out, int incout) {
    ridge::convert_strided<Lp64, float, uint16_t, ridge::f32_to_f16>(n, in, incin, out, incout);
}
RIDGE_API void cblas_shf16tos(int n, const uint16_t* in, int incin, float* out, int incout) {
    ridge::convert_strided<Lp64, uint16_t, float, ridge::f16_to_f32>(n, in, incin, out, incout);
}

}  // extern "C"
