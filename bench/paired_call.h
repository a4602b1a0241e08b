// What the paired tools (`ridge-bench paired`, `scaling`, `transposes`) share:
// the arguments of the first two, M N K [NN|NT|TN|TT [THREADS [ROUNDS
// [f32|f16|bf16]]]], and one GEMM shape's operands timed on a library at a
// thread count.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "bench_matrices.h"
#include "peers.h"

namespace ridge_bench {

struct ShapeArgs {
    int64_t m = 0, n = 0, k = 0;
    bool ta = false, tb = false;
    int threads = 1, rounds = 21;
    InputType input = InputType::f32;  // of A and B; C is fp32
};

// argv[1..] as above (argv[0] the subcommand); THREADS defaults to default_threads.
inline bool parse_shape_args(int argc, char** argv, int default_threads, ShapeArgs* s) {
    if (argc < 4) return false;
    s->m = std::atoll(argv[1]);
    s->n = std::atoll(argv[2]);
    s->k = std::atoll(argv[3]);
    if (argc > 4) {
        const std::string t = argv[4];
        if (t.size() != 2 || (t[0] != 'N' && t[0] != 'T') || (t[1] != 'N' && t[1] != 'T')) return false;
        s->ta = t[0] == 'T';
        s->tb = t[1] == 'T';
    }
    s->threads = argc > 5 ? std::atoi(argv[5]) : default_threads;
    if (argc > 6) s->rounds = std::atoi(argv[6]);
    if (argc > 7) {
        const std::string t = argv[7];
        if (t != "f32" && t != "f16" && t != "bf16") return false;
        s->input = t == "bf16" ? InputType::bf16 : t == "f16" ? InputType::f16 : InputType::f32;
    }
    return s->m > 0 && s->n > 0 && s->k > 0 && s->threads > 0 && s->rounds > 1;
}

// Elements (of each matrix's own type) every matrix starts past a 64-byte
// boundary: the environment's OFFSET, as ridge-ab's (0 by default, aligned;
// OFFSET=4 puts fp32 matrices 16 bytes past a line, where glibc's malloc puts
// a large block, so that libraries compare as a caller's unaligned arrays
// have them).
inline int64_t matrix_offset_elements() {
    const char* v = std::getenv("OFFSET");
    return v != nullptr ? std::max<int64_t>(0, std::atoll(v)) : 0;
}

// The shape's A, B and C (random, the same for every library and round; C
// overwritten, beta = 0) and its calls, timed.
class PairedCall {
public:
    explicit PairedCall(const ShapeArgs& s)
        : s_(s),
          offset_(matrix_offset_elements()),
          a_(random_matrix(s.input, s.m * s.k + offset_, 1)),
          b_(random_matrix(s.input, s.k * s.n + offset_, 2)),
          c_(random_vector(s.m * s.n + offset_, 3)),
          flops_(2.0 * double(s.m) * double(s.n) * double(s.k)) {}

    // GFLOP/s of `calls` calls in a row on lib with `threads` threads.
    double rate(GemmLibrary* lib, int threads, int calls) {
        const int64_t lda = s_.ta ? s_.k : s_.m, ldb = s_.tb ? s_.n : s_.k;
        const size_t skip = size_t(offset_) * size_t(input_bytes(s_.input));
        lib->set_threads(threads);
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            lib->gemm(s_.input, s_.ta, s_.tb, s_.m, s_.n, s_.k, 1.0f, a_.data() + skip, lda, b_.data() + skip, ldb,
                      0.0f, c_.data() + offset_, s_.m);
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return flops_ * calls / sec * 1e-9;
    }

    // Calls per timing: ~50 ms at lib's rate on `threads`, timed after a call
    // that warms up (a library's first call allocates and faults in its
    // buffers; timed alone it ran 256^3 at a tenth of its rate, and the main
    // job's paired 256^3 timed 2 calls, 0.3 ms, where 50 ms were meant), over
    // calls doubled until they take 5 ms.
    int calls_per_timing(GemmLibrary* lib, int threads) {
        rate(lib, threads, 1);  // warm-up
        constexpr double kTrialSeconds = 0.005, kTimingSeconds = 0.05;
        for (int trial_calls = 1;; trial_calls *= 2) {
            const double gflops = rate(lib, threads, trial_calls);
            const double seconds = flops_ * trial_calls / (gflops * 1e9);
            if (seconds >= kTrialSeconds || trial_calls >= (1 << 20))
                return std::max(1, int(kTimingSeconds / (seconds / trial_calls)));
        }
    }

private:
    ShapeArgs s_;
    int64_t offset_;
    AlignedVector<char> a_, b_;
    AlignedVector<float> c_;
    double flops_;
};

}  // namespace ridge_bench
