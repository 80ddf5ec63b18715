// Contract: C++ programs that also use the SMI C API (smi.h) share one runtime with it.
//  - attach(rt) makes every later SMI call of this process use `rt` (a copy of the
//    handle: both name the same runtime). Call it before SMI_Init, which then only
//    returns SMI_COMM_WORLD. SMI_Finalize finalizes that shared runtime.
//  - runtime() is the runtime SMI calls use now; an invalid Runtime when none.
#pragma once
#include "interlace/p2p/communicator.hpp"

namespace interlace::smi {

void attach(const Runtime& rt);
Runtime runtime();

}  // namespace interlace::smi
