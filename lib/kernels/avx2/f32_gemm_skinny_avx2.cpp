// fp32 skinny kernel (few columns of C: decode) on AVX2 + FMA, the AVX2 twin
// of the AVX-512 one (skinny_tile_avx512.h, the same contract: GemmSkinnyUkr
// in gemm_kernel.h): an mr x nr tile (mr <= 16, nr <= 6) of C from A read in
// place and a short k-major chunk of B that the skinny driver (gemm_skinny.cpp)
// copies, so a k step's nr broadcasts sit at fixed offsets from one pointer.
//
// Without it an AVX2 CPU packed all of A for a few columns of C, each packed
// element then used n / 6 times: with RIDGE_ISA=avx2 on the Zen 4, 4096 x n x
// 4096 ran 0.55x OpenBLAS's Haswell kernel at n = 8, 0.65x at 16, 0.77x at 32.
//
// The register tile is the 16 x 6 kernel's (f32_gemm_avx2.cpp): 12
// accumulators, two A vectors and a broadcast in the 16 ymm registers. A tile
// of at most 8 rows runs one vector (the second's FMAs would go to rows nobody
// stores); rows past mr are masked off (lanes_avx2.h); columns past nr are
// never computed (one instance per nr).
// Also the transposing copy of C^T that the skinny path on C^T uses.
#include "kernels/intrinsics.h"

#include <algorithm>

#include "kernels/avx2/lanes_avx2.h"
#include "kernels/avx2/transpose_avx2.h"
#include "kernels/gemm_kernel.h"
#include "kernels/skinny_prefetch.h"

namespace ridge {
namespace {

constexpr int kLanes = kLanesAvx2;
constexpr int kMR = 16;  // the 16 x 6 kernel's tile
constexpr int kNR = 6;

// C[0:8*V, 0:NR]: V vectors of rows, the last through `last_rows` unless kFull.
// kMode: also bring in next's 16 rows (the tile the driver computes next) as
// skinny_prefetch.h says: the one or two lines they span (their first and
// last float's) per column.
template <int V, int NR, bool kFull, PrefetchMode kMode>
void skinny_tile(int64_t kc, float alpha, const float* a, int64_t lda, const float* b, int64_t b_step, float beta,
                 float* c, int64_t ldc, SkinnyPrefetch next, __m256i last_rows) {
    const float* a_next = static_cast<const float*>(next.a);
    SpreadPrefetch<3, 0, (kMR - 1) * 4> spread(next, lda * 4);
    __m256 acc[V][NR];
#pragma GCC unroll 6
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) acc[v][j] = _mm256_setzero_ps();
#pragma GCC unroll 2
    for (int64_t p = 0; p < kc; ++p) {
        if constexpr (kMode == PrefetchMode::whole_columns) {
            _mm_prefetch(reinterpret_cast<const char*>(a_next + p * lda), _MM_HINT_T0);
            _mm_prefetch(reinterpret_cast<const char*>(a_next + p * lda + kMR - 1), _MM_HINT_T0);
        }
        if constexpr (kMode == PrefetchMode::spread) spread.step();
        __m256 col[V];
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v)
            col[v] = v < V - 1 ? _mm256_loadu_ps(a + p * lda + kLanes * v)
                               : load_rows<kFull>(a + p * lda + kLanes * v, last_rows);
#pragma GCC unroll 6
        for (int j = 0; j < NR; ++j) {
            const __m256 bj = _mm256_broadcast_ss(b + j);
#pragma GCC unroll 2
            for (int v = 0; v < V; ++v) acc[v][j] = _mm256_fmadd_ps(col[v], bj, acc[v][j]);
        }
        b += b_step;
    }
    if constexpr (kMode == PrefetchMode::spread) spread.finish();
    const __m256 valpha = _mm256_set1_ps(alpha);
    const __m256 vbeta = _mm256_set1_ps(beta);
#pragma GCC unroll 6
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 2
        for (int v = 0; v < V; ++v) {
            if (v < V - 1)
                update_vector<true>(acc[v][j], valpha, vbeta, beta, c + j * ldc + kLanes * v, last_rows);
            else
                update_vector<kFull>(acc[v][j], valpha, vbeta, beta, c + j * ldc + kLanes * v, last_rows);
        }
}

using SkinnyTile = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, float, float*, int64_t,
                            SkinnyPrefetch, __m256i);

// One instance per width, for V vectors, the last whole or masked, for each prefetch mode.
template <int V, bool kFull, PrefetchMode kMode>
constexpr SkinnyTile kTileForNr[kNR + 1] = {
    nullptr,
    skinny_tile<V, 1, kFull, kMode>, skinny_tile<V, 2, kFull, kMode>, skinny_tile<V, 3, kFull, kMode>,
    skinny_tile<V, 4, kFull, kMode>, skinny_tile<V, 5, kFull, kMode>, skinny_tile<V, 6, kFull, kMode>};

template <PrefetchMode kMode>
SkinnyTile tile(int64_t mr, int64_t nr) {
    const bool full = mr % kLanes == 0;
    if (mr <= kLanes) return full ? kTileForNr<1, true, kMode>[nr] : kTileForNr<1, false, kMode>[nr];
    return full ? kTileForNr<2, true, kMode>[nr] : kTileForNr<2, false, kMode>[nr];
}

SkinnyTile tile_for(int64_t mr, int64_t nr, PrefetchMode mode) {
    switch (mode) {
        case PrefetchMode::whole_columns: return tile<PrefetchMode::whole_columns>(mr, nr);
        case PrefetchMode::spread: return tile<PrefetchMode::spread>(mr, nr);
        case PrefetchMode::none: break;
    }
    return tile<PrefetchMode::none>(mr, nr);
}

// One block of at most 8 x 8: src's rows x cols (columns lds apart) to dst's
// cols x rows (columns ldd apart), element by element for partial blocks.
void transpose_partial_block(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst, int64_t ldd) {
    for (int64_t i = 0; i < rows; ++i)
        for (int64_t j = 0; j < cols; ++j) dst[j + i * ldd] = src[i + j * lds];
}

// A whole 8 x 8 block: 8 column loads, the in-register transpose, 8 row stores.
void transpose_8x8_block(const float* src, int64_t lds, float* dst, int64_t ldd) {
    __m256 v[8];
    for (int j = 0; j < 8; ++j) v[j] = _mm256_loadu_ps(src + j * lds);
    transpose_8x8(v);  // v[i] lane j = src(i, j)
    for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dst + i * ldd, v[i]);
}

}  // namespace

void ukr_f32_gemm_skinny_16x6__avx2(int64_t mr, int64_t nr, int64_t kc, float alpha, const void* a, int64_t lda,
                                    const float* b, int64_t b_step, float beta, float* c, int64_t ldc,
                                    SkinnyPrefetch next) {
    const float* at = static_cast<const float*>(a);
    const __m256i last_rows = first_lanes_mask(mr - (mr > kLanes ? kLanes : 0));
    const SkinnyTile run = tile_for(mr, nr, prefetch_mode(next));
    run(kc, alpha, at, lda, b, b_step, beta, c, ldc, next, last_rows);
    // The tiles take a 256-bit argument and so return with the ymm upper
    // halves dirty (GCC leaves out their vzeroupper); the caller is baseline
    // SSE code (f32_gemm_small_avx2.cpp says what that costs on Intel cores).
    _mm256_zeroupper();
}

void transpose_f32__avx2(int64_t rows, int64_t cols, const float* src, int64_t lds, float* dst, int64_t ldd) {
    for (int64_t j0 = 0; j0 < cols; j0 += 8)
        for (int64_t i0 = 0; i0 < rows; i0 += 8) {
            const int64_t r = std::min<int64_t>(8, rows - i0), c = std::min<int64_t>(8, cols - j0);
            const float* s = src + i0 + j0 * lds;
            float* d = dst + j0 + i0 * ldd;
            if (r == 8 && c == 8)
                transpose_8x8_block(s, lds, d, ldd);
            else
                transpose_partial_block(r, c, s, lds, d, ldd);
        }
}

}  // namespace ridge
