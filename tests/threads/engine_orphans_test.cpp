// A frame whose model has not registered its handler yet on the receiving rank is
// kept and delivered, in order, once the handler exists.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "interlace/engine/context.hpp"
#include "interlace/interlace.hpp"
#include "common/scoped_env.hpp"

using namespace interlace;

namespace {

constexpr uint8_t kLateKind = 100;

struct Seen {
  std::vector<int> values;
  int lost_reports = 0;
  size_t values_at_loss = 0;  // how many frames the model had when told of the loss
};

void on_late(void* self, const fabric::FrameHeader&, const std::byte* p) {
  int v;
  std::memcpy(&v, p, sizeof v);
  static_cast<Seen*>(self)->values.push_back(v);
}

TEST(EngineOrphans, FramesWaitForALateHandler) {
  for (const char* fabric : {"shm", "tcp"}) {
    run_ranks_as_threads(2, [](Runtime& rt) {
      engine::Context& ctx = rt.context();
      Communicator w = rt.world();
      if (ctx.rank() == 0) {
        {
          // Engine calls hold the lock: with INTERLACE_PROGRESS=thread the progress
          // thread polls the same fabric (make test-tsan runs this test so).
          std::lock_guard<engine::OptionalLock> g(ctx.lock());
          for (int i = 0; i < 3; ++i) {
            fabric::FrameHeader h;
            h.kind = kLateKind;
            ASSERT_EQ(ctx.send_frame(1, h, &i, sizeof i), Errc::ok);
          }
        }
        int go = 1;
        w.send(&go, 1, Datatype::int32, 1, 0);
      } else {
        int go = 0;
        w.recv(&go, 1, Datatype::int32, 0, 0);  // the three frames arrived before this
        Seen seen;
        ctx.set_handler(kLateKind, &on_late, &seen);
        EXPECT_EQ(ctx.wait_until([&] { return seen.values.size() == 3; }, Deadline::after(10)), Errc::ok);
        EXPECT_EQ(seen.values, (std::vector<int>{0, 1, 2}));
      }
    }, fabric);
  }
}

void on_lost(void* self, int peer) {
  auto& s = *static_cast<Seen*>(self);
  if (peer != 0) return;
  ++s.lost_reports;
  s.values_at_loss = s.values.size();
}

// A peer sends frames for a model this rank has not started, then leaves. When the
// model starts, the peer must not look lost until those frames were handed to it (the
// fabric contract: a loss comes after every frame sent before it), and the model must
// still hear of the loss after them. Otherwise a receive posted as the model starts
// fails with lost_peer although its message had arrived.
TEST(EngineOrphans, ALeftPeersFramesComeBeforeItsLoss) {
  for (const char* mode : {"inline", "thread"}) {
    testutil::ScopedEnv env("INTERLACE_PROGRESS", mode);
    for (const char* fabric : {"shm", "tcp"}) {
      SCOPED_TRACE(std::string(mode) + " " + fabric);
      run_ranks_as_threads(2, [](Runtime& rt) {
        engine::Context& ctx = rt.context();
        if (ctx.rank() == 0) {
          std::lock_guard<engine::OptionalLock> g(ctx.lock());
          for (int i = 0; i < 3; ++i) {
            fabric::FrameHeader h;
            h.kind = kLateKind;
            ASSERT_EQ(ctx.send_frame(1, h, &i, sizeof i), Errc::ok);
          }
          return;  // finalizes and leaves
        }
        {
          std::lock_guard<engine::OptionalLock> g(ctx.lock());
          ctx.watch_peer(0);
        }
        ASSERT_EQ(ctx.wait_until([&] { return ctx.peer_lost(0); }, Deadline::after(60)), Errc::ok);
        Seen seen;
        {
          // What a model does as it starts and posts a receive, in one locked stretch.
          std::lock_guard<engine::OptionalLock> g(ctx.lock());
          ctx.set_handler(kLateKind, &on_late, &seen);
          ctx.add_peer_lost_listener(&on_lost, &seen);
          EXPECT_FALSE(ctx.peer_lost(0) && seen.values.empty())
              << "rank 0 looks lost while its frames wait for this model";
        }
        EXPECT_EQ(ctx.wait_until([&] { return seen.lost_reports > 0; }, Deadline::after(60)), Errc::ok)
            << "the model never heard that rank 0 left";
        EXPECT_EQ(seen.values, (std::vector<int>{0, 1, 2}));
        EXPECT_EQ(seen.values_at_loss, 3u);
        EXPECT_TRUE(ctx.peer_lost(0));
      }, fabric);
    }
  }
}

}  // namespace
