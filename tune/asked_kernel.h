// Which kernel ridge-tune also searches besides the ones the library runs by
// default: the AVX2 fp32 kernel on a CPU whose default is wider.
#pragma once

#include "dispatch/registry.h"

namespace ridge_tune {

// The AVX2 fp32 kernel where the library runs a wider one by default
// (`default_f32`) but the CPU has AVX2: RIDGE_ISA=avx2 then runs it, as issue
// 2's AVX2 figure does, with the profile's blocking for it. Null where the
// default is AVX2 itself (searched as the default) or the CPU lacks AVX2.
inline const ridge::GemmKernel* avx2_kernel_only_when_asked(const ridge::GemmKernel& default_f32) {
    if (default_f32.isa == ridge::Isa::avx2 || !ridge::cpu_supports(ridge::Isa::avx2)) return nullptr;
    for (const ridge::GemmKernel& k : ridge::gemm_kernels())
        if (k.input == ridge::Dtype::f32 && k.isa == ridge::Isa::avx2) return &k;
    return nullptr;
}

}  // namespace ridge_tune
