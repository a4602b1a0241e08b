// Packing of bf16 panels for the AMX kernel (bf16_gemm_amx.cpp), which works
// in chunks of 32 k steps (one 64-byte tile row of bf16) and so needs every
// chunk whole: both packers zero-fill past kc up to the next multiple of 32.
//
// - K-pairs, for op(A): the layout of pack_panel_bf16_pairs__avx512 (each
//   32-bit word holds X(i, p) and X(i, p+1)), which is what tdpbf16ps reads
//   as its second operand.
// - K-chunks, for op(B)^T: per chunk of 32 k steps, each row i holds its 32
//   values contiguously: dst[(p/32)*32*width + i*32 + p%32]. That is a tile's
//   row of tdpbf16ps's first operand.
#include "kernels/intrinsics.h"

#include <algorithm>
#include <cstring>

#include "kernels/avx512/lanes_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

constexpr int64_t kChunk = 32;  // k steps per AMX tile row of bf16 (64 bytes)

int64_t round_up(int64_t x, int64_t m) { return (x + m - 1) / m * m; }


}  // namespace

void pack_panel_bf16_pairs32__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                     int64_t kc, int64_t width, void* dst) {
    pack_panel_bf16_pairs__avx512(src, ld, rows_contiguous, rows, kc, width, dst);
    const int64_t written_pairs = (kc + 1) / 2, whole_pairs = round_up(kc, kChunk) / 2;
    std::memset(static_cast<uint32_t*>(dst) + written_pairs * width, 0,
                size_t((whole_pairs - written_pairs) * width) * sizeof(uint32_t));
}

void pack_panel_bf16_kchunks__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                     int64_t kc, int64_t width, void* dst) {
    const auto* s = static_cast<const uint16_t*>(src);
    auto* d = static_cast<uint16_t*>(dst);
    const int64_t chunks = round_up(kc, kChunk) / kChunk;
    for (int64_t c = 0; c < chunks; ++c) {
        const int64_t p0 = c * kChunk;
        uint16_t* chunk = d + c * kChunk * width;
        for (int64_t i = 0; i < width; ++i) {
            uint16_t* row = chunk + i * kChunk;
            if (i >= rows) {
                _mm512_storeu_si512(row, _mm512_setzero_si512());
            } else if (!rows_contiguous) {
                // Row i is contiguous along k: one masked 64-byte copy.
                _mm512_storeu_si512(row, _mm512_maskz_loadu_epi16(first_lanes32(kc - p0), s + i * ld + p0));
            } else {
                // Each k step is a run of rows (B transposed): gather along k.
                for (int64_t q = 0; q < kChunk; ++q) row[q] = p0 + q < kc ? s[i + (p0 + q) * ld] : 0;
            }
        }
    }
}

}  // namespace ridge
