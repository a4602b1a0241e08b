// bf16 GEMM microkernel for AMX (AMX-TILE + AMX-BF16): a 32 x 32 tile of fp32 C.
//
// One tdpbf16ps multiplies a 16 x 32 bf16 tile by a 32 x 16 one (held as
// 16 rows of 16 K-pairs) into 16 x 16 fp32: 16,384 flops per instruction,
// against 64 for vdpbf16ps. The kernel computes C^T = op(B)^T op(A)^T so that
// a row of a result tile is a piece of a column of C, contiguous in
// column-major storage. Tiles: tmm0-3 accumulate C^T in four 16 x 16 blocks,
// tmm4-5 hold op(B)^T (rows j, 32 k each: the K-chunk packer), tmm6-7 hold
// op(A) as K-pairs (the pair packer), so each chunk of 32 k steps is 4 tile
// loads and 4 tdpbf16ps. Products of bf16 are exact in fp32 and accumulate in
// fp32; like vdpbf16ps, tdpbf16ps treats bf16 subnormal inputs as zero and
// flushes subnormal outputs (Intel SDM, TDPBF16PS).
#include "kernels/intrinsics.h"

#include <algorithm>
#include <cstring>

#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int kMR = 32;     // rows i of C
constexpr int kNR = 32;     // columns j of C
constexpr int kChunk = 32;  // k steps per tile row of bf16
constexpr int kChunkBytes = kChunk * 32 * 2;  // one chunk of a 32-wide panel, either layout

// Where the tile of C is read (beta != 0: a later KC step, or the caller's
// beta), its 32 columns are prefetched into L2 over the k loop, two lines a
// column, spread evenly over the chunks (at KC 1024 one column a chunk), so
// that the update at the end does not wait on C from L3. Against none
// (`[BETA=1] RIDGE_NUM_THREADS=1 ridge-ab OLD NEW N N N 21-31 NN bf16`, Intel
// VM, with the direct store below in both): 2048^3 1.06-1.11 (its second KC step),
// beta = 1 1024^3 1.01 and 1.06 reversed. Prefetched into L1 with write intent
// instead, at beta = 0 too, it measured 1.00 at 1024^3. Only from 256 k steps
// on: below, where C outgrows the cache, the blocked driver prefetches each
// next tile of C into L1 already (registry.cpp: kAmxPrefetchCAheadBelowKc),
// and a short call has no chunks to spread 64 prefetches over.
constexpr int64_t kMinKcPrefetchingC = 256;
inline void prefetch_columns_of_c(int64_t chunk, int64_t columns_per_chunk, const float* c, int64_t ldc) {
    const int64_t last = std::min<int64_t>(kNR, (chunk + 1) * columns_per_chunk);
    for (int64_t j = chunk * columns_per_chunk; j < last; ++j) {
        _mm_prefetch(reinterpret_cast<const char*>(c + j * ldc), _MM_HINT_T1);
        _mm_prefetch(reinterpret_cast<const char*>(c + j * ldc + 16), _MM_HINT_T1);
    }
}

// The 64-byte tile configuration (palette 1): 8 tiles of 16 rows x 64 bytes.
struct alignas(64) TileConfig {
    uint8_t palette_id;
    uint8_t start_row;
    uint8_t reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};

TileConfig make_config() {
    TileConfig cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.palette_id = 1;
    for (int t = 0; t < 8; ++t) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    return cfg;
}

}  // namespace

// ldtilecfg and tilerelease cost as much as several chunks of work, so they
// run once per thread per GEMM call (the driver's kernel hooks), not per tile;
// releasing at the end leaves no tile state behind for the caller or the OS.
void amx_thread_begin() {
    static const TileConfig config = make_config();
    _tile_loadconfig(&config);
}
void amx_thread_end() { _tile_release(); }

void ukr_bf16_gemm_32x32__amx(int64_t kc, float alpha, const void* a_packed, const void* b_packed,
                              float beta, float* c, int64_t ldc) {
    // The tiles were configured by amx_thread_begin for this thread's share of the call.
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    const char* a = static_cast<const char*>(a_packed);  // K-pairs: 16 pair-rows of 32 x 4 bytes per chunk
    const char* b = static_cast<const char*>(b_packed);  // K-chunks: 32 rows of 64 bytes per chunk
    const int64_t chunks = (kc + kChunk - 1) / kChunk;
    const int64_t columns_per_chunk = beta == 0.0f || kc < kMinKcPrefetchingC ? 0 : (kNR + chunks - 1) / chunks;
    for (int64_t q = 0; q < chunks; ++q) {
        prefetch_columns_of_c(q, columns_per_chunk, c, ldc);
        _tile_loadd(4, b, 64);              // op(B)^T rows j 0-15
        _tile_loadd(5, b + 16 * 64, 64);    // rows j 16-31
        _tile_loadd(6, a, kMR * 4);         // op(A) pairs, rows i 0-15
        _tile_loadd(7, a + 64, kMR * 4);    // rows i 16-31
        _tile_dpbf16ps(0, 4, 6);            // C^T[j 0-15][i 0-15]
        _tile_dpbf16ps(1, 4, 7);            // C^T[j 0-15][i 16-31]
        _tile_dpbf16ps(2, 5, 6);            // C^T[j 16-31][i 0-15]
        _tile_dpbf16ps(3, 5, 7);            // C^T[j 16-31][i 16-31]
        a += kChunkBytes;
        b += kChunkBytes;
    }
    if (alpha == 1.0f && beta == 0.0f) {
        // C = A B: row j of a C^T tile is 16 rows i of column j of C, contiguous
        // in C, so each tile is stored straight into C, rows ldc floats apart
        // (the same bits as through the scratch below, where alpha = 1 is an
        // exact multiply). Against the scratch (`RIDGE_NUM_THREADS=1 ridge-ab
        // OLD NEW M N K 21-41 NN bf16`, Intel VM, with the prefetch above in
        // both): 512^3 1.07-1.09, 1024^3 1.07-1.08 (both orders), 2048 x 2048 x
        // 1024 1.01-1.08; 2048^3 0.99-1.07 with the prefetch, 0.93-0.96 without it.
        const int64_t row_bytes = ldc * int64_t(sizeof(float));
        _tile_stored(0, c, row_bytes);                  // C[i 0-15, j 0-15]
        _tile_stored(1, c + 16, row_bytes);             // C[i 16-31, j 0-15]
        _tile_stored(2, c + 16 * ldc, row_bytes);       // C[i 0-15, j 16-31]
        _tile_stored(3, c + 16 * ldc + 16, row_bytes);  // C[i 16-31, j 16-31]
        return;
    }
    alignas(64) float ct[4][16][16];  // [2*(j/16) + i/16][j%16][i%16]
    _tile_stored(0, ct[0], 64);
    _tile_stored(1, ct[1], 64);
    _tile_stored(2, ct[2], 64);
    _tile_stored(3, ct[3], 64);

    const __m512 valpha = _mm512_set1_ps(alpha), vbeta = _mm512_set1_ps(beta);
    for (int j = 0; j < kNR; ++j) {
        for (int half = 0; half < 2; ++half) {  // rows i 0-15, then 16-31 of column j
            float* cj = c + j * ldc + 16 * half;
            const __m512 prod = _mm512_mul_ps(valpha, _mm512_load_ps(ct[2 * (j / 16) + half][j % 16]));
            // beta == 0: C is not read, a NaN in it does not survive
            _mm512_storeu_ps(cj, beta == 0.0f ? prod : _mm512_fmadd_ps(vbeta, _mm512_loadu_ps(cj), prod));
        }
    }
}

}  // namespace ridge
