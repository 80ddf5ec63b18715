// The sim fabric's hardware models (docs/sim.md). A preset is a table of named
// parameters, each with the source it comes from (paper + section/table, or the
// figure it was calibrated to); any parameter can be overridden with
// INTERLACE_SIM_<NAME> (upper case). Read once per fabric from the environment.
#pragma once
#include <string>
#include <vector>

namespace interlace::fabric::sim {

struct Param {
  const char* key;     // "link_gbps"
  double value;
  const char* source;  // where the value comes from
};

struct PresetTable {
  const char* name;
  const char* summary;
  std::vector<Param> params;
};

const std::vector<PresetTable>& presets();
std::string preset_names();  // "smi, fshmem, accl, cloudfpga"

// The model the simulator runs, in picoseconds and bytes, after overrides.
struct Model {
  std::string preset;
  double packet_bytes = 32;     // bytes on the wire per full packet
  double payload_bytes = 28;    // payload bytes per packet
  bool fixed_packets = true;    // a short last packet still costs a whole packet
  double frame_header_bytes = 0;  // bytes of interlace's frame header charged per frame
  double link_ps_per_packet = 0;  // serialisation of one full packet on a link
  double link_payload_ps = 0;   // the payload's part of link_ps_per_packet
  double link_latency_ps = 0;
  double router_ps = 0;         // per hop: CKR -> CKS forwarding
  double inject_ps = 0;         // per packet at the sender's CKS, c(R) cycles
  double inject_payload_ps = 0; // the payload's part of inject_ps (per-byte datapath)
  double send_ps = 0;           // sender endpoint before the first packet leaves
  double data_send_ps = 0;      // more for a frame whose payload is read from memory
                                // (every frame but a PGAS short active message)
  double recv_ps = 0;           // receiver endpoint after the last packet arrives
  double poll_ps = 0;           // a progress() that finds nothing
  double buffer_packets = 32;   // per link and VC: packets the downstream buffer holds
  double window = 0;            // frames in flight per pair before an ack (0: none)
  bool switched = false;        // ranks hang off one switch (one port each) instead of
                                // direct links per pair
  int R = 8;
  double kernel_hz = 0;
  bool measured_compute = false;
  double cpu_scale = 1;
  double stall_s = 2;           // real seconds a rank may hold the baton outside the fabric
  std::string protocol;         // accl: udp|tcp|rdma
};

// Builds the model from INTERLACE_SIM_PRESET (default smi) and the overrides.
// Throws Error(invalid_argument) naming an unknown preset (listing the known ones) or a
// bad value and its variable.
Model model_from_env();

}  // namespace interlace::fabric::sim
