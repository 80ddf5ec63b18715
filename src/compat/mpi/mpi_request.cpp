// Requests: completion of every kind of ReqObj (p2p, coll, done, persistent) and the
// Wait/Test families. A request is first "settled" (its operation finished, its
// on_complete ran, its status stored: kind done), then "consumed" (status reported,
// handle freed, or a persistent request made inactive).
#include <deque>
#include <thread>

#include "compat/mpi/mpi_core.hpp"
#include "compat/mpi/mpi_spawn.hpp"
#include "interlace/core/blocking.hpp"
#include "interlace/core/clock.hpp"
#include "interlace/engine/context.hpp"
#include "interlace/engine/completion.hpp"

namespace interlace::mpi {
using Kind = ReqObj::Kind;

namespace {

// Requests freed by MPI_Request_free while still running: they finish in the background.
std::deque<ReqObj> g_orphans;

void reap_orphans() {
  for (auto it = g_orphans.begin(); it != g_orphans.end();) {
    if (settle(*it, false)) {
      free_request_resources(*it, nullptr);
      it = g_orphans.erase(it);
    }
    else ++it;
  }
}

MPI_Status empty() {
  MPI_Status st;
  empty_status(&st);
  return st;
}

}  // namespace

namespace {

// Waits, within INTERLACE_TIMEOUT, for a completion the engine does not drive by itself
// (a generalized request, partitions marked ready by other threads).
void wait_completion(engine::Completion* c, const char* what) {
  engine::Context& ctx = state().rt.context();
  const double limit = ctx.config().op_timeout_s;
  engine::Completion* set[] = {c};
  Errc rc = ctx.wait_for(set, true, Deadline::after(limit));
  if (rc == Errc::timeout)
    raise(MPI_ERR_TIMEOUT, std::string(what) + " did not complete within " + std::to_string(limit) +
                               " s (INTERLACE_TIMEOUT)");
  if (rc != Errc::ok) throw_error(rc, std::string(what) + ": wait failed");
}

// A generalized request can only be completed by another thread calling
// MPI_Grequest_complete during the wait: below MPI_THREAD_MULTIPLE none may.
void require_other_threads(const char* what) {
  if (state().thread_level < MPI_THREAD_MULTIPLE)
    raise(MPI_ERR_REQUEST, std::string(what) + " is not complete, and without MPI_THREAD_MULTIPLE "
                           "no other thread may complete it during this wait");
}

// Kind p2p: the main request and every `also` one, blocking or not.
bool settle_p2p(ReqObj& r, bool block) {
  if (block) {
    r.p2p.wait();
    for (Request& q : r.also) q.wait();
    return true;
  }
  bool all = r.p2p.test();
  for (Request& q : r.also) all = q.test() && all;
  return all;
}

void settle_greq(ReqObj& r) {
  GreqState& g = *r.greq;
  r.status.MPI_SOURCE = MPI_ANY_SOURCE;
  r.status.MPI_TAG = MPI_ANY_TAG;
  r.status.MPI_ERROR = MPI_SUCCESS;
  r.status.il_cancelled = 0;
  r.status.il_bytes = 0;
  const int rc = g.query ? g.query(g.extra, &r.status) : MPI_SUCCESS;
  if (rc != MPI_SUCCESS) raise_code(rc);
}

}  // namespace

// Finishes r's operation if it can (blocking when `block`); true once r is kind done
// or an inactive persistent request.
bool settle(ReqObj& r, bool block) {
  if (r.kind == Kind::done || r.kind == Kind::persistent_inactive) return true;
  int cls = MPI_SUCCESS;
  std::string msg;
  bool greq_status = false;
  try {
    if (r.kind == Kind::part_wait) {
      if (!r.part->done && !block) return false;
      if (!r.part->done) {
        require_other_threads("partitioned send (partitions not all marked by MPI_Pready)");
        wait_completion(r.part.get(), "a partitioned send waiting for MPI_Pready");
      }
      // The last MPI_Pready started the transfer and made the request kind p2p.
    }
    if (r.kind == Kind::greq) {
      if (!r.greq->done && !block) return false;
      if (!r.greq->done) {
        require_other_threads("generalized request");
        wait_completion(r.greq.get(), "a generalized request");
      }
      greq_status = true;
      settle_greq(r);
    } else if (r.kind == Kind::p2p) {
      if (!settle_p2p(r, block)) return false;
    } else if (r.kind == Kind::coll) {
      if (block) r.coll.wait();
      else if (!r.coll.test()) return false;
    }
  } catch (const MpiError& e) {
    cls = e.error_class();
    msg = e.what();
  } catch (const Error& e) {
    cls = error_class_of(e.code());
    msg = e.what();
  } catch (const std::bad_alloc&) {
    cls = MPI_ERR_NO_MEM;
    msg = "out of memory";
  }
  if (greq_status) {
    // query_fn filled the status.
  } else if (r.kind == Kind::p2p && !r.p2p.is_null()) {
    // The engine's status is kept even when wait() raised (e.g. truncation: source, tag).
    to_mpi_status(r.p2p.status(), &r.status);
  } else {
    empty_status(&r.status);
  }
  r.status.MPI_ERROR = MPI_SUCCESS;
  if (r.on_complete) {
    try {
      r.on_complete(r.status);
    } catch (const MpiError& e) {
      if (cls == MPI_SUCCESS) { cls = e.error_class(); msg = e.what(); }
    } catch (const Error& e) {
      if (cls == MPI_SUCCESS) { cls = error_class_of(e.code()); msg = e.what(); }
    }
  }
  if (cls != MPI_SUCCESS) r.status.MPI_ERROR = make_error_code(cls, msg);
  r.kind = Kind::done;
  r.p2p = Request{};
  r.also.clear();
  r.coll = coll::Request{};
  r.on_complete = nullptr;
  r.keep.reset();
  return true;
}

// The generalized request's free_fn, once (a failure becomes the status's error).
void free_request_resources(ReqObj& r, MPI_Status* st) {
  if (!r.greq || r.greq->freed) return;
  r.greq->freed = true;
  if (!r.greq->free_fn) return;
  const int rc = r.greq->free_fn(r.greq->extra);
  if (rc != MPI_SUCCESS && st && st->MPI_ERROR == MPI_SUCCESS) st->MPI_ERROR = rc;
}

namespace {

// Reports a settled request's status and frees it (persistent: makes it inactive).
// r: the request's object when the caller already looked it up.
MPI_Status consume(MPI_Request* handle, ReqObj* r = nullptr) {
  HandleTable<ReqObj>& table = state().requests;
  if (!r) r = table.get(*handle);
  MPI_Status st = r->status;
  if (r->persistent) {
    r->kind = Kind::persistent_inactive;
    r->status = empty();
  } else {
    free_request_resources(*r, &st);
    table.remove(*handle);
    *handle = MPI_REQUEST_NULL;
  }
  return st;
}

}  // namespace

bool is_active(MPI_Request h) {
  const ReqObj* r = state().requests.get(h);
  return r && r->kind != Kind::persistent_inactive;
}

// Called for guard()'s argument, before guard takes the MPI lock: takes it itself.
MPI_Comm comm_of_request(MPI_Request h) {
  CallLock lock;
  const State& s = state();
  const ReqObj* r = s.runtime_up ? s.requests.get(h) : nullptr;
  return r ? r->comm : MPI_COMM_NULL;
}

MPI_Comm comm_of_requests(int count, const MPI_Request* reqs) {
  CallLock lock;
  for (int i = 0; reqs && i < count; ++i)
    if (MPI_Comm c = comm_of_request(reqs[i]); c != MPI_COMM_NULL) return c;
  return MPI_COMM_NULL;
}

void check_requests(int count, const MPI_Request* reqs) {
  check_count(count, "count");
  if (count > 0 && !reqs) raise(MPI_ERR_ARG, "array_of_requests is a null pointer");
  for (int i = 0; i < count; ++i)
    if (reqs[i] != MPI_REQUEST_NULL) req_obj(reqs[i]);  // raises on a bad handle
}

namespace {

// What a wait on r waits for next (null: nothing, it is ready to settle).
engine::Completion* pending_completion(ReqObj& r) {
  switch (r.kind) {
    case Kind::p2p:
      if (!r.p2p.done()) return r.p2p.completion();
      for (Request& q : r.also)
        if (!q.done()) return q.completion();
      return nullptr;
    case Kind::coll: return r.coll.completion();
    case Kind::greq: return r.greq.get();
    case Kind::part_wait: return r.part.get();
    default: return nullptr;
  }
}

// Blocks until one of the active, unsettled requests has completed: one engine wait
// over their completion records, whatever model each belongs to.
void block_until_any(int count, const MPI_Request* reqs) {
  std::vector<ReqObj*> pending;
  for (int i = 0; i < count; ++i) {
    if (!is_active(reqs[i])) continue;
    ReqObj* r = state().requests.get(reqs[i]);
    if (r->kind == Kind::done) return;
    pending.push_back(r);
  }
  if (pending.empty()) return;
  if (pending.size() == 1) {
    settle(*pending[0], true);
    return;
  }
  std::vector<engine::Completion*> set;
  set.reserve(pending.size());
  for (ReqObj* r : pending) set.push_back(pending_completion(*r));
  engine::Context& ctx = spawn::context_of(pending[0]->comm);
  const double limit = ctx.config().op_timeout_s;
  auto timed_out = [limit] {
    raise(MPI_ERR_TIMEOUT, "no request completed within " + std::to_string(limit) + " s (INTERLACE_TIMEOUT)");
  };
  // A spawn connection runs an engine of its own: requests spanning two engines are
  // polled, under the same time limit, leaving the MPI lock to other threads between polls.
  for (ReqObj* r : pending)
    if (&spawn::context_of(r->comm) != &ctx) {
      const Deadline until = Deadline::after(limit);
      for (;;) {
        for (ReqObj* q : pending)
          if (settle(*q, false)) return;
        if (until.expired()) timed_out();
        blocking::Scope waiting;  // as an engine wait: the MPI lock goes to others meanwhile
        std::this_thread::yield();
      }
    }
  Errc rc = ctx.wait_for(set, true, Deadline::after(limit));
  if (rc == Errc::timeout) timed_out();
  if (rc != Errc::ok) throw_error(rc, "waiting for requests failed");
}

void put_status(MPI_Status* statuses, int i, const MPI_Status& st) {
  if (statuses) statuses[i] = st;
}

// Consumes the settled requests among `indices`; raises MPI_ERR_IN_STATUS naming
// each failure when one failed (its status holds the error code).
void consume_many(MPI_Request* reqs, const std::vector<int>& indices, MPI_Status* statuses,
                  int* out_indices) {
  std::string failures;
  for (size_t k = 0; k < indices.size(); ++k) {
    const int i = indices[k];
    MPI_Status st = reqs[i] == MPI_REQUEST_NULL ? empty() : consume(&reqs[i]);
    if (st.MPI_ERROR != MPI_SUCCESS) {
      std::string m = error_message_of(st.MPI_ERROR);
      failures += (failures.empty() ? "" : "; ") + ("request " + std::to_string(i) + ": " + m);
    }
    put_status(statuses, out_indices ? static_cast<int>(k) : i, st);
    if (out_indices) out_indices[k] = i;
  }
  if (!failures.empty()) raise(MPI_ERR_IN_STATUS, failures);
}

}  // namespace

void to_mpi_status(const Status& s, MPI_Status* out) {
  if (!out) return;
  out->MPI_SOURCE = s.source;
  out->MPI_TAG = s.source == MPI_PROC_NULL ? MPI_ANY_TAG : s.tag;
  out->MPI_ERROR = error_class_of(s.error);
  out->il_cancelled = s.cancelled;
  out->il_bytes = static_cast<long long>(s.bytes);
}

void empty_status(MPI_Status* out) {
  if (!out) return;
  out->MPI_SOURCE = MPI_ANY_SOURCE;
  out->MPI_TAG = MPI_ANY_TAG;
  out->MPI_ERROR = MPI_SUCCESS;
  out->il_cancelled = 0;
  out->il_bytes = 0;
}

MPI_Status wait_local(ReqObj r) {
  settle(r, true);
  return r.status;
}

void orphan(ReqObj r) { g_orphans.push_back(std::move(r)); }

void release_requests() {
  reap_orphans();  // what finished gets its on_complete; the rest is abandoned
  g_orphans.clear();
  state().requests.clear();
  release_messages();
}

MPI_Request new_request(ReqObj r) {
  if (!g_orphans.empty()) reap_orphans();
  return state().requests.add(std::move(r));
}

MPI_Request new_request(Request op, MPI_Comm comm) {
  if (!g_orphans.empty()) reap_orphans();
  HandleTable<ReqObj>& t = state().requests;
  const MPI_Request h = t.emplace();
  ReqObj& r = *t.get(h);
  r.kind = Kind::p2p;
  r.comm = comm;
  r.p2p = std::move(op);
  return h;
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  return guard("MPI_Wait", request ? comm_of_request(*request) : MPI_COMM_NULL, [&] {
    require_initialized("MPI_Wait");
    if (!request) raise(MPI_ERR_ARG, "request is a null pointer");
    if (*request == MPI_REQUEST_NULL) return empty_status(status);
    // require_initialized found the tables live: a plain read, req_obj only to raise.
    ReqObj* found = state().requests.get(*request);
    ReqObj& r = found ? *found : req_obj(*request);
    settle(r, true);
    MPI_Status st = consume(request, &r);
    if (status) *status = st;
    if (st.MPI_ERROR != MPI_SUCCESS) raise_code(st.MPI_ERROR);
  });
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  return guard("MPI_Test", request ? comm_of_request(*request) : MPI_COMM_NULL, [&] {
    require_initialized("MPI_Test");
    if (!request || !flag) raise(MPI_ERR_ARG, "request or flag is a null pointer");
    *flag = 0;
    if (*request == MPI_REQUEST_NULL) {
      *flag = 1;
      return empty_status(status);
    }
    if (!settle(req_obj(*request), false)) return;
    *flag = 1;
    MPI_Status st = consume(request);
    if (status) *status = st;
    if (st.MPI_ERROR != MPI_SUCCESS) raise_code(st.MPI_ERROR);
  });
}

int MPI_Waitall(int count, MPI_Request reqs[], MPI_Status statuses[]) {
  return guard("MPI_Waitall", comm_of_requests(count, reqs), [&] {
    require_initialized("MPI_Waitall");
    check_requests(count, reqs);
    std::vector<int> all;
    for (int i = 0; i < count; ++i) {
      // Waiting on each in turn is enough: all of them progress during any wait.
      if (reqs[i] != MPI_REQUEST_NULL) settle(*state().requests.get(reqs[i]), true);
      all.push_back(i);
    }
    consume_many(reqs, all, statuses, nullptr);
  });
}

int MPI_Testall(int count, MPI_Request reqs[], int* flag, MPI_Status statuses[]) {
  return guard("MPI_Testall", comm_of_requests(count, reqs), [&] {
    require_initialized("MPI_Testall");
    check_requests(count, reqs);
    if (!flag) raise(MPI_ERR_ARG, "flag is a null pointer");
    bool all_done = true;
    std::vector<int> all;
    for (int i = 0; i < count; ++i) {
      if (reqs[i] != MPI_REQUEST_NULL && !settle(*state().requests.get(reqs[i]), false))
        all_done = false;
      all.push_back(i);
    }
    *flag = all_done;  // otherwise nothing is reported: settled ones wait for a later call
    if (all_done) consume_many(reqs, all, statuses, nullptr);
  });
}

// Shared by Waitany/Testany: reports the first settled active request.
static bool any_settled(int count, MPI_Request reqs[], int* index, MPI_Status* status,
                        bool* none_active) {
  *none_active = true;
  for (int i = 0; i < count; ++i) {
    if (!is_active(reqs[i])) continue;
    *none_active = false;
    if (!settle(*state().requests.get(reqs[i]), false)) continue;
    *index = i;
    MPI_Status st = consume(&reqs[i]);
    if (status) *status = st;
    if (st.MPI_ERROR != MPI_SUCCESS) raise_code(st.MPI_ERROR);
    return true;
  }
  if (*none_active) {
    *index = MPI_UNDEFINED;
    empty_status(status);
  }
  return false;
}

int MPI_Waitany(int count, MPI_Request reqs[], int* index, MPI_Status* status) {
  return guard("MPI_Waitany", comm_of_requests(count, reqs), [&] {
    require_initialized("MPI_Waitany");
    check_requests(count, reqs);
    if (!index) raise(MPI_ERR_ARG, "index is a null pointer");
    bool none_active = false;
    while (!any_settled(count, reqs, index, status, &none_active) && !none_active)
      block_until_any(count, reqs);
  });
}

int MPI_Testany(int count, MPI_Request reqs[], int* index, int* flag, MPI_Status* status) {
  return guard("MPI_Testany", comm_of_requests(count, reqs), [&] {
    require_initialized("MPI_Testany");
    check_requests(count, reqs);
    if (!index || !flag) raise(MPI_ERR_ARG, "index or flag is a null pointer");
    bool none_active = false;
    *flag = 0;
    *index = MPI_UNDEFINED;
    bool found = any_settled(count, reqs, index, status, &none_active);
    *flag = found || none_active;
  });
}

// Shared by Waitsome/Testsome: reports every settled active request.
static void some_settled(int count, MPI_Request reqs[], int* outcount, int indices[],
                         MPI_Status statuses[], bool block) {
  for (;;) {
    std::vector<int> done;
    bool any_active = false;
    for (int i = 0; i < count; ++i) {
      if (!is_active(reqs[i])) continue;
      any_active = true;
      if (settle(*state().requests.get(reqs[i]), false)) done.push_back(i);
    }
    if (!any_active) {
      *outcount = MPI_UNDEFINED;
      return;
    }
    if (!done.empty() || !block) {
      *outcount = static_cast<int>(done.size());
      if (!indices && !done.empty()) raise(MPI_ERR_ARG, "array_of_indices is a null pointer");
      consume_many(reqs, done, statuses, indices);
      return;
    }
    block_until_any(count, reqs);
  }
}

int MPI_Waitsome(int incount, MPI_Request reqs[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  return guard("MPI_Waitsome", comm_of_requests(incount, reqs), [&] {
    require_initialized("MPI_Waitsome");
    check_requests(incount, reqs);
    if (!outcount) raise(MPI_ERR_ARG, "outcount is a null pointer");
    some_settled(incount, reqs, outcount, indices, statuses, true);
  });
}

int MPI_Testsome(int incount, MPI_Request reqs[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  return guard("MPI_Testsome", comm_of_requests(incount, reqs), [&] {
    require_initialized("MPI_Testsome");
    check_requests(incount, reqs);
    if (!outcount) raise(MPI_ERR_ARG, "outcount is a null pointer");
    some_settled(incount, reqs, outcount, indices, statuses, false);
  });
}

}  // extern "C"
