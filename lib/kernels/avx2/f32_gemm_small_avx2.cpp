// fp32 GEMM for small problems on AVX2 + FMA, without packing: one call
// computes an mr x nr tile (mr <= 32, nr <= 6) of C straight from A and B,
// the AVX2 twin of f32_gemm_small_avx512.cpp (the same contract, the same
// reasoning: at small sizes packing costs as much as the multiply). A is read
// in place, one column of op(A) a k step; each value of B is broadcast from
// memory at any stride.
//
// The register tile is 8 * V rows (V ymm vectors) by up to kWidest<V> columns:
// V x NR accumulators, V A vectors and a broadcast within the 16 ymm
// registers. 2 vectors x 6 is the 16 x 6 kernel's tile (f32_gemm_avx2.cpp);
// 1 vector takes up to 8 rows; 3 vectors x at most 4 columns take 17-24 rows
// (the driver merges a last remainder of up to 8 rows into the tile before
// it); 4 vectors x at most 2 columns take 25-32 rows (the driver's tall tiles
// where lda puts a tile's columns on the same L1 sets; the dispatcher keeps
// such an A off this kernel's small path: paths.cpp, use_small_path). Wider tiles run as
// several column pieces. Rows past mr are masked off in the last vector only
// (vmaskmovps: masked lanes are neither read nor written, so nothing past A
// or C is touched); columns past nr are never computed (one instance per
// width).
//
// C's update is the 16 x 6 kernel's, lane for lane: alpha * acc where beta is
// 0 (C not read), else fma(alpha, acc, beta * C); each element's FMAs run in k
// order in both. So C is bit for bit what the blocked path gives.
#include "kernels/intrinsics.h"

#include "kernels/avx2/lanes_avx2.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kLanes = kLanesAvx2;
constexpr int kNR = 6;  // widest tile of 1 or 2 vectors (the 16 x 6 kernel's NR)

// Widest tile of V vectors: V * NR accumulators + V A vectors + 1 broadcast <= 16 registers.
template <int V>
constexpr int kWidest = V <= 2 ? kNR : V == 3 ? 4 : 2;

// C[0:8*V, 0:NR]; the last vector's rows through `last_rows` unless kFull.
template <int V, int NR, bool kFull>
void small_tile(int64_t k, float alpha, const float* a, int64_t a_step, const float* b, int64_t b_step,
                int64_t b_col, float beta, float* c, int64_t ldc, __m256i last_rows) {
    __m256 acc[V][NR];
#pragma GCC unroll 6
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) acc[v][j] = _mm256_setzero_ps();
#pragma GCC unroll 4
    for (int64_t p = 0; p < k; ++p) {
        __m256 col[V];
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v)
            col[v] = v < V - 1 ? _mm256_loadu_ps(a + kLanes * v) : load_rows<kFull>(a + kLanes * v, last_rows);
#pragma GCC unroll 6
        for (int j = 0; j < NR; ++j) {
            const __m256 bj = _mm256_broadcast_ss(b + j * b_col);
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) acc[v][j] = _mm256_fmadd_ps(col[v], bj, acc[v][j]);
        }
        a += a_step;
        b += b_step;
    }
    const __m256 valpha = _mm256_set1_ps(alpha);
    const __m256 vbeta = _mm256_set1_ps(beta);
#pragma GCC unroll 6
    for (int j = 0; j < NR; ++j)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) {
            if (v < V - 1)
                update_vector<true>(acc[v][j], valpha, vbeta, beta, c + j * ldc + kLanes * v, last_rows);
            else
                update_vector<kFull>(acc[v][j], valpha, vbeta, beta, c + j * ldc + kLanes * v, last_rows);
        }
}

using SmallTile = void (*)(int64_t, float, const float*, int64_t, const float*, int64_t, int64_t, float, float*,
                           int64_t, __m256i);

// The instance for V vectors, last vector whole or masked, nr columns (1 to kWidest<V>).
template <int V, bool kFull>
SmallTile tile_for(int64_t nr) {
    switch (nr) {
        case 1: return small_tile<V, 1, kFull>;
        case 2: return small_tile<V, 2, kFull>;
        default: break;
    }
    if constexpr (kWidest<V> >= 4) {
        switch (nr) {
            case 3: return small_tile<V, 3, kFull>;
            case 4: return small_tile<V, 4, kFull>;
            default: break;
        }
    }
    if constexpr (kWidest<V> >= 6) {
        switch (nr) {
            case 5: return small_tile<V, 5, kFull>;
            case 6: return small_tile<V, 6, kFull>;
            default: break;
        }
    }
    return nullptr;
}

SmallTile tile(int vectors, bool full, int64_t nr) {
    switch (vectors) {
        case 1: return full ? tile_for<1, true>(nr) : tile_for<1, false>(nr);
        case 2: return full ? tile_for<2, true>(nr) : tile_for<2, false>(nr);
        case 3: return full ? tile_for<3, true>(nr) : tile_for<3, false>(nr);
        default: return full ? tile_for<4, true>(nr) : tile_for<4, false>(nr);
    }
}

int64_t widest(int vectors) {
    switch (vectors) {
        case 1: return kWidest<1>;
        case 2: return kWidest<2>;
        case 3: return kWidest<3>;
        default: return kWidest<4>;
    }
}

}  // namespace

void ukr_f32_gemm_small_16x6__avx2(int64_t mr, int64_t nr, int64_t k, float alpha, const float* a,
                                   int64_t a_step, const float* b, int64_t b_step, int64_t b_col, float beta,
                                   float* c, int64_t ldc) {
    const int vectors = int((mr + kLanes - 1) / kLanes);
    const int64_t last_rows = mr - kLanes * (vectors - 1);
    const bool full = last_rows == kLanes;
    const __m256i mask = first_lanes_mask(last_rows);
    // Columns in as few equal pieces as the tile's width allows (6 = 4 + 2 would
    // leave a narrow piece; 3 + 3 keeps both pieces alike).
    const int64_t most = widest(vectors);
    const int64_t pieces = (nr + most - 1) / most;
    for (int64_t j = 0, piece = 0; j < nr; ++piece) {
        const int64_t width = (nr - j + (pieces - piece) - 1) / (pieces - piece);
        tile(vectors, full, width)(k, alpha, a, a_step, b + j * b_col, b_step, b_col, beta, c + j * ldc, ldc, mask);
        j += width;
    }
    // The tiles take a 256-bit argument, so GCC treats them as called from
    // AVX code and returns from them with the upper halves of the ymm
    // registers dirty, and this function, having called them, returns so too:
    // the caller's SSE code (gemm_small.cpp, built for baseline x86-64) then
    // paid a state transition on Intel cores at every call and the next VEX
    // instruction here another (perf, cpu-clock: about half of a 64^3 call
    // on the two instructions either side of the call). AMD cores have no
    // such penalty, which is why the Zen 4 never showed it.
    _mm256_zeroupper();
}

}  // namespace ridge
