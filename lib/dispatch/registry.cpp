// The kernels built into this binary: one line per kernel file in lib/kernels.
#include "dispatch/registry.h"

namespace ridge {
namespace {

// Best first within each dtype: find_gemm_kernel takes the first one the CPU can run.
constexpr GemmKernel kGemmKernels[] = {
    {"ukr_f32_gemm_32x12__avx512", Dtype::f32, Isa::avx512, 32, 12, ukr_f32_gemm_32x12__avx512, pack_panel_f32__avx512, ukr_f32_gemm_small_32x12__avx512, 16},
    {"ukr_f32_gemm_16x6__avx2", Dtype::f32, Isa::avx2, 16, 6, ukr_f32_gemm_16x6__avx2, pack_panel_f32__ref, nullptr, 8},
    {"ukr_f32_gemm_8x4__ref", Dtype::f32, Isa::ref, 8, 4, ukr_f32_gemm_8x4__ref, pack_panel_f32__ref, nullptr, 1},
};

}  // namespace

std::span<const GemmKernel> gemm_kernels() { return kGemmKernels; }

const GemmKernel* find_gemm_kernel(Dtype dtype, Isa max_isa) {
    for (const GemmKernel& k : kGemmKernels) {
        if (k.dtype == dtype && k.isa <= max_isa && cpu_supports(k.isa)) return &k;
    }
    return nullptr;
}

}  // namespace ridge
