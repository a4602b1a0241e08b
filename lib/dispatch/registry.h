// The table of microkernels built into this binary.
#pragma once

#include <span>

#include "dispatch/cpu_features.h"
#include "kernels/gemm_kernel.h"
#include "kernels/gemv_kernel.h"

namespace ridge {

// The element type of A and B as the caller stores them. C is fp32 inside ridge.
enum class Dtype { f32, f16, bf16 };
const char* dtype_name(Dtype dtype);
int dtype_bytes(Dtype dtype);

struct GemmKernel {
    const char* name;       // the microkernel, e.g. "ukr_f32_gemm_32x12__avx512"
    const char* pack_name;  // its packer for this input type
    Dtype input;            // what A and B hold in the caller's memory
    Isa isa;                // the ISA the kernel and packer need
    int MR;
    int NR;
    GemmUkr ukr;
    GemmUkr ukr_stream_c;    // the same kernel streaming C out (beta = 0, aligned C); may be null
    PackPanel pack_panel;    // packs op(A) panels (and op(B)^T panels, unless pack_panel_b differs)
    PackPanel pack_panel_b;  // packs op(B)^T panels
    GemmSmallUkrF32 small_f32;  // unpacked kernel for small fp32 problems; may be null
    GemmSkinnyUkr skinny;           // few columns: A in place (its input type), B by chunks; may be null
    GemmFewRowsUkr few_rows;        // m <= 16: dot products, B read in place (its input type); may be null
    GemmFewRowsOuterUkr few_rows_outer;  // 8 < m <= 48: outer products, B in place (its input type); may be null
    int packed_bytes;           // bytes of one packed element (4: fp32, 2: bf16)
    int k_group;                // k steps packed together (2: bf16 K-pairs, 32: AMX chunks); KC is a multiple
    int lanes;                  // fp32 lanes per vector register (for the model's FMA count)
    int64_t min_KC;             // KC floor over the L1 model (0: none); see the registry's rows
    KernelThreadHook thread_begin;  // before a thread's first call in a GEMM; may be null
    KernelThreadHook thread_end;    // after its last; may be null
    GemmRowsInPlaceUkr rows_in_place;  // few columns, A transposed: op(A)'s rows read in place; may be null
    GemmEdgeUkr ukr_edge;  // partial tiles of ukr from its packed panels; may be null (a scratch tile then)
    TransposeF32 transpose_c;  // C^T's blocks to and from C on the skinny path on C^T; set wherever skinny is
    GemmSkinnyUkr skinny_tall;  // the skinny path's 48 x 8 tiles (kSkinnyTallMR x kSkinnyTallNR); may be null
    // 0: small_f32 serves every rule that reads operands in place through it
    // (the small path by volume, for thin and for deep problems, the blocked
    // path's A or B read in place). Above 0: small_f32 serves the small path
    // alone, up to this m*n*k, past it only for thin problems by its own rule
    // (small_thin_max_rows) and deep ones (paths.cpp:
    // deep_enough_for_small_path), for a kernel the other rules were not
    // measured with.
    double small_kernel_max_volume;
    // With small_kernel_max_volume above 0: thin problems (op(B) larger than
    // L2, op(A) within it) of at most this many rows of C take the small path
    // past that volume too; 0: none do. (Kernels without the limit take the
    // thin rule measured with AVX-512: paths.cpp, thin_enough_for_small_path.)
    int64_t small_thin_max_rows;
    // 0: the skinny path's own limits (kSkinnyMaxN, the profile's crossover).
    // Above 0: skinny serves at most this many columns of C (rows of C on C^T),
    // for a kernel whose crossover against its blocked path lies lower.
    int64_t skinny_max_columns;
    GemmPackingAUkr ukr_packing_a;  // ukr packing op(A) from its source as it goes (fp32 A); may be null
    GemmPackingBUkr ukr_packing_b;  // ukr packing op(B) from its source as it goes (fp32 B, NN); may be null
    // Where C outgrows the cache, the blocked driver prefetches the next tile
    // of C ahead of kernel calls of fewer k steps than this (Schedule::
    // prefetch_c_below_kc), measured per kernel (registry.cpp). 0: never, for a
    // kernel that prefetches its own tile early at every depth (the AVX2
    // kernel: the driver's prefetch on top of it ran 0.91x at 4096 x 4096 x
    // 16) or that was not measured with it.
    int64_t c_prefetched_ahead_below_kc;
    GemmTilesUkr ukr_tiles;  // full tiles down a micro-panel in one call, for short k steps; may be null
};

std::span<const GemmKernel> gemm_kernels();

struct GemvKernel {
    const char* name;  // e.g. "gemv_f32__avx512"
    Dtype input;       // the matrix's element type (x is converted to fp32 first)
    Isa isa;
    GemvNKernel n;
    GemvTKernel t;
    // N for an A at least the L3 (it streams from memory), where that differs
    // from n (the same sums, bit for bit); nullptr: n everywhere.
    GemvNKernel n_from_memory = nullptr;
    const char* n_from_memory_name = nullptr;  // its name, for reports and RIDGE_VERBOSE
};
// `k` as it runs an A that streams from memory: n_from_memory as its N where it has one.
inline GemvKernel from_memory(const GemvKernel& k) {
    GemvKernel out = k;
    if (k.n_from_memory != nullptr) out.n = k.n_from_memory;
    return out;
}
std::span<const GemvKernel> gemv_kernels();
const GemvKernel* find_gemv_kernel(Dtype input, Isa max_isa);

// The kernel for `input` with the highest ISA not above `max_isa` that the CPU supports.
const GemmKernel* find_gemm_kernel(Dtype input, Isa max_isa);

}  // namespace ridge
