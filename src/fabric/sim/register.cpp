// Registers the simulated fabric (docs/sim.md). Scope host with a priority below shm,
// so INTERLACE_FABRIC=auto never picks it: a job asks for it by name.
#include <algorithm>
#include <cctype>
#include <set>

#include "interlace/fabric/registry.hpp"
#include "sim_preset.hpp"

namespace interlace::fabric {

namespace sim { std::unique_ptr<Fabric> make_sim_fabric(const FabricInit& init); }

namespace {

// Every preset parameter can be overridden as INTERLACE_SIM_<KEY>: list each one, so
// that `interlace info` shows them and does not call a set one a typo.
std::vector<FabricOption> with_parameters(std::vector<FabricOption> opts) {
  std::set<std::string> keys = {"wire_overhead_bytes", "inject_bytes_per_cycle", "data_send_ns", "switched"};
  for (const auto& p : sim::presets())
    for (const auto& param : p.params) keys.insert(param.key);
  for (const std::string& k : keys) {
    std::string var = "INTERLACE_SIM_";
    for (char c : k) var += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto same = [&](const FabricOption& o) { return o.variable == var; };
    if (std::none_of(opts.begin(), opts.end(), same))
      opts.push_back({var, "preset", "preset parameter " + k + " (docs/sim.md#presets)"});
  }
  return opts;
}

}  // namespace

void register_fabric_sim(Registry& r) {
  r.add(FabricInfo{
      "sim",
      "simulated FPGA network in virtual time (SMI, FSHMEM, ACCL+, cloudFPGA presets; docs/sim.md)",
      FabricScope::host,
      -10,
      with_parameters({{"INTERLACE_SIM_PRESET", "smi", "hardware model: smi, fshmem, accl, cloudfpga"},
       {"INTERLACE_SIM_COMPUTE", "none", "time between fabric calls: none, or measured (thread CPU time)"},
       {"INTERLACE_SIM_CPU_SCALE", "1", "measured compute: virtual seconds per CPU second"},
       {"INTERLACE_SIM_R", "preset", "CKS/CKR polling parameter R (smi: 8)"},
       {"INTERLACE_SIM_PROTOCOL", "rdma", "accl: udp, tcp or rdma"},
       {"INTERLACE_SIM_PACKET_BYTES", "preset", "packet size on the wire (fshmem: 128..1024)"},
       {"INTERLACE_SIM_LINK_GBPS", "preset", "link rate; any preset parameter has INTERLACE_SIM_<NAME> (docs/sim.md)"},
       {"INTERLACE_SIM_STALL", "2", "real seconds a rank may keep the baton outside the fabric before the others go on"}}),
      sim::make_sim_fabric});
}

}  // namespace interlace::fabric
