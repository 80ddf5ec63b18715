// Distributed tasks in C: il_dist_* (what nanos6 gets from its compiler) and the
// nanos6_dist_* host calls, over interlace::task::dist::Session (docs/ompif.md).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "compat/ompif/ompif_state.hpp"

namespace dist = interlace::task::dist;
using interlace::Errc;
using interlace::throw_error;

namespace {

thread_local std::string t_error;

// il_dist_* report through their return value and il_dist_error_message.
template <class F> int checked(F&& fn) {
  try {
    t_error.clear();
    return fn();
  } catch (const std::exception& e) {
    t_error = e.what();
    return -1;
  }
}

dist::Session& session(const char* call) {
  ompif::State& s = ompif::state();
  std::lock_guard g(s.mu);
  if (!s.session)
    throw_error(Errc::invalid_argument,
                std::string(call) + ": no distributed session (call il_dist_init first)");
  return *s.session;
}

uint64_t offset_of(uint64_t base, uint64_t i, uint64_t size, const char* call) {
  uint64_t r;
  if (__builtin_mul_overflow(i, size, &r) || __builtin_add_overflow(r, base, &r))
    throw_error(Errc::invalid_argument, std::string(call) + ": offset " +
                                            std::to_string(base) + " + " + std::to_string(i) +
                                            " x " + std::to_string(size) + " overflows");
  return r;
}

}  // namespace

extern "C" {

const char* il_dist_error_message(void) { return t_error.c_str(); }

int il_dist_register(const char* name, il_dist_fn fn) {
  return checked([&] {
    if (!name) throw_error(Errc::invalid_argument, "il_dist_register: null name");
    if (!fn)
      throw_error(Errc::invalid_argument,
                  std::string("il_dist_register: null function for '") + name + "'");
    dist::register_function(name, [fn](const dist::DeviceCall& c) {
      fn(c.regions.data(), c.args.data(), c.args.size());
    });
    return 0;
  });
}

int il_dist_init(void) {
  dist::Session* sp = nullptr;
  int rc = checked([&] {
    ompif::State& s = ompif::state();
    std::lock_guard g(s.mu);
    if (s.session) return s.session->is_host() ? 1 : 0;
    if (s.started)
      throw_error(Errc::invalid_argument,
                  "il_dist_init: OMPIF already started the runtime with every rank a device; "
                  "call il_dist_init before any OMPIF call");
    s.rt = interlace::Runtime::init();
    s.session = std::make_unique<dist::Session>(s.rt, &interlace::task::process_executor());
    s.comm = s.session->devices();
    s.started = true;
    std::atexit(ompif::finalize_at_exit);
    sp = s.session.get();
    return sp->is_host() ? 1 : 0;
  });
  if (rc != 0 || !sp) return rc;
  // A device serves until the host finishes; its program then simply exits. A lost
  // host leaves the device nothing to do: that goes to the error handler (by default
  // the device exits with status 1).
  rc = checked([&] {
    sp->serve();
    return 0;
  });
  if (rc != 0) ompif::report(OMPIF_ERR_LOST_PEER, "il_dist_init (device serving the host): " + t_error);
  return rc;
}

int il_dist_spawn(const char* name, const il_dist_clause_t* clauses, int nclauses,
                  const void* args, size_t args_size) {
  return checked([&] {
    if (!name) throw_error(Errc::invalid_argument, "il_dist_spawn: null function name");
    if (nclauses < 0 || (nclauses > 0 && !clauses))
      throw_error(Errc::invalid_argument, "il_dist_spawn('" + std::string(name) +
                                              "'): bad clause list (" +
                                              std::to_string(nclauses) + " clauses)");
    if (args_size && !args)
      throw_error(Errc::invalid_argument, "il_dist_spawn('" + std::string(name) +
                                              "'): null args with args_size " +
                                              std::to_string(args_size));
    std::vector<dist::Clause> cl;
    for (int i = 0; i < nclauses; ++i) {
      const il_dist_clause_t& c = clauses[i];
      if (c.kind < IL_DIST_BROADCAST || c.kind > IL_DIST_MAPPED)
        throw_error(Errc::invalid_argument,
                    "il_dist_spawn('" + std::string(name) + "'): clause " + std::to_string(i) +
                        " has kind " + std::to_string(c.kind) +
                        ", not IL_DIST_BROADCAST .. IL_DIST_MAPPED (0..5)");
      cl.push_back({static_cast<dist::ClauseKind>(c.kind), c.address, c.size, c.device});
    }
    try {
      session("il_dist_spawn").spawn(
          name, cl, {static_cast<const std::byte*>(args), args_size});
    } catch (const interlace::Error& e) {
      throw interlace::Error(e.code(), "il_dist_spawn('" + std::string(name) + "'): " + e.what());
    }
    return 0;
  });
}

int il_dist_taskwait(void) {
  return checked([] {
    interlace::task::process_executor().taskwait();
    return 0;
  });
}

int il_dist_finalize(void) {
  return checked([] {
    dist::Session& s = session("il_dist_finalize");
    if (s.is_host()) s.finish();
    return 0;
  });
}

int il_dist_device(void) {
  ompif::State& s = ompif::state();
  std::lock_guard g(s.mu);
  return s.session ? s.session->device_index() : -1;
}

int nanos6_dist_num_devices(void) {
  return ompif::guarded("nanos6_dist_num_devices",
                        [] { return session("nanos6_dist_num_devices").num_devices(); }, -1);
}

void nanos6_dist_map_address(const void* address, uint64_t size) {
  ompif::guarded("nanos6_dist_map_address",
                 [&] { session("nanos6_dist_map_address").map(address, size); });
}

void nanos6_dist_unmap_address(const void* address) {
  ompif::guarded("nanos6_dist_unmap_address",
                 [&] { session("nanos6_dist_unmap_address").unmap(address); });
}

void nanos6_dist_memcpy_to_all(const void* address, uint64_t size, uint64_t srcOffset,
                               uint64_t dstOffset) {
  ompif::guarded("nanos6_dist_memcpy_to_all", [&] {
    session("nanos6_dist_memcpy_to_all").copy_to_all(address, size, srcOffset, dstOffset);
  });
}

void nanos6_dist_scatter(const void* address, uint64_t size, uint64_t sendOffset,
                         uint64_t recvOffset) {
  ompif::guarded("nanos6_dist_scatter", [&] {
    dist::Session& s = session("nanos6_dist_scatter");
    for (int d = 0; d < s.num_devices(); ++d)
      s.copy_to(d, address, size, offset_of(sendOffset, d, size, "nanos6_dist_scatter"),
                recvOffset);
  });
}

void nanos6_dist_gather(void* address, uint64_t size, uint64_t sendOffset,
                        uint64_t recvOffset) {
  ompif::guarded("nanos6_dist_gather", [&] {
    dist::Session& s = session("nanos6_dist_gather");
    for (int d = 0; d < s.num_devices(); ++d)
      s.copy_from(d, address, size, sendOffset,
                  offset_of(recvOffset, d, size, "nanos6_dist_gather"));
  });
}

void nanos6_dist_scatterv(const void* address, const uint64_t* sizes,
                          const uint64_t* sendOffsets, const uint64_t* recvOffsets) {
  ompif::guarded("nanos6_dist_scatterv", [&] {
    if (!sizes || !sendOffsets || !recvOffsets)
      throw_error(Errc::invalid_argument, "nanos6_dist_scatterv: null sizes or offsets");
    dist::Session& s = session("nanos6_dist_scatterv");
    for (int d = 0; d < s.num_devices(); ++d)
      s.copy_to(d, address, sizes[d], sendOffsets[d], recvOffsets[d]);
  });
}

void nanos6_dist_memcpy_to_device(int dev_id, const void* address, uint64_t size,
                                  uint64_t srcOffset, uint64_t dstOffset) {
  ompif::guarded("nanos6_dist_memcpy_to_device", [&] {
    session("nanos6_dist_memcpy_to_device").copy_to(dev_id, address, size, srcOffset, dstOffset);
  });
}

void nanos6_dist_memcpy_from_device(int dev_id, void* address, uint64_t size,
                                    uint64_t srcOffset, uint64_t dstOffset) {
  ompif::guarded("nanos6_dist_memcpy_from_device", [&] {
    session("nanos6_dist_memcpy_from_device")
        .copy_from(dev_id, address, size, srcOffset, dstOffset);
  });
}

void nanos6_dist_memcpy_vector(void* address, int vector_len, nanos6_dist_memcpy_info_t* v,
                               nanos6_dist_copy_dir_t dir) {
  ompif::guarded("nanos6_dist_memcpy_vector", [&] {
    if (vector_len < 0 || (vector_len > 0 && !v))
      throw_error(Errc::invalid_argument, "nanos6_dist_memcpy_vector: bad vector (length " +
                                              std::to_string(vector_len) + ")");
    if (dir != NANOS6_DIST_COPY_TO && dir != NANOS6_DIST_COPY_FROM)
      throw_error(Errc::invalid_argument, "nanos6_dist_memcpy_vector: direction " +
                                              std::to_string(static_cast<int>(dir)) +
                                              " is neither NANOS6_DIST_COPY_TO nor _FROM");
    dist::Session& s = session("nanos6_dist_memcpy_vector");
    for (int i = 0; i < vector_len; ++i) {
      if (dir == NANOS6_DIST_COPY_TO)
        s.copy_to(v[i].devId, address, v[i].size, v[i].sendOffset, v[i].recvOffset);
      else
        s.copy_from(v[i].devId, address, v[i].size, v[i].sendOffset, v[i].recvOffset);
    }
  });
}

}  // extern "C"
