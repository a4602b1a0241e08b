// Portable packing of one fp32 panel (see PackPanelF32 in gemm_kernel.h).
#include "kernels/gemm_kernel.h"

namespace ridge {

void pack_panel_f32__ref(const float* src, int64_t ld, bool rows_contiguous, int64_t rows,
                         int64_t kc, int64_t width, float* __restrict dst) {
    if (rows_contiguous) {
        // Each k step copies a contiguous run of rows: the inner loop is a straight copy.
        for (int64_t p = 0; p < kc; ++p) {
            const float* __restrict s = src + p * ld;
            float* __restrict d = dst + p * width;
            for (int64_t i = 0; i < width; ++i) d[i] = i < rows ? s[i] : 0.0f;
        }
    } else {
        // Each row is contiguous along k: read rows in order, write with stride `width`.
        for (int64_t i = 0; i < rows; ++i) {
            const float* __restrict s = src + i * ld;
            for (int64_t p = 0; p < kc; ++p) dst[p * width + i] = s[p];
        }
        for (int64_t p = 0; p < kc; ++p)
            for (int64_t i = rows; i < width; ++i) dst[p * width + i] = 0.0f;
    }
}

}  // namespace ridge
