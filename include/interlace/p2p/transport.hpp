// Contract: p2p messaging for the other models and layers (collective schedules,
// communicator creation) on internal tags. Internal tags are negative: user receives,
// ANY_TAG included, never match them, so a model's traffic cannot be stolen by the
// application. Ranks are communicator ranks unless a name says world.
//  - internal_isend/irecv: as Communicator::isend/irecv, on an internal tag.
//  - internal_probe: blocks until a message from `source` with `tag` has arrived.
//  - internal_iprobe_world: non-blocking; source is a world rank (models look for
//    stray messages of a given peer, e.g. the collective-mismatch check). Never
//    raises: a peer that finished and left simply has no message.
//  - send_eager_world: one eager frame without a request; the message is buffered
//    (complete) on return. Only for a message eager_ok_world allowed: at most the
//    eager limit and within the eager credit the destination granted us
//    (INTERLACE_EAGER_CREDIT); otherwise use internal_isend (rendezvous).
#pragma once
#include <cstddef>
#include <memory>

#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"
#include "interlace/p2p/request.hpp"

namespace interlace::groups { struct CommState; }

namespace interlace::p2p {

// Tags reserved by the p2p layer itself (communicator creation); models choose
// theirs below kTagModelBase.
inline constexpr int kTagSplit = -2;
inline constexpr int kTagSplitReply = -3;
inline constexpr int kTagModelBase = -16;

Request internal_isend(const std::shared_ptr<groups::CommState>& c, const void* buf, size_t count,
                       Datatype dt, int dest, int tag);
Request internal_irecv(const std::shared_ptr<groups::CommState>& c, void* buf, size_t count,
                       Datatype dt, int source, int tag);
Status internal_probe(const groups::CommState& c, int source, int tag);
bool internal_iprobe_world(const groups::CommState& c, int source_world, int tag, Status* st);

bool eager_ok_world(const groups::CommState& c, int dest_world, size_t bytes);
Errc send_eager_world(const groups::CommState& c, int dest_world, int tag, const void* buf,
                      size_t bytes);

}  // namespace interlace::p2p
