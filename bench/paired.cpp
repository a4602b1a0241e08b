// `ridge-bench paired M N K [TRANS [THREADS [ROUNDS]]]`
//
// One sgemm shape, ridge and every installed peer on the same matrices, in
// rounds: each round times every library once (enough calls for ~50 ms each),
// one after another, and takes ridge's rate over each peer's. The medians of
// those per-round ratios are what the tool reports, after each round's rates:
// on a shared VM whose speed drifts by 5-10% over minutes, the two rates of a
// round saw the same host, where two separate benchmark runs did not. The
// first round warms up and is not counted. OpenBLAS at its best, as in the
// main run (choose_openblas_core).
#include "paired.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "median.h"
#include "paired_call.h"
#include "peers.h"

namespace ridge_bench {

int paired_main(int argc, char** argv) {
    ShapeArgs s;
    if (!parse_shape_args(argc, argv, 1, &s)) {
        std::fprintf(stderr, "usage: ridge-bench paired M N K [NN|NT|TN|TT [THREADS [ROUNDS]]]\n");
        return 2;
    }
    const std::string own_openblas_core = choose_openblas_core();  // before any peer loads
    const std::vector<GemmLibrary*> libs = gemm_libraries();
    PairedCall call(s);
    const int calls = call.calls_per_timing(libs[0], s.threads);  // at ridge's rate

    std::vector<std::vector<double>> rates(libs.size());
    std::vector<std::vector<double>> ratios(libs.size());
    for (int round = 0; round < s.rounds; ++round) {
        std::vector<double> now(libs.size());
        for (size_t l = 0; l < libs.size(); ++l) now[l] = call.rate(libs[l], s.threads, calls);
        if (round == 0) continue;  // warm-up
        for (size_t l = 0; l < libs.size(); ++l) {
            rates[l].push_back(now[l]);
            ratios[l].push_back(now[0] / now[l]);
        }
    }
    std::printf("sgemm %lldx%lldx%lld %c%c, %d thread(s), %d rounds of %d call(s) per library\n",
                (long long)s.m, (long long)s.n, (long long)s.k, s.ta ? 'T' : 'N', s.tb ? 'T' : 'N',
                s.threads, s.rounds - 1, calls);
    if (!own_openblas_core.empty())
        std::printf("openblas: picked %s by itself; forced %s\n", own_openblas_core.c_str(),
                    std::getenv("OPENBLAS_CORETYPE"));
    for (size_t r = 0; r < rates[0].size(); ++r) {
        std::printf("round %zu:", r + 1);
        for (size_t l = 0; l < libs.size(); ++l) std::printf(" %s %.3f", libs[l]->name().c_str(), rates[l][r]);
        std::printf(" GFLOP/s\n");
    }
    std::printf("%-10s %14s %22s\n", "library", "GFLOP/s median", "ridge / it, median");
    for (size_t l = 0; l < libs.size(); ++l)
        std::printf("%-10s %14.1f %22.3f\n", libs[l]->name().c_str(), median(rates[l]), median(ratios[l]));
    return 0;
}

}  // namespace ridge_bench
