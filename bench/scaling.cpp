// `ridge-bench scaling M N K [TRANS [THREADS [ROUNDS]]]`
//
// One sgemm shape, ridge alone, on the same matrices: each round times one
// thread and then THREADS threads (default 2), enough calls for ~50 ms each,
// and takes the team's rate over the one thread's. The median of those
// per-round speed-ups, with its quartiles, is what the tool reports. Two
// separate benchmark rows saw the host at different moments: on the shared
// VMs of this project a team's second vCPU is at times busy with other work,
// and the ratio of two medians timed minutes apart moved by 0.1-0.2 from run
// to run (1024^3 1.79x in a main job's rows, 1.87x paired right after). The
// first round warms up and is not counted.
#include "scaling.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_matrices.h"
#include "median.h"
#include "peers.h"

namespace ridge_bench {
namespace {

struct ScalingShape {
    int64_t m = 0, n = 0, k = 0;
    bool ta = false, tb = false;
    int threads = 2, rounds = 21;
};

bool parse(int argc, char** argv, ScalingShape* s) {
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
    if (argc > 5) s->threads = std::atoi(argv[5]);
    if (argc > 6) s->rounds = std::atoi(argv[6]);
    return s->m > 0 && s->n > 0 && s->k > 0 && s->threads > 1 && s->rounds > 1;
}

// The element a fraction q of the way through the sorted sample.
double quantile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[size_t(q * double(v.size() - 1) + 0.5)];
}

}  // namespace

int scaling_main(int argc, char** argv) {
    ScalingShape s;
    if (!parse(argc, argv, &s)) {
        std::fprintf(stderr, "usage: ridge-bench scaling M N K [NN|NT|TN|TT [THREADS (>= 2) [ROUNDS]]]\n");
        return 2;
    }
    GemmLibrary* ridge = gemm_libraries().front();  // ridge first (peers.h: gemm_libraries)
    const int64_t lda = s.ta ? s.k : s.m, ldb = s.tb ? s.n : s.k;
    const AlignedVector<float> a = random_vector(s.m * s.k, 1), b = random_vector(s.k * s.n, 2);
    AlignedVector<float> c = random_vector(s.m * s.n, 3);
    const double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);

    auto rate = [&](int threads, int calls) {
        ridge->set_threads(threads);
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i)
            ridge->gemm(InputType::f32, s.ta, s.tb, s.m, s.n, s.k, 1.0f, a.data(), lda, b.data(), ldb, 0.0f, c.data(),
                        s.m);
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return flops * calls / sec * 1e-9;
    };
    // Calls per timing: ~50 ms at one thread's rate in a first trial (the team's take less).
    const double trial = rate(1, 1);
    const int calls = std::max(1, int(0.05 * trial * 1e9 / flops));

    std::vector<double> one, team, speedup;
    for (int round = 0; round < s.rounds; ++round) {
        const double alone = rate(1, calls), together = rate(s.threads, calls);
        if (round == 0) continue;  // warm-up
        one.push_back(alone);
        team.push_back(together);
        speedup.push_back(together / alone);
    }
    std::printf("sgemm %lldx%lldx%lld %c%c, ridge on 1 and %d threads, %d rounds of %d call(s) each\n",
                (long long)s.m, (long long)s.n, (long long)s.k, s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', s.threads,
                s.rounds - 1, calls);
    std::printf("1 thread   %.1f GFLOP/s median\n", median(one));
    std::printf("%d threads  %.1f GFLOP/s median\n", s.threads, median(team));
    std::printf("speed-up   %.3f median of the rounds (quartiles %.3f-%.3f)\n", median(speedup),
                quantile(speedup, 0.25), quantile(speedup, 0.75));
    return 0;
}

}  // namespace ridge_bench
