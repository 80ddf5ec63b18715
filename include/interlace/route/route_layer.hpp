// Contract: the route layer (docs/routing-layer.md). A Fabric in front of another that
// makes a routed job: a rank hands frames only to its neighbours in the tables; frames
// for other ranks travel hop by hop (next(cur, dst)) on the pair's virtual channel,
// with credit flow control per link and VC, and keep their final destination.
//  - The engine puts it in front of its fabric when INTERLACE_ROUTES is set and the
//    fabric does not route by itself; the inner fabric must accept transit frames
//    (FabricInit::config.routes_dir non-empty, see validate_header).
//  - Per-pair order holds (one path, one VC, FIFO per channel). A rank whose route to
//    a destination goes through a lost rank reports that destination lost too.
//  - A channel without credit for longer than config.route_watchdog_s is reported as a
//    routing deadlock (naming the dependency cycle) and its destinations are lost.
//  - Destruction is collective: a rank keeps forwarding until every rank is done.
#pragma once
#include <memory>
#include <string>

#include "interlace/core/config.hpp"
#include "interlace/fabric/fabric.hpp"
#include "interlace/fabric/route_table.hpp"

namespace interlace::route {

// Throws Error(invalid_argument) when the table does not match the inner fabric's job.
std::unique_ptr<fabric::Fabric> make_route_layer(std::unique_ptr<fabric::Fabric> inner,
                                                 fabric::RouteTable table, const Config& config);

// One line for logs and `interlace info`: tables file, scheme, vcs, rank's neighbours.
std::string describe_routing(const fabric::RouteTable& table, int rank);

}  // namespace interlace::route
