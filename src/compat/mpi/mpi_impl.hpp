// Internal: the state behind the MPI C API (include/mpi.h) shared by its files.
//   mpi_env.cpp      Init/Finalize/Abort/Wtime/attrs, the process state, handle tables
//   mpi_error.cpp    error handlers, error codes with messages, the call guard
//   mpi_p2p.cpp      point-to-point calls; mpi_request.cpp  requests, Wait*/Test*
//   mpi_datatype.cpp datatypes, pack/unpack;     mpi_op.cpp  operators
//   mpi_coll.cpp     collectives;  mpi_comm.cpp communicators; mpi_group.cpp groups
//   mpi_inter*.cpp   intercommunicators; mpi_comm_ext.cpp create_group, idup, split_type
// One MPI process is one interlace rank; the state is process-wide.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/coll/schedule.hpp"
#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"
#include "interlace/engine/completion.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/p2p/request.hpp"
#include "mpi.h"

namespace interlace::mpi {

// ---- handle tables ------------------------------------------------------------------
// Slot 0 is the null handle; predefined objects occupy the first slots and are never
// freed. get() returns nullptr for a handle that is out of range or freed.
template <class T>
class HandleTable {
 public:
  int add(T obj) { return place(std::make_unique<T>(std::move(obj))); }
  // A default object at a new handle, for the caller to fill in: a large T (a request)
  // is then built once instead of moved twice on its way into the table.
  int emplace() { return place(std::make_unique<T>()); }
  // Places a predefined object at exactly handle h (tables grow as needed).
  void put(int h, T obj) {
    if (static_cast<size_t>(h) >= slots_.size()) slots_.resize(h + 1);
    slots_[h] = std::make_unique<T>(std::move(obj));
  }
  T* get(int h) const noexcept {
    if (h <= 0 || static_cast<size_t>(h) >= slots_.size()) return nullptr;
    return slots_[h].get();
  }
  void remove(int h) {
    if (!get(h)) return;
    slots_[h].reset();
    free_.push_back(h);
  }
  void clear() { slots_.clear(); free_.clear(); }

 private:
  int place(std::unique_ptr<T> obj) {
    if (!free_.empty()) {
      int h = free_.back();
      free_.pop_back();
      slots_[h] = std::move(obj);
      return h;
    }
    slots_.push_back(std::move(obj));
    return static_cast<int>(slots_.size() - 1);
  }
  std::vector<std::unique_ptr<T>> slots_{1};  // slot 0: null
  std::vector<int> free_;
};

// ---- objects ------------------------------------------------------------------------
// What an intercommunicator holds besides CommObj::comm (mpi_inter*.cpp).
struct InterState {
  std::vector<int> remote;             // world ranks of the remote group, in group rank order
  Communicator local_comm;             // intracommunicator of the local group
  // The local group's world ranks: local_comm's own table, not a second copy (mpi_inter.cpp).
  const std::vector<int>& local() const;
  MPI_Comm local_handle = MPI_COMM_NULL;  // the same as a hidden MPI handle (typed collectives)
  Communicator coll;                   // collective traffic between the groups (own id)
};

struct CommObj {
  // A constructor rather than aggregate braces, so a new member needs no edit where
  // communicators are made (mpi_env.cpp).
  CommObj() = default;
  CommObj(Communicator c, MPI_Errhandler eh, std::string n, bool pre)
      : comm(std::move(c)), errhandler(eh), name(std::move(n)), predefined(pre) {}
  Communicator comm;               // interlace communicator (world, self, dup, split...)
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  bool predefined = false;         // world and self cannot be freed
  // Set on an intercommunicator. Its `comm` translates ranks to the REMOTE group (dest,
  // source, ANY_SOURCE and status.MPI_SOURCE are remote ranks; rank() is this rank in the
  // local group), so point-to-point calls need no special case; Comm_size must ask here.
  std::shared_ptr<InterState> inter;
};

struct GroupObj {
  std::vector<int> members;        // world ranks, in group rank order
};

// A typemap flattened to byte blocks of one element: (offset from the buffer, length).
// Adjacent blocks are merged, so a contiguous type has exactly one block.
struct Block {
  std::ptrdiff_t offset;
  size_t len;
};

struct TypeObj {
  std::string name;                // "MPI_INT" or a user name
  size_t size = 0;                 // bytes of data in one element
  MPI_Aint lb = 0, extent = 0;     // as MPI_Type_get_extent
  MPI_Aint true_lb = 0, true_extent = 0;
  std::vector<Block> blocks;       // the typemap of one element
  bool predefined = false;
  bool committed = false;          // predefined types are committed
  int combiner = MPI_COMBINER_NAMED;
  // When every basic element of the type is the same predefined type (e.g. a vector of
  // MPI_DOUBLE), that type and how many of them one element holds: reductions use it.
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  size_t basic_count = 0;
  // A predefined type's interlace equivalent for transport and built-in reductions
  // (nullopt: no equivalent, e.g. long double, pairs, complex).
  std::optional<Datatype> core;
  // Set by the derived-type constructors (mpi_type_create.cpp); predefined types use
  // their C alignment. align: the largest alignment of a basic element (a struct's
  // extent rounds up to it, MPI's epsilon); explicit_bounds: lb/extent come from
  // MPI_Type_create_resized (directly or in a component), so no rounding applies.
  size_t align = 1;
  bool explicit_bounds = false;
  // The basic elements of one element in typemap order, as runs of one predefined
  // type (a pair type is its value then MPI_INT): MPI_Get_elements and external32
  // walk them alongside the packed bytes.
  struct Run {
    MPI_Datatype type;
    size_t count;
  };
  std::vector<Run> runs;
  // The constructor's arguments, for MPI_Type_get_envelope / get_contents. Input
  // datatypes that are not predefined are kept as snapshots (the user may free the
  // handles); get_contents hands out a new handle for each (the caller frees it).
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Datatype> inputs;
  std::vector<std::shared_ptr<const TypeObj>> input_objs;  // null for predefined inputs
  // True when one element is `size` contiguous bytes starting at the buffer
  // (single block at offset 0, extent == size): no packing needed.
  bool contiguous() const noexcept {
    return blocks.size() <= 1 && (blocks.empty() || blocks[0].offset == 0) &&
           extent == static_cast<MPI_Aint>(size);
  }
};

struct OpObj {
  std::string name;                // "MPI_SUM" or "user op"
  bool predefined = false;
  bool commutative = true;
  MPI_User_function* user = nullptr;
};

// A generalized request (MPI_Grequest_start): done once MPI_Grequest_complete ran, so
// that waits (any mix of requests, released MPI lock included) treat it like the rest.
struct GreqState : engine::Completion {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free_fn = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra = nullptr;
  bool freed = false;              // free_fn ran
  bool released = false;           // MPI_Request_free came first: the handle stays until
                                   // MPI_Grequest_complete, which then frees it
};

// A request the MPI layer hands out: one of several kinds of pending work, plus what
// to do when it completes (unpack a received derived type, release a temp buffer...).
// part_wait: a started partitioned send waiting for MPI_Pready of every partition
// (mpi_part.cpp), after which it becomes kind p2p.
struct ReqObj {
  enum class Kind { p2p, coll, done, persistent_inactive, greq, part_wait };
  Kind kind = Kind::done;
  Request p2p;                     // kind p2p
  std::vector<Request> also;       // kind p2p: more operations of the same request
                                   // (MPI_Isendrecv's send); done when all are
  coll::Request coll;              // kind coll
  std::shared_ptr<GreqState> greq; // kind greq
  std::shared_ptr<engine::Completion> part;  // partitioned state (mpi_part.cpp)
  MPI_Status status{};             // kind done: the final status
  // Runs once when the operation completes, before the status is reported (it may
  // fill in the status, e.g. the receive count of an unpacked message).
  std::function<void(MPI_Status&)> on_complete;
  std::shared_ptr<void> keep;      // temp buffers that must live until completion
  MPI_Comm comm = MPI_COMM_NULL;   // for the error handler
  // Persistent requests (MPI_*_init): how to start the operation again.
  std::function<void(ReqObj&)> start;
  bool persistent = false;
};

struct State {
  Runtime rt;
  bool initialized = false;        // the world model: MPI_Init ran ...
  bool finalized = false;          // ... and MPI_Finalize ran
  bool runtime_up = false;         // rt is running (world model or a session uses it)
  int runtime_starts = 0;          // rt's start-ups: what was attached to an earlier one is gone
  int live_sessions = 0;           // MPI_Session_init minus MPI_Session_finalize
  int thread_level = MPI_THREAD_SINGLE;
  HandleTable<CommObj> comms;      // 1 world, 2 self
  HandleTable<GroupObj> groups;    // 1 empty
  HandleTable<TypeObj> types;      // 1..IL_MPI_PREDEFINED_TYPES-1 predefined
  HandleTable<OpObj> ops;          // 1..IL_MPI_PREDEFINED_OPS-1 predefined
  HandleTable<ReqObj> requests;
  void* bsend_buf = nullptr;       // MPI_Buffer_attach
  int bsend_size = 0;
};

State& state();                    // the process state (exists before MPI_Init)

// The world model and MPI sessions share one interlace runtime (mpi_env.cpp): the first
// of MPI_Init / MPI_Session_init starts it with the predefined objects, the last of
// MPI_Finalize / MPI_Session_finalize ends it; a later MPI_Session_init starts a new one.
// session_delta (+1 / -1) changes State::live_sessions under the same lock.
void runtime_acquire(int session_delta);
void runtime_release(int session_delta);

// ---- errors (mpi_error.cpp) ------------------------------------------------------------
// An error raised inside an MPI call: the class and a message naming the bad value.
class MpiError : public std::exception {
 public:
  MpiError(int cls, std::string msg) : cls_(cls), msg_(std::move(msg)) {}
  int error_class() const noexcept { return cls_; }
  const char* what() const noexcept override { return msg_.c_str(); }
 private:
  int cls_;
  std::string msg_;
};
[[noreturn]] void raise(int cls, const std::string& msg);
// MPI_ERR_ARG for a null pointer argument: "WHAT is a null pointer", or with the call
// named, "CALL: WHAT is null" (the two wordings the MPI files used; tests read both).
inline void need(const void* p, const char* what) {
  if (!p) raise(MPI_ERR_ARG, std::string(what) + " is a null pointer");
}
inline void need(const void* p, const char* call, const char* what) {
  if (!p) raise(MPI_ERR_ARG, std::string(call) + ": " + what + " is null");
}
int error_class_of(Errc e) noexcept;  // interlace error -> MPI error class

// Runs body() for the MPI call `call` on `comm` (for its error handler; MPI_COMM_NULL
// means the world's); converts MpiError, interlace::Error and std::bad_alloc into an
// error code; under MPI_ERRORS_ARE_FATAL prints "MPI error on rank R in CALL: WHAT"
// and aborts the job. Returns MPI_SUCCESS or the code.
// A template, not std::function: the body's captures would not fit std::function's
// inline buffer, and a heap allocation per MPI call showed in the 8 B latency.
int fail_current(const char* call, MPI_Comm comm);  // the exception in flight -> code
// MPI_THREAD_MULTIPLE (mpi_threads.cpp): every call holds one process-wide MPI lock
// (recursive: callbacks may call MPI); a thread that waits in the engine for long
// lets go of it meanwhile, so threads in blocking calls do not starve each other.
// Below MULTIPLE the lock is never taken: one relaxed load per call.
extern std::atomic<bool> g_thread_multiple;
void mpi_lock();
void mpi_unlock();
struct CallLock {
  bool held = g_thread_multiple.load(std::memory_order_relaxed);
  CallLock() { if (held) mpi_lock(); }
  ~CallLock() { if (held) mpi_unlock(); }
  CallLock(const CallLock&) = delete;
  CallLock& operator=(const CallLock&) = delete;
};
// MPI_Init_thread: the level granted for `required` (switches the lock on for MULTIPLE).
int grant_thread_level(int required);

template <class Body>
inline int guard(const char* call, MPI_Comm comm, Body&& body) {
  CallLock lock;
  try {
    body();
    return MPI_SUCCESS;
  } catch (...) {
    return fail_current(call, comm);
  }
}
// Raises MPI_ERR_OTHER unless MPI_Init ran and MPI_Finalize did not.
void require_initialized(const char* call);
// An error code for errors found outside guard() (e.g. per-request errors in Waitall).
int make_error_code(int cls, const std::string& msg);

// ---- lookups that raise the matching MPI error naming the bad handle ----------------
CommObj& comm_obj(MPI_Comm c);            // MPI_ERR_COMM
GroupObj& group_obj(MPI_Group g);         // MPI_ERR_GROUP
TypeObj& type_obj(MPI_Datatype t);        // MPI_ERR_TYPE (also: not committed)
OpObj& op_obj(MPI_Op o);                  // MPI_ERR_OP
ReqObj& req_obj(MPI_Request r);           // MPI_ERR_REQUEST
const Communicator& comm_of(MPI_Comm c);  // comm_obj(c).comm
void check_count(int count, const char* what);  // MPI_ERR_COUNT for count < 0

// ---- datatypes (mpi_datatype.cpp) -------------------------------------------------------
void register_predefined_types(State& s);
// Bytes of data in `count` elements.
size_t data_bytes(const TypeObj& t, int count);
// Copies count elements at buf (laid out by t) into out (size data_bytes), and back.
void pack(const void* buf, int count, const TypeObj& t, void* out);
void unpack(const void* in, int count, const TypeObj& t, void* buf);
// Send side: a contiguous view of (buf, count, t): buf itself when t is contiguous,
// else a packed copy held in `tmp`.
struct Packed {
  const void* data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<std::vector<std::byte>> tmp;
};
Packed pack_view(const void* buf, int count, const TypeObj& t);
// Receive side: where to receive (buf, count, t) as contiguous bytes; after the data
// arrived, finish(bytes_received) unpacks into the user buffer when a temp was used.
struct Unpacked {
  void* data = nullptr;
  size_t bytes = 0;
  std::shared_ptr<std::vector<std::byte>> tmp;
  void* user = nullptr;
  const TypeObj* type = nullptr;
  void finish(size_t received) const;  // unpacks the whole elements received
};
Unpacked unpack_view(void* buf, int count, const TypeObj& t);
// The basic elements in the first `bytes` packed bytes of type t (MPI_Get_elements):
// -1 when the bytes end inside a basic element (MPI_UNDEFINED).
long long elements_in(const TypeObj& t, size_t bytes);

// ---- operators (mpi_op.cpp) ----------------------------------------------------------------
void register_predefined_ops(State& s);
// What a reduction of `count` elements of type `t` with `op` becomes in the collective
// engine: the engine datatype and element count, and the engine op (a built-in
// ReduceOp when one exists, else a callable). Raises MPI_ERR_OP naming both when the
// pair is not allowed (e.g. MPI_MINLOC on MPI_INT, MPI_BAND on MPI_FLOAT).
struct Reduction {
  Datatype dt = Datatype::bytes;
  size_t count = 0;
  coll::Op op;
  // Engine elements per indivisible MPI element (e.g. 12 for MPI_DOUBLE_INT carried as
  // bytes, t.size for a user op on a derived type): a collective must only split the
  // buffer at multiples of it (the op raises MPI_ERR_INTERN on a partial element).
  size_t unit = 1;
};
Reduction reduction_for(MPI_Op op, MPI_Datatype t, int count);

// ---- requests (mpi_request.cpp) --------------------------------------------------------
MPI_Request new_request(ReqObj r);
// The same for a plain point-to-point operation (kind p2p, nothing to do on completion),
// built in its slot: MPI_Isend/MPI_Irecv of contiguous types.
MPI_Request new_request(Request op, MPI_Comm comm);
// Converts an interlace p2p Status into an MPI_Status (status may be null).
void to_mpi_status(const Status& s, MPI_Status* out);
void empty_status(MPI_Status* out);  // source MPI_ANY_SOURCE... for null requests

// ---- communicators (mpi_comm.cpp) -----------------------------------------------------------
void register_predefined_comms(State& s);   // world, self, empty group
MPI_Comm new_comm(Communicator c, MPI_Errhandler inherit);
// MPI_Comm_dup (intra or inter) with the attributes copied (mpi_comm.cpp).
MPI_Comm dup_comm(MPI_Comm comm);
// True for a valid intercommunicator handle (the collectives dispatch on it).
bool is_inter(MPI_Comm c) noexcept;
// MPI_Comm_size: the local group's size (an intercommunicator's `comm` counts the remote).
int local_size_of(MPI_Comm c);

}  // namespace interlace::mpi
