// What ridge-tune writes for a crossover whose search was cut short.
#pragma once

namespace ridge_tune {

// The crossover searches go from small sizes up and stop where a path stops
// keeping up. One that stops earlier (out of its share of the budget, or the
// host slowed) has measured a lower bound only: the path kept up to
// `kept_up_to` (0 or less: no size measured). The profile takes that bound
// where it goes beyond `fallback`, the library's own figure, which applies
// when the profile has none. At or below it the bound is written only where
// the run saw the path fall short at a size within the fallback
// (`fell_short_within_fallback`: a search that goes on past one such size,
// as the small path's does, may then run out of time): that measurement
// contradicts the fallback, and a limit too low costs the little the path
// still gained near its crossover where one too high costs what it loses
// past it. Else nothing measured contradicts the fallback, and writing the
// bound would only lower it on incomplete evidence. Found on the Intel VM of
// model 207: the small path's team fell short at 160^3 (0.948x the blocked
// team, twice), kept up at 192^3, and the search ran out of time at 256^3;
// the profile had no team limit, so the library's 640^3 (measured on the
// Zen 4) applied, where the blocked team ran ahead of the small path's from
// 256^3 on (a profile with the team's limit at 160^3 against one at 640^3,
// `PROFILE_A=P640 PROFILE_B=P160 RIDGE_NUM_THREADS=2 ridge-ab LIB LIB2 M N K
// 9`, two copies of one build: 256^3 1.030, 384^3 1.096, 512^3 1.089, 512 x
// 96 x 1000 1.508). Returns the figure to write, or 0: leave it out.
inline double figure_when_cut_short(double kept_up_to, double fallback, bool fell_short_within_fallback) {
    if (kept_up_to > fallback) return kept_up_to;
    return fell_short_within_fallback && kept_up_to > 0.0 ? kept_up_to : 0.0;
}

// A size of a crossover search (search.cpp: the small path's, with A off and
// on lines, and the skinny path's widths) none of whose measurements counted,
// the host slowed through them (HostSpeed), says nothing: the search skips it
// and goes on, and only this many such sizes in a row cut it short. Cut short
// at the first, the skinny search ended at 32 or 48 columns in every tuner
// run on the Zen 5 VM, whose read probe stood at 64-94% of its fastest for
// much of every run, and the small path's searches seldom got past
// 96^3-160^3; one run put the team's limit at 112^3 (the
// small path's team 0.905x the blocked team's at 128^3, then 160^3 slowed),
// where with the library's own 640^3 the small path's team ran 1.04-1.10x
// the blocked team's at 160^3-640^3 in one spell of the host and 0.98-1.03x
// in another, 0.95x at 128^3 (A 16 bytes past a line; `OFFSET=4 PROFILE_A=P
// PROFILE_B=P_TEAM640 RIDGE_NUM_THREADS=2 ridge-ab LIB LIB2 n n n 11`, two
// copies of one build).
constexpr int kSlowedSizesThatCutASearchShort = 2;

class SlowedSizes {
public:
    // After a size: whether any of its measurements counted. True: cut the search short here.
    bool cut_short_after(bool counted) {
        in_a_row_ = counted ? 0 : in_a_row_ + 1;
        return in_a_row_ >= kSlowedSizesThatCutASearchShort;
    }

private:
    int in_a_row_ = 0;
};

}  // namespace ridge_tune
