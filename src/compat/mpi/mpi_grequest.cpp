// Generalized requests: the user's operation, completed by MPI_Grequest_complete; waits
// call query_fn for the status, then free_fn as the handle goes (mpi_request.cpp).
#include "compat/mpi/mpi_p2p.hpp"

using namespace interlace::mpi;

extern "C" {

int MPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                       MPI_Grequest_cancel_function* cancel_fn, void* extra_state,
                       MPI_Request* request) {
  return guard("MPI_Grequest_start", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Grequest_start");
    check_out(request, "request");
    auto g = std::make_shared<GreqState>();
    g->query = query_fn;
    g->free_fn = free_fn;
    g->cancel = cancel_fn;
    g->extra = extra_state;
    ReqObj r;
    r.kind = ReqObj::Kind::greq;
    r.greq = std::move(g);
    *request = new_request(std::move(r));
  });
}

int MPI_Grequest_complete(MPI_Request request) {
  return guard("MPI_Grequest_complete", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Grequest_complete");
    ReqObj& r = req_obj(request);
    if (!r.greq)
      raise(MPI_ERR_REQUEST, "request " + std::to_string(request) +
                                 " is not a generalized request (MPI_Grequest_start)");
    if (r.greq->done)
      raise(MPI_ERR_REQUEST, "generalized request " + std::to_string(request) +
                                 " was already completed");
    r.greq->done = true;
    if (r.greq->released) {
      free_request_resources(r, nullptr);
      state().requests.remove(request);
    }
  });
}

}  // extern "C"
