// The SMI C API (smi.h) with ranks as threads: the paper's listings, every type,
// interleaved channels (the inline fast path must not lose elements when the library
// flushes packets behind its back), and errors that name the bad values.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compat/smi/smi_state.hpp"
#include "interlace/interlace.hpp"
#include "smi.h"

using namespace interlace;

namespace {

// Runs fn on n rank threads, each bound as its thread's SMI runtime.
void run_smi(int n, const std::function<void(int rank)>& fn) {
  run_ranks_as_threads(n, [&](Runtime& rt) {
    compat::smi::bind_thread(&rt);
    SMI_Comm w = SMI_Init(nullptr, nullptr);
    ASSERT_EQ(w, SMI_COMM_WORLD);
    fn(SMI_Comm_rank(w));
    EXPECT_EQ(SMI_Finalize(), SMI_SUCCESS);
    compat::smi::bind_thread(nullptr);
  });
}

// Restores fatal mode even when an assertion fails.
struct ReturnErrors {
  ReturnErrors() { SMI_Set_errhandler(SMI_ERRORS_RETURN); }
  ~ReturnErrors() {
    SMI_Set_errhandler(SMI_ERRORS_ARE_FATAL);
    (void)SMI_Error();
  }
};

}  // namespace

// Listing 1 of the paper at several counts and degrees (eager and credit-based).
TEST(SmiCapi, ListingOneAcrossCountsAndDegrees) {
  run_smi(2, [](int rank) {
    EXPECT_EQ(SMI_Comm_size(SMI_COMM_WORLD), 2);
    for (int n : {0, 1, 7, 1000, 100000}) {
      for (int k : {-1, 1, 16, 4096}) {
        if (k >= 0 && k < 4096 && n > 1000) continue;  // element-wise credits: slow, tested below
        if (rank == 0) {
          SMI_Channel ch = k < 0 ? SMI_Open_send_channel(n, SMI_INT, 1, 0, SMI_COMM_WORLD)
                                 : SMI_Open_send_channel_ad(n, SMI_INT, 1, 0, SMI_COMM_WORLD, k);
          for (int i = 0; i < n; ++i) {
            int data = i * 3 + n;
            SMI_Push(&ch, &data);
          }
          EXPECT_EQ(SMI_Channel_remaining(&ch), 0);
          EXPECT_EQ(ch.impl, nullptr) << "a send channel closes itself at its count";
        } else {
          SMI_Channel ch = k < 0 ? SMI_Open_recv_channel(n, SMI_INT, 0, 0, SMI_COMM_WORLD)
                                 : SMI_Open_receive_channel_ad(n, SMI_INT, 0, 0, SMI_COMM_WORLD, k);
          int bad = 0;
          for (int i = 0; i < n; ++i) {
            int data = -1;
            SMI_Pop(&ch, &data);
            bad += data != i * 3 + n;
            if (i == n / 2) {
              EXPECT_EQ(SMI_Channel_remaining(&ch), n - i - 1);
            }
          }
          EXPECT_EQ(bad, 0) << "n=" << n << " k=" << k;
          EXPECT_EQ(ch.impl, nullptr);
        }
      }
    }
  });
}

template <class T>
void roundtrip_type(int rank, SMI_Datatype type, int port) {
  const int n = 333;
  if (rank == 0) {
    SMI_Channel ch = SMI_Open_send_channel(n, type, 1, port, SMI_COMM_WORLD);
    for (int i = 0; i < n; ++i) {
      T v;
      std::memset(&v, 0, sizeof v);
      std::memcpy(&v, &i, std::min(sizeof v, sizeof i));
      SMI_Push(&ch, &v);
    }
  } else {
    SMI_Channel ch = SMI_Open_recv_channel(n, type, 0, port, SMI_COMM_WORLD);
    EXPECT_EQ(ch.size, sizeof(T)) << SMI_Type_name(type);
    for (int i = 0; i < n; ++i) {
      T v, want;
      std::memset(&want, 0, sizeof want);
      std::memcpy(&want, &i, std::min(sizeof want, sizeof i));
      SMI_Pop(&ch, &v);
      ASSERT_EQ(std::memcmp(&v, &want, sizeof v), 0) << SMI_Type_name(type) << " element " << i;
    }
  }
}

TEST(SmiCapi, EveryDatatype) {
  run_smi(2, [](int rank) {
    roundtrip_type<char>(rank, SMI_BYTE, 1);
    roundtrip_type<signed char>(rank, SMI_CHAR, 2);
    roundtrip_type<short>(rank, SMI_SHORT, 3);
    roundtrip_type<int>(rank, SMI_INT, 4);
    roundtrip_type<long>(rank, SMI_LONG, 5);
    roundtrip_type<unsigned char>(rank, SMI_UCHAR, 6);
    roundtrip_type<unsigned short>(rank, SMI_USHORT, 7);
    roundtrip_type<unsigned>(rank, SMI_UINT, 8);
    roundtrip_type<unsigned long>(rank, SMI_ULONG, 9);
    roundtrip_type<uint16_t>(rank, SMI_FLOAT16, 10);
    roundtrip_type<uint16_t>(rank, SMI_BFLOAT16, 11);
    roundtrip_type<float>(rank, SMI_FLOAT, 12);
    roundtrip_type<double>(rank, SMI_DOUBLE, 13);
  });
  EXPECT_EQ(SMI_Type_size(SMI_DOUBLE), 8u);
  EXPECT_EQ(SMI_Type_size(static_cast<SMI_Datatype>(99)), 0u);
}

// Element-wise ping-pong inside two long channels: each side waits for the reply to
// an element it pushed without a flush, so the element must leave the half-filled
// packet when the rank blocks, even though it was written by the inline fast path.
TEST(SmiCapi, InterleavedLongChannelsDoNotDeadlock) {
  run_smi(2, [](int rank) {
    const int n = 5000;
    const int other = 1 - rank;
    SMI_Channel out = SMI_Open_send_channel(n, SMI_DOUBLE, other, 7, SMI_COMM_WORLD);
    SMI_Channel in = SMI_Open_recv_channel(n, SMI_DOUBLE, other, 7, SMI_COMM_WORLD);
    // A third, idle-then-used channel: its cursor must survive the others' flushes.
    SMI_Channel side = SMI_Open_send_channel(2 * n, SMI_INT, other, 8, SMI_COMM_WORLD);
    SMI_Channel side_in = SMI_Open_recv_channel(2 * n, SMI_INT, other, 8, SMI_COMM_WORLD);
    double x = 0;
    int bad = 0;
    for (int i = 0; i < n; ++i) {
      int s = i;
      SMI_Push(&side, &s);
      if (rank == 0) {
        x = i;
        SMI_Push(&out, &x);
        SMI_Pop(&in, &x);
        bad += x != i + 0.5;
      } else {
        SMI_Pop(&in, &x);
        bad += x != i;
        x += 0.5;
        SMI_Push(&out, &x);
      }
      SMI_Push(&side, &s);
    }
    for (int i = 0; i < 2 * n; ++i) {
      int s = -1;
      SMI_Pop(&side_in, &s);
      bad += s != i / 2;
    }
    EXPECT_EQ(bad, 0);
  });
}

TEST(SmiCapi, PushFlushAndConsecutiveChannelsOnOnePort) {
  run_smi(2, [](int rank) {
    for (int round = 0; round < 50; ++round) {
      if (rank == 0) {
        SMI_Channel ch = SMI_Open_send_channel(3, SMI_FLOAT, 1, 0, SMI_COMM_WORLD);
        float a = round, b = round + 0.25f, c = round + 0.5f;
        SMI_Push_flush(&ch, &a, 1);
        SMI_Push_flush(&ch, &b, 0);
        SMI_Push(&ch, &c);
        SMI_Channel back = SMI_Open_recv_channel(1, SMI_INT, 1, 0, SMI_COMM_WORLD);
        int ack = -1;
        SMI_Pop(&back, &ack);
        EXPECT_EQ(ack, round);
      } else {
        SMI_Channel ch = SMI_Open_receive_channel(3, SMI_FLOAT, 0, 0, SMI_COMM_WORLD);
        float v[3];
        for (float& f : v) SMI_Pop(&ch, &f);
        EXPECT_EQ(v[0], float(round));
        EXPECT_EQ(v[2], round + 0.5f);
        SMI_Channel back = SMI_Open_send_channel(1, SMI_INT, 0, 0, SMI_COMM_WORLD);
        SMI_Push(&back, &round);
      }
    }
  });
}

TEST(SmiCapi, ChannelToSelfAndRingOfFour) {
  run_smi(4, [](int rank) {
    const int size = SMI_Comm_size(SMI_COMM_WORLD);
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    SMI_Channel self_out = SMI_Open_send_channel(10, SMI_LONG, rank, 3, SMI_COMM_WORLD);
    SMI_Channel self_in = SMI_Open_recv_channel(10, SMI_LONG, rank, 3, SMI_COMM_WORLD);
    for (long i = 0; i < 10; ++i) SMI_Push(&self_out, &i);
    long sum = 0;
    for (int i = 0; i < 10; ++i) {
      long v;
      SMI_Pop(&self_in, &v);
      sum += v;
    }
    EXPECT_EQ(sum, 45);
    SMI_Channel to = SMI_Open_send_channel(1000, SMI_INT, next, 4, SMI_COMM_WORLD);
    SMI_Channel from = SMI_Open_recv_channel(1000, SMI_INT, prev, 4, SMI_COMM_WORLD);
    int bad = 0;
    for (int i = 0; i < 1000; ++i) {
      int v = rank * 10000 + i;
      SMI_Push(&to, &v);
      SMI_Pop(&from, &v);
      bad += v != prev * 10000 + i;
    }
    EXPECT_EQ(bad, 0);
  });
}

namespace {
void expect_error(int code, const std::vector<std::string>& words) {
  std::string msg = SMI_Error_string();
  EXPECT_EQ(SMI_Error(), code) << msg;
  for (const auto& w : words) EXPECT_NE(msg.find(w), std::string::npos) << "'" << w << "' not in: " << msg;
}
}  // namespace

TEST(SmiCapi, BadArgumentsAreReportedWithTheirValues) {
  ReturnErrors mode;
  run_smi(2, [](int rank) {
    SMI_Channel c = SMI_Open_send_channel(4, static_cast<SMI_Datatype>(42), 1, 0, SMI_COMM_WORLD);
    EXPECT_EQ(c.op, 0);
    expect_error(SMI_ERR_TYPE, {"42"});
    c = SMI_Open_send_channel(-3, SMI_INT, 1, 0, SMI_COMM_WORLD);
    expect_error(SMI_ERR_COUNT, {"-3"});
    c = SMI_Open_send_channel(4, SMI_INT, 5, 0, SMI_COMM_WORLD);
    expect_error(SMI_ERR_RANK, {"5", "2"});
    c = SMI_Open_recv_channel(4, SMI_INT, 0, -7, SMI_COMM_WORLD);
    expect_error(SMI_ERR_PORT, {"-7"});
    c = SMI_Open_recv_channel_ad(4, SMI_INT, 0, 1, SMI_COMM_WORLD, -2);
    expect_error(SMI_ERR_ARG, {"-2"});
    c = SMI_Open_recv_channel(4, SMI_INT, 0, 1, nullptr);
    expect_error(SMI_ERR_COMM, {"NULL"});
    EXPECT_EQ(SMI_Comm_rank(nullptr), -1);
    expect_error(SMI_ERR_COMM, {"NULL"});
    int x = 1;
    SMI_Push(&c, &x);  // c failed to open
    expect_error(SMI_ERR_CHANNEL, {"failed to open"});
    EXPECT_EQ(SMI_Set_errhandler(9), SMI_ERR_ARG);
    expect_error(SMI_ERR_ARG, {"9"});

    // Wrong direction, past the count, and a type mismatch between the two ends.
    if (rank == 0) {
      SMI_Channel s = SMI_Open_send_channel(2, SMI_INT, 1, 5, SMI_COMM_WORLD);
      SMI_Pop(&s, &x);
      expect_error(SMI_ERR_CHANNEL, {"pop from a send channel", "port 5", "rank 1"});
      SMI_Push(&s, &x);
      SMI_Push(&s, &x);
      SMI_Push(&s, &x);
      expect_error(SMI_ERR_COUNT, {"closed", "2"});
      SMI_Channel m = SMI_Open_send_channel(3, SMI_INT, 1, 6, SMI_COMM_WORLD);
      for (int i = 0; i < 3; ++i) SMI_Push(&m, &i);
    } else {
      SMI_Channel r = SMI_Open_recv_channel(2, SMI_INT, 0, 5, SMI_COMM_WORLD);
      SMI_Pop(&r, &x);
      SMI_Pop(&r, &x);
      EXPECT_EQ(SMI_Error(), SMI_SUCCESS);
      SMI_Channel m = SMI_Open_recv_channel(3, SMI_FLOAT, 0, 6, SMI_COMM_WORLD);
      float f;
      SMI_Pop(&m, &f);
      expect_error(SMI_ERR_TYPE, {"int32", "float32"});
      EXPECT_NE(m.impl, nullptr);
      SMI_Close_channel(&m);  // a failed channel is released by hand
      EXPECT_EQ(m.impl, nullptr);
      SMI_Pop(&m, &f);
      expect_error(SMI_ERR_COUNT, {"closed"});
    }
  });
}
