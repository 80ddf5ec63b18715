// Handle lookups that raise the matching MPI error naming the bad handle, and the
// argument checks shared by the point-to-point calls.
#include "compat/mpi/mpi_core.hpp"

namespace interlace::mpi {
namespace {

// Every lookup needs the handle tables, which exist only while the runtime runs
// (between Init and Finalize, or while an MPI session lives). Takes the state the
// lookup reads anyway: state() is a call through the PLT, and a lookup per argument adds up.
State& require_live() {
  State& s = state();
  if (s.runtime_up) return s;
  if (!s.initialized) raise(MPI_ERR_OTHER, "MPI is not initialized (call MPI_Init or MPI_Session_init first)");
  raise(MPI_ERR_OTHER, "MPI was already finalized (and no MPI session is live)");
}

std::string comm_name(MPI_Comm c) {
  return c == MPI_COMM_NULL ? std::string("MPI_COMM_NULL") : "communicator " + std::to_string(c);
}

}  // namespace

CommObj& comm_obj(MPI_Comm c) {
  CommObj* o = require_live().comms.get(c);
  if (!o || o->comm.is_null()) raise(MPI_ERR_COMM, comm_name(c) + " is not a valid communicator");
  return *o;
}

const Communicator& comm_of(MPI_Comm c) { return comm_obj(c).comm; }

GroupObj& group_obj(MPI_Group g) {
  GroupObj* o = require_live().groups.get(g);
  if (!o)
    raise(MPI_ERR_GROUP, (g == MPI_GROUP_NULL ? std::string("MPI_GROUP_NULL")
                                               : "group " + std::to_string(g)) +
                             " is not a valid group");
  return *o;
}

TypeObj& type_obj(MPI_Datatype t) {
  TypeObj* o = require_live().types.get(t);
  if (!o)
    raise(MPI_ERR_TYPE, (t == MPI_DATATYPE_NULL ? std::string("MPI_DATATYPE_NULL")
                                                 : "datatype " + std::to_string(t)) +
                            " is not a valid datatype");
  if (!o->committed)
    raise(MPI_ERR_TYPE, "datatype " + (o->name.empty() ? std::to_string(t) : o->name) +
                            " is not committed (call MPI_Type_commit)");
  return *o;
}

OpObj& op_obj(MPI_Op op) {
  OpObj* o = require_live().ops.get(op);
  if (!o)
    raise(MPI_ERR_OP, (op == MPI_OP_NULL ? std::string("MPI_OP_NULL")
                                          : "operator " + std::to_string(op)) +
                          " is not a valid operator");
  return *o;
}

ReqObj& req_obj(MPI_Request r) {
  ReqObj* o = require_live().requests.get(r);
  if (!o)
    raise(MPI_ERR_REQUEST, (r == MPI_REQUEST_NULL ? std::string("MPI_REQUEST_NULL")
                                                   : "request " + std::to_string(r)) +
                               " is not a valid request");
  return *o;
}

void check_count(int count, const char* what) {
  if (count < 0)
    raise(MPI_ERR_COUNT, std::string(what) + " " + std::to_string(count) + " is negative");
}

void check_peer(const Communicator& c, int rank, const char* what, bool any_allowed) {
  if (rank == MPI_PROC_NULL || (any_allowed && rank == MPI_ANY_SOURCE)) return;
  if (rank < 0 || rank >= c.size())
    raise(MPI_ERR_RANK, std::string(what) + " " + std::to_string(rank) +
                            " is not a rank of a communicator of size " +
                            std::to_string(c.size()));
}

void check_tag(int tag, bool any_allowed) {
  if (any_allowed && tag == MPI_ANY_TAG) return;
  if (tag < 0 || tag > kTagUpperBound)
    raise(MPI_ERR_TAG, "tag " + std::to_string(tag) + " is not in 0.." +
                           std::to_string(kTagUpperBound) +
                           (any_allowed ? " or MPI_ANY_TAG" : ""));
}

}  // namespace interlace::mpi
