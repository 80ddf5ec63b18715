#pragma once
// The CPUs a job shares on this host, as `interlace run` tells its ranks
// (docs/launcher.md, "Binding").
#include <vector>

namespace interlace {

// INTERLACE_HOST_CPUS: the CPUs the job's ranks share on this host (a list like
// 0-3,8), which a rank bound to one core no longer sees in its own mask. Sorted,
// empty when unset; throws Error(invalid_argument) naming a malformed value.
std::vector<int> host_cpus_from_env();

}  // namespace interlace
