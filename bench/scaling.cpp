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
#include "shape_args.h"

namespace ridge_bench {

int scaling_main(int argc, char** argv) {
    ShapeArgs s;
    if (!parse_shape_args(argc, argv, 2, &s) || s.threads < 2) {
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
