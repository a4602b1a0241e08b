// fp32 few-rows kernel, dot-product form, on AVX-512F: the tiles of
// few_rows_dot_avx512.h with B loaded as it is.
#include "kernels/avx512/few_rows_dot_avx512.h"

namespace ridge {

void ukr_f32_gemm_few_rows_16x3__avx512(int64_t m, int64_t nr, int64_t k, float alpha, const float* ar,
                                        int64_t ar_stride, const void* b, int64_t ldb, float beta, float* c,
                                        int64_t ldc) {
    few_rows_dot_kernel<LoadF32>(m, nr, k, alpha, ar, ar_stride, b, ldb, beta, c, ldc);
}

}  // namespace ridge
