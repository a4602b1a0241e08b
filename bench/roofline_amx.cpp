// Throughput probe of AMX tdpbf16ps: six independent accumulator tiles fed by
// the same two source tiles, so nothing but the tile unit's issue rate limits
// the loop. One instruction multiplies a 16 x 32 bf16 tile by a 32 x 16 one
// into 16 x 16 fp32: 16 x 16 x 32 products and as many adds, 16,384 flops.
// The tile layout is the one of lib/kernels/amx/bf16_gemm_amx.cpp (palette 1,
// 8 tiles of 16 rows x 64 bytes). The caller must have had ridge::cpu_features()
// run first: it asks Linux for the tile data permission, without which the
// first tile instruction faults.
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "roofline.h"

namespace ridge_bench {
namespace {

struct alignas(64) TileConfig {
    uint8_t palette_id;
    uint8_t start_row;
    uint8_t reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
};

}  // namespace

double tdpbf16_flops_amx(int64_t iterations) {
    TileConfig cfg;
    std::memset(&cfg, 0, sizeof cfg);
    cfg.palette_id = 1;
    for (int t = 0; t < 8; ++t) {
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    // bf16 1.0 times bf16 2^-24: the sums grow by 32 x 2^-24 per instruction,
    // far from overflow and far above the subnormals tdpbf16ps would flush.
    alignas(64) uint16_t ones[16 * 32], tiny[16 * 32];
    for (int i = 0; i < 16 * 32; ++i) {
        ones[i] = 0x3f80;
        tiny[i] = 0x3380;
    }
    _tile_loadconfig(&cfg);
    _tile_loadd(6, ones, 64);
    _tile_loadd(7, tiny, 64);
    _tile_zero(0);
    _tile_zero(1);
    _tile_zero(2);
    _tile_zero(3);
    _tile_zero(4);
    _tile_zero(5);
    for (int64_t it = 0; it < iterations; ++it) {
        _tile_dpbf16ps(0, 6, 7);
        _tile_dpbf16ps(1, 6, 7);
        _tile_dpbf16ps(2, 6, 7);
        _tile_dpbf16ps(3, 6, 7);
        _tile_dpbf16ps(4, 6, 7);
        _tile_dpbf16ps(5, 6, 7);
    }
    alignas(64) float out[16 * 16];
    _tile_stored(0, out, 64);
    _tile_release();               // leaves no tile state behind for the OS to save
    volatile float sink = out[0];  // keeps the loop alive
    (void)sink;
    return double(iterations) * 6 * 16384;
}

}  // namespace ridge_bench
