// What the CPU and the OS let ridge run, read once from CPUID and XGETBV.
#pragma once


#include "tuning/profile.h"

namespace ridge {

// Ordered: each needs everything below it. avx512bf16 adds vdpbf16ps
// (AVX512-BF16); amx adds the AMX tiles with tdpbf16ps (AMX-TILE, AMX-BF16).
enum class Isa { ref = 0, avx2 = 1, avx512 = 2, avx512bf16 = 3, amx = 4 };

struct CpuFeatures {
    char vendor[16] = {};  // "GenuineIntel", "AuthenticAMD", ... (12 characters and a NUL)
    int family = 0;      // display family and model, as /proc/cpuinfo shows them
    int model = 0;
    bool fma = false, avx2 = false, f16c = false;
    bool avx512f = false, avx512bw = false, avx512vl = false, avx512dq = false;
    bool avx512_bf16 = false;
    bool amx_tile = false, amx_bf16 = false;
    bool os_saves_tiles = false;  // XCR0 bits 17-18 (XTILECFG, XTILEDATA)
    bool amx_permitted = false;   // Linux granted this process the tile data state
    bool os_saves_ymm = false;  // XCR0 bits 1-2: the OS saves SSE and AVX state
    bool os_saves_zmm = false;  // XCR0 bits 5-7: the OS saves opmask and ZMM state
};

const CpuFeatures& cpu_features();

// True when the CPU has the instructions of `isa` and the OS has enabled their registers.
bool cpu_supports(Isa isa);

// The best ISA that is both built into this binary and supported here.
Isa best_supported_isa();

// Vendor, family, model and the ISA features ridge uses: what a tuned profile is keyed by.
CpuSignature this_cpu_signature();

const char* isa_name(Isa isa);
bool parse_isa(const char* text, Isa* out);

// Whether the upper halves of the vector registers are in use right now
// (XGETBV(1), XINUSE: the AVX state above 128 bits of ymm0-15, or the ZMM
// state above 256 bits of zmm0-15): 1 in use, 0 clear, -1 where the CPU
// cannot say (or a sanitizer's runtime runs in between). Code returning to
// baseline (SSE) code must leave them clear (vzeroupper): Intel cores charge a
// state transition otherwise (test_kernels' kernel tests and
// Sgemm.EveryPathReturnsWithTheUpperVectorStateClear check it).
int upper_vector_state_in_use();

// The CPU's hint for the body of a spin-wait loop (x86's pause): the waiting
// thread yields its core's issue slots to a hyperthread sibling, and leaves the
// loop without a memory-order misprediction. Nothing on other CPUs.
void spin_wait_hint();

}  // namespace ridge
