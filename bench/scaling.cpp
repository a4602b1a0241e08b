// `ridge-bench scaling M N K [TRANS [THREADS [ROUNDS [f32|f16|bf16]]]]`
//
// One GEMM shape, ridge alone, on the same matrices: each round times one
// thread and then THREADS threads (default 2), enough calls for ~50 ms each,
// and takes the team's rate over the one thread's. The median of those
// per-round speed-ups, with its quartiles, is what the tool reports, after
// each round's two rates and speed-up (the spread is the point). Two
// separate benchmark rows saw the host at different moments: on the shared
// VMs of this project a team's second vCPU is at times busy with other work,
// and the ratio of two medians timed minutes apart moved by 0.1-0.2 from run
// to run (1024^3 1.79x in a main job's rows, 1.87x paired right after). The
// first round warms up and is not counted.
#include "scaling.h"

#include <cstdio>
#include <vector>

#include "median.h"
#include "paired_call.h"
#include "peers.h"

namespace ridge_bench {

int scaling_main(int argc, char** argv) {
    ShapeArgs s;
    if (!parse_shape_args(argc, argv, 2, &s) || s.threads < 2) {
        std::fprintf(stderr, "usage: ridge-bench scaling M N K [NN|NT|TN|TT [THREADS (>= 2) [ROUNDS [f32|f16|bf16]]]]\n");
        return 2;
    }
    GemmLibrary* ridge = gemm_libraries().front();  // ridge first (peers.h: gemm_libraries)
    PairedCall call(s);
    const int calls = call.calls_per_timing(ridge, 1);  // at one thread's rate (the team's take less)

    std::vector<double> one, team, speedup;
    for (int round = 0; round < s.rounds; ++round) {
        const double alone = call.rate(ridge, 1, calls), together = call.rate(ridge, s.threads, calls);
        if (round == 0) continue;  // warm-up
        one.push_back(alone);
        team.push_back(together);
        speedup.push_back(together / alone);
    }
    std::printf("%s %lldx%lldx%lld %c%c, ridge on 1 and %d threads, %d rounds of %d call(s) each\n",
                s.input == InputType::f32 ? "sgemm" : input_name(s.input), (long long)s.m, (long long)s.n, (long long)s.k, s.ta ? 'T' : 'N', s.tb ? 'T' : 'N', s.threads,
                s.rounds - 1, calls);
    for (size_t r = 0; r < speedup.size(); ++r)
        std::printf("round %zu: 1 thread %.3f, %d threads %.3f GFLOP/s, speed-up %.4f\n", r + 1, one[r], s.threads,
                    team[r], speedup[r]);
    std::printf("1 thread   %.1f GFLOP/s median\n", median(one));
    std::printf("%d threads  %.1f GFLOP/s median\n", s.threads, median(team));
    std::printf("speed-up   %.3f median of the rounds (quartiles %.3f-%.3f)\n", median(speedup),
                quantile(speedup, 0.25), quantile(speedup, 0.75));
    return 0;
}

}  // namespace ridge_bench
