// The launcher-client side of Environment::detect (docs/bootstrap.md) that runs
// without a launcher: INTERLACE_BOOTSTRAP's checks, the choice between a client and
// the variables, and PMI-2's process mapping.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bootstrap/launcher_client.hpp"
#include "interlace/bootstrap/environment.hpp"
#include "interlace/core/error.hpp"
#include "common/scoped_env.hpp"

using namespace interlace;
using interlace::bootstrap::Environment;
using interlace::bootstrap::detail::parse_process_mapping;

namespace {

const char* kVars[] = {"INTERLACE_BOOTSTRAP", "INTERLACE_RANK", "INTERLACE_SIZE", "INTERLACE_STORE",
                       "INTERLACE_JOB_ID", "INTERLACE_HOST", "PMIX_NAMESPACE", "PMIX_RANK", "PMI_FD",
                       "PMI_RANK", "PMI_SIZE", "SLURM_MPI_TYPE", "SLURM_PROCID", "SLURM_NTASKS",
                       "SLURM_LOCALID", "SLURM_JOB_ID", "SLURM_STEP_ID", "SLURM_NODEID",
                       "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALRANKID"};

class LauncherDetect : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) env_.unset(v);
  }
  static void expect_error(Errc code, const std::string& needle) {
    try {
      Environment::detect();
      ADD_FAILURE() << "detect() accepted it (" << needle << ")";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  testutil::ScopedEnv env_;  // what the tests set goes back as it was
};

TEST_F(LauncherDetect, UnknownModeIsAnErrorNamingIt) {
  setenv("INTERLACE_BOOTSTRAP", "pmi3", 1);
  expect_error(Errc::invalid_argument, "'pmi3'");
  // Checked on every start-up, also after others succeeded.
  unsetenv("INTERLACE_BOOTSTRAP");
  EXPECT_EQ(Environment::detect().source, "singleton");
  setenv("INTERLACE_BOOTSTRAP", "", 1);  // empty is unset: auto
  EXPECT_EQ(Environment::detect().source, "singleton");
  setenv("INTERLACE_BOOTSTRAP", "PMIX", 1);
  expect_error(Errc::invalid_argument, "'PMIX'");
}

TEST_F(LauncherDetect, ForcedClientWithoutItsLauncherSaysWhatIsMissing) {
  setenv("INTERLACE_BOOTSTRAP", "pmix", 1);
  expect_error(Errc::invalid_argument, "PMIX_NAMESPACE");
  setenv("INTERLACE_BOOTSTRAP", "pmi2", 1);
  expect_error(Errc::invalid_argument, "PMI_FD");
  // Even with interlace run's variables: the forced mode wins.
  setenv("INTERLACE_RANK", "0", 1);
  setenv("INTERLACE_SIZE", "2", 1);
  expect_error(Errc::invalid_argument, "PMI_FD");
}

TEST_F(LauncherDetect, HydraKeepsTheVariablesPath) {
  // Hydra sets PMI_FD too but speaks PMI-1: without Slurm's pmi2 plugin no client starts.
  setenv("PMI_FD", "1000", 1);
  setenv("PMI_RANK", "1", 1);
  setenv("PMI_SIZE", "3", 1);
  setenv("MPI_LOCALRANKID", "1", 1);
  Environment e = Environment::detect();
  EXPECT_EQ(e.source, "pmi");
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(e.size, 3);
  EXPECT_EQ(e.store_url.rfind("file://", 0), 0u) << e.store_url;
}

TEST_F(LauncherDetect, EnvModeReadsVariablesUnderALauncher) {
  // What INTERLACE_BOOTSTRAP=env srun --mpi=pmi2 gives: no client is tried.
  setenv("INTERLACE_BOOTSTRAP", "env", 1);
  setenv("SLURM_MPI_TYPE", "pmi2", 1);
  setenv("PMI_FD", "1000", 1);
  setenv("PMI_RANK", "2", 1);
  setenv("PMI_SIZE", "4", 1);
  setenv("SLURM_LOCALID", "2", 1);
  setenv("SLURM_JOB_ID", "77", 1);
  setenv("SLURM_STEP_ID", "0", 1);
  Environment e = Environment::detect();
  EXPECT_EQ(e.source, "pmi");
  EXPECT_EQ(e.rank, 2);
  EXPECT_EQ(e.local_rank, 2);
  EXPECT_EQ(e.job_id, "slurm-77.0");
  EXPECT_EQ(bootstrap::detail::launcher_client(), nullptr);
}

TEST_F(LauncherDetect, InterlaceRunWinsInAuto) {
  setenv("INTERLACE_RANK", "1", 1);
  setenv("INTERLACE_SIZE", "2", 1);
  setenv("PMIX_NAMESPACE", "slurm.pmix.9.0", 1);  // an enclosing PMIx launcher's
  setenv("PMIX_RANK", "0", 1);
  Environment e = Environment::detect();
  EXPECT_EQ(e.source, "interlace");
  EXPECT_EQ(e.rank, 1);
}

TEST_F(LauncherDetect, SlurmNodeIdFromTheVariables) {
  setenv("SLURM_PROCID", "3", 1);
  setenv("SLURM_NTASKS", "4", 1);
  setenv("SLURM_NODEID", "1", 1);
  EXPECT_EQ(Environment::detect().node_id, 1);
  setenv("SLURM_NODEID", "one", 1);
  expect_error(Errc::invalid_argument, "SLURM_NODEID='one'");
}

TEST(ProcessMapping, BlockAndCyclicAndMixed) {
  std::vector<int> node;
  ASSERT_TRUE(parse_process_mapping("(vector,(0,1,4))", 4, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 0, 0, 0}));
  ASSERT_TRUE(parse_process_mapping("(vector,(0,2,2))", 4, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 0, 1, 1}));
  // Cyclic: the vector repeats until every rank is placed.
  ASSERT_TRUE(parse_process_mapping("(vector,(0,2,1))", 5, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 1, 0, 1, 0}));
  ASSERT_TRUE(parse_process_mapping(" (vector, (0,1,3), (1,2,1)) ", 5, &node));
  EXPECT_EQ(node, (std::vector<int>{0, 0, 0, 1, 2}));
}

TEST(ProcessMapping, MalformedTextIsRefused) {
  std::vector<int> node;
  for (const char* bad : {"", "(vector)", "(vector,)", "(vector,(0,2))", "(vector,(0,2,2)", "(vector,(0,0,3))",
                          "(vector,(0,2,0))", "(vector,(a,1,1))", "(vector,(0,1,-1))", "(list,(0,1,1))",
                          "(vector,(0,1,1)x)"})
    EXPECT_FALSE(parse_process_mapping(bad, 4, &node)) << "'" << bad << "'";
  EXPECT_FALSE(parse_process_mapping("(vector,(0,1,1))", 0, &node));
}

}  // namespace
