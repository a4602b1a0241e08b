// What ridge-tune writes for a crossover whose search was cut short.
#pragma once

namespace ridge_tune {

// The crossover searches go from small sizes up and stop where a path stops
// keeping up. One that stops earlier (out of its share of the budget, or the
// host slowed) has measured a lower bound only: the path kept up to
// `kept_up_to` (0 or less: no size measured). The profile takes that bound
// only where it goes beyond `fallback`, the library's own figure, which
// applies when the profile has none; at or below it, nothing measured
// contradicts the fallback, and writing the bound would only lower it on
// incomplete evidence. Returns the figure to write, or 0: leave it out.
inline double figure_when_cut_short(double kept_up_to, double fallback) {
    return kept_up_to > fallback ? kept_up_to : 0.0;
}

}  // namespace ridge_tune
