// `ridge-bench paired M N K [TRANS [THREADS [ROUNDS [f32|f16|bf16]]]]`
//
// One GEMM shape (fp32 inputs unless TYPE says 16-bit ones; peers without
// that type left out), ridge and every installed peer on the same matrices, in
// rounds: each round times every library once (enough calls for ~50 ms each),
// one after another (each round starting one library further on), and takes
// ridge's rate over each peer's. The medians of those per-round ratios are
// what the tool reports, after each round's rates: on a shared VM whose speed
// drifts by 5-10% over minutes, the two rates of a round saw the same host,
// where two separate benchmark runs did not. Then the same ratios in the
// slowest, middle and fastest third of the rounds (print_ratios_by_spell).
// The first round warms up and is not counted. OpenBLAS at its best, as in
// the main run (choose_openblas_core).
#include "paired.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "median.h"
#include "paired_call.h"
#include "peers.h"

namespace ridge_bench {

namespace {

// ridge's ratio to each peer in the slowest, middle and fastest third of the
// rounds, the host's speed in a round gauged by the other peers' rates there
// (their geometric mean; neither ridge nor the peer compared, whose own
// noise would bias the thirds: sorted by the peer's rate, its fast rounds
// would hold the rounds where it happened to run fast). The Intel VM's slow
// spells (in which ridge's k loop slows with its operands in L1 and an FMA
// loop does not) slow the libraries unequally; the medians above mix the
// spells in whatever proportion the run met.
void print_ratios_by_spell(const std::vector<GemmLibrary*>& libs, const std::vector<std::vector<double>>& rates) {
    const size_t rounds = rates[0].size();
    if (libs.size() < 3 || rounds < 6) return;  // no third library to gauge by, or thirds of one round
    std::printf("%-10s %22s %8s %8s   (rounds in thirds by the other peers' rates)\n", "by spell", "ridge / it: slow",
                "middle", "fast");
    for (size_t peer = 1; peer < libs.size(); ++peer) {
        std::vector<std::pair<double, double>> gauged;  // (gauge, ridge / peer) per round
        for (size_t r = 0; r < rounds; ++r) {
            double log_sum = 0;
            int others = 0;
            for (size_t l = 1; l < libs.size(); ++l)
                if (l != peer) log_sum += std::log(rates[l][r]), ++others;
            gauged.emplace_back(std::exp(log_sum / others), rates[0][r] / rates[peer][r]);
        }
        std::sort(gauged.begin(), gauged.end());
        double third_median[3];
        for (size_t t = 0; t < 3; ++t) {
            std::vector<double> ratio;
            for (size_t r = t * rounds / 3; r < (t + 1) * rounds / 3; ++r) ratio.push_back(gauged[r].second);
            third_median[t] = median(ratio);
        }
        std::printf("%-10s %22.3f %8.3f %8.3f\n", libs[peer]->name().c_str(), third_median[0], third_median[1],
                    third_median[2]);
    }
}

}  // namespace

int paired_main(int argc, char** argv) {
    ShapeArgs s;
    if (!parse_shape_args(argc, argv, 1, &s)) {
        std::fprintf(stderr, "usage: ridge-bench paired M N K [NN|NT|TN|TT [THREADS [ROUNDS [f32|f16|bf16]]]]\n");
        return 2;
    }
    const std::string own_openblas_core = choose_openblas_core();  // before any peer loads
    std::vector<GemmLibrary*> libs;  // ridge first
    for (GemmLibrary* lib : gemm_libraries())
        if (lib->supports(s.input)) libs.push_back(lib);
    PairedCall call(s);
    const int calls = call.calls_per_timing(libs[0], s.threads);  // at ridge's rate

    std::vector<std::vector<double>> rates(libs.size());
    std::vector<std::vector<double>> ratios(libs.size());
    for (int round = 0; round < s.rounds; ++round) {
        std::vector<double> now(libs.size());
        // Each round starts one library further on: none always runs right after the same one.
        for (size_t i = 0; i < libs.size(); ++i) {
            const size_t l = (size_t(round) + i) % libs.size();
            now[l] = call.rate(libs[l], s.threads, calls);
        }
        if (round == 0) continue;  // warm-up
        for (size_t l = 0; l < libs.size(); ++l) {
            rates[l].push_back(now[l]);
            ratios[l].push_back(now[0] / now[l]);
        }
    }
    std::printf("%s %lldx%lldx%lld %c%c, %d thread(s), %d rounds of %d call(s) per library\n",
                s.input == InputType::f32 ? "sgemm" : input_name(s.input), (long long)s.m, (long long)s.n,
                (long long)s.k, s.ta ? 'T' : 'N', s.tb ? 'T' : 'N',
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
    print_ratios_by_spell(libs, rates);
    return 0;
}

}  // namespace ridge_bench
