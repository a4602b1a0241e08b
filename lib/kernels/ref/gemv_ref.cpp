// Portable GEMV kernels (see gemv_kernel.h): any CPU, any input type.
#include "kernels/convert.h"
#include "kernels/gemv_kernel.h"

namespace ridge {
namespace {

float same(float v) { return v; }

template <typename T, float (*to_f32)(T)>
void gemv_n(int64_t m, int64_t n, float alpha, const void* av, int64_t lda, const float* x, float* y) {
    const T* a = static_cast<const T*>(av);
    for (int64_t j = 0; j < n; ++j) {
        const float xj = alpha * x[j];
        const T* col = a + j * lda;
        for (int64_t i = 0; i < m; ++i) y[i] += to_f32(col[i]) * xj;
    }
}

template <typename T, float (*to_f32)(T)>
void gemv_t(int64_t m, int64_t n, float alpha, const void* av, int64_t lda, const float* x, float* y) {
    const T* a = static_cast<const T*>(av);
    for (int64_t j = 0; j < n; ++j) {
        const T* col = a + j * lda;
        float sum = 0.0f;
        for (int64_t i = 0; i < m; ++i) sum += to_f32(col[i]) * x[i];
        y[j] += alpha * sum;
    }
}

}  // namespace

void gemv_n_f32__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                     int64_t /*prefetch_elements: left to the hardware here*/) {
    gemv_n<float, same>(m, n, alpha, a, lda, x, y);
}
void gemv_t_f32__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                     int64_t /*prefetch_elements: left to the hardware here*/) {
    gemv_t<float, same>(m, n, alpha, a, lda, x, y);
}
void gemv_n_f16__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                     int64_t /*prefetch_elements: left to the hardware here*/) {
    gemv_n<uint16_t, f16_to_f32>(m, n, alpha, a, lda, x, y);
}
void gemv_t_f16__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                     int64_t /*prefetch_elements: left to the hardware here*/) {
    gemv_t<uint16_t, f16_to_f32>(m, n, alpha, a, lda, x, y);
}
void gemv_n_bf16__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                     int64_t /*prefetch_elements: left to the hardware here*/) {
    gemv_n<uint16_t, bf16_to_f32>(m, n, alpha, a, lda, x, y);
}
void gemv_t_bf16__ref(int64_t m, int64_t n, float alpha, const void* a, int64_t lda, const float* x, float* y,
                     int64_t /*prefetch_elements: left to the hardware here*/) {
    gemv_t<uint16_t, bf16_to_f32>(m, n, alpha, a, lda, x, y);
}

}  // namespace ridge
