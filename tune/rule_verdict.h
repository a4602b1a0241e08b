// ridge-tune's verdict on a blocked-path rule: whether the plan with it
// replaces the library's built-in answer in the profile (tune/timing.h:
// rule_pays). The rule is one the library leaves off unless a profile turns
// it on, or for the one block of A (one_block_of_a.cpp) the five loops'
// blocks, where the library's answer is the one block.
#pragma once

#include <vector>

namespace ridge_tune {

// The speed-up a rule must show: on a shared VM two equal plans differ by
// about 1% in paired medians.
constexpr double kRuleMinGain = 1.01;

// Whether the rule goes on, from its speed-ups (the geometric mean over the
// shapes) in the measurements taken, in order: the first at least
// kRuleMinGain, and a second one too. One measurement is not enough: the first
// main job on a new Intel VM (family 6 model 207) ran the tuner right after
// the build, the load average at 1.6, and timed the block of A read in place
// at 1.048x of A packed; rerun on a quiet host the same plans gave 0.925-0.934,
// and the library with the profile that run wrote ran 1024^3 at 0.89x and
// 512 x 2048 x 2048 at 0.74x of the same library with A packed (`PROFILE_A=
// PROFILE_B= RIDGE_NUM_THREADS=1 ridge-ab A.so B.so M N K 7-9`). A rule is
// kept off after one measurement that falls short, so the second costs time
// only where the first says yes.
inline bool rule_confirmed(const std::vector<double>& mean_gains) {
    return mean_gains.size() >= 2 && mean_gains[0] >= kRuleMinGain && mean_gains[1] >= kRuleMinGain;
}

// Whether to measure again after these speed-ups: the first one paid and
// there is no second yet.
inline bool rule_needs_second_measurement(const std::vector<double>& mean_gains) {
    return mean_gains.size() == 1 && mean_gains[0] >= kRuleMinGain;
}

}  // namespace ridge_tune
