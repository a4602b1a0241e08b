// The signatures every GEMM microkernel and panel packer implements, whatever
// its ISA and data type, and the declarations of those the registry lists.
#pragma once

#include <cstdint>

namespace ridge {

// Updates one MR x NR tile of C (fp32, always) from packed panels:
//   C[0:MR, 0:NR] = alpha * A_panel * B_panel + beta * C[0:MR, 0:NR]
// The panels hold kc steps of MR (A) and NR (B) packed elements in the layout
// of the kernel's own packer (fp32 values, or bf16 K-pairs); both 64-byte aligned.
// c: column-major, column stride ldc. beta == 0 means C is written, never read.
// The tile is always full: the driver routes edge tiles to the kernel's edge
// twin (GemmEdgeUkr) or, without one, through a scratch tile.
using GemmUkr = void (*)(int64_t kc, float alpha, const void* a_panel, const void* b_panel,
                         float beta, float* c, int64_t ldc);

// An edge tile from the same packed panels: C[0:mr, 0:nr] only (mr <= MR,
// nr <= NR), nothing outside it read or written, and only nr columns of FMAs
// (the scratch tile computes all NR and copies mr x nr out).
using GemmEdgeUkr = void (*)(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a_panel,
                             const void* b_panel, float beta, float* c, int64_t ldc);

// Packs one panel of a matrix X for a kernel: `width` rows (MR for A, NR for B)
// over kc steps, X(i, p) for i < rows and 0 for rows <= i < width.
// X(i, p) = src[i + p*ld] when rows_contiguous (each k step is a contiguous run
// of rows), else src[p + i*ld] (each row contiguous along k); src's element
// type is the routine's input type. A panel is X = op(A); a B panel is
// X = op(B)^T, its rows being columns of op(B). dst is 64-byte aligned.
// Layouts: fp32 packers write dst[p*width + i] as floats; the bf16 K-pair
// packer writes bf16 pairs dst[(p/2)*2*width + 2*i + p%2], a zero for the
// missing half of an odd kc.
using PackPanel = void (*)(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                           int64_t kc, int64_t width, void* dst);

// Small-problem kernel: one tile of at most 2 MR x NR of C computed from
// fp32 A and B in place, no packing (see gemm_small.cpp; the driver passes more
// than MR rows for a last remainder of at most MR/2 rows merged with the tile
// before it, so no tile runs half empty, and for taller tiles where lda puts
// a tile's columns on the same L1 sets: tile_height). op(A) column p starts at
// a + p*a_step with rows contiguous; op(B)(p, j) = b[p*b_step + j*b_col].
//   C[0:mr, 0:nr] = alpha * op(A)[0:mr, 0:k] * op(B)[0:k, 0:nr] + beta * C
// beta == 0 means C is written, never read. Nothing outside mr x nr is touched.
using GemmSmallUkrF32 = void (*)(int64_t mr, int64_t nr, int64_t k, float alpha, const float* a,
                                 int64_t a_step, const float* b, int64_t b_step, int64_t b_col,
                                 float beta, float* c, int64_t ldc);

// What a skinny kernel prefetches while it computes: the rows of A its caller
// passes next (as many as the kernel's tile, lda apart like a's columns; never
// dereferenced), column p / steps_per_column of them at k step p. With one
// step a column, a whole column each step: a call brings in kc columns. With
// more, a column's lines one a step (line l at the column's step l mod
// steps_per_column), the rest of the last column's lines after the last step,
// so that a call brings in kc / steps_per_column columns (rounded up) and the
// calls of several column groups share one tile's prefetch (gemm_skinny.cpp:
// spread_steps_per_column says why).
struct SkinnyPrefetch {
    const void* a = nullptr;  // null: no prefetch
    int64_t steps_per_column = 1;
};

// Skinny kernel (few columns of C, A untransposed; see gemm_skinny.cpp): one
// tile of at most MR x NR of C from A read in place and a k-major chunk of B:
//   C[0:mr, 0:nr] = alpha * A[0:mr, 0:kc] * Bc[0:kc, 0:nr] + beta * C
// A(i, p) = a[i + p*lda] in the kernel's input type (converted to fp32 as it
// is loaded); Bc(p, j) = b[p*b_step + j], fp32. next: what it prefetches
// (SkinnyPrefetch). beta == 0 means C is written, never read.
// Nothing outside mr x nr of C is touched.
using GemmSkinnyUkr = void (*)(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda,
                               const float* b, int64_t b_step, float beta, float* c, int64_t ldc,
                               SkinnyPrefetch next);

// Few-rows kernel (m <= 16), dot-product form (see gemm_skinny_m.cpp):
//   C[0:m, 0:nr] = alpha * Ar[0:m, 0:k] * B[0:k, 0:nr] + beta * C,  nr <= 3 (4 when m <= 6, 6 when m <= 4)
// Row i of A is ar + i*ar_stride: k contiguous values, zero-padded up to a
// multiple of 16, 64-byte aligned (ar_stride a multiple of 16), and rows up to
// m rounded up to 8 exist (zeros past m), fp32. Column j of B is b + j*ldb, k
// contiguous values of the kernel's input type (converted to fp32 as loaded),
// never read past k. beta == 0: C is written, never read.
// Nothing outside m x nr of C is touched.
using GemmFewRowsUkr = void (*)(int64_t m, int64_t nr, int64_t k, float alpha, const float* ar,
                                int64_t ar_stride, const void* b, int64_t ldb, float beta, float* c,
                                int64_t ldc);

// Few-rows kernel, outer-product form (9 <= m <= 64 is where it pays; see
// gemm_skinny_m.cpp):
//   C[0:m, 0:nr] = alpha * A[0:m, 0:k] * B[0:k, 0:nr] + beta * C,  m <= kFewRowsOuterMaxRows
// A is a packed fp32 panel of R = 16 * ceil(m / 16) rows: A(i, p) = panel[p*R + i],
// 64-byte aligned, zeros in rows m .. R-1. Column j of B is b + j*ldb, k
// contiguous values of the kernel's input type (converted to fp32 as read),
// never read past k; any nr. beta == 0: C is written, never read. Nothing
// outside m x nr of C is touched.
using GemmFewRowsOuterUkr = void (*)(int64_t m, int64_t nr, int64_t k, float alpha, const float* panel,
                                     const void* b, int64_t ldb, float beta, float* c, int64_t ldc);
constexpr int64_t kFewRowsOuterMaxRows = 64;  // four zmm of rows

// Kernel with the rows of op(A) read in place (few columns of C with A
// transposed, bf16; see gemm_rows_in_place.cpp):
//   C[0:32, 0:nr] = alpha * op(A)[0:32, 0:kc] * op(B)[0:kc, 0:nr] + beta * C,  nr <= 32
// Row i of op(A) is a + i*lda (elements of the input type), kc contiguous
// values, kc a multiple of 32: all 32 rows and all kc values must be readable.
// op(B) is one 32-wide panel of the K-pair packer (pack_panel_bf16_pairs32),
// zero-filled up to kc. beta == 0: C is written, never read. Nothing outside
// 32 x nr of C is touched.
using GemmRowsInPlaceUkr = void (*)(int64_t kc, int64_t nr, float alpha, const void* a, int64_t lda,
                                    const void* b_pairs, float beta, float* c, int64_t ldc);

// The packed kernel with op(A) read where the caller keeps it and packed on
// the way: A(i, p) = a[i + p*lda] (fp32, any alignment) for all MR rows,
// stored to a_panel (64-byte aligned) exactly as the kernel's packer lays out
// a full panel, while the tile is computed as GemmUkr computes it from that
// panel (the same FMAs in the same order: C bit for bit the same). For the
// blocked path's first micro-panel of B, whose tiles then pack the block of
// A that every later micro-panel reads (blocked_schedule.cpp,
// packs_a_in_first_micro_panel). Full tiles only.
using GemmPackingAUkr = void (*)(int64_t kc, float alpha, const float* a, int64_t lda, void* a_panel,
                                 const void* b_panel, float beta, float* c, int64_t ldc);

// The packed kernel with op(B) read where the caller keeps it and packed on
// the way: B(p, j) = b[p + j*ldb] (fp32 B not transposed: NR columns, each
// contiguous along k), stored to b_panel (64-byte aligned) exactly as the
// kernel's packer lays out a full micro-panel, 16 k steps at a time just
// before they run, while the tile is computed as GemmUkr computes it from the packed panels
// (C bit for bit the same). For the first tile of each micro-panel of B where
// the blocked path packs B one micro-panel at a time (blocked_schedule.cpp,
// packs_b_in_first_tile). Full tiles only.
using GemmPackingBUkr = void (*)(int64_t kc, float alpha, const void* a_panel, const float* b, int64_t ldb,
                                 void* b_panel, float beta, float* c, int64_t ldc);

// `tiles` full tiles down one micro-panel of B in one call, as `tiles` calls of
// the kernel (GemmUkr) would compute them: the A panels a_panel_bytes apart
// from a_panels, the tiles of C MR rows apart from c.
// prefetch_next_c: before each tile, the lines of the tile below it are
// prefetched (the blocked driver's prefetch_next_tile_of_c, gemm_blocked.cpp).
// For short k steps, where a call's own cost is a share of its work
// (blocked_schedule.cpp: runs_tiles_in_one_call_below_kc).
using GemmTilesUkr = void (*)(int64_t tiles, int64_t kc, float alpha, const void* a_panels, int64_t a_panel_bytes,
                              const void* b_panel, float beta, float* c, int64_t ldc, bool prefetch_next_c);

// Microkernels: lib/kernels/<isa>/<dtype>_gemm_<isa>.cpp
void ukr_f32_gemm_32x12__avx512(int64_t kc, float alpha, const void* a_panel, const void* b_panel,
                                float beta, float* c, int64_t ldc);
// Tiles down a micro-panel in one call (GemmTilesUkr).
void ukr_f32_gemm_32x12_tiles__avx512(int64_t tiles, int64_t kc, float alpha, const void* a_panels,
                                      int64_t a_panel_bytes, const void* b_panel, float beta, float* c, int64_t ldc,
                                      bool prefetch_next_c);
// The same tile written as C = alpha * A * B with non-temporal stores (beta is
// ignored; every column of the tile must start 64-byte aligned).
void ukr_f32_gemm_32x12_stream_c__avx512(int64_t kc, float alpha, const void* a_panel,
                                         const void* b_panel, float beta, float* c, int64_t ldc);
// The same tile with op(A) packed on the way (GemmPackingAUkr).
void ukr_f32_gemm_32x12_packing_a__avx512(int64_t kc, float alpha, const float* a, int64_t lda, void* a_panel,
                                          const void* b_panel, float beta, float* c, int64_t ldc);
// The same tile with op(B) packed on the way (GemmPackingBUkr).
void ukr_f32_gemm_32x12_packing_b__avx512(int64_t kc, float alpha, const void* a_panel, const float* b, int64_t ldb,
                                          void* b_panel, float beta, float* c, int64_t ldc);
void ukr_bf16_gemm_32x12__avx512bf16(int64_t kc, float alpha, const void* a_panel,
                                     const void* b_panel, float beta, float* c, int64_t ldc);
void ukr_bf16_gemm_32x32__amx(int64_t kc, float alpha, const void* a_panel, const void* b_panel,
                              float beta, float* c, int64_t ldc);
void ukr_bf16_gemm_rows_in_place_32x32__amx(int64_t kc, int64_t nr, float alpha, const void* a, int64_t lda,
                                            const void* b_pairs, float beta, float* c, int64_t ldc);
void amx_thread_begin();  // loads the AMX kernels' tile configuration
void amx_thread_end();    // releases the tiles
void ukr_f32_gemm_16x6__avx2(int64_t kc, float alpha, const void* a_panel, const void* b_panel,
                             float beta, float* c, int64_t ldc);
// Tiles down a micro-panel in one call (GemmTilesUkr).
void ukr_f32_gemm_16x6_tiles__avx2(int64_t tiles, int64_t kc, float alpha, const void* a_panels,
                                   int64_t a_panel_bytes, const void* b_panel, float beta, float* c, int64_t ldc,
                                   bool prefetch_next_c);
void ukr_f32_gemm_8x4__ref(int64_t kc, float alpha, const void* a_panel, const void* b_panel,
                           float beta, float* c, int64_t ldc);
void ukr_f32_gemm_small_32x12__avx512(int64_t mr, int64_t nr, int64_t k, float alpha,
                                      const float* a, int64_t a_step, const float* b,
                                      int64_t b_step, int64_t b_col, float beta, float* c,
                                      int64_t ldc);
void ukr_f32_gemm_small_16x6__avx2(int64_t mr, int64_t nr, int64_t k, float alpha, const float* a,
                                   int64_t a_step, const float* b, int64_t b_step, int64_t b_col, float beta,
                                   float* c, int64_t ldc);
// The edge twin of ukr_f32_gemm_32x12__avx512 (fp32 panels, any input type's packer).
void ukr_f32_gemm_edge_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a_panel,
                                     const void* b_panel, float beta, float* c, int64_t ldc);
void ukr_f32_gemm_skinny_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                       int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                       int64_t ldc, SkinnyPrefetch next);
void ukr_f32_gemm_skinny_16x6__avx2(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda,
                                    const float* b, int64_t b_step, float beta, float* c, int64_t ldc,
                                    SkinnyPrefetch next);
// The skinny kernels' tall tiles: mr <= kSkinnyTallMR, nr <= kSkinnyTallNR (skinny_tall_tile_avx512.h).
constexpr int kSkinnyTallMR = 48;
constexpr int kSkinnyTallNR = 8;
void ukr_f32_gemm_skinny_48x8__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                      int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                      int64_t ldc, SkinnyPrefetch next);
void ukr_f16_gemm_skinny_48x8__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                      int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                      int64_t ldc, SkinnyPrefetch next);
void ukr_bf16_gemm_skinny_48x8__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                       int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                       int64_t ldc, SkinnyPrefetch next);
void ukr_f16_gemm_skinny_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                       int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                       int64_t ldc, SkinnyPrefetch next);
void ukr_bf16_gemm_skinny_32x12__avx512(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a,
                                        int64_t lda, const float* b, int64_t b_step, float beta, float* c,
                                        int64_t ldc, SkinnyPrefetch next);
void ukr_f32_gemm_few_rows_16x3__avx512(int64_t m, int64_t nr, int64_t k, float alpha, const float* ar,
                                        int64_t ar_stride, const void* b, int64_t ldb, float beta, float* c,
                                        int64_t ldc);
void ukr_f16_gemm_few_rows_16x3__avx512(int64_t m, int64_t nr, int64_t k, float alpha, const float* ar,
                                        int64_t ar_stride, const void* b, int64_t ldb, float beta, float* c,
                                        int64_t ldc);
void ukr_bf16_gemm_few_rows_16x3__avx512(int64_t m, int64_t nr, int64_t k, float alpha, const float* ar,
                                         int64_t ar_stride, const void* b, int64_t ldb, float beta, float* c,
                                         int64_t ldc);
void ukr_f32_gemm_few_rows_outer__avx512(int64_t m, int64_t nr, int64_t k, float alpha, const float* panel,
                                         const void* b, int64_t ldb, float beta, float* c, int64_t ldc);
void ukr_f16_gemm_few_rows_outer__avx512(int64_t m, int64_t nr, int64_t k, float alpha, const float* panel,
                                         const void* b, int64_t ldb, float beta, float* c, int64_t ldc);
void ukr_bf16_gemm_few_rows_outer__avx512(int64_t m, int64_t nr, int64_t k, float alpha, const float* panel,
                                          const void* b, int64_t ldb, float beta, float* c, int64_t ldc);

// Copies the transpose of a rows x cols fp32 block: dst[j + i*ldd] = src[i + j*lds]
// (bit for bit). The skinny path on C^T (few rows with B transposed) gathers
// each block of C^T from C's rows into its scratch and scatters it back with it.
using TransposeF32 = void (*)(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst, int64_t ldd);
void transpose_f32__avx512(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst, int64_t ldd);
void transpose_f32__avx2(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst, int64_t ldd);

// Set-up and tear-down a kernel may need around its calls on one thread
// within one GEMM call (AMX: tile configuration); may be null.
using KernelThreadHook = void (*)();

// Packers: lib/kernels/<isa>/<dtype>_pack_<isa>.cpp
void pack_panel_f32__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                            int64_t kc, int64_t width, void* dst);
void pack_panel_f16_to_f32__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                   int64_t kc, int64_t width, void* dst);
void pack_panel_bf16_to_f32__avx512(const void* src, int64_t ld, bool rows_contiguous,
                                    int64_t rows, int64_t kc, int64_t width, void* dst);
void pack_panel_bf16_pairs__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                   int64_t kc, int64_t width, void* dst);
void pack_panel_bf16_pairs32__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                     int64_t kc, int64_t width, void* dst);
void pack_panel_bf16_kchunks__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                     int64_t kc, int64_t width, void* dst);
void pack_panel_f32__avx2(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                          int64_t kc, int64_t width, void* dst);
void pack_panel_f32__ref(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                         int64_t kc, int64_t width, void* dst);
void pack_panel_f16_to_f32__ref(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                int64_t kc, int64_t width, void* dst);
void pack_panel_bf16_to_f32__ref(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                 int64_t kc, int64_t width, void* dst);

}  // namespace ridge
