// The PMI-2 client (Slurm's libpmi2; `srun --mpi=pmi2`). Built only when CMake finds
// slurm/pmi2.h and libpmi2 (INTERLACE_HAVE_PMI2).
#include "bootstrap/launcher_client.hpp"

#if INTERLACE_HAVE_PMI2
#include <slurm/pmi2.h>
#include <unistd.h>

#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

namespace interlace::bootstrap::detail {
namespace {

[[noreturn]] void fail(const std::string& call, int rc) {
  throw_error(Errc::system, "PMI-2: " + call + " failed (error " + std::to_string(rc) + ")");
}

class Pmi2Client final : public LauncherClient {
 public:
  Pmi2Client() {
    int spawned = 0, size = 0, rank = 0, appnum = 0;
    int rc = PMI2_Init(&spawned, &size, &rank, &appnum);
    if (rc != PMI2_SUCCESS) fail("PMI2_Init", rc);
    live_ = true;
    try {
      read_info(size, rank);
    } catch (...) {
      finalize();
      throw;
    }
  }
  ~Pmi2Client() override { finalize(); }

  const char* name() const override { return "pmi2"; }
  const LauncherInfo& info() const override { return info_; }

  void put(const std::string& key, const std::string& value) override {
    if (key.size() >= PMI2_MAX_KEYLEN || value.size() >= PMI2_MAX_VALLEN)
      throw_error(Errc::invalid_argument, "PMI-2: key '" + key + "' or its value (" +
                                              std::to_string(value.size()) + " bytes) is too long");
    int rc = PMI2_KVS_Put(key.c_str(), value.c_str());
    if (rc != PMI2_SUCCESS) fail("PMI2_KVS_Put of '" + key + "'", rc);
  }

  // PMI-2 has no timeout of its own: a rank that never arrives is the launcher's to
  // notice (srun ends the step when a task dies).
  void fence(double) override {
    int rc = PMI2_KVS_Fence();
    if (rc != PMI2_SUCCESS) fail("PMI2_KVS_Fence", rc);
  }

  std::string get(int rank, const std::string& key) override {
    char buf[PMI2_MAX_VALLEN + 1] = {};
    int len = 0;
    int rc = PMI2_KVS_Get(info_.job_id.c_str(), rank, key.c_str(), buf, PMI2_MAX_VALLEN, &len);
    if (rc != PMI2_SUCCESS) fail("PMI2_KVS_Get of '" + key + "' from rank " + std::to_string(rank), rc);
    return buf;
  }

  void finalize() noexcept override {
    if (!live_) return;
    live_ = false;
    int rc = PMI2_Finalize();
    if (rc != PMI2_SUCCESS) IL_LOG(warn, "PMI2_Finalize failed (error " << rc << ")");
  }

 private:
  void read_info(int size, int rank) {
    if (size < 1 || rank < 0 || rank >= size)
      throw_error(Errc::system, "PMI-2: rank " + std::to_string(rank) + " of size " +
                                    std::to_string(size) + " is not a valid rank");
    info_.size = size;
    info_.rank = rank;
    char buf[PMI2_MAX_VALLEN + 1] = {};
    int rc = PMI2_Job_GetId(buf, PMI2_MAX_VALLEN);
    if (rc != PMI2_SUCCESS) fail("PMI2_Job_GetId", rc);
    info_.job_id = buf;
    // Locality: the process mapping says which node each rank is on.
    int found = 0;
    char map[PMI2_MAX_VALLEN + 1] = {};
    std::vector<int> node_of;
    if (PMI2_Info_GetJobAttr("PMI_process_mapping", map, PMI2_MAX_VALLEN, &found) == PMI2_SUCCESS &&
        found && parse_process_mapping(map, size, &node_of)) {
      info_.node_id = node_of[rank];
      info_.local_rank = 0;
      info_.local_size = 0;
      for (int r = 0; r < size; ++r) {
        if (node_of[r] != info_.node_id) continue;
        if (r < rank) ++info_.local_rank;
        ++info_.local_size;
      }
    } else {
      IL_LOG(info, "PMI-2: no usable PMI_process_mapping ('" << map << "'); local rank from the variables");
    }
  }

  LauncherInfo info_;
  bool live_ = false;
};

}  // namespace

std::unique_ptr<LauncherClient> make_pmi2_client() { return std::make_unique<Pmi2Client>(); }
bool pmi2_built() noexcept { return true; }

}  // namespace interlace::bootstrap::detail

#else
namespace interlace::bootstrap::detail {
std::unique_ptr<LauncherClient> make_pmi2_client() { return nullptr; }
bool pmi2_built() noexcept { return false; }
}  // namespace interlace::bootstrap::detail
#endif
