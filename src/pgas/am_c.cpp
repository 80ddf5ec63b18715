// The C API of active messages (pgas.h): C handlers behind a C++ trampoline, errors
// turned into codes and a per-thread message.
#include <memory>
#include <string>
#include <vector>

#include "interlace/core/error.hpp"
#include "interlace/pgas.h"
#include "interlace/pgas/am.hpp"
#include "interlace/pgas/result_transfer.hpp"

using interlace::Errc;
using interlace::Error;
namespace pgas = interlace::pgas;

namespace {
thread_local std::string t_error;

template <class F>
int guard(F&& fn) {
  try {
    fn();
    t_error.clear();
    return IL_AM_OK;
  } catch (const Error& e) {
    t_error = e.what();
    return static_cast<int>(e.code());
  } catch (const std::exception& e) {
    t_error = e.what();
    return static_cast<int>(Errc::internal);
  }
}

pgas::Pgas& need(const char* what) {
  pgas::Pgas* p = pgas::current();
  if (!p) throw Error(Errc::invalid_argument, std::string(what) + ": no PGAS runtime in this process (call shmem_init first)");
  return *p;
}

struct CHandler {
  il_am_handler_t fn;
  void* user;
};

// Registrations live as long as the process (handler tables have no unregister).
std::vector<std::unique_ptr<CHandler>>& c_handlers() {
  static std::vector<std::unique_ptr<CHandler>> v;
  return v;
}

void trampoline(pgas::Token& t, void* buf, size_t n, const pgas::AmArg* a, unsigned na, void* u) {
  auto* h = static_cast<CHandler*>(u);
  h->fn(reinterpret_cast<il_am_token_t>(&t), buf, n, a, na, h->user);
}

std::span<const pgas::AmArg> args_of(const il_am_arg_t* a, unsigned n, const char* what) {
  if (n && !a) throw Error(Errc::invalid_argument, std::string(what) + ": args is NULL with nargs " + std::to_string(n));
  return {a, n};
}

pgas::Token& token(il_am_token_t t, const char* what) {
  if (!t) throw Error(Errc::invalid_argument, std::string(what) + ": the token is NULL");
  return *reinterpret_cast<pgas::Token*>(t);
}
}  // namespace

extern "C" {

int il_am_register(unsigned index, il_am_handler_t fn, void* user, const char* name, unsigned* index_out) {
  return guard([&] {
    if (!fn) throw Error(Errc::invalid_argument, "il_am_register: the handler function is NULL");
    auto h = std::make_unique<CHandler>(CHandler{fn, user});
    const unsigned got = pgas::register_handler(need("il_am_register"), index, trampoline, h.get(), name);
    c_handlers().push_back(std::move(h));
    if (index_out) *index_out = got;
  });
}

int il_am_request_short(int pe, unsigned h, const il_am_arg_t* a, unsigned n) {
  return guard([&] { pgas::request_short(need("il_am_request_short"), pe, h, args_of(a, n, "il_am_request_short")); });
}
int il_am_request_medium(int pe, unsigned h, const void* buf, size_t nbytes, const il_am_arg_t* a, unsigned n) {
  return guard([&] {
    pgas::request_medium(need("il_am_request_medium"), pe, h, buf, nbytes, args_of(a, n, "il_am_request_medium"));
  });
}
int il_am_request_long(int pe, unsigned h, const void* buf, size_t nbytes, void* dest, const il_am_arg_t* a,
                       unsigned n) {
  return guard([&] {
    pgas::request_long(need("il_am_request_long"), pe, h, buf, nbytes, dest, args_of(a, n, "il_am_request_long"));
  });
}
int il_am_reply_short(il_am_token_t t, unsigned h, const il_am_arg_t* a, unsigned n) {
  return guard([&] { pgas::reply_short(token(t, "il_am_reply_short"), h, args_of(a, n, "il_am_reply_short")); });
}
int il_am_reply_medium(il_am_token_t t, unsigned h, const void* buf, size_t nbytes, const il_am_arg_t* a,
                       unsigned n) {
  return guard([&] {
    pgas::reply_medium(token(t, "il_am_reply_medium"), h, buf, nbytes, args_of(a, n, "il_am_reply_medium"));
  });
}
int il_am_reply_long(il_am_token_t t, unsigned h, const void* buf, size_t nbytes, void* dest,
                     const il_am_arg_t* a, unsigned n) {
  return guard([&] {
    pgas::reply_long(token(t, "il_am_reply_long"), h, buf, nbytes, dest, args_of(a, n, "il_am_reply_long"));
  });
}
int il_am_token_src(il_am_token_t t) { return t ? reinterpret_cast<pgas::Token*>(t)->src : -1; }
int il_am_token_is_request(il_am_token_t t) {
  return t ? reinterpret_cast<pgas::Token*>(t)->is_request : 0;
}
size_t il_am_max_medium(void) {
  pgas::Pgas* p = pgas::current();
  return p ? p->max_medium() : 0;
}
size_t il_am_max_long(void) {
  pgas::Pgas* p = pgas::current();
  return p ? p->max_long() : 0;
}
int il_am_poll(void) {
  return guard([] {
    if (pgas::Pgas::in_handler())
      throw Error(Errc::invalid_argument, "il_am_poll was called from an active-message handler: handlers may not block");
    need("il_am_poll").poll();
  });
}
const char* il_am_last_error(void) { return t_error.c_str(); }

}  // extern "C"
