// CPUID and XGETBV, read once. The only place that asks the CPU what it can do.
#include "dispatch/cpu_features.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <sys/syscall.h>
#include <unistd.h>
#define RIDGE_X86 1
#else
#define RIDGE_X86 0
#endif

namespace ridge {
namespace {

#if RIDGE_X86
struct CpuidRegs {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
};

CpuidRegs cpuid(unsigned leaf, unsigned subleaf) {
    CpuidRegs r;
    __cpuid_count(leaf, subleaf, r.eax, r.ebx, r.ecx, r.edx);
    return r;
}

// XGETBV(0) = XCR0, the register-state components the OS saves on a context switch.
// Inline asm so this file needs no -mxsave.
uint64_t read_xcr0() {
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t(hi) << 32) | lo;
}

bool bit(unsigned word, int n) { return (word >> n) & 1u; }

// XGETBV(1) = XINUSE, the state components not in their initial state; only
// where CPUID.(EAX=0DH,ECX=1):EAX[2] says the CPU has it.
bool has_xinuse() {
    return __get_cpuid_max(0, nullptr) >= 0xD && bit(cpuid(1, 0).ecx, 27) && bit(cpuid(0xD, 1).eax, 2);
}
uint64_t read_xinuse() {
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    return (uint64_t(hi) << 32) | lo;
}

// Linux (5.16+) lets a process use the AMX tile registers only after it asks:
// arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); without it the first
// tile instruction faults. Values from the kernel's asm/prctl.h and fpu/types.h.
bool request_amx_permission() {
#if defined(__linux__) && defined(SYS_arch_prctl)
    constexpr long kArchReqXcompPerm = 0x1023;
    constexpr long kXfeatureXtiledata = 18;
    return syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtiledata) == 0;
#else
    return false;
#endif
}

CpuFeatures detect() {
    CpuFeatures f;
    const unsigned max_leaf = __get_cpuid_max(0, nullptr);
    if (max_leaf == 0) return f;
    CpuidRegs v = cpuid(0, 0);
    std::memcpy(f.vendor + 0, &v.ebx, 4);
    std::memcpy(f.vendor + 4, &v.edx, 4);
    std::memcpy(f.vendor + 8, &v.ecx, 4);

    CpuidRegs l1 = cpuid(1, 0);
    const int base_family = (l1.eax >> 8) & 0xf;
    const int base_model = (l1.eax >> 4) & 0xf;
    f.family = base_family == 0xf ? base_family + int((l1.eax >> 20) & 0xff) : base_family;
    f.model = (base_family == 0x6 || base_family == 0xf)
                  ? base_model + (int((l1.eax >> 16) & 0xf) << 4)
                  : base_model;
    f.fma = bit(l1.ecx, 12);
    f.f16c = bit(l1.ecx, 29);
    const bool osxsave = bit(l1.ecx, 27);
    if (osxsave) {
        const uint64_t xcr0 = read_xcr0();
        f.os_saves_ymm = (xcr0 & 0x6) == 0x6;    // SSE (bit 1) and AVX (bit 2)
        f.os_saves_zmm = (xcr0 & 0xe6) == 0xe6;  // plus opmask, ZMM_Hi256, Hi16_ZMM (5-7)
        f.os_saves_tiles = (xcr0 & 0x60000) == 0x60000;  // XTILECFG (17), XTILEDATA (18)
    }
    if (max_leaf >= 7) {
        CpuidRegs l7 = cpuid(7, 0);
        f.avx2 = bit(l7.ebx, 5);
        f.avx512f = bit(l7.ebx, 16);
        f.avx512dq = bit(l7.ebx, 17);
        f.avx512bw = bit(l7.ebx, 30);
        f.avx512vl = bit(l7.ebx, 31);
        if (l7.eax >= 1) f.avx512_bf16 = bit(cpuid(7, 1).eax, 5);
        f.amx_bf16 = bit(l7.edx, 22);
        f.amx_tile = bit(l7.edx, 24);
        if (f.amx_tile && f.amx_bf16 && f.os_saves_tiles) f.amx_permitted = request_amx_permission();
    }
    return f;
}
#else
CpuFeatures detect() { return CpuFeatures{}; }
#endif

}  // namespace

const CpuFeatures& cpu_features() {
    static const CpuFeatures features = detect();  // thread-safe one-time init (C++11 statics)
    return features;
}

bool cpu_supports(Isa isa) {
    const CpuFeatures& f = cpu_features();
    switch (isa) {
        case Isa::ref:
            return true;
        case Isa::avx2:
            return f.avx2 && f.fma && f.f16c && f.os_saves_ymm;
        case Isa::avx512:
            return f.avx512f && f.avx512bw && f.avx512vl && f.avx512dq && f.f16c && f.os_saves_zmm;
        case Isa::avx512bf16:
            return cpu_supports(Isa::avx512) && f.avx512_bf16;
        case Isa::amx:
            return cpu_supports(Isa::avx512bf16) && f.amx_tile && f.amx_bf16 && f.os_saves_tiles &&
                   f.amx_permitted;
    }
    return false;
}

Isa best_supported_isa() {
    if (cpu_supports(Isa::amx)) return Isa::amx;
    if (cpu_supports(Isa::avx512bf16)) return Isa::avx512bf16;
    if (cpu_supports(Isa::avx512)) return Isa::avx512;
    if (cpu_supports(Isa::avx2)) return Isa::avx2;
    return Isa::ref;
}

CpuSignature this_cpu_signature() {
    const CpuFeatures& f = cpu_features();
    CpuSignature sig;
    std::memcpy(sig.vendor, f.vendor, sizeof sig.vendor);
    sig.family = f.family;
    sig.model = f.model;
    // Fixed order, so that equal CPUs give equal strings. amx means the tiles
    // are usable (CPU and OS), as the kernels see it.
    const struct {
        bool has;
        const char* name;
    } features[] = {{f.fma, "fma"},           {f.avx2, "avx2"},           {f.f16c, "f16c"},
                    {f.avx512f, "avx512f"},   {f.avx512bw, "avx512bw"},   {f.avx512vl, "avx512vl"},
                    {f.avx512dq, "avx512dq"}, {f.avx512_bf16, "avx512_bf16"}, {cpu_supports(Isa::amx), "amx"}};
    size_t used = 0;
    for (const auto& feature : features) {
        if (!feature.has) continue;
        const int n = std::snprintf(sig.features + used, sizeof sig.features - used, "%s%s", used ? " " : "",
                                    feature.name);
        if (n > 0) used = std::min(sizeof sig.features - 1, used + size_t(n));
    }
    return sig;
}

const char* isa_name(Isa isa) {
    switch (isa) {
        case Isa::ref:
            return "ref";
        case Isa::avx2:
            return "avx2";
        case Isa::avx512:
            return "avx512";
        case Isa::avx512bf16:
            return "avx512bf16";
        case Isa::amx:
            return "amx";
    }
    return "?";
}

bool parse_isa(const char* text, Isa* out) {
    for (Isa isa : {Isa::ref, Isa::avx2, Isa::avx512, Isa::avx512bf16, Isa::amx}) {
        if (std::strcmp(text, isa_name(isa)) == 0) {
            *out = isa;
            return true;
        }
    }
    return false;
}

// A sanitizer's runtime runs between any call and a check of the state (its
// interceptors and reports) and leaves it as it likes: nothing to say then
// about the library's own code.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerRuntime = true;
#else
constexpr bool kSanitizerRuntime = false;
#endif

int upper_vector_state_in_use() {
#if RIDGE_X86
    static const bool known = has_xinuse() && !kSanitizerRuntime;
    if (!known) return -1;
    constexpr uint64_t kYmmHi128 = uint64_t{1} << 2, kZmmHi256 = uint64_t{1} << 6;  // XSAVE components 2 and 6
    return (read_xinuse() & (kYmmHi128 | kZmmHi256)) != 0 ? 1 : 0;
#else
    return -1;
#endif
}

void spin_wait_hint() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

}  // namespace ridge
