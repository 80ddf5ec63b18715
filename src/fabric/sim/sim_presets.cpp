// The preset tables (docs/sim.md has the same table with the derivations). Values
// marked "calibrated" were fitted SimGrid-style: two figures of the paper fix a
// latency and a bandwidth parameter, the paper's other figures validate them
// (tests/sim/sim_smi_figures_test.cpp asserts the validation within 10%).
#include "sim_preset.hpp"

namespace interlace::fabric::sim {

const std::vector<PresetTable>& presets() {
  static const std::vector<PresetTable> tables = {
      {"smi", "SMI on Stratix 10 (Nallatech 520N), four 40 Gbit/s QSFP ports, 32 B packets",
       {
           {"packet_bytes", 32, "SMI sec. 4.2: packets of 32 B"},
           {"payload_bytes", 28, "SMI sec. 4.2: 4 B header + 28 B payload"},
           {"fixed_packets", 1, "SMI sec. 4.2: Push forwards a packet once full (or flushed); a packet is always 32 B"},
           {"frame_header_bytes", 0, "SMI carries its header in each packet's 4 B (sec. 4.2); see docs/sim.md"},
           {"link_gbps", 40, "SMI sec. 5.1: QSFP ports rated at 40 Gbit/s"},
           {"kernel_mhz", 271.7, "calibrated: Fig. 9 (91% of 35 Gbit/s) = 28 B per c(8) cycles"},
           {"inject_c0", 1.4693, "calibrated: Table 4, c(R) = c0 + c1/R fitted on R=1 (5) and R=16 (1.69)"},
           {"inject_c1", 3.5307, "calibrated: Table 4 as above; validated on R=4 (2.5) and R=8 (1.8)"},
           {"r", 8, "SMI sec. 5.3: communication kernels use R = 8 for the microbenchmarks"},
           {"router_cycles", 2, "assumed: one CKR and one CKS stage per hop (sec. 4.3, Fig. 7)"},
           {"link_latency_ns", 703.24, "calibrated: Table 3, 1 and 7 hops: 0.717 us per hop minus serialisation and router"},
           {"send_ns", 0, "SMI sec. 5.3.3: the application pushes into the CKS FIFO directly"},
           {"recv_ns", 76.97, "calibrated: Table 3 intercept 0.084 us minus one injection"},
           {"poll_cycles", 1, "assumed: a Pop polls its FIFO once per kernel cycle"},
           {"buffer_packets", 32, "assumed: CK FIFO depth (not given in the paper)"},
           {"window", 0, "SMI sec. 5.1: the QSFP layer does flow control, no acks"},
       }},
      {"fshmem", "FSHMEM on Intel D5005 (250 MHz x 128 bit datapath), QSFP+ ring, packets 128..1024 B",
       {
           {"packet_bytes", 256, "FSHMEM sec. IV-C: packet sizes 128..1024 B of payload (INTERLACE_SIM_PACKET_BYTES)"},
           {"payload_bytes", 256, "FSHMEM's packet size counts payload; the header is in wire_overhead_bytes"},
           {"fixed_packets", 0, "FSHMEM sec. III: the last packet carries the remainder"},
           {"frame_header_bytes", 0, "the packet header carries the addressing"},
           {"link_gbps", 40, "FSHMEM sec. IV-A: QSFP+ cables (40 Gbit/s after 64b/66b coding)"},
           {"wire_overhead_bytes", 116, "calibrated: Fig. 5, 128 B packets peak at 2621 MB/s on a 40 Gbit/s link"},
           {"kernel_mhz", 250, "FSHMEM sec. IV-B: D5005 at 250 MHz"},
           {"inject_c0", 0, "FSHMEM: the datapath moves payload beats back to back"},
           {"inject_c1", 0, "FSHMEM: no polling parameter"},
           {"inject_bytes_per_cycle", 15.25, "calibrated: Fig. 5, 512 B packets peak at 3813 MB/s = 95.3% of 16 B x 250 MHz"},
           {"r", 1, "FSHMEM: no polling parameter"},
           {"router_cycles", 2, "assumed: one stage in and one out per hop"},
           {"link_latency_ns", 160, "calibrated: Table III, short PUT 0.21 us (command to header at the remote FPGA)"},
           {"send_ns", 0, "FSHMEM: the AM sender starts at the command"},
           {"data_send_ns", 153, "calibrated: Table III, long PUT 0.35 us against short 0.21 us (payload read from memory)"},
           {"recv_ns", 0, "FSHMEM times until the header arrives (Table III)"},
           {"poll_cycles", 1, "assumed: one cycle per poll"},
           {"buffer_packets", 16, "assumed"},
           {"window", 0, "FSHMEM: link-level flow control"},
       }},
      {"accl", "ACCL+ on Alveo U55C, 100 Gbit/s, UDP/TCP/RDMA offload (INTERLACE_SIM_PROTOCOL)",
       {
           {"packet_bytes", 4154, "RoCEv2: 4096 B MTU + 58 B headers/preamble (udp: 1538, tcp: 1538)"},
           {"payload_bytes", 4096, "RoCEv2 MTU 4096 (udp: 1472, tcp: 1460)"},
           {"fixed_packets", 0, "Ethernet frames carry the remainder"},
           {"frame_header_bytes", 0, "ACCL+ sends its own envelope in the first packet"},
           {"link_gbps", 100, "ACCL+ sec. 5: 100 Gb/s network, 95 Gbps peak send/recv"},
           {"kernel_mhz", 250, "ACCL+ sec. 5: CCLO clock (assumed 250 MHz)"},
           {"inject_c0", 1, "one 512-bit beat per cycle (assumed)"},
           {"inject_c1", 0, "no polling parameter"},
           {"r", 1, "no polling parameter"},
           {"router_cycles", 0, "switched network: the switch is in link_latency"},
           {"switched", 1, "ACCL+ sec. 5: every FPGA on one port of a Cisco Nexus 9336C switch"},
           {"link_latency_ns", 1000, "estimated: NIC + switch + NIC (not calibrated)"},
           {"send_ns", 2000, "estimated: CCLO invocation, ACCL+ Fig. 9 (rdma 2 us, udp 2 us, tcp 3 us)"},
           {"recv_ns", 500, "estimated (not calibrated)"},
           {"poll_cycles", 1, "assumed"},
           {"buffer_packets", 64, "assumed"},
           {"window", 0, "rdma/udp: none; tcp: window from the TCP stack (not modelled)"},
       }},
      {"cloudfpga", "cloudFPGA (ZRLMPI, OmpSs@cloudFPGA): 10 GbE, UDP, 1408 B payload frames, window 4",
       {
           {"packet_bytes", 1474, "1408 B + UDP 8 + IP 20 + Ethernet 18 + preamble/gap 20"},
           {"payload_bytes", 1408, "ZRLMPI sec. IV: 1408-byte payload frames"},
           {"fixed_packets", 0, "the last frame carries the remainder"},
           {"frame_header_bytes", 0, "ZRLMPI's own header is in the first frame"},
           {"link_gbps", 10, "cloudFPGA: 10 GbE"},
           {"kernel_mhz", 156.25, "cloudFPGA: 10 GbE shell clock 156.25 MHz"},
           {"inject_c0", 1, "one 64-bit beat per cycle"},
           {"inject_c1", 0, "no polling parameter"},
           {"r", 1, "no polling parameter"},
           {"router_cycles", 0, "switched network: the switch is in link_latency"},
           {"switched", 1, "ZRLMPI sec. V-A: 32 FPGAs on one leaf switch (Intel FM6000), 10GbE each"},
           {"link_latency_ns", 2000, "estimated: data-centre switch path (not calibrated)"},
           {"send_ns", 1000, "estimated (not calibrated)"},
           {"recv_ns", 1000, "estimated (not calibrated)"},
           {"poll_cycles", 1, "assumed"},
           {"buffer_packets", 4, "OmpSs@cloudFPGA / ZRLMPI: window of 4 frames"},
           {"window", 4, "ZRLMPI: at most 4 frames in flight before an acknowledgement"},
       }},
  };
  return tables;
}

std::string preset_names() {
  std::string s;
  for (const auto& p : presets()) s += (s.empty() ? "" : ", ") + std::string(p.name);
  return s;
}

}  // namespace interlace::fabric::sim
