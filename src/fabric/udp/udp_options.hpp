// The udp fabric's settings (docs/udp.md): read from INTERLACE_UDP_* and
// INTERLACE_ZRLMPI_RANKS when a fabric is made (they are registry options, not core
// Config fields). Bad values throw Error(invalid_argument) naming variable and value.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace interlace::fabric::udp {

enum class Mode { sr, gbn };  // selective repeat, go-back-N

// INTERLACE_UDP_FAULTS: applied to every outgoing datagram (tests, loss studies).
struct FaultSpec {
  double drop = 0, dup = 0, reorder = 0, ack_drop = 0;
  double delay_ms = 0;            // each datagram held a random 0..delay_ms
  double down_start_s = -1;       // outage window, seconds after the fabric starts
  double down_len_s = 0;
  uint64_t seed = 1;
  bool any() const { return drop > 0 || dup > 0 || reorder > 0 || ack_drop > 0 || delay_ms > 0 ||
                            down_start_s >= 0; }
};
// Parses "drop=0.1,dup=0.05,..."; throws naming the key or value it cannot accept.
FaultSpec parse_faults(const std::string& text);

struct StaticPeer {
  std::string host;  // as written
  uint16_t port = 0;
};
// Parses INTERLACE_UDP_PEERS ("host[:port],..."): an omitted port is base_port plus
// the number of earlier entries with the same host (ZRLMPI's convention).
std::vector<StaticPeer> parse_peers(const std::string& text, uint16_t base_port);

struct Options {
  std::string addr;                 // INTERLACE_UDP_ADDR
  int port = -1;                    // INTERLACE_UDP_PORT (-1: unset)
  std::vector<StaticPeer> peers;    // INTERLACE_UDP_PEERS (empty: use the store)
  size_t mtu = 1450;                // INTERLACE_UDP_MTU
  int window = 32;                  // INTERLACE_UDP_WINDOW (datagrams in flight per peer)
  Mode mode = Mode::sr;             // INTERLACE_UDP_MODE
  double peer_timeout_s = 30;       // INTERLACE_UDP_PEER_TIMEOUT
  bool piggyback = true;            // INTERLACE_UDP_PIGGYBACK: acks ride on data
  FaultSpec faults;                 // INTERLACE_UDP_FAULTS
  std::vector<int> zrl_ranks;       // INTERLACE_ZRLMPI_RANKS
};

inline constexpr uint16_t kStaticBasePort = 2718;
inline constexpr int kMaxWindow = 1024;

// Reads the environment; `size` checks the rank lists.
Options options_from_env(int size);

}  // namespace interlace::fabric::udp
