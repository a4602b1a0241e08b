// Portable fp32 GEMM microkernel: an 8 x 4 tile in plain C++.
// Runs on any CPU; the compiler may vectorize it with the baseline ISA.
// 8 x 4 = 32 accumulators fit the 16 SSE registers as 8 vectors of 4.
#include "kernels/gemm_kernel.h"

namespace ridge {

namespace {
constexpr int kMR = 8;
constexpr int kNR = 4;
}  // namespace

void ukr_f32_gemm_8x4__ref(int64_t kc, float alpha, const void* a_packed, const void* b_packed,
                           float beta, float* c, int64_t ldc) {
    const float* a_panel = static_cast<const float*>(a_packed);  // fp32 panels (see the packers)
    const float* b_panel = static_cast<const float*>(b_packed);
    float acc[kNR][kMR] = {};
    for (int64_t p = 0; p < kc; ++p) {
        const float* a = a_panel + p * kMR;
        const float* b = b_panel + p * kNR;
        for (int j = 0; j < kNR; ++j)
            for (int i = 0; i < kMR; ++i) acc[j][i] += a[i] * b[j];
    }
    for (int j = 0; j < kNR; ++j) {
        float* cj = c + j * ldc;
        for (int i = 0; i < kMR; ++i)
            cj[i] = beta == 0.0f ? alpha * acc[j][i] : alpha * acc[j][i] + beta * cj[i];
    }
}

}  // namespace ridge
