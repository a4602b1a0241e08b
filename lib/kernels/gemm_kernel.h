// The one signature every fp32 GEMM microkernel implements, whatever its ISA.
#pragma once

#include <cstdint>

namespace ridge {

// Updates one MR x NR tile of C from packed panels:
//   C[0:MR, 0:NR] = alpha * A_panel * B_panel + beta * C[0:MR, 0:NR]
// a_panel: kc steps of MR contiguous floats (op(A) column slices), 64-byte aligned.
// b_panel: kc steps of NR contiguous floats (op(B) row slices), 64-byte aligned.
// c: column-major, column stride ldc. beta == 0 means C is written, never read.
// The tile is always full: the driver routes edge tiles through a scratch tile.
using GemmUkrF32 = void (*)(int64_t kc, float alpha, const float* a_panel, const float* b_panel,
                            float beta, float* c, int64_t ldc);

// Declarations of the kernels the registry knows (one definition per file in lib/kernels).
void ukr_f32_gemm_32x12__avx512(int64_t kc, float alpha, const float* a_panel,
                                const float* b_panel, float beta, float* c, int64_t ldc);
void ukr_f32_gemm_16x6__avx2(int64_t kc, float alpha, const float* a_panel, const float* b_panel,
                             float beta, float* c, int64_t ldc);
void ukr_f32_gemm_8x4__ref(int64_t kc, float alpha, const float* a_panel, const float* b_panel,
                           float beta, float* c, int64_t ldc);

}  // namespace ridge
