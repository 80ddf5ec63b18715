// MPI operators: the predefined ops, MPI_Op_create/free/commutative, MPI_Reduce_local,
// and reduction_for(), which turns (op, datatype, count) into what the collective
// engine reduces: interlace's built-in ReduceOp where the datatype's basic element has
// an interlace equivalent and the op exists there, else a callable.
#include <array>
#include <algorithm>
#include <cstring>
#include <memory>

#include "compat/mpi/mpi_impl.hpp"
#include "compat/mpi/mpi_op_kernels.hpp"

namespace interlace::mpi {
namespace {

constexpr const char* kOpNames[IL_MPI_PREDEFINED_OPS] = {
    "MPI_OP_NULL", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND",
    "MPI_LOR", "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC",
    "MPI_REPLACE", "MPI_NO_OP"};

std::optional<ReduceOp> builtin_of(MPI_Op op) {
  switch (op) {
    case MPI_MAX: return ReduceOp::max;
    case MPI_MIN: return ReduceOp::min;
    case MPI_SUM: return ReduceOp::sum;
    case MPI_PROD: return ReduceOp::prod;
    case MPI_LAND: return ReduceOp::land;
    case MPI_LOR: return ReduceOp::lor;
    case MPI_BAND: return ReduceOp::band;
    case MPI_BOR: return ReduceOp::bor;
    case MPI_BXOR: return ReduceOp::bxor;
    default: return std::nullopt;  // LXOR, MINLOC, MAXLOC have no interlace equivalent
  }
}

std::string type_label(MPI_Datatype h, const TypeObj& t) {
  if (!t.name.empty()) return t.name;
  return "datatype " + std::to_string(h);
}

// The number of MPI elements in `n` engine elements of `unit` each; a partial element
// means a collective split the buffer inside an element (see Reduction::unit).
size_t whole(size_t n, size_t unit, const std::string& what) {
  if (unit > 1 && n % unit != 0)
    raise(MPI_ERR_INTERN, what + ": the collective passed " + std::to_string(n) +
                              " engine elements, not a multiple of the element's " +
                              std::to_string(unit));
  return n / unit;
}

// A user function as an engine callable. The engine hands over packed data; fn sees
// it laid out by the original datatype, with that datatype's handle.
coll::UserFn user_callable(MPI_User_function* fn, MPI_Datatype h, const TypeObj& t, size_t unit) {
  if (t.contiguous()) {
    return [fn, h, unit](const void* in, void* inout, size_t n, Datatype) {
      int len = static_cast<int>(whole(n, unit, "user op"));
      MPI_Datatype dt = h;
      fn(const_cast<void*>(in), inout, &len, &dt);
    };
  }
  auto type = std::make_shared<TypeObj>(t);  // a copy: the handle may be freed meanwhile
  return [fn, h, type, unit](const void* in, void* inout, size_t n, Datatype) {
    const size_t elems = whole(n, unit, "user op");
    if (elems == 0) return;
    // Element i spans [i*extent + true_lb, +true_extent); buffers start at true_lb.
    const size_t span = (elems - 1) * type->extent + type->true_extent;
    std::vector<std::byte> a(span), b(span);
    auto* base_a = a.data() - type->true_lb;
    auto* base_b = b.data() - type->true_lb;
    unpack(in, static_cast<int>(elems), *type, base_a);
    unpack(inout, static_cast<int>(elems), *type, base_b);
    int len = static_cast<int>(elems);
    MPI_Datatype dt = h;
    fn(base_a, base_b, &len, &dt);
    pack(base_b, static_cast<int>(elems), *type, inout);
  };
}

}  // namespace

void register_predefined_ops(State& s) {
  for (int h = 1; h < IL_MPI_PREDEFINED_OPS; ++h) {
    OpObj o;
    o.name = kOpNames[h];
    o.predefined = true;
    o.commutative = true;
    s.ops.put(h, std::move(o));
  }
}

namespace {

// (predefined op, predefined type) -> the engine's built-in reduction. Neither handle
// can be freed or redefined, so the answer never changes; looking both up and checking
// them again cost ~340 instructions per reducing call (issue 14). Only successes are
// kept: an invalid pair is refused, with its message, every time.
struct KnownReduction {
  Datatype dt = Datatype::bytes;
  ReduceOp op = ReduceOp::sum;
  bool set = false;
};
thread_local std::array<KnownReduction, IL_MPI_PREDEFINED_OPS * IL_MPI_PREDEFINED_TYPES> t_known;

KnownReduction* known_slot(MPI_Op op, MPI_Datatype h) {
  if (op <= 0 || op >= IL_MPI_PREDEFINED_OPS || h <= 0 || h >= IL_MPI_PREDEFINED_TYPES) return nullptr;
  return &t_known[static_cast<size_t>(op) * IL_MPI_PREDEFINED_TYPES + static_cast<size_t>(h)];
}

}  // namespace

Reduction reduction_for(MPI_Op op, MPI_Datatype h, int count) {
  check_count(count, "count");
  KnownReduction* known = known_slot(op, h);
  if (known && known->set) {
    Reduction r;
    r.dt = known->dt;
    r.count = static_cast<size_t>(count);  // a predefined type is one basic element
    r.op = coll::Op(known->op);
    return r;
  }
  const OpObj& o = op_obj(op);
  const TypeObj& t = type_obj(h);
  Reduction r;
  if (o.user) {
    // Whole elements must reach fn: a predefined type with an interlace equivalent
    // travels as it (any split is whole), everything else as bytes of t.size units.
    if (h < IL_MPI_PREDEFINED_TYPES && t.core) {
      r.dt = *t.core;
      r.count = static_cast<size_t>(count);
    } else {
      r.dt = Datatype::bytes;
      r.count = data_bytes(t, count);
      r.unit = std::max<size_t>(1, t.size);
    }
    r.op = coll::Op(user_callable(o.user, h, t, r.unit), o.commutative, "user op " + std::to_string(op));
    return r;
  }
  if (op == MPI_REPLACE || op == MPI_NO_OP)
    raise(MPI_ERR_OP, std::string(o.name) + " is only valid in one-sided operations");
  // A predefined op reduces the basic elements: a derived type qualifies when all of
  // them are one predefined type (a vector of MPI_DOUBLE is basic_count doubles). A
  // Fortran handle's basic is its C equivalent (MPI_INTEGER reduces as MPI_INT).
  MPI_Datatype basic = t.basic;
  size_t per = h < IL_MPI_PREDEFINED_TYPES ? 1 : t.basic_count;
  if (basic == MPI_DATATYPE_NULL)
    raise(MPI_ERR_OP, o.name + " is not defined for " + type_label(h, t) +
                          " (its basic elements are not all one predefined type)");
  if (!op_allows(op, basic))
    raise(MPI_ERR_OP, o.name + " is not defined for " + type_label(h, t) +
                          (basic != h ? " (elements of " + type_obj(basic).name + ")" : std::string()));
  const TypeObj& bt = type_obj(basic);
  const size_t n = per * static_cast<size_t>(count);
  auto builtin = builtin_of(op);
  if (builtin && bt.core && reduce_op_supports(*builtin, *bt.core)) {
    r.dt = *bt.core;
    r.count = n;
    r.op = coll::Op(*builtin);
    if (known) *known = KnownReduction{r.dt, *builtin, true};
    return r;
  }
  size_t unit = 1;
  if (bt.core) {
    r.dt = *bt.core;
    r.count = n;
  } else {
    r.dt = Datatype::bytes;
    unit = bt.size;
    r.count = n * unit;
  }
  r.unit = unit;
  const std::string name = o.name;
  r.op = coll::Op(
      [op, basic, unit, name](const void* in, void* inout, size_t m, Datatype) {
        apply_predefined(op, basic, in, inout, whole(m, unit, name));
      },
      true, name);
  return r;
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return guard("MPI_Op_create", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Op_create");
    if (!user_fn) raise(MPI_ERR_ARG, "MPI_Op_create: user_fn is NULL");
    if (!op) raise(MPI_ERR_ARG, "MPI_Op_create: op is NULL");
    OpObj o;
    o.name = "user op";
    o.commutative = commute != 0;
    o.user = user_fn;
    *op = state().ops.add(std::move(o));
  });
}

int MPI_Op_free(MPI_Op* op) {
  return guard("MPI_Op_free", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Op_free");
    if (!op) raise(MPI_ERR_ARG, "MPI_Op_free: op is NULL");
    const OpObj& o = op_obj(*op);
    if (o.predefined || *op < IL_MPI_PREDEFINED_OPS)
      raise(MPI_ERR_OP, "MPI_Op_free: " + o.name + " is predefined and cannot be freed");
    state().ops.remove(*op);
    *op = MPI_OP_NULL;
  });
}

int MPI_Op_commutative(MPI_Op op, int* commute) {
  return guard("MPI_Op_commutative", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Op_commutative");
    if (!commute) raise(MPI_ERR_ARG, "MPI_Op_commutative: commute is NULL");
    *commute = op_obj(op).commutative ? 1 : 0;
  });
}

int MPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  return guard("MPI_Reduce_local", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Reduce_local");
    const Reduction r = reduction_for(op, datatype, count);
    if (count == 0) return;
    if (!inbuf || !inoutbuf) raise(MPI_ERR_BUFFER, "MPI_Reduce_local: a buffer is NULL with count " + std::to_string(count));
    const TypeObj& t = type_obj(datatype);
    const Packed in = pack_view(inbuf, count, t);
    if (t.contiguous()) {
      r.op.apply(in.data, inoutbuf, r.count, r.dt);
      return;
    }
    std::vector<std::byte> acc(data_bytes(t, count));
    pack(inoutbuf, count, t, acc.data());
    r.op.apply(in.data, acc.data(), r.count, r.dt);
    unpack(acc.data(), count, t, inoutbuf);
  });
}

}  // extern "C"
