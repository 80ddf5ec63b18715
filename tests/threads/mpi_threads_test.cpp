// MPI_THREAD_MULTIPLE in one process (a singleton MPI job), for ThreadSanitizer: threads
// in MPI at once (sends and receives between threads of the rank, matched probes,
// collectives on per-thread communicators, a generalized request completed by another
// thread, partitions marked by several threads). The only test of this binary that
// calls MPI_Init: MPI state is per process. tests/mpi/conf_threads.c covers several ranks.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "mpi.h"

namespace {

constexpr int kThreads = 4;

TEST(MpiThreadMultiple, ThreadsInMpiAtOnce) {
  int provided = -1;
  ASSERT_EQ(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided), MPI_SUCCESS);
  ASSERT_EQ(provided, MPI_THREAD_MULTIPLE);
  std::vector<MPI_Comm> comms(kThreads);
  for (MPI_Comm& c : comms) MPI_Comm_dup(MPI_COMM_WORLD, &c);
  std::vector<int> bad(kThreads, 0);
  std::vector<std::thread> th;
  // Thread t sends to thread (t+1) % kThreads of the same rank, by tag; receives block.
  for (int t = 0; t < kThreads; ++t) {
    th.emplace_back([t, &bad, &comms] {
      for (int it = 0; it < 200; ++it) {
        int out = t * 1000 + it, in = -1;
        const int to = (t + 1) % kThreads, from = (t + kThreads - 1) % kThreads;
        MPI_Request r;
        MPI_Isend(&out, 1, MPI_INT, 0, 100 + to, MPI_COMM_WORLD, &r);
        if (it % 2) {
          MPI_Recv(&in, 1, MPI_INT, 0, 100 + t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          MPI_Message m;
          MPI_Mprobe(0, 100 + t, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
          MPI_Mrecv(&in, 1, MPI_INT, &m, MPI_STATUS_IGNORE);
        }
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (in != from * 1000 + it) bad[t]++;
        int sum = 0;
        MPI_Allreduce(&out, &sum, 1, MPI_INT, MPI_SUM, comms[t]);
        if (sum != out) bad[t]++;
      }
    });
  }
  for (std::thread& x : th) x.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(bad[t], 0) << "thread " << t;

  // A generalized request completed by another thread while this one waits.
  MPI_Request g;
  MPI_Grequest_start([](void*, MPI_Status* st) { return MPI_Status_set_cancelled(st, 0); },
                     [](void*) { return MPI_SUCCESS; }, [](void*, int) { return MPI_SUCCESS; },
                     nullptr, &g);
  MPI_Request g2 = g;
  std::thread completer([g2] { MPI_Grequest_complete(g2); });
  EXPECT_EQ(MPI_Wait(&g, MPI_STATUS_IGNORE), MPI_SUCCESS);
  completer.join();

  // Partitions marked by several threads; the wait returns once all are marked.
  int out[kThreads], in[kThreads];
  for (int i = 0; i < kThreads; ++i) out[i] = 7 * i, in[i] = -1;
  MPI_Request ps, pr;
  MPI_Psend_init(out, kThreads, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &ps);
  MPI_Precv_init(in, kThreads, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_INFO_NULL, &pr);
  MPI_Start(&pr);
  MPI_Start(&ps);
  th.clear();
  for (int t = 0; t < kThreads; ++t) th.emplace_back([t, ps] { MPI_Pready(t, ps); });
  EXPECT_EQ(MPI_Wait(&ps, MPI_STATUS_IGNORE), MPI_SUCCESS);
  EXPECT_EQ(MPI_Wait(&pr, MPI_STATUS_IGNORE), MPI_SUCCESS);
  for (std::thread& x : th) x.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(in[i], 7 * i);
  MPI_Request_free(&ps);
  MPI_Request_free(&pr);
  for (MPI_Comm& c : comms) MPI_Comm_free(&c);
  EXPECT_EQ(MPI_Finalize(), MPI_SUCCESS);
}

}  // namespace
