// Registers the simulated fabric (docs/sim.md). Scope host with a priority below shm,
// so INTERLACE_FABRIC=auto never picks it: a job asks for it by name.
#include "interlace/fabric/registry.hpp"

namespace interlace::fabric {

namespace sim { std::unique_ptr<Fabric> make_sim_fabric(const FabricInit& init); }

void register_fabric_sim(Registry& r) {
  r.add(FabricInfo{
      "sim",
      "simulated FPGA network in virtual time (SMI, FSHMEM, ACCL+, cloudFPGA presets; docs/sim.md)",
      FabricScope::host,
      -10,
      {{"INTERLACE_SIM_PRESET", "smi", "hardware model: smi, fshmem, accl, cloudfpga"},
       {"INTERLACE_SIM_COMPUTE", "none", "time between fabric calls: none, or measured (thread CPU time)"},
       {"INTERLACE_SIM_CPU_SCALE", "1", "measured compute: virtual seconds per CPU second"},
       {"INTERLACE_SIM_R", "preset", "CKS/CKR polling parameter R (smi: 8)"},
       {"INTERLACE_SIM_PROTOCOL", "rdma", "accl: udp, tcp or rdma"},
       {"INTERLACE_SIM_PACKET_BYTES", "preset", "packet size on the wire (fshmem: 128..1024)"},
       {"INTERLACE_SIM_LINK_GBPS", "preset", "link rate; any preset parameter has INTERLACE_SIM_<NAME> (docs/sim.md)"},
       {"INTERLACE_SIM_STALL", "2", "real seconds a rank may keep the baton outside the fabric before the others go on"}},
      sim::make_sim_fabric});
}

}  // namespace interlace::fabric
