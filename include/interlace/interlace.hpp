// Umbrella header: everything a user program of interlace needs.
//  - core: datatypes, reduction operators, errors (Error and its subclasses)
//  - p2p: Runtime, Communicator (send/recv, probe, dup/split), Request, Status
//  - coll: buffer collectives, their requests, algorithms and selection (coll::)
//  - stream: SMI streaming channels, streaming collectives, in-rank kernels (stream::)
//  - wtime(): the job's clock (virtual seconds on the sim fabric)
// Internal layers (engine, fabric, groups) have their own headers and are not part
// of what a program needs; the C APIs are smi.h and mpi.h.
#pragma once
#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/reduce_op.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/p2p/request.hpp"
#include "interlace/coll/coll.hpp"
#include "interlace/coll/schedule.hpp"
#include "interlace/stream/channel.hpp"
#include "interlace/stream/collectives.hpp"
#include "interlace/stream/kernels.hpp"
#include "interlace/core/job_clock.hpp"

namespace interlace {
// Seconds on the job's clock: virtual time on the sim fabric, wall clock elsewhere
// (the same clock as interlace_wtime and MPI_Wtime).
inline double wtime() { return clock::now(); }
}  // namespace interlace
