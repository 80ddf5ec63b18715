// Send cancel (P2pCancel/P2pCancelAck) and matched probes (claim), on shm and tcp.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "interlace/interlace.hpp"
#include "interlace/p2p/matched.hpp"

using namespace interlace;

namespace {

class P2pCancel : public ::testing::TestWithParam<std::string> {};

constexpr size_t kBig = 1 << 20;  // above the eager limit: rendezvous

TEST_P(P2pCancel, UnmatchedLargeSendIsWithdrawn) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<char> big(kBig, 'x');
    int token = 0;
    if (w.rank() == 0) {
      Request r = w.isend(big.data(), big.size(), Datatype::bytes, 1, 5);
      r.cancel();
      Status st = r.wait();
      EXPECT_TRUE(st.cancelled);
      w.send(&token, 1, Datatype::int32, 1, 6);  // after the cancel completed
      w.recv(&token, 1, Datatype::int32, 1, 6);  // stay up while rank 1 probes (tcp)
    } else {
      w.recv(&token, 1, Datatype::int32, 0, 6);
      EXPECT_FALSE(w.iprobe(0, 5)) << "the cancelled send is still matchable";
      w.send(&token, 1, Datatype::int32, 0, 6);
    }
  }, GetParam());
}

TEST_P(P2pCancel, MatchedSendCompletesUncancelled) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<char> big(kBig, 'y');
    int token = 0;
    if (w.rank() == 0) {
      Request r = w.isend(big.data(), big.size(), Datatype::bytes, 1, 5);
      w.recv(&token, 1, Datatype::int32, 1, 6);  // the receiver has the data
      r.cancel();
      EXPECT_FALSE(r.wait().cancelled);
    } else {
      std::vector<char> in(kBig);
      w.recv(in.data(), in.size(), Datatype::bytes, 0, 5);
      EXPECT_EQ(in[kBig - 1], 'y');
      w.send(&token, 1, Datatype::int32, 0, 6);
    }
  }, GetParam());
}

// The cancel crosses the receiver's match on the wire: the receive took the
// request-to-send (and answered) before the sender, which has not progressed since,
// asks to withdraw it. The reply must say "matched", and the send complete normally.
// (In MatchedSendCompletesUncancelled the send is already done when cancel() runs, so
// the cancel never goes out.)
TEST_P(P2pCancel, CancelCrossingTheMatchCompletesUncancelled) {
  std::atomic<bool> matched{false};
  run_ranks_as_threads(2, [&matched](Runtime& rt) {
    Communicator w = rt.world();
    if (w.rank() == 0) {
      std::vector<char> big(kBig, 'w');
      Request r = w.isend(big.data(), big.size(), Datatype::bytes, 1, 5);
      while (!matched.load()) std::this_thread::yield();  // no progress meanwhile
      r.cancel();
      EXPECT_FALSE(r.wait().cancelled);
    } else {
      std::vector<char> in(kBig);
      w.probe(0, 5);  // the request-to-send is here: the receive below matches it at once
      Request r = w.irecv(in.data(), in.size(), Datatype::bytes, 0, 5);
      matched.store(true);
      Status st = r.wait();
      EXPECT_FALSE(st.cancelled);
      EXPECT_EQ(st.bytes, kBig);
      EXPECT_EQ(in[kBig - 1], 'w');
    }
  }, GetParam());
}

TEST_P(P2pCancel, SynchronousSendAndEagerSend) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    int v = 3, token = 0;
    if (w.rank() == 0) {
      Request s = w.issend(&v, 1, Datatype::int32, 1, 7);
      s.cancel();
      EXPECT_TRUE(s.wait().cancelled);
      Request e = w.isend(&v, 1, Datatype::int32, 1, 8);  // eager: already sent
      e.cancel();
      EXPECT_FALSE(e.wait().cancelled);
      w.send(&token, 1, Datatype::int32, 1, 9);
      w.recv(&token, 1, Datatype::int32, 1, 9);  // stay up while rank 1 probes (tcp)
    } else {
      w.recv(&token, 1, Datatype::int32, 0, 9);
      EXPECT_FALSE(w.iprobe(0, 7));
      int got = 0;
      w.recv(&got, 1, Datatype::int32, 0, 8);
      EXPECT_EQ(got, 3);
      w.send(&token, 1, Datatype::int32, 0, 9);
    }
  }, GetParam());
}

TEST_P(P2pCancel, ClaimedMessageIsHiddenAndReceivedOnce) {
  run_ranks_as_threads(2, [](Runtime& rt) {
    Communicator w = rt.world();
    if (w.rank() == 0) {
      int a = 1, b = 2;
      std::vector<char> big(kBig, 'z');
      w.send(&a, 1, Datatype::int32, 1, 3);
      w.send(&b, 1, Datatype::int32, 1, 3);
      w.send(big.data(), big.size(), Datatype::bytes, 1, 4);
    } else {
      Status st;
      ClaimedMessage m = claim_blocking(w, 0, 3, &st);
      EXPECT_EQ(st.bytes, sizeof(int));
      int x = 0, y = 0;
      w.recv(&y, 1, Datatype::int32, 0, 3);  // the next message, not the claimed one
      receive_claimed(m, &x, sizeof x).wait();
      EXPECT_TRUE(m.empty());
      EXPECT_EQ(x, 1);
      EXPECT_EQ(y, 2);
      ClaimedMessage big;
      while (!try_claim(w, ANY_SOURCE, ANY_TAG, &big, &st)) {}
      EXPECT_EQ(st.tag, 4);
      EXPECT_EQ(st.bytes, kBig);
      EXPECT_FALSE(w.iprobe(ANY_SOURCE, ANY_TAG));
      std::vector<char> in(kBig);
      Status got = receive_claimed(big, in.data(), in.size()).wait();
      EXPECT_EQ(got.bytes, kBig);
      EXPECT_EQ(in[kBig / 2], 'z');
    }
  }, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Fabrics, P2pCancel, ::testing::Values("shm", "tcp"));

}  // namespace
