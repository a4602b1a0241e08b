// The kernels built into this binary: one line per (kernel, packer) pair.
#include "dispatch/registry.h"

namespace ridge {
namespace {

// The L1 model's KC (320 for this kernel) assumes the B micro-panel is reused
// from L1, but AMX tile loads read both operands at ~64 bytes a cycle from L1
// or L2 alike; what limits a short kc is the fixed cost of each call (zeroing
// and storing four tiles, updating 32 x 32 of C), worth ~3 chunks of 32. At
// KC=1024 that is under 10%. Measured, 1 thread, bf16 1024^3 in one process:
// KC=320 795 GFLOP/s, 640 797, 1024 913, 2048 895.
constexpr int64_t kAmxMinKC = 1024;

// The AVX2 small kernel's small path up to 448^3: against packing, with
// RIDGE_ISA=avx2 on the Zen 4 (`RIDGE_ISA=avx2 RIDGE_NUM_THREADS=1 ridge-ab OLD
// NEW n n n 9`), 32^3 1.82, 64^3 1.30, 100^3 1.22, 128^3 1.12, 200^3 1.11,
// 256^3 1.04, 384^3 1.03, 448^3 1.03, but 512^3 and 640^3 0.97; through the
// thin rule 256 x 256 x 4096 0.85, through the blocked path's in-place reads
// 128 x 4096 x 4096 0.95 (see GemmKernel::small_kernel_max_volume).
constexpr double kAvx2SmallMaxVolume = 448.0 * 448.0 * 448.0;

// Past that volume, the AVX2 small kernel still takes thin problems of up to
// 128 rows whose op(A) fits L2 (B larger than L2): the blocked path packs all
// of B for so few rows. Against it, with RIDGE_ISA=avx2 on the Zen 4
// (`RIDGE_ISA=avx2 RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 7 [TN]`), 1
// thread: 8 x 4096 x 4096 2.31, 24 x 1024 x 4096 1.88, 32 x 2048 x 2048 1.38
// (TN 1.40), 40 x 4096 x 1024 1.41, 56 x 4000 x 1500 1.35, 64 x 2048 x 2048
// 1.17 (TN 1.23), 100 x 3000 x 1000 1.18 (TN 1.20), 112 x 2048 x 2048 1.06,
// 128 x 1024 x 1024 1.06, 128 x 2048 x 2048 1.05 (TN 1.10), 32 x 1024 x 8192
// 1.15; 2 threads 24 x 4096 x 4096 1.64, 32 x 2048 x 2048 1.35, 64 x 2048 x
// 2048 1.13, 100 x 3000 x 1000 TN 1.30, 128 x 1024 x 1024 1.09. Not kept: op(A)
// past L2, 96 x 1024 x 4096 1.00, 128 x 4096 x 4096 0.97 (64 x 4096 x 4096,
// exactly L2, 1.00); more rows, 192 x 1024 x 1024 1.00, 256 x 1024 x 1024 0.98.
constexpr int64_t kAvx2SmallThinMaxRows = 128;

// The AVX2 skinny kernel up to 32 columns of C (rows of C on C^T): against
// packing, with RIDGE_ISA=avx2 on the Zen 4 (`RIDGE_ISA=avx2
// RIDGE_NUM_THREADS=T ridge-ab OLD NEW M N K 5-7 [NT]`), 1 thread 4096 x n x
// 4096 n = 8 2.31, 16 1.68, 24 1.37, 32 1.02; 4000 x 32 x 4000 1.14, 1024 x
// 32 x 1024 1.13; 2 threads 4096 x 16 x 4096 1.36, 4000 x 32 x 4000 1.32; on
// C^T 16 / 32 x 4096 x 4096 NT 2.60 / 1.52, 8 x 2048 x 2048 NT 4.85. Past 32
// it lost as often as it won: 4000 x 48 / 64 x 4000 1.06 / 1.03 but 4096 x
// 48 / 64 x 4096 0.98 / 0.82, 1024 x 64 x 1024 0.96, 2048 x 48 x 512 0.97,
// 4000 x 128 x 4000 0.93; NT 64 / 96 x 4096 x 4096 1.19 / 1.06, 128 0.98.
constexpr int64_t kAvx2SkinnyMaxColumns = 32;

// Kernel calls of fewer k steps than these get the next tile of C prefetched by
// the blocked driver where C outgrows the cache (GemmKernel::
// c_prefetched_ahead_below_kc; blocked_schedule.cpp:
// next_tile_of_c_prefetched_below_kc). Measured on the Intel VM against no
// prefetch, C 64 MiB (`RIDGE_NUM_THREADS=1 ridge-ab OLD NEW 4096 4096 K 11-21
// [NN TYPE]`, some in both orders). The fp32 AVX-512 kernel (fp16 and bf16
// inputs too, converted while packing): k = 16 1.15-1.19 (0.91-0.96 in the
// host's fastest spells, where C stayed in its cache), 24 1.05, fp16 inputs 16
// 1.15; past that it went either way with the host's spells, 32 0.96 and 0.96
// reversed in one, 1.03-1.14 in another (a loop rotating the two builds and
// oneDNN on one C), 48 0.96, 64 0.94-0.97 (1.05 in a faster spell), 100 0.95
// (1.02). Presumably the longer the kernel's k loop, the more of a tile's
// fetches its own stores overlap. AMX bf16 (32 x 32 tiles of C, no prefetch of
// its own at any depth): 32 1.32, 64 1.21, 96 1.12, 128 1.10, 160 1.06, 256
// 0.98, 1024 1.00.
constexpr int64_t kAvx512PrefetchCAheadBelowKc = 32;
constexpr int64_t kAmxPrefetchCAheadBelowKc = 256;

// Best first within each input type: find_gemm_kernel takes the first the CPU can run.
// fp16 and bf16 without AVX512-BF16 convert to fp32 while packing (once per
// packed element, never per FMA) and reuse the fp32 kernels.
constexpr GemmKernel kGemmKernels[] = {
    // name, packer name(s), input, ISA, MR, NR, kernel, its C-streaming twin, A packer, B packer, small kernel,
    // skinny kernel, few-rows kernels (dot and outer products), packed bytes, k group, fp32 lanes, KC floor, thread begin/end hooks,
    // kernel reading op(A)'s rows in place, edge-tile kernel, C^T's transposing copy, the skinny path's tall tiles,
    // the small kernel's own volume limit (0: none; GemmKernel::small_kernel_max_volume) and thin rows past it,
    // the skinny kernel's own width limit (0: none; GemmKernel::skinny_max_columns), the kernels packing A and B as they go,
    // the depth below which the driver prefetches C ahead of the kernel (GemmKernel::c_prefetched_ahead_below_kc),
    // the kernel running a micro-panel's tiles in one call (GemmKernel::ukr_tiles)
    {"ukr_f32_gemm_32x12__avx512", "pack_panel_f32__avx512", Dtype::f32, Isa::avx512, 32, 12, ukr_f32_gemm_32x12__avx512, ukr_f32_gemm_32x12_stream_c__avx512, pack_panel_f32__avx512, pack_panel_f32__avx512, ukr_f32_gemm_small_32x12__avx512, ukr_f32_gemm_skinny_32x12__avx512, ukr_f32_gemm_few_rows_16x3__avx512, ukr_f32_gemm_few_rows_outer__avx512, 4, 1, 16, 0, nullptr, nullptr, nullptr, ukr_f32_gemm_edge_32x12__avx512, transpose_f32__avx512, ukr_f32_gemm_skinny_48x8__avx512, 0, 0, 0, ukr_f32_gemm_32x12_packing_a__avx512, ukr_f32_gemm_32x12_packing_b__avx512, kAvx512PrefetchCAheadBelowKc, ukr_f32_gemm_32x12_tiles__avx512},
    {"ukr_f32_gemm_16x6__avx2", "pack_panel_f32__avx2", Dtype::f32, Isa::avx2, 16, 6, ukr_f32_gemm_16x6__avx2, nullptr, pack_panel_f32__avx2, pack_panel_f32__avx2, ukr_f32_gemm_small_16x6__avx2, ukr_f32_gemm_skinny_16x6__avx2, nullptr, nullptr, 4, 1, 8, 0, nullptr, nullptr, nullptr, nullptr, transpose_f32__avx2, nullptr, kAvx2SmallMaxVolume, kAvx2SmallThinMaxRows, kAvx2SkinnyMaxColumns, nullptr, nullptr, 0, ukr_f32_gemm_16x6_tiles__avx2},
    {"ukr_f32_gemm_8x4__ref", "pack_panel_f32__ref", Dtype::f32, Isa::ref, 8, 4, ukr_f32_gemm_8x4__ref, nullptr, pack_panel_f32__ref, pack_panel_f32__ref, nullptr, nullptr, nullptr, nullptr, 4, 1, 1, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, nullptr, nullptr, 0, nullptr},
    {"ukr_bf16_gemm_32x32__amx", "pack_panel_bf16_pairs32__avx512 + pack_panel_bf16_kchunks__avx512", Dtype::bf16, Isa::amx, 32, 32, ukr_bf16_gemm_32x32__amx, nullptr, pack_panel_bf16_pairs32__avx512, pack_panel_bf16_kchunks__avx512, nullptr, nullptr, nullptr, nullptr, 2, 32, 16, kAmxMinKC, amx_thread_begin, amx_thread_end, ukr_bf16_gemm_rows_in_place_32x32__amx, nullptr, nullptr, nullptr, 0, 0, 0, nullptr, nullptr, kAmxPrefetchCAheadBelowKc, nullptr},
    {"ukr_bf16_gemm_32x12__avx512bf16", "pack_panel_bf16_pairs__avx512", Dtype::bf16, Isa::avx512bf16, 32, 12, ukr_bf16_gemm_32x12__avx512bf16, nullptr, pack_panel_bf16_pairs__avx512, pack_panel_bf16_pairs__avx512, nullptr, nullptr, nullptr, nullptr, 2, 2, 16, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, nullptr, nullptr, 0, nullptr},
    {"ukr_f32_gemm_32x12__avx512", "pack_panel_bf16_to_f32__avx512", Dtype::bf16, Isa::avx512, 32, 12, ukr_f32_gemm_32x12__avx512, ukr_f32_gemm_32x12_stream_c__avx512, pack_panel_bf16_to_f32__avx512, pack_panel_bf16_to_f32__avx512, nullptr, ukr_bf16_gemm_skinny_32x12__avx512, ukr_bf16_gemm_few_rows_16x3__avx512, ukr_bf16_gemm_few_rows_outer__avx512, 4, 1, 16, 0, nullptr, nullptr, nullptr, ukr_f32_gemm_edge_32x12__avx512, transpose_f32__avx512, ukr_bf16_gemm_skinny_48x8__avx512, 0, 0, 0, nullptr, nullptr, kAvx512PrefetchCAheadBelowKc, ukr_f32_gemm_32x12_tiles__avx512},
    {"ukr_f32_gemm_16x6__avx2", "pack_panel_bf16_to_f32__ref", Dtype::bf16, Isa::avx2, 16, 6, ukr_f32_gemm_16x6__avx2, nullptr, pack_panel_bf16_to_f32__ref, pack_panel_bf16_to_f32__ref, nullptr, nullptr, nullptr, nullptr, 4, 1, 8, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, nullptr, nullptr, 0, ukr_f32_gemm_16x6_tiles__avx2},
    {"ukr_f32_gemm_8x4__ref", "pack_panel_bf16_to_f32__ref", Dtype::bf16, Isa::ref, 8, 4, ukr_f32_gemm_8x4__ref, nullptr, pack_panel_bf16_to_f32__ref, pack_panel_bf16_to_f32__ref, nullptr, nullptr, nullptr, nullptr, 4, 1, 1, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, nullptr, nullptr, 0, nullptr},
    {"ukr_f32_gemm_32x12__avx512", "pack_panel_f16_to_f32__avx512", Dtype::f16, Isa::avx512, 32, 12, ukr_f32_gemm_32x12__avx512, ukr_f32_gemm_32x12_stream_c__avx512, pack_panel_f16_to_f32__avx512, pack_panel_f16_to_f32__avx512, nullptr, ukr_f16_gemm_skinny_32x12__avx512, ukr_f16_gemm_few_rows_16x3__avx512, ukr_f16_gemm_few_rows_outer__avx512, 4, 1, 16, 0, nullptr, nullptr, nullptr, ukr_f32_gemm_edge_32x12__avx512, transpose_f32__avx512, ukr_f16_gemm_skinny_48x8__avx512, 0, 0, 0, nullptr, nullptr, kAvx512PrefetchCAheadBelowKc, ukr_f32_gemm_32x12_tiles__avx512},
    {"ukr_f32_gemm_16x6__avx2", "pack_panel_f16_to_f32__ref", Dtype::f16, Isa::avx2, 16, 6, ukr_f32_gemm_16x6__avx2, nullptr, pack_panel_f16_to_f32__ref, pack_panel_f16_to_f32__ref, nullptr, nullptr, nullptr, nullptr, 4, 1, 8, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, nullptr, nullptr, 0, ukr_f32_gemm_16x6_tiles__avx2},
    {"ukr_f32_gemm_8x4__ref", "pack_panel_f16_to_f32__ref", Dtype::f16, Isa::ref, 8, 4, ukr_f32_gemm_8x4__ref, nullptr, pack_panel_f16_to_f32__ref, pack_panel_f16_to_f32__ref, nullptr, nullptr, nullptr, nullptr, 4, 1, 1, 0, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, 0, 0, 0, nullptr, nullptr, 0, nullptr},
};

// GEMV: one line per (input type, ISA); best first.
constexpr GemvKernel kGemvKernels[] = {
    {"gemv_f32__avx512", Dtype::f32, Isa::avx512, gemv_n_f32__avx512, gemv_t_f32__avx512, gemv_n_f32_from_memory__avx512,
     "gemv_n_f32_from_memory__avx512"},
    {"gemv_f32__avx2", Dtype::f32, Isa::avx2, gemv_n_f32__avx2, gemv_t_f32__avx2},
    {"gemv_f32__ref", Dtype::f32, Isa::ref, gemv_n_f32__ref, gemv_t_f32__ref},
    {"gemv_f16__avx512", Dtype::f16, Isa::avx512, gemv_n_f16__avx512, gemv_t_f16__avx512},
    {"gemv_f16__avx2", Dtype::f16, Isa::avx2, gemv_n_f16__avx2, gemv_t_f16__avx2},
    {"gemv_f16__ref", Dtype::f16, Isa::ref, gemv_n_f16__ref, gemv_t_f16__ref},
    {"gemv_bf16__avx512", Dtype::bf16, Isa::avx512, gemv_n_bf16__avx512, gemv_t_bf16__avx512},
    {"gemv_bf16__avx2", Dtype::bf16, Isa::avx2, gemv_n_bf16__avx2, gemv_t_bf16__avx2},
    {"gemv_bf16__ref", Dtype::bf16, Isa::ref, gemv_n_bf16__ref, gemv_t_bf16__ref},
};

}  // namespace

std::span<const GemvKernel> gemv_kernels() { return kGemvKernels; }

const GemvKernel* find_gemv_kernel(Dtype input, Isa max_isa) {
    for (const GemvKernel& k : kGemvKernels)
        if (k.input == input && k.isa <= max_isa && cpu_supports(k.isa)) return &k;
    return nullptr;
}

const char* dtype_name(Dtype dtype) {
    switch (dtype) {
        case Dtype::f32:
            return "f32";
        case Dtype::f16:
            return "f16";
        case Dtype::bf16:
            return "bf16";
    }
    return "?";
}

int dtype_bytes(Dtype dtype) { return dtype == Dtype::f32 ? 4 : 2; }

std::span<const GemmKernel> gemm_kernels() { return kGemmKernels; }

const GemmKernel* find_gemm_kernel(Dtype input, Isa max_isa) {
    for (const GemmKernel& k : kGemmKernels) {
        if (k.input == input && k.isa <= max_isa && cpu_supports(k.isa)) return &k;
    }
    return nullptr;
}

}  // namespace ridge
