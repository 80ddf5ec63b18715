// Setup, query and exit: shmem_init ... shmem_finalize, the deprecated start_pes, and the
// environment variables SHMEM_INFO, SHMEM_VERSION and SHMEM_DEBUG (docs/shmem.md).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "compat/shmem/shmem_entry.hpp"
#include "interlace/pgas/result_transfer.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

#ifndef INTERLACE_VERSION
#define INTERLACE_VERSION "unknown"
#endif


namespace {

// A variable counts as set unless it is absent, empty or "0".
bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

void print_info(pgas::Pgas& p) {
  const char* heap = std::getenv("SHMEM_SYMMETRIC_SIZE");
  std::printf(
      "interlace OpenSHMEM %d.%d (vendor \"%s\", interlace %s), %d PEs\n"
      "Environment variables:\n"
      "  SHMEM_SYMMETRIC_SIZE  symmetric heap per PE, bytes with an optional K/M/G suffix "
      "(default 256M); now %s, in use %zu bytes\n"
      "  SHMEM_INFO            print this text at shmem_init (PE 0)\n"
      "  SHMEM_VERSION         print the library version at shmem_init (PE 0)\n"
      "  SHMEM_DEBUG           diagnostics on stderr (and interlace's debug log unless "
      "INTERLACE_LOG is set)\n"
      "interlace's own variables (INTERLACE_*) are described in docs/configuration.md.\n",
      SHMEM_MAJOR_VERSION, SHMEM_MINOR_VERSION, SHMEM_VENDOR_STRING, INTERLACE_VERSION,
      p.n_pes(), heap ? heap : "unset", p.heap_size());
  std::fflush(stdout);
}

void init(int requested, int* provided) {
  State& s = state();
  if (s.finalized)
    throw_error(Errc::finalized, "OpenSHMEM cannot be initialized again after shmem_finalize");
  if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
    throw_error(Errc::invalid_argument,
                "requested thread level " + std::to_string(requested) +
                    " is not SHMEM_THREAD_SINGLE, _FUNNELED, _SERIALIZED or _MULTIPLE (0..3)");
  if (s.initialized) {  // nested initialization: counted, matched by shmem_finalize calls
    ++s.init_count;
    if (provided) *provided = s.thread_level;
    return;
  }
  s.debug = env_flag("SHMEM_DEBUG");
  if (s.debug && !std::getenv("INTERLACE_LOG")) interlace::log::set_level(interlace::log::Level::debug);
  s.rt = interlace::Runtime::init();
  s.pgas = &pgas::Pgas::attach(s.rt, 0);  // heap size from SHMEM_SYMMETRIC_SIZE
  // The engine serializes nothing itself; calls from several threads at once would race.
  s.thread_level = std::min(requested, SHMEM_THREAD_SERIALIZED);
  if (provided) *provided = s.thread_level;
  s.initialized = true;
  s.init_count = 1;
  if (s.pgas->my_pe() == 0) {
    if (env_flag("SHMEM_INFO")) print_info(*s.pgas);
    else if (env_flag("SHMEM_VERSION"))
      std::printf("interlace OpenSHMEM %d.%d (interlace %s)\n", SHMEM_MAJOR_VERSION,
                  SHMEM_MINOR_VERSION, INTERLACE_VERSION);
    std::fflush(stdout);
  }
  debug("initialized: " + std::to_string(s.pgas->n_pes()) + " PEs, heap " +
        std::to_string(s.pgas->heap_size()) + " bytes, thread level " +
        std::to_string(s.thread_level));
}

void finalize() {
  State& s = state();
  if (s.finalized) throw_error(Errc::finalized, "shmem_finalize was already called");
  shmem::pgas("shmem_finalize");
  if (--s.init_count > 0) return;
  world_barrier();
  debug("finalizing");
  pgas::set_current(nullptr);
  s.rt.finalize();
  s.finalized = true;
}

// start_pes has an implicit finalize at exit (it has no matching call).
void finalize_at_exit() {
  State& s = state();
  if (s.initialized && !s.finalized) call("start_pes", [] { finalize(); });
}

}  // namespace

extern "C" {

void shmem_init(void) { call("shmem_init", [] { init(SHMEM_THREAD_SINGLE, nullptr); }); }

int shmem_init_thread(int requested, int* provided) {
  call("shmem_init_thread", [&] { init(requested, provided); });
  return 0;
}

void shmem_query_thread(int* provided) {
  call("shmem_query_thread", [&] {
    shmem::pgas("shmem_query_thread");
    check_ptr(provided, "provided");
    *provided = state().thread_level;
  });
}

void shmem_finalize(void) { call("shmem_finalize", [] { finalize(); }); }

int shmem_my_pe(void) {
  return call("shmem_my_pe", [] { return shmem::pgas("shmem_my_pe").my_pe(); });
}

int shmem_n_pes(void) {
  return call("shmem_n_pes", [] { return shmem::pgas("shmem_n_pes").n_pes(); });
}

void shmem_info_get_version(int* major, int* minor) {
  call("shmem_info_get_version", [&] {
    check_ptr(major, "major");
    check_ptr(minor, "minor");
    *major = SHMEM_MAJOR_VERSION;
    *minor = SHMEM_MINOR_VERSION;
  });
}

void shmem_info_get_name(char* name) {
  call("shmem_info_get_name", [&] {
    check_ptr(name, "name");
    static_assert(sizeof(SHMEM_VENDOR_STRING) <= SHMEM_MAX_NAME_LEN);
    std::memcpy(name, SHMEM_VENDOR_STRING, sizeof(SHMEM_VENDOR_STRING));
  });
}

void shmem_global_exit(int status) {
  State& s = state();
  std::fflush(stdout);
  if (s.initialized && !s.finalized && s.pgas)
    call("shmem_global_exit", [&] { s.pgas->global_exit(status); });
  std::exit(status);
}

int shmem_pe_accessible(int pe) {
  return call("shmem_pe_accessible",
              [&] { return shmem::pgas("shmem_pe_accessible").pe_accessible(pe) ? 1 : 0; });
}

int shmem_addr_accessible(const void* addr, int pe) {
  return call("shmem_addr_accessible",
              [&] { return shmem::pgas("shmem_addr_accessible").addr_accessible(addr, pe) ? 1 : 0; });
}

// Deprecated cache management: OpenSHMEM 1.5 keeps them as no-ops.
void shmem_clear_cache_inv(void) {}
void shmem_set_cache_inv(void) {}
void shmem_clear_cache_line_inv(void*) {}
void shmem_set_cache_line_inv(void*) {}
void shmem_udcflush(void) {}
void shmem_udcflush_line(void*) {}

void* shmem_ptr(const void* dest, int pe) {
  return call("shmem_ptr", [&] { return shmem::pgas("shmem_ptr").ptr(dest, pe); });
}

void start_pes(int npes) {
  call("start_pes", [] {
    State& s = state();
    if (s.initialized) return;  // later calls are ignored, as they always were
    init(SHMEM_THREAD_SINGLE, nullptr);
    std::atexit(finalize_at_exit);
  });
}

int _my_pe(void) { return call("_my_pe", [] { return shmem::pgas("_my_pe").my_pe(); }); }

int _num_pes(void) { return call("_num_pes", [] { return shmem::pgas("_num_pes").n_pes(); }); }

}  // extern "C"
