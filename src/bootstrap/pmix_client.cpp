// The PMIx client (Debian's libpmix; Slurm's `srun --mpi=pmix`, Open MPI's mpirun).
// Built only when CMake finds pmix (INTERLACE_HAVE_PMIX); otherwise make_pmix_client
// says so by returning null and detect() reads the launcher's variables.
#include "bootstrap/launcher_client.hpp"

#if INTERLACE_HAVE_PMIX
#include <pmix.h>

#include <cstring>

#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

namespace interlace::bootstrap::detail {
namespace {

[[noreturn]] void fail(const char* call, pmix_status_t rc, const std::string& what = {}) {
  throw_error(Errc::system, std::string("PMIx: ") + call + (what.empty() ? "" : " " + what) +
                                " failed: " + PMIx_Error_string(rc));
}

// Integers arrive in whichever width the server chose; accept any of them.
bool as_long(const pmix_value_t* v, long* out) {
  switch (v->type) {
    case PMIX_UINT8: *out = v->data.uint8; return true;
    case PMIX_UINT16: *out = v->data.uint16; return true;
    case PMIX_UINT32: *out = static_cast<long>(v->data.uint32); return true;
    case PMIX_UINT64: *out = static_cast<long>(v->data.uint64); return true;
    case PMIX_INT: *out = v->data.integer; return true;
    case PMIX_INT8: *out = v->data.int8; return true;
    case PMIX_INT16: *out = v->data.int16; return true;
    case PMIX_INT32: *out = v->data.int32; return true;
    case PMIX_INT64: *out = static_cast<long>(v->data.int64); return true;
    case PMIX_UINT: *out = static_cast<long>(v->data.uint); return true;
    case PMIX_SIZE: *out = static_cast<long>(v->data.size); return true;
    default: return false;
  }
}

class PmixClient final : public LauncherClient {
 public:
  PmixClient() {
    pmix_status_t rc = PMIx_Init(&me_, nullptr, 0);
    if (rc != PMIX_SUCCESS) fail("PMIx_Init", rc);
    live_ = true;
    try {
      read_info();
    } catch (...) {
      finalize();  // a destructor does not run for a constructor that throws
      throw;
    }
  }
  ~PmixClient() override { finalize(); }

  const char* name() const override { return "pmix"; }
  const LauncherInfo& info() const override { return info_; }

  void read_info() {
    PMIX_LOAD_PROCID(&job_, me_.nspace, PMIX_RANK_WILDCARD);
    info_.rank = static_cast<int>(me_.rank);
    info_.job_id = me_.nspace;
    long v = 0;
    if (!get_long(job_, PMIX_JOB_SIZE, &v) || v < 1 || v > (1L << 30))
      throw_error(Errc::system, "PMIx: the job size (" PMIX_JOB_SIZE ") is missing or out of range");
    info_.size = static_cast<int>(v);
    // Locality is optional to a PMIx server; absent keys leave the defaults.
    if (get_long(me_, PMIX_LOCAL_RANK, &v)) info_.local_rank = static_cast<int>(v);
    if (get_long(job_, PMIX_LOCAL_SIZE, &v)) info_.local_size = static_cast<int>(v);
    if (get_long(me_, PMIX_NODEID, &v)) info_.node_id = static_cast<int>(v);
    pmix_value_t* hv = nullptr;
    if (PMIx_Get(&me_, PMIX_HOSTNAME, nullptr, 0, &hv) == PMIX_SUCCESS && hv) {
      if (hv->type == PMIX_STRING && hv->data.string) info_.host = hv->data.string;
      PMIX_VALUE_RELEASE(hv);
    }
  }

  void put(const std::string& key, const std::string& value) override {
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_STRING;
    v.data.string = const_cast<char*>(value.c_str());  // PMIx_Put copies
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &v);
    v.data.string = nullptr;
    if (rc != PMIX_SUCCESS) fail("PMIx_Put", rc, "of '" + key + "'");
    rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) fail("PMIx_Commit", rc);
  }

  void fence(double timeout_s) override {
    pmix_info_t info[2];
    bool collect = true;
    int secs = timeout_s >= 1 ? static_cast<int>(timeout_s) : 1;
    PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &secs, PMIX_INT);
    pmix_status_t rc = PMIx_Fence(&job_, 1, info, 2);
    PMIX_INFO_DESTRUCT(&info[0]);
    PMIX_INFO_DESTRUCT(&info[1]);
    if (rc != PMIX_SUCCESS) fail("PMIx_Fence", rc, "(timeout " + std::to_string(secs) + " s)");
  }

  std::string get(int rank, const std::string& key) override {
    pmix_proc_t from;
    PMIX_LOAD_PROCID(&from, me_.nspace, static_cast<pmix_rank_t>(rank));
    pmix_value_t* v = nullptr;
    pmix_status_t rc = PMIx_Get(&from, key.c_str(), nullptr, 0, &v);
    if (rc != PMIX_SUCCESS || !v) fail("PMIx_Get", rc, "of '" + key + "' from rank " + std::to_string(rank));
    std::string out = v->type == PMIX_STRING && v->data.string ? v->data.string : "";
    const bool ok = v->type == PMIX_STRING;
    PMIX_VALUE_RELEASE(v);
    if (!ok) throw_error(Errc::system, "PMIx: '" + key + "' from rank " + std::to_string(rank) + " is not a string");
    return out;
  }

  void finalize() noexcept override {
    if (!live_) return;
    live_ = false;
    pmix_status_t rc = PMIx_Finalize(nullptr, 0);
    if (rc != PMIX_SUCCESS) IL_LOG(warn, "PMIx_Finalize failed: " << PMIx_Error_string(rc));
  }

 private:
  bool get_long(const pmix_proc_t& who, const char* key, long* out) {
    pmix_value_t* v = nullptr;
    if (PMIx_Get(&who, key, nullptr, 0, &v) != PMIX_SUCCESS || !v) return false;
    const bool ok = as_long(v, out);
    PMIX_VALUE_RELEASE(v);
    return ok;
  }

  pmix_proc_t me_{};
  pmix_proc_t job_{};
  LauncherInfo info_;
  bool live_ = false;
};

}  // namespace

std::unique_ptr<LauncherClient> make_pmix_client() { return std::make_unique<PmixClient>(); }
bool pmix_built() noexcept { return true; }

}  // namespace interlace::bootstrap::detail

#else
namespace interlace::bootstrap::detail {
std::unique_ptr<LauncherClient> make_pmix_client() { return nullptr; }
bool pmix_built() noexcept { return false; }
}  // namespace interlace::bootstrap::detail
#endif
