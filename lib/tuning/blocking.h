// The block sizes of the five-loop GEMM, in BLIS's letters.
#pragma once

#include <cstdint>

namespace ridge {

struct BlockingParams {
    int64_t MR = 0;  // rows of the register tile (microkernel)
    int64_t NR = 0;  // columns of the register tile
    int64_t KC = 0;  // depth of a packed panel: B micro-panel KC x NR stays in L1
    int64_t MC = 0;  // rows of the packed A block: MC x KC stays in L2
    int64_t NC = 0;  // columns of the packed B panel: KC x NC stays in L3
};

}  // namespace ridge
