// `ridge-bench paired`: ridge against each installed peer, call by call in one
// process, for questions a few percent wide that separate runs cannot settle.
#pragma once

namespace ridge_bench {

int paired_main(int argc, char** argv);

}  // namespace ridge_bench
