// The C API of automatic result transfer (pgas.h): handles over ResultTransfer on the
// process's current Pgas, errors turned into codes and a per-thread message.
#include <exception>
#include <new>
#include <string>

#include "interlace/core/error.hpp"
#include "interlace/pgas.h"
#include "interlace/pgas/result_transfer.hpp"

using interlace::Errc;
using interlace::Error;
namespace pgas = interlace::pgas;

struct il_art {
  pgas::ResultTransfer t;
};

namespace {
thread_local std::string t_error;

int set_error(Errc code, std::string msg) {
  t_error = std::move(msg);
  return static_cast<int>(code);
}

// Runs fn, turning exceptions into a code and the thread's message.
template <class F>
int guard(F&& fn) {
  try {
    fn();
    t_error.clear();
    return IL_ART_OK;
  } catch (const Error& e) {
    return set_error(e.code(), e.what());
  } catch (const std::bad_alloc&) {
    return set_error(Errc::system, "out of memory");
  } catch (const std::exception& e) {
    return set_error(Errc::internal, e.what());
  }
}

pgas::Pgas& need_current(const char* what) {
  pgas::Pgas* p = pgas::current();
  if (!p)
    throw Error(Errc::invalid_argument,
                std::string(what) + ": no PGAS runtime in this process (call shmem_init first)");
  return *p;
}

int null_handle(const char* what) {
  return set_error(Errc::invalid_argument, std::string(what) + ": the transfer handle is NULL");
}
}  // namespace

extern "C" {

int il_art_create_opts(void* dest, size_t elem_size, size_t capacity, int pe, size_t batch,
                       uint64_t* signal, const il_art_options* opts, il_art_t* out) {
  if (!out) return set_error(Errc::invalid_argument, "il_art_create: out is NULL");
  *out = nullptr;
  return guard([&] {
    pgas::Pgas& p = need_current("il_art_create");
    pgas::ArtOptions o;
    if (opts) {
      if (opts->signal_op != IL_ART_SIGNAL_SET && opts->signal_op != IL_ART_SIGNAL_ADD)
        throw Error(Errc::invalid_argument, "il_art_create: signal_op " + std::to_string(opts->signal_op) +
                                                " is neither IL_ART_SIGNAL_SET nor IL_ART_SIGNAL_ADD");
      o.op = static_cast<pgas::SignalOp>(opts->signal_op);
      o.credit = opts->credit;
      o.stage = opts->stage;
    }
    *out = new il_art{pgas::ResultTransfer(p, dest, elem_size, capacity, pe, batch, signal, o)};
  });
}

int il_art_create(void* dest, size_t elem_size, size_t capacity, int pe, size_t batch, uint64_t* signal,
                  il_art_t* out) {
  return il_art_create_opts(dest, elem_size, capacity, pe, batch, signal, nullptr, out);
}

int il_art_emit(il_art_t art, const void* values, size_t n) {
  if (!art) return null_handle("il_art_emit");
  return guard([&] { art->t.emit(values, n); });
}

int il_art_flush(il_art_t art) {
  if (!art) return null_handle("il_art_flush");
  return guard([&] { art->t.flush(); });
}

int il_art_close(il_art_t art) {
  if (!art) return null_handle("il_art_close");
  return guard([&] { art->t.close(); });
}

int il_art_poll(il_art_t art) {
  if (!art) return null_handle("il_art_poll");
  return guard([&] { art->t.poll(); });
}

int il_art_finish(il_art_t art) {
  if (!art) return null_handle("il_art_finish");
  return guard([&] { art->t.finish(); });
}

int il_art_destroy(il_art_t art) {
  delete art;
  return IL_ART_OK;
}

uint64_t il_art_transferred(il_art_t art) { return art ? art->t.transferred() : 0; }

int il_art_wait_results(const uint64_t* signal, uint64_t count, double timeout_s, uint64_t* value) {
  uint64_t v = 0;
  const int rc = guard([&] { v = pgas::wait_results(need_current("il_art_wait_results"), signal, count, timeout_s); });
  if (value) *value = v;
  if (rc == IL_ART_OK && v < count)
    return set_error(Errc::timeout, "il_art_wait_results: the signal is " + std::to_string(v) + ", not " +
                                        std::to_string(count) + ", after " + std::to_string(timeout_s) + " s");
  return rc;
}

int il_art_release(uint64_t* credit, uint64_t consumed, int producer_pe) {
  return guard([&] { pgas::release_results(need_current("il_art_release"), credit, consumed, producer_pe); });
}

const char* il_art_last_error(void) { return t_error.c_str(); }

}  // extern "C"
