// Request lifetime and the calls on single requests that do not wait: Request_free,
// Request_get_status, Cancel, Test_cancelled, Start, Startall.
#include "compat/mpi/mpi_core.hpp"

using namespace interlace::mpi;
using Kind = ReqObj::Kind;

extern "C" {

int MPI_Request_free(MPI_Request* request) {
  return guard("MPI_Request_free", request ? comm_of_request(*request) : MPI_COMM_NULL, [&] {
    require_initialized("MPI_Request_free");
    if (!request) raise(MPI_ERR_ARG, "request is a null pointer");
    ReqObj& r = req_obj(*request);
    if (r.kind == Kind::greq && !r.greq->done) {
      // MPI_Grequest_complete still names this handle: it frees it then.
      r.greq->released = true;
      *request = MPI_REQUEST_NULL;
      return;
    }
    // A running operation still completes (MPI semantics): it finishes as an orphan;
    // a generalized request's free_fn then runs once it is completed.
    if (r.kind == Kind::p2p || r.kind == Kind::coll || r.kind == Kind::part_wait)
      orphan(std::move(r));
    else
      free_request_resources(r, nullptr);
    state().requests.remove(*request);
    *request = MPI_REQUEST_NULL;
  });
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  return guard("MPI_Request_get_status", comm_of_request(request), [&] {
    require_initialized("MPI_Request_get_status");
    if (!flag) raise(MPI_ERR_ARG, "flag is a null pointer");
    if (request == MPI_REQUEST_NULL) {
      *flag = 1;
      return empty_status(status);
    }
    ReqObj& r = req_obj(request);
    *flag = settle(r, false);
    if (*flag && status) *status = r.kind == Kind::done ? r.status : MPI_Status{};
    if (*flag && r.kind == Kind::persistent_inactive) empty_status(status);
  });
}

int MPI_Cancel(MPI_Request* request) {
  return guard("MPI_Cancel", request ? comm_of_request(*request) : MPI_COMM_NULL, [&] {
    require_initialized("MPI_Cancel");
    if (!request) raise(MPI_ERR_ARG, "request is a null pointer");
    ReqObj& r = req_obj(*request);
    if (r.kind == Kind::coll) raise(MPI_ERR_REQUEST, "a collective request cannot be cancelled");
    if (r.kind == Kind::greq) {
      // MPI: cancel_fn learns whether MPI_Grequest_complete already ran.
      GreqState& g = *r.greq;
      if (g.cancel) {
        const int rc = g.cancel(g.extra, g.done ? 1 : 0);
        if (rc != MPI_SUCCESS) raise_code(rc);
      }
      return;
    }
    // An unmatched receive, or rendezvous send, is withdrawn (the wait then reports
    // cancelled); a matched or eager send completes normally, uncancelled, as MPI
    // allows. Isendrecv's pair is not cancelled (either half may have matched).
    if (r.kind == Kind::p2p && r.also.empty()) r.p2p.cancel();
  });
}

int MPI_Test_cancelled(const MPI_Status* status, int* flag) {
  return guard("MPI_Test_cancelled", MPI_COMM_NULL, [&] {
    if (!status || !flag) raise(MPI_ERR_ARG, "status or flag is a null pointer");
    *flag = status->il_cancelled != 0;
  });
}

int MPI_Start(MPI_Request* request) {
  return guard("MPI_Start", request ? comm_of_request(*request) : MPI_COMM_NULL, [&] {
    require_initialized("MPI_Start");
    if (!request) raise(MPI_ERR_ARG, "request is a null pointer");
    ReqObj& r = req_obj(*request);
    if (!r.persistent || !r.start)
      raise(MPI_ERR_REQUEST, "request " + std::to_string(*request) + " is not persistent");
    if (r.kind != Kind::persistent_inactive)
      raise(MPI_ERR_REQUEST, "request " + std::to_string(*request) + " is already active");
    r.start(r);
  });
}

int MPI_Startall(int count, MPI_Request reqs[]) {
  return guard("MPI_Startall", comm_of_requests(count, reqs), [&] {
    require_initialized("MPI_Startall");
    check_requests(count, reqs);
    for (int i = 0; i < count; ++i) {
      ReqObj& r = req_obj(reqs[i]);
      if (!r.persistent || !r.start)
        raise(MPI_ERR_REQUEST, "request " + std::to_string(reqs[i]) + " (index " +
                                   std::to_string(i) + ") is not persistent");
      if (r.kind != Kind::persistent_inactive)
        raise(MPI_ERR_REQUEST, "request " + std::to_string(reqs[i]) + " (index " +
                                   std::to_string(i) + ") is already active");
    }
    for (int i = 0; i < count; ++i) {
      ReqObj& r = *state().requests.get(reqs[i]);
      r.start(r);
    }
  });
}

}  // extern "C"
