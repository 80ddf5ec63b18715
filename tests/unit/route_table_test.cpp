#include <gtest/gtest.h>

#include "interlace/core/error.hpp"
#include "interlace/fabric/route_table.hpp"

using namespace interlace;
using namespace interlace::fabric;

namespace {

// A ring of 4. all_clockwise: every pair goes clockwise on vc 0: reachable and
// loop-free, but the channel dependencies form the cycle 0->1->2->3->0. Otherwise
// shortest paths (ties clockwise) with a dateline between ranks 3 and 0: a pair whose
// path crosses it travels on vc 1, which breaks every cycle since paths are at most
// half the ring long.
std::string ring4(bool all_clockwise) {
  std::string t = "interlace-routes 1\nranks 4\nvcs 2\nscheme test\n";
  for (int r = 0; r < 4; ++r)
    t += "link " + std::to_string(r) + " 0 " + std::to_string((r + 1) % 4) + " 1\n";
  auto cw = [&](int c, int d) { return all_clockwise || (d - c + 4) % 4 <= 2; };
  for (int c = 0; c < 4; ++c)
    for (int d = 0; d < 4; ++d)
      if (c != d)
        t += "next " + std::to_string(c) + " " + std::to_string(d) + " " +
             std::to_string(cw(c, d) ? (c + 1) % 4 : (c + 3) % 4) + "\n";
  for (int s = 0; s < 4; ++s)
    for (int d = 0; d < 4; ++d)
      if (s != d) {
        bool crosses = cw(s, d) ? d < s : d > s;
        int v = (!all_clockwise && crosses) ? 1 : 0;
        t += "vc " + std::to_string(s) + " " + std::to_string(d) + " " + std::to_string(v) + "\n";
      }
  return t;
}

void expect_error(const std::string& text, const std::string& needle) {
  try {
    parse_route_table(text, "t.txt");
    FAIL() << "accepted; expected an error containing " << needle;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(RouteTable, ParsesPathsPortsAndVcs) {
  RouteTable t = parse_route_table(ring4(false), "t.txt");
  EXPECT_EQ(t.ranks(), 4);
  EXPECT_EQ(t.vcs(), 2);
  EXPECT_EQ(t.path(1, 3), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(t.path(1, 0), (std::vector<int>{1, 0}));
  EXPECT_EQ(t.path(3, 1), (std::vector<int>{3, 0, 1}));
  EXPECT_EQ(t.hops(3, 0), 1);
  EXPECT_EQ(t.port(0, 1), 0);
  EXPECT_EQ(t.port(1, 0), 1);
  EXPECT_FALSE(t.linked(0, 2));
  EXPECT_EQ(t.neighbours(0), (std::vector<int>{1, 3}));
  EXPECT_EQ(t.vc(3, 1), 1);
  EXPECT_EQ(t.vc(0, 3), 1);
  EXPECT_EQ(t.vc(1, 3), 0);
}

TEST(RouteTable, DatelineBreaksTheRingCycle) {
  EXPECT_TRUE(parse_route_table(ring4(false), "t.txt").dependency_cycle().empty());
  RouteTable bad = parse_route_table(ring4(true), "t.txt");
  auto cyc = bad.dependency_cycle();
  ASSERT_EQ(cyc.size(), 4u);
  for (size_t i = 0; i < cyc.size(); ++i) {
    EXPECT_EQ(cyc[i].to, cyc[(i + 1) % cyc.size()].from);
    EXPECT_EQ(cyc[i].to, (cyc[i].from + 1) % 4);
    EXPECT_EQ(cyc[i].vc, 0);
  }
  auto through = bad.cycle_through({2, 3, 0});
  ASSERT_EQ(through.size(), 4u);
  EXPECT_EQ(through.front(), (RouteChannel{2, 3, 0}));
  EXPECT_EQ(RouteTable::describe(through), "2->3 vc0, 3->0 vc0, 0->1 vc0, 1->2 vc0");
  EXPECT_TRUE(bad.cycle_through({2, 3, 1}).empty());
}

TEST(RouteTable, FullyConnectedIsOneHopEverywhere) {
  RouteTable t = RouteTable::fully_connected(5);
  for (int s = 0; s < 5; ++s)
    for (int d = 0; d < 5; ++d)
      if (s != d) EXPECT_EQ(t.hops(s, d), 1);
  EXPECT_TRUE(t.dependency_cycle().empty());
}

TEST(RouteTable, BadTablesNameFileLineAndValue) {
  expect_error("", "expected the header");
  expect_error("interlace-routes 2\n", "t.txt:1");
  expect_error("interlace-routes 1\nranks 2\nlink 0 0 0 1\n", "to itself");
  expect_error("interlace-routes 1\nranks 3\nlink 0 0 1 0\nlink 0 0 2 0\n", "port 0 of rank 0 is used twice");
  expect_error("interlace-routes 1\nranks 2\nlink 0 0 5 0\n", "rank 5 is outside the 2 ranks");
  expect_error("interlace-routes 1\nranks 3\nlink 0 0 1 0\nnext 0 2 2\n", "t.txt:4: next hop 2 is not a neighbour of rank 0");
  expect_error("interlace-routes 1\nvcs 9\n", "vcs 9 is outside 1..8");
  expect_error("interlace-routes 1\nranks 2\nlink 0 0 1 0\nnext 0 1 1\nnext 1 0 0\nvc 0 1 0\n",
               "no vc for the pair 1 -> 0");
  expect_error("interlace-routes 1\nranks 2\nlink 0 0 1 0\nnext 0 1 1\nvc 0 1 0\nvc 1 0 0\n",
               "no route from rank 1 to 0");
  expect_error("interlace-routes 1\nranks 2\nfrobnicate 1\n", "unknown entry 'frobnicate'");
  // 0 -> 2 bounces between 0 and 1 forever
  expect_error("interlace-routes 1\nranks 3\nlink 0 0 1 0\nlink 1 1 2 0\n"
               "next 0 1 1\nnext 0 2 1\nnext 1 0 0\nnext 1 2 0\nnext 2 0 1\nnext 2 1 1\n"
               "vc 0 1 0\nvc 0 2 0\nvc 1 0 0\nvc 1 2 0\nvc 2 0 0\nvc 2 1 0\n",
               "loop");
  EXPECT_THROW(load_route_table("/nonexistent/dir"), Error);
}
