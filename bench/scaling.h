// `ridge-bench scaling`: ridge on one thread against ridge on a team, call by
// call in one process: the thread-scaling figure the core issue asks for
// (2 threads at least 1.8x one), settled as a median of paired ratios.
#pragma once

namespace ridge_bench {

int scaling_main(int argc, char** argv);

}  // namespace ridge_bench
