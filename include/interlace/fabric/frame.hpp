// Contract: the fixed, versioned frame header every fabric carries in front of
// a payload (docs/wire.md has the byte layout and a test vector). All fields
// are little-endian; the struct is exactly 48 bytes so that a header plus an
// 8-byte payload plus the shm slot word fit in one 64-byte cache line.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace interlace::fabric {

inline constexpr uint16_t kFrameMagic = 0x494c;  // "IL"
inline constexpr uint8_t kWireVersion = 1;

// Frame kinds. 0-15 engine/p2p, 16-31 stream, 32-47 coll, 48-63 pgas, 64-79 task.
enum FrameKind : uint8_t {
  kKindInvalid = 0,
  kKindP2pEager = 1,   // payload = message bytes; aux = sender request cookie if sync
  kKindP2pRts = 2,     // rendezvous request-to-send; payload = RtsInfo
  kKindP2pCts = 3,     // receiver -> sender: clear to send (copying fabrics); payload = CtsInfo
  kKindP2pData = 4,    // sender -> receiver chunk; aux = receiver cookie, tag field = 0, seq = chunk index
  kKindP2pFin = 5,     // receiver -> sender: rendezvous done; aux = sender cookie
  kKindP2pAck = 6,     // receiver -> sender: synchronous eager send matched; aux = cookie
  kKindP2pCredit = 7,  // receiver -> sender: eager credit returned; aux = bytes, no payload
  kKindRoute = 8,      // route layer (docs/routing-layer.md): flags = RouteOp; never reaches
                       // the engine. credit: seq = vc, aux = count; notices: aux = rank
  kKindP2pCancel = 9,     // sender -> receiver: drop my unmatched rendezvous send; aux = sender cookie
  kKindP2pCancelAck = 10, // receiver -> sender: aux = sender cookie; flags 1 = dropped, 0 = matched
  kKindEngineMax = 15,
  kKindCount = 128,
};

// Route layer operations (kKindRoute's flags). credit, lost, complete and deadlock go
// to a neighbour only (src = sender, dst = neighbour); fin travels the pair's route.
enum RouteOp : uint8_t {
  kRouteCredit = 1,    // seq = vc, aux = frames freed on that link and vc
  kRouteLost = 2,      // flood: aux = a rank found lost
  kRouteFin = 3,       // src -> dst along the route: src sends nothing more to dst
  kRouteComplete = 4,  // flood: aux = a rank that received every fin
  kRouteDeadlock = 5,  // flood: comm = from, aux = to, seq = vc of the stuck channel
};

// P2pEager flag: the message came from a peer whose wire carries no tag (a ZRLMPI
// node, docs/zrlmpi.md); it matches a receive with any non-negative tag.
inline constexpr uint8_t kFlagP2pAnyTag = 0x01;

struct FrameHeader {
  uint16_t magic = kFrameMagic;
  uint8_t version = kWireVersion;
  uint8_t kind = kKindInvalid;
  uint8_t dtype = 0;      // interlace::Datatype of the payload elements
  uint8_t flags = 0;      // kind-specific
  uint16_t reserved = 0;
  uint32_t src = 0;       // world rank of the origin
  uint32_t dst = 0;       // world rank of the final destination (routing)
  uint64_t comm = 0;      // communicator id
  int32_t tag = 0;        // p2p tag or stream port; negative = internal traffic
  uint32_t seq = 0;       // per-kind sequence number
  uint64_t len = 0;       // payload bytes following this header
  uint64_t aux = 0;       // kind-specific (cookies, offsets, totals)
};
static_assert(sizeof(FrameHeader) == 48, "wire header must stay 48 bytes");

// Checks magic, version, kind range and that dst == self and src < size and
// len <= max_len. Returns empty string if valid, else a description naming the bad field.
// `transit`: the job is routed (INTERLACE_ROUTES), so a neighbour hands this rank frames
// for others to forward: dst need only be a rank of the job.
std::string validate_header(const FrameHeader& h, uint32_t self, uint32_t size,
                            uint64_t max_len, bool transit = false);

}  // namespace interlace::fabric
