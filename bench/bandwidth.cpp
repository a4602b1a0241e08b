// Which bandwidth kernel this CPU runs: zmm where it has AVX-512, else ymm.
// A CPU with neither gets no bandwidth figure (0 bytes) rather than an
// illegal instruction.
#include "dispatch/cpu_features.h"
#include "peak.h"
#include "roofline.h"

namespace ridge_bench {

const char* bandwidth_vectors() {
    if (ridge::cpu_supports(ridge::Isa::avx512)) return "zmm";
    if (ridge::cpu_supports(ridge::Isa::avx2)) return "ymm";
    return nullptr;
}

double read_bytes(const float* data, int64_t count) {
    if (ridge::cpu_supports(ridge::Isa::avx512)) return read_bytes_avx512(data, count);
    if (ridge::cpu_supports(ridge::Isa::avx2)) return read_bytes_avx2(data, count);
    return 0;
}

double read_write_bytes(float* data, int64_t count) {
    if (ridge::cpu_supports(ridge::Isa::avx512)) return read_write_bytes_avx512(data, count);
    if (ridge::cpu_supports(ridge::Isa::avx2)) return read_write_bytes_avx2(data, count);
    return 0;
}

}  // namespace ridge_bench
