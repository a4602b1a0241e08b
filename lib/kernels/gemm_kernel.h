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

// Packs one panel of a matrix X for the microkernel: `width` rows (MR for A,
// NR for B) over kc steps, dst[p*width + i] = X(i, p) for i < rows and 0 for
// rows <= i < width. X(i, p) = src[i + p*ld] when rows_contiguous (each k step
// is a contiguous run of rows), else src[p + i*ld] (each row contiguous along k).
// A panel is X = op(A); a B panel is X = op(B)^T, its rows being columns of op(B).
// dst is 64-byte aligned.
using PackPanelF32 = void (*)(const float* src, int64_t ld, bool rows_contiguous, int64_t rows,
                              int64_t kc, int64_t width, float* dst);

// Small-problem kernel: one tile of at most MR x NR of C computed from A and B
// in place, no packing (see gemm_small.cpp). op(A) column p starts at
// a + p*a_step with rows contiguous; op(B)(p, j) = b[p*b_step + j*b_col].
//   C[0:mr, 0:nr] = alpha * op(A)[0:mr, 0:k] * op(B)[0:k, 0:nr] + beta * C
// beta == 0 means C is written, never read. Nothing outside mr x nr is touched.
using GemmSmallUkrF32 = void (*)(int64_t mr, int64_t nr, int64_t k, float alpha, const float* a,
                                 int64_t a_step, const float* b, int64_t b_step, int64_t b_col,
                                 float beta, float* c, int64_t ldc);

// Declarations of the kernels the registry knows (one definition per file in lib/kernels).
void ukr_f32_gemm_32x12__avx512(int64_t kc, float alpha, const float* a_panel,
                                const float* b_panel, float beta, float* c, int64_t ldc);
void ukr_f32_gemm_16x6__avx2(int64_t kc, float alpha, const float* a_panel, const float* b_panel,
                             float beta, float* c, int64_t ldc);
void ukr_f32_gemm_small_32x12__avx512(int64_t mr, int64_t nr, int64_t k, float alpha,
                                      const float* a, int64_t a_step, const float* b,
                                      int64_t b_step, int64_t b_col, float beta, float* c,
                                      int64_t ldc);
void pack_panel_f32__avx512(const float* src, int64_t ld, bool rows_contiguous, int64_t rows,
                            int64_t kc, int64_t width, float* dst);
void pack_panel_f32__ref(const float* src, int64_t ld, bool rows_contiguous, int64_t rows,
                         int64_t kc, int64_t width, float* dst);
void ukr_f32_gemm_8x4__ref(int64_t kc, float alpha, const float* a_panel, const float* b_panel,
                           float beta, float* c, int64_t ldc);

}  // namespace ridge
