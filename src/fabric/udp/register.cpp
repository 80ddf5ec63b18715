// Registers the reliable UDP fabric (see interlace/fabric/registry.hpp, docs/udp.md).
#include "interlace/fabric/registry.hpp"

namespace interlace::fabric {

void register_fabric_udp(Registry& r) {
  r.add(FabricInfo{
      "udp",
      "reliable UDP datagrams (OMPIF-style window, ZRLMPI handshake for large frames)",
      FabricScope::network,
      5,  // below tcp: auto keeps choosing tcp
      {{"INTERLACE_UDP_ADDR", "(the hostname's address)", "address this rank binds"},
       {"INTERLACE_UDP_PORT", "0 (ephemeral); 2718 with INTERLACE_UDP_PEERS",
        "UDP port (with a peer table: the base port of ZRLMPI's convention)"},
       {"INTERLACE_UDP_PEERS", "(empty: addresses through the store)",
        "static address table host[:port],... one entry per rank"},
       {"INTERLACE_UDP_MTU", "1450", "MTU; payload per datagram = MTU - 28 - 14"},
       {"INTERLACE_UDP_WINDOW", "32", "datagrams in flight per peer"},
       {"INTERLACE_UDP_MODE", "sr", "sr (selective repeat) or gbn (go-back-N)"},
       {"INTERLACE_UDP_PIGGYBACK", "1", "1: acks ride on data going back (0: every ack its own datagram)"},
       {"INTERLACE_UDP_PEER_TIMEOUT", "30", "seconds of silence before a peer is lost"},
       {"INTERLACE_UDP_FAULTS", "(none)",
        "fault injection: drop=,dup=,reorder=,ack_drop=,delay_ms=,down=S:D,seed="}},
      // INTERLACE_ZRLMPI_RANKS is core's (the engine and MPI layer read it too), listed once there.
      make_udp_fabric});
}

}  // namespace interlace::fabric
