// The sim fabric with ranks as processes: an unchanged MPI C program (globals and all)
// started as `interlace run` starts ranks (INTERLACE_RANK/SIZE/JOB_ID/STORE), with
// INTERLACE_FABRIC=sim. Its virtual latency is the smi preset's; a rank process that
// dies is reported to the others, which fail instead of hanging.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "sim_util.hpp"

namespace {

struct RankResult {
  int status = -1;
  std::string out;
};

// Runs `n` copies of SIM_PINGPONG with `arg`; kills them after `limit_s` seconds.
std::vector<RankResult> run_job(int n, const std::string& arg, double limit_s, double* took) {
  simtest::TempDir dir;
  static int counter = 0;
  const std::string job = "simproc" + std::to_string(getpid()) + "x" + std::to_string(counter++);
  std::vector<pid_t> pids;
  for (int r = 0; r < n; ++r) {
    const std::string out = (dir.path / ("out" + std::to_string(r))).string();
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, 1);
      dup2(fd, 2);
      setenv("INTERLACE_RANK", std::to_string(r).c_str(), 1);
      setenv("INTERLACE_SIZE", std::to_string(n).c_str(), 1);
      setenv("INTERLACE_LOCAL_RANK", std::to_string(r).c_str(), 1);
      setenv("INTERLACE_JOB_ID", job.c_str(), 1);
      setenv("INTERLACE_SECRET", "simtest", 1);
      setenv("INTERLACE_STORE", ("file://" + (dir.path / "store").string()).c_str(), 1);
      setenv("INTERLACE_HOST", "localhost", 1);
      setenv("INTERLACE_FABRIC", "sim", 1);
      setenv("INTERLACE_SIM_PRESET", "smi", 1);
      setenv("INTERLACE_PEER_CHECK", "0.05", 1);
      execl(SIM_PINGPONG, SIM_PINGPONG, arg.empty() ? nullptr : arg.c_str(), nullptr);
      _exit(127);
    }
    pids.push_back(pid);
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<RankResult> res(n);
  int left = n;
  while (left > 0) {
    for (int r = 0; r < n; ++r) {
      if (pids[r] <= 0) continue;
      int st = 0;
      if (waitpid(pids[r], &st, WNOHANG) == pids[r]) {
        res[r].status = st;
        pids[r] = 0;
        --left;
      }
    }
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > limit_s) {
      for (pid_t p : pids)
        if (p > 0) kill(p, SIGKILL);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  *took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (int r = 0; r < n; ++r) {
    std::ifstream f(dir.path / ("out" + std::to_string(r)));
    std::stringstream ss;
    ss << f.rdbuf();
    res[r].out = ss.str();
  }
  return res;
}

TEST(SimProcess, MpiProgramReportsTheVirtualLatency) {
  double took = 0;
  auto res = run_job(3, "", 60, &took);
  for (int r = 0; r < 3; ++r)
    ASSERT_TRUE(WIFEXITED(res[r].status) && WEXITSTATUS(res[r].status) == 0)
        << "rank " << r << " status " << res[r].status << ":\n" << res[r].out;
  double us = -1;
  int virt = -1;
  const auto at = res[0].out.find("latency_us");
  ASSERT_NE(at, std::string::npos) << res[0].out;
  ASSERT_EQ(std::sscanf(res[0].out.c_str() + at, "latency_us %lf virtual %d", &us, &virt), 2);
  EXPECT_EQ(virt, 1);
  EXPECT_NEAR(us, 0.801, 0.08) << "one hop of the default fully connected topology";
}

TEST(SimProcess, DyingRankIsReportedNotAHang) {
  double took = 0;
  auto res = run_job(2, "die", 60, &took);
  EXPECT_LT(took, 30) << "the job should end soon after rank 1 died";
  ASSERT_TRUE(WIFEXITED(res[1].status)) << res[1].out;
  EXPECT_EQ(WEXITSTATUS(res[1].status), 3);
  EXPECT_EQ(res[0].out.find("received from a dead rank"), std::string::npos) << res[0].out;
  EXPECT_FALSE(WIFEXITED(res[0].status) && WEXITSTATUS(res[0].status) == 0)
      << "rank 0 ended successfully although its peer died:\n" << res[0].out;
  EXPECT_NE(res[0].out.find("lost_peer"), std::string::npos) << res[0].out;
}

}  // namespace
