// Contract between the udp fabric and its ZRLMPI wire mode (docs/zrlmpi.md).
// Peers listed in INTERLACE_ZRLMPI_RANKS are ZRLMPI nodes: they speak ZRLMPI's
// packets (32-byte header framed by 0x96 bytes; SEND_REQUEST, CLEAR_TO_SEND, DATA,
// ACK, ERROR) instead of interlace's reliable-UDP protocol. The fabric owns the
// socket and the address table; it hands every datagram that arrives from a ZRLMPI
// peer's address to the link (continuation datagrams of a DATA message carry no
// header, so the address decides) and routes send() to such a peer through it.
// Everything else (handshake state, retries, reassembly, re-acknowledging a
// duplicate after a lost final ACK) lives behind this interface.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "interlace/core/config.hpp"
#include "interlace/core/error.hpp"
#include "interlace/fabric/fabric.hpp"

namespace interlace::fabric::udp {

inline constexpr uint8_t kZrlMarker = 0x96;        // bytes 0-3 and 28-31 of the header
inline constexpr size_t kZrlHeaderBytes = 32;
inline constexpr uint16_t kZrlDefaultPort = 2718;  // rank r: 2718 + earlier ranks on its host
inline constexpr size_t kZrlMaxDatagram = 1416;    // bytes per datagram, header included

// What the link may ask of the fabric.
class ZrlIo {
 public:
  virtual ~ZrlIo() = default;
  // Sends one datagram to `peer`'s address; false if the socket refused it (the
  // link treats that like a loss and retries on its timer).
  virtual bool send_datagram(int peer, const void* data, size_t len) = 0;
};

class ZrlLink {
 public:
  virtual ~ZrlLink() = default;
  // Fabric::send semantics for a frame addressed to a ZRLMPI peer: ok (copied; the
  // caller may reuse the payload), would_block, unsupported (a frame kind ZRLMPI
  // cannot carry; the error is logged naming the kind), lost_peer.
  virtual Errc send(int peer, const FrameHeader& h, const void* payload, size_t len) = 0;
  // One datagram that arrived from `peer`'s address.
  virtual void on_datagram(int peer, const std::byte* data, size_t len) = 0;
  // Retransmissions and timeouts due at `now_s` (monotonic seconds), delivery of
  // completed messages and handshake events to the sink. Returns frames delivered.
  virtual int progress(FrameSink& sink, double now_s) = 0;
  // Monotonic time of the next timer (for Fabric::wait), or a negative value if none.
  virtual double next_deadline() const = 0;
  // True until ~3.4 s after the last message delivered from a ZRLMPI node: its
  // library resends DATA if our ACK was lost (after 0.1, 1.1 and 2.1 s) and then
  // waits forever, so a closing fabric keeps reading (on_datagram re-acknowledges
  // such duplicates by itself) until this turns false.
  virtual bool lingering(double now_s) const = 0;
};

// `zrl_peers[r]` is true when rank r is a ZRLMPI node.
std::unique_ptr<ZrlLink> make_zrl_link(int self, int size, std::vector<bool> zrl_peers,
                                       ZrlIo& io, const Config& cfg);

// True if the datagram starts with ZRLMPI's four marker bytes.
bool is_zrl_header(const std::byte* data, size_t len) noexcept;

}  // namespace interlace::fabric::udp
