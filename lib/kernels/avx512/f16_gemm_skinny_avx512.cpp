// fp16 skinny kernel (few columns of C: decode) on AVX-512F: the tile of
// skinny_tile_avx512.h with A converted to fp32 as it is loaded (vcvtph2ps,
// exact). A streams from memory at half the bytes of fp32; the FMAs are the
// fp32 kernel's.
#include "kernels/avx512/skinny_tall_tile_avx512.h"
#include "kernels/avx512/skinny_tile_avx512.h"

namespace ridge {

void ukr_f16_gemm_skinny_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                       int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                       int64_t ldc, SkinnyPrefetch next) {
    skinny_kernel<RowsInOrder<LoadF16>>(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}

void ukr_f16_gemm_skinny_48x8__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                      int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                      int64_t ldc, SkinnyPrefetch next) {
    skinny_tall_kernel<LoadF16>(mr, nr, kc, alpha, a, lda, b, b_step, beta, c, ldc, next);
}

}  // namespace ridge
