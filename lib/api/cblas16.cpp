// CBLAS GEMM with 16-bit inputs, under the names MKL and OpenBLAS users call:
//   MKL:      cblas_hgemm (fp16 A, B, C, alpha, beta), cblas_gemm_f16f16f32,
//             cblas_gemm_bf16bf16f32 (16-bit A and B, fp32 C)
//   OpenBLAS: cblas_sbgemm (bf16), cblas_shgemm (fp16), fp32 C;
//             cblas_sbstobf16 / cblas_sbf16tos conversions, and ridge's fp16
//             pair by analogy, cblas_shstohf16 / cblas_shf16tos (OpenBLAS has none).
// Accumulation is fp32; 16-bit inputs convert exactly while packing.
#include "api/cblas_gemm.h"
#include "dispatch/dispatch.h"
#include "kernels/convert.h"
#include "ridge/cblas.h"
#include "ridge/ridge.h"

namespace {

// The mixed-precision routines: 16-bit A and B, fp32 alpha, beta and C.
void gemm_16in_32out(const char* routine, ridge::Dtype input, CBLAS_LAYOUT layout,
                     CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b, int m, int n, int k,
                     float alpha, const uint16_t* a, int lda, const uint16_t* b, int ldb, float beta,
                     float* c, int ldc) {
    ridge::GemmArgs g;
    if (!ridge::cblas_gemm_prologue(routine, layout, trans_a, trans_b, m, n, k, a, lda, b, ldb, ldc, &g))
        return;
    g.input = input;
    g.alpha = alpha, g.beta = beta, g.c = c;
    ridge::dispatch_gemm(g);
}

// BLAS-style strided conversion loop: negative increments walk backwards from the far end.
template <typename In, typename Out, Out (*convert)(In)>
void convert_strided(int n, const In* in, int incin, Out* out, int incout) {
    if (n <= 0) return;
    const In* src = incin < 0 ? in - int64_t(n - 1) * incin : in;
    Out* dst = incout < 0 ? out - int64_t(n - 1) * incout : out;
    for (int64_t i = 0; i < n; ++i) dst[i * incout] = convert(src[i * incin]);
}

}  // namespace

extern "C" {

RIDGE_API void cblas_gemm_f16f16f32(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                    CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                                    const uint16_t* a, int lda, const uint16_t* b, int ldb,
                                    float beta, float* c, int ldc) {
    gemm_16in_32out("cblas_gemm_f16f16f32", ridge::Dtype::f16, layout, trans_a, trans_b, m, n, k,
                    alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_gemm_bf16bf16f32(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a,
                                      CBLAS_TRANSPOSE trans_b, int m, int n, int k, float alpha,
                                      const uint16_t* a, int lda, const uint16_t* b, int ldb,
                                      float beta, float* c, int ldc) {
    gemm_16in_32out("cblas_gemm_bf16bf16f32", ridge::Dtype::bf16, layout, trans_a, trans_b, m, n, k,
                    alpha, a, lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_sbgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                            int m, int n, int k, float alpha, const uint16_t* a, int lda,
                            const uint16_t* b, int ldb, float beta, float* c, int ldc) {
    gemm_16in_32out("cblas_sbgemm", ridge::Dtype::bf16, layout, trans_a, trans_b, m, n, k, alpha, a,
                    lda, b, ldb, beta, c, ldc);
}

RIDGE_API void cblas_shgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                            int m, int n, int k, float alpha, const uint16_t* a, int lda,
                            const uint16_t* b, int ldb, float beta, float* c, int ldc) {
    gemm_16in_32out("cblas_shgemm", ridge::Dtype::f16, layout, trans_a, trans_b, m, n, k, alpha, a,
                    lda, b, ldb, beta, c, ldc);
}

// fp16 in and out: the product is formed and accumulated in fp32 against an
// fp32 copy of C, then rounded to fp16 once (ridge::gemm_f16_output).
RIDGE_API void cblas_hgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans_a, CBLAS_TRANSPOSE trans_b,
                           int m, int n, int k, uint16_t alpha, const uint16_t* a, int lda,
                           const uint16_t* b, int ldb, uint16_t beta, uint16_t* c, int ldc) {
    ridge::GemmArgs g;
    if (!ridge::cblas_gemm_prologue("cblas_hgemm", layout, trans_a, trans_b, m, n, k, a, lda, b, ldb,
                                    ldc, &g))
        return;
    g.input = ridge::Dtype::f16;
    g.alpha = ridge::f16_to_f32(alpha);
    g.beta = ridge::f16_to_f32(beta);
    ridge::dispatch_gemm_f16_output(g, c, ldc);
}

// OpenBLAS's 16-bit GEMV: 16-bit A and x, fp32 alpha, beta and y.
RIDGE_API void cblas_sbgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                            const uint16_t* a, int lda, const uint16_t* x, int incx, float beta,
                            float* y, int incy) {
    ridge::GemvArgs g;
    if (!ridge::cblas_gemv_prologue("cblas_sbgemv", layout, trans, m, n, a, lda, x, incx, incy, &g)) return;
    g.input = ridge::Dtype::bf16;
    g.alpha = alpha, g.beta = beta, g.y = y;
    ridge::dispatch_gemv(g);
}

RIDGE_API void cblas_shgemv(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE trans, int m, int n, float alpha,
                            const uint16_t* a, int lda, const uint16_t* x, int incx, float beta,
                            float* y, int incy) {
    ridge::GemvArgs g;
    if (!ridge::cblas_gemv_prologue("cblas_shgemv", layout, trans, m, n, a, lda, x, incx, incy, &g)) return;
    g.input = ridge::Dtype::f16;
    g.alpha = alpha, g.beta = beta, g.y = y;
    ridge::dispatch_gemv(g);
}

RIDGE_API void cblas_sbstobf16(int n, const float* in, int incin, uint16_t* out, int incout) {
    convert_strided<float, uint16_t, ridge::f32_to_bf16>(n, in, incin, out, incout);
}
RIDGE_API void cblas_sbf16tos(int n, const uint16_t* in, int incin, float* out, int incout) {
    convert_strided<uint16_t, float, ridge::bf16_to_f32>(n, in, incin, out, incout);
}
RIDGE_API void cblas_shstohf16(int n, const float* in, int incin, uint16_t* out, int incout) {
    convert_strided<float, uint16_t, ridge::f32_to_f16>(n, in, incin, out, incout);
}
RIDGE_API void cblas_shf16tos(int n, const uint16_t* in, int incin, float* out, int incout) {
    convert_strided<uint16_t, float, ridge::f16_to_f32>(n, in, incin, out, incout);
}

}  // extern "C"
