// Contract: discovers who this process is in the job (docs/bootstrap.md). Sources,
// first match wins (INTERLACE_BOOTSTRAP=pmix|pmi2|env forces one):
//   1. interlace's launcher: INTERLACE_RANK, INTERLACE_SIZE, INTERLACE_JOB_ID,
//      INTERLACE_SECRET, INTERLACE_STORE (file:///dir or tcp://host:port),
//      INTERLACE_LOCAL_RANK, INTERLACE_LOCAL_SIZE, INTERLACE_HOST (name of the host group).
//   2. a PMIx launcher (PMIX_NAMESPACE: srun --mpi=pmix, Open MPI's mpirun) or Slurm's
//      PMI-2 (srun --mpi=pmi2): rank, size and locality from the launcher's client
//      library when built in; the store is pmix:// or pmi2://. Else, as below:
//   3. mpirun (Open MPI): OMPI_COMM_WORLD_RANK/_SIZE/_LOCAL_RANK; job id from
//      OMPI_MCA_ess_base_jobid (or the parent pid).
//   4. PMI (MPICH/Hydra, Slurm PMI): PMI_RANK, PMI_SIZE.
//   5. Slurm: SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_JOB_ID.SLURM_STEP_ID.
//   6. none of these: a singleton (rank 0 of 1).
// Without INTERLACE_STORE, PMIx and PMI-2 jobs meet through rank 0's TCP store (any
// number of hosts); other ranks of one host meet through a file store in
// $TMPDIR/interlace-<euid>/<job> (the parent private to the user, the job
// directory removed by the last rank to leave); several hosts need
// INTERLACE_STORE=tcp://... which rank 0 serves.
#pragma once
#include <string>

namespace interlace::bootstrap {

struct Environment {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 0;       // ranks on this host; 0 when the source does not say
  std::string job_id;       // unique per job; part of shm names and store keys
  std::string secret;       // per-job secret; empty only for singletons/test harnesses
  std::string store_url;    // file:///path or tcp://host:port
  std::string host;         // this rank's host group name (for shm vs tcp choice)
  std::string source;       // "interlace", "pmix", "pmi2", "openmpi", "pmi", "slurm", "singleton"
  int node_id = -1;         // index of this rank's host in the job; -1 when the source does not say

  // Throws Error(invalid_argument) naming the variable when a value is malformed
  // (e.g. INTERLACE_RANK=abc or rank >= size).
  static Environment detect();
};

// The store of a job on one host without INTERLACE_STORE: a file store under
// $TMPDIR/interlace-<euid>/<job_id> (what detect() picks; MPI_Comm_spawn's connections
// meet there too).
std::string private_file_store_url(const std::string& job_id);

}  // namespace interlace::bootstrap
