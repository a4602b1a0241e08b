// GEMV kernels for AVX2 + FMA (+ F16C for fp16): the AVX-512 kernels'
// structure (gemv_avx512.cpp) with 8-lane vectors; row tails are scalar,
// since AVX2 has no masked 16-bit loads.
#include "kernels/intrinsics.h"

#include "kernels/convert.h"
#include "kernels/gemv_kernel.h"
#include "kernels/gemv_prefetch.h"

namespace ridge {
namespace {

constexpr int kCols = 8;  // columns per pass

struct F32 {
    using T = float;
    static __m256 load(const float* p) { return _mm256_loadu_ps(p); }
    static float scalar(float v) { return v; }
};
struct F16 {
    using T = uint16_t;
    static __m256 load(const uint16_t* p) {
        return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    }
    static float scalar(uint16_t v) { return f16_to_f32(v); }
};
struct BF16 {
    using T = uint16_t;
    static __m256 load(const uint16_t* p) {
        const __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
        return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
    }
    static float scalar(uint16_t v) { return bf16_to_f32(v); }
};

float reduce(__m256 v) {
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    const __m128 t = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(t, _mm_shuffle_ps(t, t, 1)));
}

// A is prefetched as in gemv_avx512.cpp (which says why and how far). On this
// project's AVX-512 VM under RIDGE_ISA=avx2, 16384^2 from DRAM, GFLOP/s without
// / with 256 elements ahead, alternating runs: bf16 N 12.7-13.0 / 15.3, T
// 12.4-12.9 / 15.2-15.3, fp32 N 7.3-7.4 / 7.8, T 7.2-7.3 / 7.6-7.8 (512 bytes
// ahead, 128 floats, made fp32 slower: 6.6-6.9).

template <typename L, int C>
void gemv_n_columns(int64_t m, const typename L::T* a, int64_t lda, const float* xs, float* y, int64_t ahead) {
    __m256 xv[C];
    for (int c = 0; c < C; ++c) xv[c] = _mm256_set1_ps(xs[c]);
    int64_t i = 0;
    for (; i + 8 <= m; i += 8) {
        prefetch_gemv_columns<typename L::T, C>(a, lda, i, ahead);
        __m256 acc = _mm256_loadu_ps(y + i);
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc = _mm256_fmadd_ps(L::load(a + c * lda + i), xv[c], acc);
        _mm256_storeu_ps(y + i, acc);
    }
    for (; i < m; ++i)
        for (int c = 0; c < C; ++c) y[i] += L::scalar(a[c * lda + i]) * xs[c];
}

template <typename L>
void gemv_n(int64_t m, int64_t n, float alpha, const void* av, int64_t lda, const float* x, float* y, int64_t ahead) {
    const auto* a = static_cast<const typename L::T*>(av);
    int64_t j = 0;
    for (; j + kCols <= n; j += kCols) {
        float xs[kCols];
        for (int c = 0; c < kCols; ++c) xs[c] = alpha * x[j + c];
        gemv_n_columns<L, kCols>(m, a + j * lda, lda, xs, y, ahead);
    }
    for (; j < n; ++j) {
        const float xs = alpha * x[j];
        gemv_n_columns<L, 1>(m, a + j * lda, lda, &xs, y, ahead);
    }
}

template <typename L, int C>
void gemv_t_columns(int64_t m, const typename L::T* a, int64_t lda, float alpha, const float* x, float* y,
                    int64_t ahead) {
    __m256 acc[C];
    for (int c = 0; c < C; ++c) acc[c] = _mm256_setzero_ps();
    int64_t i = 0;
    for (; i + 8 <= m; i += 8) {
        prefetch_gemv_columns<typename L::T, C>(a, lda, i, ahead);
        const __m256 xv = _mm256_loadu_ps(x + i);
#pragma GCC unroll 8
        for (int c = 0; c < C; ++c) acc[c] = _mm256_fmadd_ps(L::load(a + c * lda + i), xv, acc[c]);
    }
    for (int c = 0; c < C; ++c) {
        float sum = reduce(acc[c]);
        for (int64_t r = i; r < m; ++r) sum += L::scalar(a[c * lda + r]) * x[r];
        y[c] += alpha * sum;
    }
}

template <typename L>
void gemv_t(int64_t m, int64_t n, float alpha, const void* av, int64_t lda, const float* x, float* y, int64_t ahead) {
    const auto* a = static_cast<const typename L::T*>(av);
    int64_t j = 0;
    for (; j + kCols <= n; j += kCols) gemv_t_columns<L, kCols>(m, a + j * lda, lda, alpha, x, y + j, ahead);
    for (; j < n; ++j) gemv_t_columns<L, 1>(m, a + j * lda, lda, alpha, x, y + j, ahead);
}

}  // namespace

void gemv_n_f32__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_n<F32>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_t_f32__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_t<F32>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_n_f16__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_n<F16>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_t_f16__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_t<F16>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_n_bf16__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_n<BF16>(m, n, alpha, a, lda, x, y, prefetch_elements);
}
void gemv_t_bf16__avx2(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                        int64_t prefetch_elements) {
    gemv_t<BF16>(m, n, alpha, a, lda, x, y, prefetch_elements);
}

}  // namespace ridge
