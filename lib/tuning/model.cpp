// Block sizes from cache geometry (Low et al., TOMS 2016, section 5).
//
// Each cache of W ways, S sets and lines of L bytes is thought of as W
// "ways" of S*L bytes each. The loop around the microkernel reuses one
// KC x NR micro-panel of B out of L1 while MR x KC micro-panels of A stream
// through it, so L1 keeps one way free for C and splits the rest between A
// and B in the ratio MR : NR. The same argument one level up keeps the
// MC x KC block of A in L2 next to a micro-panel of B (in at most half of L2:
// below), and the KC x NC panel of B in (this core's share of) L3 next to the
// block of A.
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
    //   C_Br = ceil(KC*NR*elem / way),  C_Ac = W_L2 - 1 - C_Br,  MC = C_Ac * way / (KC * elem),
    // and at most half of L2's ways. The model's C_Ac leaves L2 nothing for
    // what else passes through it while the block is in use: the micro-panels
    // of B streaming in from L3 (the next one prefetched beside the current
    // one), the columns of C read and written back, the source of the next
    // block while it is packed, and on a shared VM whatever its slow spells
    // take. First measured with AMX bf16, where B's micro-panel (64 KiB at KC
    // 1024, 32 x 32 tiles) no longer stays in L1 and streams from L2 beside
    // every micro-panel of A (2 MiB 16-way L2: MC 512 against the 896 of all
    // but two ways), `PROFILE_A=.. PROFILE_B=.. RIDGE_NUM_THREADS=T ridge-ab
    // LIB LIB2 M N K 11-31 TRANS bf16`, Intel VM: 2048^3 1.055-1.063 (MC 448 /
    // 576 / 704 1.02-1.17 there, all alike against each other), TN 1.071,
    // 1536^3 1.007, 3072 x 1024 x 1024 1.114; 1024^3 0.99-1.04, NT 0.992, 2
    // threads 1024^3 / 2048^3 0.989 / 0.988 (AMX's rate swings by 2x from
    // minute to minute there). Then with fp32 on the Zen 5 VM (1 MiB 8-way
    // L2, KC 256: MC 512 against 768, whose 2048 rows ran as 3 blocks of 704;
    // `ridge-ab` with two profiles, 1 thread, 15 rounds): in the host's slow
    // spells (2048^3 at 179-192 GFLOP/s) 2048^3 1.014, 1536^3 1.011, 768^3
    // 1.009 (two blocks of 384 for one of 768; MC 384 there 1.022-1.024),
    // 3072^3 1.033; in its fast ones (2048^3 at 198-202) 2048^3 0.992-1.016
    // over six runs (median 1.003), 768^3 0.994, 3072^3 1.023. 512^3 and
    // 1024^3 run the same blocks as before (one of 512, two of 512). The
    // fast host hides what L2 lacks; the slow one, where ridge had fallen
    // behind oneDNN more than in the fast (0.95-0.97 at 2048^3), does not.
    // The AVX2 kernel there (KC 512: MC 256 for 384) 0.982-1.006 at 768^3
    // and 2048^3, bf16 on vdpbf16ps (MC 512 for 768) 1.001 / 1.004 at 2048^3
    // / 1024^3. On the Intel VM ridge-tune had already taken MC 672 for the
    // AVX2 kernel's 896 (2048^3 +4-5%).
    const Geometry l2(topo.l2);
    const int64_t ways_b_l2 = ceil_div(bp.KC * NR * elem_bytes, l2.way_bytes());
    const int64_t ways_a_l2 = std::max<int64_t>(1, std::min(l2.ways - 1 - ways_b_l2, l2.ways / 2));
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
