// Portable packing of one panel into fp32 (see PackPanel in gemm_kernel.h),
// from fp32, fp16 or bf16 sources: one template over the element's conversion.
#include <cstring>

#include "kernels/convert.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

template <typename T, float (*to_f32)(T)>
void pack_to_f32(const T* src, int64_t ld, bool rows_contiguous, int64_t rows, int64_t kc,
                 int64_t width, float* __restrict dst) {
    if (rows_contiguous) {
        // Each k step copies a contiguous run of rows: the inner loop is a straight copy.
        for (int64_t p = 0; p < kc; ++p) {
            const T* __restrict s = src + p * ld;
            float* __restrict d = dst + p * width;
            for (int64_t i = 0; i < width; ++i) d[i] = i < rows ? to_f32(s[i]) : 0.0f;
        }
    } else {
        // Each row is contiguous along k: read rows in order, write with stride `width`.
        for (int64_t i = 0; i < rows; ++i) {
            const T* __restrict s = src + i * ld;
            for (int64_t p = 0; p < kc; ++p) dst[p * width + i] = to_f32(s[p]);
        }
        for (int64_t p = 0; p < kc; ++p)
            for (int64_t i = rows; i < width; ++i) dst[p * width + i] = 0.0f;
    }
}

float identity(float x) { return x; }

}  // namespace

void pack_panel_f32__ref(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                         int64_t kc, int64_t width, void* dst) {
    pack_to_f32<float, identity>(static_cast<const float*>(src), ld, rows_contiguous, rows, kc,
                                 width, static_cast<float*>(dst));
}

void pack_panel_f16_to_f32__ref(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                int64_t kc, int64_t width, void* dst) {
    pack_to_f32<uint16_t, f16_to_f32>(static_cast<const uint16_t*>(src), ld, rows_contiguous, rows,
                                      kc, width, static_cast<float*>(dst));
}

void pack_panel_bf16_to_f32__ref(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                 int64_t kc, int64_t width, void* dst) {
    pack_to_f32<uint16_t, bf16_to_f32>(static_cast<const uint16_t*>(src), ld, rows_contiguous,
                                       rows, kc, width, static_cast<float*>(dst));
}

}  // namespace ridge
