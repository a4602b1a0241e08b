// AVX-512 packing of one panel into fp32 (see PackPanel in gemm_kernel.h),
// from fp32, fp16 (F16C's vcvtph2ps, exact) or bf16 (a 16-bit shift, exact)
// sources: the conversion happens here, once per packed element, so the fp32
// microkernel runs unchanged on 16-bit inputs.
//
// Rows contiguous (A not transposed, B transposed): each k step is one or two
// 16-float loads and stores, masked only for a panel's missing rows. Rows
// strided (A transposed, B not transposed, the common NN case for B): 16 rows x
// 16 k steps are loaded as 16 vectors and transposed in registers, so every
// load and store is a full vector instead of one float at a time.
//
// Packing reads its source from memory more often than not (a block of A or a
// panel of B is read once per KC step, and C's passes evict it from L3 between
// two calls), and inside 1024^3 it moved about 8 GB/s (perf, cpu-clock: the two
// packers 10% of the library's samples, nearly all on their loads), well below
// the 20-23 GB/s one core streams from memory. Below: whole panels loaded and
// stored without masks, a 12-row panel's k steps stored as whole vectors
// (store_4_steps_of_12_rows), and a strided panel's next panel prefetched
// (since replaced: pack_rows_strided now reads all of a panel's rows per 16 k
// steps, without it). Against the build without them (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K
// ROUNDS [TRANS [TYPE]]`), all but the 12-row stores of B transposed: 1024^3
// 1.041 / 1.051, 2048^3 1.001 / 1.043, TN 1.030, NT 1.016, TT 1.023, fp16
// inputs 1.048, 2 threads 2048^3 1.040; then those: NT 1.044 / 1.051, TT 1.038
// / 1.059 at 1024^3, NT 1.024 at 2048^3 (NN 1.022 / 1.013 in the same runs,
// unchanged code: two builds differ by a percent or two from layout alone).
// The gain follows the host: in a fast spell (1024^3 at 191 GFLOP/s) all of it
// together measured 1.005 at 1024^3 and 1.014 at 2048^3, NT 1.021, TT 1.012.
#include "kernels/intrinsics.h"

#include <algorithm>

#include "kernels/avx512/transpose_avx512.h"
#include "kernels/avx512/lanes_avx512.h"
#include "kernels/avx512/load_to_f32_avx512.h"
#include "kernels/gemm_kernel.h"

namespace ridge {
namespace {

// A whole panel (rows == width, a multiple of 16): no masks. Timed alone
// (pack_a_panels on a 768 x 256 block of a 1024 x 1024 A, 30 runs' median, a
// throwaway probe), 1.35-1.4x the bytes per second of the masked loop below
// with A in memory, 1.1x with A in L3: the masked forms cost more here (see
// load_lanes), and the loop below computes two masks per vector.
template <typename Load>
void pack_whole_rows_contiguous(const typename Load::T* src, int64_t ld, int64_t kc, int64_t width, float* dst) {
    for (int64_t p = 0; p < kc; ++p) {
        const typename Load::T* s = src + p * ld;
        float* d = dst + p * width;
        for (int64_t i = 0; i < width; i += 16) _mm512_storeu_ps(d + i, Load::template load<true>(s + i, 0));
    }
}

// A whole 12-row panel (B's, B transposed): 4 k steps at a time, each read
// through a 12-lane mask, written as 3 whole vectors; the last kc % 4 steps below.
template <typename Load>
int64_t pack_12_rows_contiguous(const typename Load::T* src, int64_t ld, int64_t kc, float* dst) {
    int64_t p = 0;
    for (; p + 4 <= kc; p += 4) {
        __m512 step[4];
        for (int t = 0; t < 4; ++t) step[t] = Load::template load<false>(src + (p + t) * ld, first_lanes(12));
        store_4_steps_of_12_rows(step, dst + p * 12);
    }
    return p;
}

template <typename Load>
void pack_rows_contiguous(const typename Load::T* src, int64_t ld, int64_t rows, int64_t kc,
                          int64_t width, float* dst) {
    if (rows == width && width % 16 == 0) return pack_whole_rows_contiguous<Load>(src, ld, kc, width, dst);
    const int64_t done = rows == 12 && width == 12 ? pack_12_rows_contiguous<Load>(src, ld, kc, dst) : 0;
    for (int64_t p = done; p < kc; ++p) {
        const typename Load::T* s = src + p * ld;
        float* d = dst + p * width;
        for (int64_t i = 0; i < width; i += 16) {
            const __m512 v = Load::template load<false>(s + i, first_lanes(std::max<int64_t>(0, rows - i)));
            _mm512_mask_storeu_ps(d + i, first_lanes(width - i), v);
        }
    }
}

// A whole 12-row panel (B's, NN: NR = 12 columns of B, each contiguous along
// k): 16 k steps at a time, the 12 rows loaded whole, transposed with 4 zero
// rows, stored as 12 whole vectors. The general loop below computes masks, a
// row count and 16 row addresses for every 16 steps (the compiled loop keeps
// the addresses on the stack); this loop has none of that, and does not
// prefetch the next panel (which cost here, presumably because at ld = 1024
// floats the next panel's 12 rows fall into the same L1 set as this one's).
// Timed alone (a throwaway probe: 12-row panels of a 1024 x 1024 B, kc 320,
// 300 columns at a time): 37.7 against 22.5 GB/s with B in L3 and 22.5
// against 11.4 with B in memory; the same loop with the next panel's
// prefetch 28.9 and 16.1. In the whole GEMM
// (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW M N K ROUNDS [TRANS [TYPE]]`, against
// the previous build): 1024^3 1.005-1.010, 2048^3 1.000-1.005, 1024 x 4096 x
// 4096 1.010, fp16 inputs 2048^3 1.004; with the prefetch kept, 1024^3
// 1.009, 2048^3 1.001, and 0.990-1.000 against this loop on four shapes.
template <typename Load>
int64_t pack_12_rows_strided(const typename Load::T* src, int64_t ld, int64_t kc, float* dst) {
    int64_t p0 = 0;
    for (; p0 + 16 <= kc; p0 += 16) {
        __m512 r[16];
        for (int i = 0; i < 12; ++i) r[i] = Load::template load<true>(src + i * ld + p0, 0);
        for (int i = 12; i < 16; ++i) r[i] = _mm512_setzero_ps();
        transpose_16x16(r);
        for (int g = 0; g < 4; ++g) store_4_steps_of_12_rows(r + 4 * g, dst + (p0 + 4 * g) * 12);
    }
    return p0;
}

// 16 k steps at a time across all of the panel's rows (two groups of 16 for
// A's 32), so that every block of steps has a load in flight from each row:
// rows a page apart for large ld, runs of kc elements that the hardware
// prefetchers barely start on before they end. Timed alone (a throwaway probe
// packing 32-row panels of a transposed A in L3, MC x KC blocks as the driver
// does), against 16 rows through all kc steps and then the next 16: 2000 x 300
// (ld 300) 11.1-11.3 against 9.2-9.4 GB/s, 1024 x 1024 8.3-8.7 against 7.5-7.8,
// A from memory (16384 x 1024) 8.9 against 8.2; a plain copy of the same
// runs, untransposed, moved 13.3 / 10.6 / 10.4.
template <typename Load>
void pack_rows_strided(const typename Load::T* src, int64_t ld, int64_t rows, int64_t kc,
                       int64_t width, float* dst) {
    if (rows == 12 && width == 12) {  // the last kc % 16 steps below
        const int64_t done = pack_12_rows_strided<Load>(src, ld, kc, dst);
        src += done;
        dst += done * 12;
        kc -= done;
    }
    for (int64_t p0 = 0; p0 < kc; p0 += 16) {  // 16 k steps at a time
        const int64_t steps = std::min<int64_t>(16, kc - p0);
        const __mmask16 load_lanes = first_lanes(steps);
        for (int64_t i0 = 0; i0 < width; i0 += 16) {  // 16 rows of the panel at a time
            const int64_t group_rows = std::min<int64_t>(16, rows - i0);
            __m512 r[16];
            for (int i = 0; i < 16; ++i) {
                const typename Load::T* s = src + (i0 + i) * ld + p0;
                r[i] = i >= group_rows ? _mm512_setzero_ps()
                       : steps == 16   ? Load::template load<true>(s, 0)
                                       : Load::template load<false>(s, load_lanes);
            }
            transpose_16x16(r);
            if (width == 12 && steps == 16) {  // B's panels: 12 whole vectors
                for (int g = 0; g < 4; ++g) store_4_steps_of_12_rows(r + 4 * g, dst + (p0 + 4 * g) * width);
                continue;
            }
            const __mmask16 store_lanes = first_lanes(width - i0);
            for (int64_t t = 0; t < steps; ++t)
                _mm512_mask_storeu_ps(dst + (p0 + t) * width + i0, store_lanes, r[t]);
        }
    }
}

template <typename Load>
void pack_to_f32(const void* src, int64_t ld, bool rows_contiguous, int64_t rows, int64_t kc,
                 int64_t width, void* dst) {
    const auto* s = static_cast<const typename Load::T*>(src);
    float* d = static_cast<float*>(dst);
    if (rows_contiguous)
        pack_rows_contiguous<Load>(s, ld, rows, kc, width, d);
    else
        pack_rows_strided<Load>(s, ld, rows, kc, width, d);
}

}  // namespace

void pack_panel_f32__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                            int64_t kc, int64_t width, void* dst) {
    pack_to_f32<LoadF32>(src, ld, rows_contiguous, rows, kc, width, dst);
}

void pack_panel_f16_to_f32__avx512(const void* src, int64_t ld, bool rows_contiguous, int64_t rows,
                                   int64_t kc, int64_t width, void* dst) {
    pack_to_f32<LoadF16>(src, ld, rows_contiguous, rows, kc, width, dst);
}

void pack_panel_bf16_to_f32__avx512(const void* src, int64_t ld, bool rows_contiguous,
                                    int64_t rows, int64_t kc, int64_t width, void* dst) {
    pack_to_f32<LoadBF16>(src, ld, rows_contiguous, rows, kc, width, dst);
}

}  // namespace ridge
