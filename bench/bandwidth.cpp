// Which bandwidth kernel this CPU runs: zmm where it has AVX-512, else ymm,
// else the portable loops below (this file gets no ISA flags). One choice for
// ridge-bench, its roofline and ridge-tune's cache sweep.
#include "dispatch/cpu_features.h"
#include "peak.h"
#include "roofline.h"

namespace ridge_bench {
namespace {

// Four independent 4-float sums: as many vector chains as the compiler's
// baseline ISA gives, without asking it to reassociate.
double read_bytes_portable(const float* data, int64_t count, int streams) {
    const int64_t segment = count / streams / 64 * 64;
    float s[4][4] = {};
    for (int64_t i = 0; i < segment; i += 16)
        for (int st = 0; st < streams; ++st)
            for (int c = 0; c < 4; ++c)
                for (int j = 0; j < 4; ++j) s[c][j] += data[st * segment + i + 4 * c + j];
    float total = 0;  // every sum used, so no load is dead
    for (int c = 0; c < 4; ++c)
        for (int j = 0; j < 4; ++j) total += s[c][j];
    volatile float sink = total;
    (void)sink;
    return double(segment) * streams * sizeof(float);
}

double read_write_bytes_portable(float* data, int64_t count) {
    for (int64_t i = 0; i < count; ++i) data[i] = -data[i];  // a real modification, bounded over passes
    return 2.0 * double(count) * sizeof(float);
}

}  // namespace

const char* bandwidth_vectors() {
    if (ridge::cpu_supports(ridge::Isa::avx512)) return "zmm";
    if (ridge::cpu_supports(ridge::Isa::avx2)) return "ymm";
    return "portable";
}

double read_bytes(const float* data, int64_t count, int streams) {
    if (ridge::cpu_supports(ridge::Isa::avx512)) return read_bytes_avx512(data, count, streams);
    if (ridge::cpu_supports(ridge::Isa::avx2)) return read_bytes_avx2(data, count, streams);
    return read_bytes_portable(data, count, streams);
}

double read_write_bytes(float* data, int64_t count) {
    if (ridge::cpu_supports(ridge::Isa::avx512)) return read_write_bytes_avx512(data, count);
    if (ridge::cpu_supports(ridge::Isa::avx2)) return read_write_bytes_avx2(data, count);
    return read_write_bytes_portable(data, count);
}

}  // namespace ridge_bench
