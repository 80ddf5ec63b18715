// A frame whose model has not registered its handler yet on the receiving rank is
// kept and delivered, in order, once the handler exists.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "interlace/engine/context.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;

namespace {

constexpr uint8_t kLateKind = 100;

struct Seen {
  std::vector<int> values;
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
        for (int i = 0; i < 3; ++i) {
          fabric::FrameHeader h;
          h.kind = kLateKind;
          ASSERT_EQ(ctx.send_frame(1, h, &i, sizeof i), Errc::ok);
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

}  // namespace
