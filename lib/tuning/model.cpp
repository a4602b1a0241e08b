// Block sizes from cache geometry (Low et al., TOMS 2016, section 5).
//
// Each cache of W ways, S sets and lines of L bytes is thought of as W
// "ways" of S*L bytes each. The loop around the microkernel reuses one
// KC x NR micro-panel of B out of L1 while MR x KC micro-panels of A stream
// through it, so L1 keeps one way free for C and splits the rest between A
// and B in the ratio MR : NR. The same argument one level up keeps the
// MC x KC block of A in L2 next to a micro-panel of B, and the KC x NC panel
// of B in (this core's share of) L3 next to the block of A.
#include "tuning/model.h"

#include <algorithm>

#include "util/int_math.h"

namespace ridge {
namespace {

int64_t round_down_to(int64_t x, int64_t multiple) { return std::max(multiple, x / multiple * multiple); }

struct Geometry {
    int64_t ways, sets, line;
    explicit Geometry(const CacheLevel& c)
        : ways(std::max(2, c.ways)),
          sets(std::max<int64_t>(1, c.size_bytes / (std::max(2, c.ways) * int64_t{c.line_bytes}))),
          line(c.line_bytes) {}
    int64_t way_bytes() const { return sets * line; }
};

}  // namespace

BlockingParams blocking_from_model(const CacheTopology& topo, int64_t MR, int64_t NR,
                                   int64_t elem_bytes, int64_t min_KC) {
    BlockingParams bp;
    bp.MR = MR;
    bp.NR = NR;

    // KC (eq. for C_Ar): ways of L1 for the A micro-panel, one way kept for C,
    //   C_Ar = floor((W_L1 - 1) / (1 + NR/MR)),  KC = C_Ar * S_L1 * L_L1 / (MR * elem).
    const Geometry l1(topo.l1);
    const int64_t ways_a_l1 = std::max<int64_t>(1, (l1.ways - 1) * MR / (MR + NR));
    const int64_t kc_in_l1 = round_down_to(ways_a_l1 * l1.way_bytes() / (MR * elem_bytes), 8);
    bp.KC = std::max(min_KC, kc_in_l1);

    // MC: ways of L2 for the A block after the B micro-panel and one way for C,
    //   C_Br = ceil(KC*NR*elem / way),  C_Ac = W_L2 - 1 - C_Br,  MC = C_Ac * way / (KC * elem).
    const Geometry l2(topo.l2);
    const int64_t ways_b_l2 = ceil_div(bp.KC * NR * elem_bytes, l2.way_bytes());
    int64_t ways_a_l2 = std::max<int64_t>(1, l2.ways - 1 - ways_b_l2);
    // Where min_KC raised KC past the L1 model, the micro-panel of B no longer
    // stays in L1: it streams from L2 beside every micro-panel of A, with the
    // next one being packed (its source and its buffer) and the columns of C
    // the micro-panel updates. The block of A then gets half of L2, not all
    // but two ways. Measured with AMX bf16 (KC 1024, 32 x 32 tiles, the only
    // such kernel; 2 MiB 16-way L2: MC 512 against the 896 of all but two
    // ways), `PROFILE_A=.. PROFILE_B=.. RIDGE_NUM_THREADS=T ridge-ab LIB LIB2 M
    // N K 11-31 TRANS bf16`, Intel VM: 2048^3 1.055-1.063 (MC 448 / 576 / 704
    // 1.02-1.17 there, all alike against each other), TN 1.071, 1536^3 1.007,
    // 3072 x 1024 x 1024 1.114; 1024^3 0.99-1.04, NT 0.992, 2 threads 1024^3
    // / 2048^3 0.989 / 0.988 (AMX's rate swings by 2x from minute to minute
    // there: the paired rounds' quartiles spread by 5-30%).
    if (bp.KC > kc_in_l1) ways_a_l2 = std::max<int64_t>(1, std::min(ways_a_l2, l2.ways / 2));
    bp.MC = round_down_to(ways_a_l2 * l2.way_bytes() / (bp.KC * elem_bytes), MR);

    // NC: this core's share of L3 for the B panel after the A block and one way,
    //   C_Ac = ceil(MC*KC*elem / way),  C_Bc = W_L3 - 1 - C_Ac,  NC = C_Bc * way / (KC * elem).
    const Geometry l3(topo.l3);
    const int64_t ways_a_l3 = ceil_div(bp.MC * bp.KC * elem_bytes, l3.way_bytes());
    const int64_t ways_b_l3 = std::max<int64_t>(1, l3.ways - 1 - ways_a_l3);
    bp.NC = round_down_to(ways_b_l3 * l3.way_bytes() / (bp.KC * elem_bytes), NR);
    return bp;
}

}  // namespace ridge
