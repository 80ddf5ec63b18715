#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "interlace/bootstrap/environment.hpp"
#include "interlace/core/error.hpp"
#include "common/scoped_env.hpp"

using namespace interlace;
using interlace::bootstrap::Environment;

namespace {

const char* kVars[] = {
    "INTERLACE_RANK", "INTERLACE_SIZE", "INTERLACE_JOB_ID", "INTERLACE_SECRET",
    "INTERLACE_STORE", "INTERLACE_LOCAL_RANK", "INTERLACE_HOST", "OMPI_COMM_WORLD_RANK",
    "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_SIZE",
    "INTERLACE_LOCAL_SIZE", "MPI_LOCALNRANKS", "OMPI_MCA_ess_base_jobid", "PMI_RANK",
    "PMI_SIZE", "MPI_LOCALRANKID", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID",
    "SLURM_JOB_ID", "SLURM_JOBID", "SLURM_STEP_ID", "SLURM_STEPID", "SLURM_STEP_NUM_TASKS",
    "TMPDIR"};

// The test process may itself run under Slurm or mpirun: save and restore.
class BootstrapEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* v : kVars) env_.unset(v);
  }
  static void expect_invalid(const std::string& needle) {
    try {
      Environment::detect();
      ADD_FAILURE() << "detect() accepted bad input (" << needle << ")";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  }
  testutil::ScopedEnv env_;  // what the tests set goes back as it was
};

}  // namespace

TEST_F(BootstrapEnv, Singleton) {
  Environment e = Environment::detect();
  EXPECT_EQ(e.source, "singleton");
  EXPECT_EQ(e.rank, 0);
  EXPECT_EQ(e.size, 1);
  EXPECT_EQ(e.local_rank, 0);
  EXPECT_TRUE(e.secret.empty());
  EXPECT_EQ(e.store_url, "mem://");
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  EXPECT_EQ(e.host, host);
  EXPECT_FALSE(e.job_id.empty());
}

TEST_F(BootstrapEnv, InterlaceLauncher) {
  setenv("INTERLACE_RANK", "2", 1);
  setenv("INTERLACE_SIZE", "4", 1);
  setenv("INTERLACE_LOCAL_RANK", "0", 1);
  setenv("INTERLACE_JOB_ID", "job-42", 1);
  setenv("INTERLACE_SECRET", "s3cret", 1);
  setenv("INTERLACE_STORE", "tcp://node1:4000", 1);
  setenv("INTERLACE_HOST", "groupA", 1);
  // Lower-priority sources present at the same time must be ignored.
  setenv("SLURM_PROCID", "7", 1);
  setenv("SLURM_NTASKS", "8", 1);
  Environment e = Environment::detect();
  EXPECT_EQ(e.source, "interlace");
  EXPECT_EQ(e.rank, 2);
  EXPECT_EQ(e.size, 4);
  EXPECT_EQ(e.local_rank, 0);
  EXPECT_EQ(e.job_id, "job-42");
  EXPECT_EQ(e.secret, "s3cret");
  EXPECT_EQ(e.store_url, "tcp://node1:4000");
  EXPECT_EQ(e.host, "groupA");
}

TEST_F(BootstrapEnv, OpenMpi) {
  setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_RANK", "1", 1);
  setenv("OMPI_COMM_WORLD_LOCAL_SIZE", "2", 1);
  setenv("OMPI_MCA_ess_base_jobid", "123456", 1);
  setenv("TMPDIR", "/var/tmp/", 1);
  setenv("PMI_RANK", "0", 1);  // Open MPI wins over PMI
  setenv("PMI_SIZE", "1", 1);
  Environment e = Environment::detect();
  EXPECT_EQ(e.source, "openmpi");
  EXPECT_EQ(e.rank, 1);
  EXPECT_EQ(e.size, 3);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.local_size, 2);
  EXPECT_EQ(e.job_id, "ompi-123456");
  // Inside the per-user private parent: a predictable job id names nothing
  // another user can reach.
  const std::string uid = std::to_string(geteuid());
  EXPECT_EQ(e.store_url, "file:///var/tmp/interlace-" + uid + "/ompi-123456");
  EXPECT_FALSE(e.secret.empty());

  // Without the jobid variable the id comes from the parent process and is
  // the same for every rank under it.
  unsetenv("OMPI_MCA_ess_base_jobid");
  unsetenv("TMPDIR");
  Environment f = Environment::detect();
  std::string expect_prefix = "ompi-" + std::to_string(getppid()) + "-";
  EXPECT_EQ(f.job_id.rfind(expect_prefix, 0), 0u) << f.job_id;
  EXPECT_EQ(f.job_id, Environment::detect().job_id);
  EXPECT_EQ(f.store_url, "file:///tmp/interlace-" + uid + "/" + f.job_id);
}

TEST_F(BootstrapEnv, Pmi) {
  setenv("PMI_RANK", "5", 1);
  setenv("PMI_SIZE", "6", 1);
  setenv("MPI_LOCALRANKID", "1", 1);
  setenv("MPI_LOCALNRANKS", "7", 1);  // more local ranks than the job has
  try {
    Environment::detect();
    ADD_FAILURE() << "MPI_LOCALNRANKS=7 with PMI_SIZE=6 was accepted";
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("MPI_LOCALNRANKS=7"), std::string::npos) << err.what();
  }
  unsetenv("MPI_LOCALNRANKS");
  Environment e = Environment::detect();
  EXPECT_EQ(e.source, "pmi");
  EXPECT_EQ(e.local_size, 0);
  EXPECT_EQ(e.rank, 5);
  EXPECT_EQ(e.size, 6);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.job_id.rfind("pmi-", 0), 0u) << e.job_id;
  setenv("SLURM_JOB_ID", "77", 1);
  setenv("SLURM_STEP_ID", "2", 1);
  EXPECT_EQ(Environment::detect().job_id, "slurm-77.2");
}

TEST_F(BootstrapEnv, Slurm) {
  setenv("SLURM_PROCID", "3", 1);
  setenv("SLURM_NTASKS", "4", 1);
  setenv("SLURM_LOCALID", "1", 1);
  setenv("SLURM_JOB_ID", "9001", 1);
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("INTERLACE_STORE", "file:///shared/x", 1);
  Environment e = Environment::detect();
  EXPECT_EQ(e.source, "slurm");
  EXPECT_EQ(e.rank, 3);
  EXPECT_EQ(e.size, 4);
  EXPECT_EQ(e.local_rank, 1);
  EXPECT_EQ(e.job_id, "slurm-9001.0");
  EXPECT_EQ(e.store_url, "file:///shared/x");
  // The step's task count beats the allocation's.
  setenv("SLURM_NTASKS", "64", 1);
  setenv("SLURM_STEP_NUM_TASKS", "4", 1);
  EXPECT_EQ(Environment::detect().size, 4);
}

TEST_F(BootstrapEnv, MalformedValuesNameTheVariable) {
  setenv("INTERLACE_RANK", "abc", 1);
  setenv("INTERLACE_SIZE", "4", 1);
  expect_invalid("INTERLACE_RANK='abc'");
  setenv("INTERLACE_RANK", "4", 1);
  expect_invalid("INTERLACE_RANK=4");
  setenv("INTERLACE_RANK", "-1", 1);
  expect_invalid("INTERLACE_RANK=-1");
  setenv("INTERLACE_RANK", "1", 1);
  setenv("INTERLACE_SIZE", "0", 1);
  expect_invalid("INTERLACE_SIZE=0");
  setenv("INTERLACE_SIZE", "4x", 1);
  expect_invalid("INTERLACE_SIZE='4x'");
  unsetenv("INTERLACE_SIZE");
  expect_invalid("INTERLACE_SIZE");
  setenv("INTERLACE_SIZE", "4", 1);
  setenv("INTERLACE_LOCAL_RANK", "9", 1);
  expect_invalid("INTERLACE_LOCAL_RANK=9");
  unsetenv("INTERLACE_LOCAL_RANK");
  setenv("INTERLACE_JOB_ID", "../etc", 1);
  expect_invalid("INTERLACE_JOB_ID='../etc'");
  unsetenv("INTERLACE_JOB_ID");
  EXPECT_NO_THROW(Environment::detect());

  for (const char* v : {"INTERLACE_RANK", "INTERLACE_SIZE"}) unsetenv(v);
  setenv("SLURM_PROCID", "2", 1);
  setenv("SLURM_NTASKS", "2", 1);
  expect_invalid("SLURM_PROCID=2");
}
