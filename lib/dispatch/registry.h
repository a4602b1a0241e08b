// The table of microkernels built into this binary.
#pragma once

#include <span>
#include <string>

#include "dispatch/cpu_features.h"
#include "kernels/gemm_kernel.h"

namespace ridge {

enum class Dtype { f32 };

struct GemmKernel {
    const char* name;  // e.g. "ukr_f32_gemm_32x12__avx512"
    Dtype dtype;
    Isa isa;
    int MR;
    int NR;
    GemmUkrF32 ukr_f32;
    PackPanelF32 pack_panel;  // packs A and B panels for this kernel
    GemmSmallUkrF32 small_f32;  // unpacked tile kernel for small problems; may be null
    // The FMA pipeline this kernel is written for (Low et al. 2016, section 4):
    // it needs MR*NR/lanes >= fma_latency * fma_ports independent accumulators.
    int lanes;  // fp32 lanes per vector register
};

std::span<const GemmKernel> gemm_kernels();

// The kernel for `dtype` with the highest ISA not above `max_isa` that the CPU supports.
const GemmKernel* find_gemm_kernel(Dtype dtype, Isa max_isa);

}  // namespace ridge
