// The committed tables of the routed multi-process batteries (tests/route/tables/) are
// complete and deadlock-free.
#include <gtest/gtest.h>

#include "interlace/fabric/route_table.hpp"

#ifdef ROUTE_TABLES_DIR
TEST(RouteTables, CommittedTablesAreDeadlockFree) {
  for (const char* name : {"ring8", "torus2x4"}) {
    const auto t = interlace::fabric::load_route_table(std::string(ROUTE_TABLES_DIR) + "/" + name);
    EXPECT_EQ(t.ranks(), 8) << name;
    EXPECT_EQ(interlace::fabric::RouteTable::describe(t.dependency_cycle()), "") << name;
    int longest = 0;
    for (int s = 0; s < 8; ++s)
      for (int d = 0; d < 8; ++d) longest = std::max(longest, s == d ? 0 : t.hops(s, d));
    EXPECT_EQ(longest, name == std::string("ring8") ? 4 : 3) << name << ": shortest paths";
  }
}
#endif
