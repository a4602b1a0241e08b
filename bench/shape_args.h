// The arguments of the paired tools (`ridge-bench paired`, `ridge-bench
// scaling`): M N K [NN|NT|TN|TT [THREADS [ROUNDS]]].
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

namespace ridge_bench {

struct ShapeArgs {
    int64_t m = 0, n = 0, k = 0;
    bool ta = false, tb = false;
    int threads = 1, rounds = 21;
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
    return s->m > 0 && s->n > 0 && s->k > 0 && s->threads > 0 && s->rounds > 1;
}

}  // namespace ridge_bench
