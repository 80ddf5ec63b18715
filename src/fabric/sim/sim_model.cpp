// Turns a preset table plus INTERLACE_SIM_* overrides into the simulator's Model.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "interlace/core/error.hpp"
#include "sim_preset.hpp"

namespace interlace::fabric::sim {

namespace {

std::string env(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  return v ? v : "";
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string shown(double v) {  // 1 and 1e+09, not 1.000000 and 1000000000.000000
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

double number(const std::string& var, const std::string& text, double lo, double hi) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
    throw_error(Errc::invalid_argument, var + "=" + text + ": expected a number in [" + shown(lo) +
                                            ", " + shown(hi) + "]");
  return v;
}

}  // namespace

Model model_from_env() {
  Model m;
  m.preset = env("INTERLACE_SIM_PRESET");
  if (m.preset.empty()) m.preset = "smi";
  const PresetTable* table = nullptr;
  for (const auto& p : presets())
    if (m.preset == p.name) table = &p;
  if (!table)
    throw_error(Errc::invalid_argument, "INTERLACE_SIM_PRESET=" + m.preset +
                                            ": unknown preset (known: " + preset_names() + ")");
  std::map<std::string, double> v = {
      {"wire_overhead_bytes", 0}, {"inject_bytes_per_cycle", 0}, {"data_send_ns", 0}, {"switched", 0}};
  for (const auto& p : table->params) v[p.key] = p.value;
  if (m.preset == "accl") {
    m.protocol = env("INTERLACE_SIM_PROTOCOL");
    if (m.protocol.empty()) m.protocol = "rdma";
    if (m.protocol == "udp") {
      v["packet_bytes"] = 1538, v["payload_bytes"] = 1472;
    } else if (m.protocol == "tcp") {
      v["packet_bytes"] = 1538, v["payload_bytes"] = 1460, v["send_ns"] = 3000;
    } else if (m.protocol != "rdma") {
      throw_error(Errc::invalid_argument, "INTERLACE_SIM_PROTOCOL=" + m.protocol +
                                              ": unknown protocol (known: udp, tcp, rdma)");
    }
  }
  // Every table key can be overridden: INTERLACE_SIM_LINK_GBPS, INTERLACE_SIM_R, ...
  for (auto& [key, value] : v) {
    const std::string var = "INTERLACE_SIM_" + upper(key);
    if (std::string s = env(var); !s.empty()) value = number(var, s, key == "r" ? 1 : 0, 1e9);
  }
  if (m.preset == "fshmem" && !env("INTERLACE_SIM_PACKET_BYTES").empty()) {
    if (v["packet_bytes"] < 128 || v["packet_bytes"] > 1024)
      throw_error(Errc::invalid_argument, "INTERLACE_SIM_PACKET_BYTES=" +
                                              env("INTERLACE_SIM_PACKET_BYTES") +
                                              ": fshmem packets are 128..1024 B");
    // FSHMEM's packet size counts payload; its header is in wire_overhead_bytes.
    if (env("INTERLACE_SIM_PAYLOAD_BYTES").empty()) v["payload_bytes"] = v["packet_bytes"];
  }
  if (v["payload_bytes"] < 1 || v["payload_bytes"] > v["packet_bytes"])
    throw_error(Errc::invalid_argument, "sim: payload_bytes " + std::to_string(v["payload_bytes"]) +
                                            " must be in [1, packet_bytes]");
  if (v["link_gbps"] <= 0 || v["kernel_mhz"] <= 0)
    throw_error(Errc::invalid_argument, "sim: link_gbps and kernel_mhz must be positive");
  const double cycle_ps = 1e6 / v["kernel_mhz"];
  m.kernel_hz = v["kernel_mhz"] * 1e6;
  m.R = static_cast<int>(v["r"]);
  m.packet_bytes = v["packet_bytes"];
  m.payload_bytes = v["payload_bytes"];
  m.fixed_packets = v["fixed_packets"] != 0;
  m.frame_header_bytes = v["frame_header_bytes"];
  m.link_ps_per_packet = (m.packet_bytes + v["wire_overhead_bytes"]) * 8 / v["link_gbps"] * 1e3;
  m.link_latency_ps = v["link_latency_ns"] * 1e3;
  m.router_ps = v["router_cycles"] * cycle_ps;
  // A datapath that moves inject_bytes_per_cycle of payload per cycle adds the packet's
  // payload to the fixed per-packet cost c(R).
  const double per_cycle = v["inject_bytes_per_cycle"];
  m.inject_ps = (v["inject_c0"] + v["inject_c1"] / m.R + (per_cycle > 0 ? m.payload_bytes / per_cycle : 0)) *
                cycle_ps;
  m.inject_payload_ps = (per_cycle > 0 ? m.payload_bytes / per_cycle : 0) * cycle_ps;
  m.link_payload_ps = m.payload_bytes * 8 / v["link_gbps"] * 1e3;
  m.send_ps = v["send_ns"] * 1e3;
  m.data_send_ps = v["data_send_ns"] * 1e3;
  m.recv_ps = v["recv_ns"] * 1e3;
  m.poll_ps = v["poll_cycles"] * cycle_ps;
  m.buffer_packets = std::max(1.0, v["buffer_packets"]);
  m.window = v["window"];
  m.switched = v["switched"] != 0;

  const std::string compute = env("INTERLACE_SIM_COMPUTE");
  if (compute == "measured") m.measured_compute = true;
  else if (!compute.empty() && compute != "none")
    throw_error(Errc::invalid_argument, "INTERLACE_SIM_COMPUTE=" + compute + ": expected none or measured");
  if (std::string s = env("INTERLACE_SIM_CPU_SCALE"); !s.empty())
    m.cpu_scale = number("INTERLACE_SIM_CPU_SCALE", s, 0, 1e6);
  if (std::string s = env("INTERLACE_SIM_STALL"); !s.empty())
    m.stall_s = number("INTERLACE_SIM_STALL", s, 0.001, 1e6);
  return m;
}

}  // namespace interlace::fabric::sim
