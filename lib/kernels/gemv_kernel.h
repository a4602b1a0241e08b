// The signatures of the GEMV kernels, whatever their ISA and input type.
#pragma once

#include <cstdint>

namespace ridge {

// y[0:m] += alpha * A[0:m, 0:n] * x[0:n]   (A column-major, lda; x fp32, contiguous)
// A holds the kernel's input type (fp32, fp16 or bf16), converted in registers.
// prefetch_elements > 0: every column of A is software-prefetched that many
// elements ahead of its reads (the driver asks for it when A comes from DRAM);
// 0 leaves A to the hardware prefetchers. It never changes the arithmetic; the
// portable kernels ignore it.
using GemvNKernel = void (*)(int64_t m, int64_t n, float alpha, const void* a, int64_t lda,
                             const float* x, float* y, int64_t prefetch_elements);
// y[0:n] += alpha * A[0:m, 0:n]^T * x[0:m]
using GemvTKernel = void (*)(int64_t m, int64_t n, float alpha, const void* a, int64_t lda,
                             const float* x, float* y, int64_t prefetch_elements);

void gemv_n_f32__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
// N for an A streamed from memory (GemvKernel::n_from_memory): the same sums, bit for bit.
void gemv_n_f32_from_memory__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x,
                                    float* y, int64_t prefetch_elements);
void gemv_t_f32__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_n_f16__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_t_f16__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_n_bf16__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_t_bf16__avx512(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_n_f32__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_t_f32__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_n_f16__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_t_f16__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_n_bf16__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_t_bf16__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_n_f32__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_t_f32__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_n_f16__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_t_f16__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_n_bf16__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);
void gemv_t_bf16__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements);

}  // namespace ridge
