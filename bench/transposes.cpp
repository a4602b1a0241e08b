// `ridge-bench transposes M N K [THREADS [ROUNDS]]`
//
// One fp32 GEMM shape in its four transpose pairs, on every installed library
// (ridge first): each round times every (library, pair) once, enough calls
// for ~50 ms each, one after another (each round starting one timing further
// on), and takes each library's TN, NT and TT rate over its own NN rate of
// that round. The medians of those per-round ratios, with their quartiles,
// are what the tool reports, after each round's rates. Rows of a benchmark
// table are timed minutes apart: in the fiftieth session's final main job
// ridge's 1024^3 TT row read 0.94 of its NN row while the same build, NN and
// TT interleaved call by call, ran TT at 0.98 of NN. The first round warms up
// and is not counted.
#include "transposes.h"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "median.h"
#include "paired_call.h"
#include "peers.h"

namespace ridge_bench {

namespace {

constexpr int kPairs = 4;
const char* const kPairNames[kPairs] = {"NN", "TN", "NT", "TT"};

ShapeArgs with_pair(ShapeArgs s, int pair) {
    s.ta = pair == 1 || pair == 3;
    s.tb = pair == 2 || pair == 3;
    return s;
}

// argv[1..]: M N K [THREADS [ROUNDS]].
bool parse(int argc, char** argv, ShapeArgs* s) {
    if (argc < 4 || argc > 6) return false;
    s->m = std::atoll(argv[1]);
    s->n = std::atoll(argv[2]);
    s->k = std::atoll(argv[3]);
    s->threads = argc > 4 ? std::atoi(argv[4]) : 1;
    s->rounds = argc > 5 ? std::atoi(argv[5]) : 11;
    return s->m > 0 && s->n > 0 && s->k > 0 && s->threads > 0 && s->rounds > 1;
}

}  // namespace

int transposes_main(int argc, char** argv) {
    ShapeArgs s;
    if (!parse(argc, argv, &s)) {
        std::fprintf(stderr, "usage: ridge-bench transposes M N K [THREADS [ROUNDS]]\n");
        return 2;
    }
    const std::string own_openblas_core = choose_openblas_core();  // before any peer loads
    const std::vector<GemmLibrary*> libs = gemm_libraries();     // ridge first, all take fp32
    std::vector<PairedCall> calls_of_pair;
    for (int p = 0; p < kPairs; ++p) calls_of_pair.emplace_back(with_pair(s, p));
    const int calls = calls_of_pair[0].calls_per_timing(libs[0], s.threads);  // at ridge's NN rate

    const size_t timings = libs.size() * kPairs;
    // rates[l][p]: library l's rate in pair p, one entry per counted round.
    std::vector<std::vector<std::vector<double>>> rates(libs.size(), std::vector<std::vector<double>>(kPairs));
    for (int round = 0; round < s.rounds; ++round) {
        std::vector<double> now(timings);
        // Each round starts one timing further on: none always runs right after the same one.
        for (size_t i = 0; i < timings; ++i) {
            const size_t t = (size_t(round) + i) % timings;
            now[t] = calls_of_pair[t % kPairs].rate(libs[t / kPairs], s.threads, calls);
        }
        if (round == 0) continue;  // warm-up
        for (size_t t = 0; t < timings; ++t) rates[t / kPairs][t % kPairs].push_back(now[t]);
    }

    std::printf("sgemm %lldx%lldx%lld, TN NT TT against NN, %d thread(s), %d rounds of %d call(s) per timing\n",
                (long long)s.m, (long long)s.n, (long long)s.k, s.threads, s.rounds - 1, calls);
    if (!own_openblas_core.empty())
        std::printf("openblas: picked %s by itself; forced %s\n", own_openblas_core.c_str(),
                    std::getenv("OPENBLAS_CORETYPE"));
    for (size_t r = 0; r < rates[0][0].size(); ++r) {
        std::printf("round %zu:", r + 1);
        for (size_t l = 0; l < libs.size(); ++l) {
            std::printf(" %s", libs[l]->name().c_str());
            for (int p = 0; p < kPairs; ++p) std::printf(" %s %.3f", kPairNames[p], rates[l][p][r]);
        }
        std::printf(" GFLOP/s\n");
    }
    std::printf("%-10s %8s %24s %24s %24s\n", "library", "NN", "TN / NN (quartiles)", "NT / NN (quartiles)",
                "TT / NN (quartiles)");
    for (size_t l = 0; l < libs.size(); ++l) {
        std::printf("%-10s %8.1f", libs[l]->name().c_str(), median(rates[l][0]));
        for (int p = 1; p < kPairs; ++p) {
            std::vector<double> ratio;
            for (size_t r = 0; r < rates[l][p].size(); ++r) ratio.push_back(rates[l][p][r] / rates[l][0][r]);
            std::printf(" %9.3f (%.3f-%.3f)", median(ratio), quantile(ratio, 0.25), quantile(ratio, 0.75));
        }
        std::printf("\n");
    }
    return 0;
}

}  // namespace ridge_bench
