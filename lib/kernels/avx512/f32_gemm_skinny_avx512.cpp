// fp32 skinny kernel (few columns of C: decode) on AVX-512F: the tile of
// skinny_tile_avx512.h with A loaded as it is. The same tile serves the
// packed 32 x 12 kernel's edges: a packed A panel is A in place with lda = 32,
// a packed B panel a k-major chunk with 12 floats a step.
#include "kernels/avx512/skinny_tall_tile_avx512.h"
#include "kernels/avx512/skinny_tile_avx512.h"

namespace ridge {

void ukr_f32_gemm_skinny_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                       int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                       int64_t ldc, SkinnyPrefetch next) {
    skinny_kernel<RowsInOrder<LoadF32>>(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}

void ukr_f32_gemm_skinny_48x8__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                      int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                      int64_t ldc, SkinnyPrefetch next) {
    skinny_tall_kernel<LoadF32>(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}

void ukr_f32_gemm_edge_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a_panel,
                                     const void* b_panel, float beta, float* c, int64_t ldc) {
    skinny_kernel<RowsInOrder<LoadF32>>(mr, nr, kc, alpha, a_panel, kMR, static_cast<const float*>(b_panel), kNR, beta, c, ldc,
                           SkinnyPrefetch{});
}

}  // namespace ridge
