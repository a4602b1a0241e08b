// `ridge-bench transposes`: each library's TN, NT and TT against its own NN,
// call by call in one process: the core issue's "within 5% of NN" figure,
// settled as a median of per-round ratios.
#pragma once

namespace ridge_bench {

int transposes_main(int argc, char** argv);

}  // namespace ridge_bench
