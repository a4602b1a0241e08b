// ridge-ab: two builds of libridge.so in one process, alternated call by call.
//
//   ridge-ab LIB_A LIB_B M N K [ROUNDS [TRANS [TYPE]]]
//
// TRANS is NN, NT, TN or TT; TYPE f32 (ridge_sgemm), f16 (ridge_gemm_f16) or
// bf16 (ridge_gemm_bf16). Environment: RIDGE_NUM_THREADS as for the library;
// PROFILE_A / PROFILE_B set RIDGE_PROFILE for the first call into each build
// (each build reads its configuration once); OFFSET puts every matrix that many
// elements past a 64-byte boundary (0 by default: aligned; malloc gives 4
// floats); LDC_PAD_B gives build B a C of its own with ldc = M + LDC_PAD_B
// (two copies of one build then measure what C's leading dimension costs: a
// power of two against a padded one); LDA gives both builds an A with that
// leading dimension (a submatrix of a larger A; the minimum if smaller);
// BETA is the calls' beta (0 by default:
// C only written; 1 accumulates into it, as a blocked factorization's
// trailing update does). Each round times both builds once, in
// alternating order, on the same matrices; the tool prints each build's
// median rate and the median and quartiles of the per-round ratios B/A. On a
// shared VM whose speed drifts minute to minute, this ratio is what a change
// is judged on: the two calls of a round saw the same host. The builds must
// be two files (dlopen of the same path twice returns one library): copy
// build/lib/libridge.so aside before rebuilding.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "median.h"

namespace {

// ridge_sgemm, ridge_gemm_f16 and ridge_gemm_bf16 share this shape; the
// element pointers are passed as void* (fp32 or 16-bit patterns).
using GemmEntry = int (*)(int, int, int, int64_t, int64_t, int64_t, float, const void*, int64_t, const void*,
                          int64_t, float, float*, int64_t);
constexpr int kColMajor = 102, kNoTrans = 111, kTrans = 112;  // ridge.h's enumerators

struct Options {
    const char* lib[2] = {nullptr, nullptr};
    int64_t m = 0, n = 0, k = 0;
    int rounds = 21;
    bool ta = false, tb = false;
    std::string type = "f32";
};

bool parse(int argc, char** argv, Options* o) {
    if (argc < 6) return false;
    o->lib[0] = argv[1], o->lib[1] = argv[2];
    o->m = std::atoll(argv[3]), o->n = std::atoll(argv[4]), o->k = std::atoll(argv[5]);
    if (argc > 6) o->rounds = std::atoi(argv[6]);
    if (argc > 7) {
        const std::string t = argv[7];
        if (t.size() != 2 || (t[0] != 'N' && t[0] != 'T') || (t[1] != 'N' && t[1] != 'T')) return false;
        o->ta = t[0] == 'T', o->tb = t[1] == 'T';
    }
    if (argc > 8) o->type = argv[8];
    const bool known_type = o->type == "f32" || o->type == "f16" || o->type == "bf16";
    return known_type && o->m > 0 && o->n > 0 && o->k > 0 && o->rounds > 1;
}

// Loads one build with the profile its PROFILE_<A|B> names, and makes its first call.
GemmEntry load(const char* path, const char* profile_variable, const std::string& type) {
    if (const char* profile = std::getenv(profile_variable)) setenv("RIDGE_PROFILE", profile, 1);
    void* handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (handle == nullptr) {
        std::fprintf(stderr, "ridge-ab: %s\n", dlerror());
        return nullptr;
    }
    const char* symbol = type == "f32" ? "ridge_sgemm" : type == "f16" ? "ridge_gemm_f16" : "ridge_gemm_bf16";
    auto entry = reinterpret_cast<GemmEntry>(dlsym(handle, symbol));
    if (entry == nullptr) {
        std::fprintf(stderr, "ridge-ab: %s has no %s\n", path, symbol);
        return nullptr;
    }
    const uint32_t one = type == "f32" ? 0x3f800000u : type == "f16" ? 0x3c00u : 0x3f80u;  // 1.0 in each type
    float c = 0.0f;
    entry(kColMajor, kNoTrans, kNoTrans, 1, 1, 1, 1.0f, &one, 1, &one, 1, 0.0f, &c, 1);
    return entry;
}

// `count` elements of `bytes` each, `offset` elements past a 64-byte boundary,
// filled with values in [-0.5, 0.5) (fp32) or 16-bit patterns of that size.
struct Matrix {
    std::vector<char> storage;
    void* data = nullptr;
    Matrix(int64_t count, int bytes, int64_t offset, uint32_t seed) : storage(size_t((count + offset) * bytes + 64)) {
        char* base = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
        data = base + offset * bytes;
        for (int64_t i = 0; i < count; ++i) {
            const uint32_t r = (uint32_t(i) * 2654435761u + seed) % 1000u;
            if (bytes == 4) {
                const float v = float(r) / 1000.0f - 0.5f;
                std::memcpy(static_cast<char*>(data) + i * 4, &v, 4);
            } else {
                const uint16_t v = uint16_t(0x3400u + r % 512u);  // fp16 / bf16 patterns of moderate size
                std::memcpy(static_cast<char*>(data) + i * 2, &v, 2);
            }
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parse(argc, argv, &o)) {
        std::fprintf(stderr, "usage: ridge-ab LIB_A LIB_B M N K [ROUNDS [NN|NT|TN|TT [f32|f16|bf16]]]\n");
        return 2;
    }
    GemmEntry entry[2] = {load(o.lib[0], "PROFILE_A", o.type), load(o.lib[1], "PROFILE_B", o.type)};
    if (entry[0] == nullptr || entry[1] == nullptr) return 1;

    const int bytes = o.type == "f32" ? 4 : 2;
    const int64_t offset = std::getenv("OFFSET") ? std::atoll(std::getenv("OFFSET")) : 0;
    // LDA: A's leading dimension where the call should see a submatrix of a larger A (at least the minimum).
    const int64_t lda_min = o.ta ? o.k : o.m;
    const int64_t lda = std::max(lda_min, std::getenv("LDA") ? int64_t(std::atoll(std::getenv("LDA"))) : int64_t{0});
    const int64_t ldb = o.tb ? o.n : o.k;
    const Matrix a(lda * (o.ta ? o.m : o.k), bytes, offset, 1), b(ldb * (o.tb ? o.k : o.n), bytes, offset, 2);
    const float beta = std::getenv("BETA") ? float(std::atof(std::getenv("BETA"))) : 0.0f;
    const int64_t ldc_pad_b = std::getenv("LDC_PAD_B") ? std::atoll(std::getenv("LDC_PAD_B")) : 0;
    const int64_t ldc[2] = {o.m, o.m + ldc_pad_b};
    Matrix c(o.m * o.n, 4, offset, 3);
    Matrix padded_c(ldc_pad_b != 0 ? ldc[1] * o.n : 0, 4, offset, 3);  // B's C where LDC_PAD_B is set
    float* const c_of[2] = {static_cast<float*>(c.data), static_cast<float*>(ldc_pad_b != 0 ? padded_c.data : c.data)};
    const double flops = 2.0 * double(o.m) * double(o.n) * double(o.k);
    const int calls = std::max(1, int(3e9 / flops));  // a few milliseconds per timing at least

    auto seconds = [&](int which) {
        const GemmEntry f = entry[which];
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            if (f(kColMajor, o.ta ? kTrans : kNoTrans, o.tb ? kTrans : kNoTrans, o.m, o.n, o.k, 1.0f, a.data, lda,
                  b.data, ldb, beta, c_of[which], ldc[which]) != 0)
                return -1.0;
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    std::vector<double> rate[2], ratio;
    for (int round = 0; round <= o.rounds; ++round) {  // round 0 warms up
        double t[2];
        for (int turn = 0; turn < 2; ++turn) {
            const int which = round % 2 == 0 ? turn : 1 - turn;
            t[which] = seconds(which);
            if (t[which] < 0) {
                std::fprintf(stderr, "ridge-ab: a call returned an error status\n");
                return 1;
            }
        }
        if (round == 0) continue;
        for (int which = 0; which < 2; ++which) rate[which].push_back(flops * calls / t[which] * 1e-9);
        ratio.push_back(t[0] / t[1]);
    }
    std::printf("%lldx%lldx%lld %c%c %s%s: A %.1f B %.1f GFLOP/s; B/A speed median %.3f [q1 %.3f q3 %.3f]\n",
                (long long)o.m, (long long)o.n, (long long)o.k, o.ta ? 'T' : 'N', o.tb ? 'T' : 'N', o.type.c_str(),
                beta != 0.0f ? " beta != 0" : "", ridge_bench::median(rate[0]), ridge_bench::median(rate[1]),
                ridge_bench::median(ratio), ridge_bench::quantile(ratio, 0.25), ridge_bench::quantile(ratio, 0.75));
    return 0;
}
