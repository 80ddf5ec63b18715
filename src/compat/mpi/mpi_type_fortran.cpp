// The Fortran and C++ datatype handles (so mixed-language C libraries build and move
// Fortran data), MPI_Type_match_size, MPI_Type_create_f90_* and MPI_Type_get_value_index.
//
// A Fortran type with a C equivalent of the same size and representation (gfortran:
// INTEGER = int, REAL = float, LOGICAL = a 4-byte integer, COMPLEX = float _Complex)
// is that C type under its own name: its `basic` is the C handle, so the predefined
// reductions apply to it as to the C type. The rest (REAL2, REAL16, INTEGER16,
// COMPLEX4, COMPLEX32, 2REAL, 2DOUBLE_PRECISION) move as opaque data of their size.
#include <map>
#include <mutex>
#include <tuple>

#include "compat/mpi/mpi_type_builder.hpp"

namespace interlace::mpi {
namespace {

// h as a copy of the C type c under another name.
void alias(State& s, MPI_Datatype h, const char* name, MPI_Datatype c, size_t runs_per = 1,
           MPI_Datatype run_type = MPI_DATATYPE_NULL) {
  TypeObj t = *s.types.get(c);
  t.name = name;
  t.runs = {{run_type ? run_type : h, runs_per}};
  s.types.put(h, std::move(t));
}

// A type without a C equivalent: `size` bytes of data, reductions refused.
void opaque(State& s, MPI_Datatype h, const char* name, size_t size, size_t align, size_t runs_per = 1,
            MPI_Datatype run_type = MPI_DATATYPE_NULL) {
  TypeObj t;
  t.name = name;
  t.size = size;
  t.extent = t.true_extent = static_cast<MPI_Aint>(size);
  t.blocks = {Block{0, size}};
  t.predefined = t.committed = true;
  t.align = align;
  t.basic = h;
  t.basic_count = 1;
  t.runs = {{run_type ? run_type : h, runs_per}};
  s.types.put(h, std::move(t));
}

const TypeObj& named(MPI_Datatype h) { return *state().types.get(h); }

// The f90 types are cached: MPI returns the same handle for the same (p, r), and the
// handle cannot be freed.
MPI_Datatype f90_type(int combiner, int p, int r, MPI_Datatype base, const char* name) {
  static std::map<std::tuple<int, int, int>, MPI_Datatype> cache;
  static std::mutex mu;  // threads may ask for the same (p, r) at once
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_tuple(combiner, p, r);
  auto it = cache.find(key);
  if (it != cache.end()) {
    const TypeObj* t = state().types.get(it->second);
    if (t && t->combiner == combiner && t->predefined) return it->second;  // (not a later MPI_Init's)
  }
  TypeObj t = named(base);
  t.name = name;
  t.combiner = combiner;
  record_contents(t, combiner == MPI_COMBINER_F90_INTEGER ? std::vector<int>{r} : std::vector<int>{p, r},
                  {}, {});
  const MPI_Datatype h = state().types.add(std::move(t));
  cache[key] = h;
  return h;
}

// The smallest of the candidates (precision, range, handle) that satisfies p and r
// (MPI_UNDEFINED: any).
template <size_t N>
MPI_Datatype pick(const char* call, int p, int r, const std::tuple<int, int, MPI_Datatype> (&c)[N]) {
  if ((p < 0 && p != MPI_UNDEFINED) || (r < 0 && r != MPI_UNDEFINED))
    raise(MPI_ERR_ARG, std::string(call) + ": p " + std::to_string(p) + " or r " + std::to_string(r) +
                           " is negative (MPI_UNDEFINED means no requirement)");
  for (const auto& [prec, range, h] : c)
    if ((p == MPI_UNDEFINED || p <= prec) && (r == MPI_UNDEFINED || r <= range)) return h;
  raise(MPI_ERR_ARG, std::string(call) + ": no type has precision " + std::to_string(p) + " and range " +
                         std::to_string(r) + " (MPI_UNDEFINED means no requirement)");
}

// The body of MPI_Type_create_f90_integer/real/complex: p (MPI_UNDEFINED for integers)
// and r picked from the candidates c; the f90 combiner and p, r recorded for decoding.
template <size_t N>
int create_f90(const char* call, int combiner, int p, int r, const std::tuple<int, int, MPI_Datatype> (&c)[N],
               MPI_Datatype* newtype, const char* name) {
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    check_ptr(newtype, call, "newtype");
    const MPI_Datatype base = pick(call, p, r, c);
    *newtype = f90_type(combiner, combiner == MPI_COMBINER_F90_INTEGER ? 0 : p, r, base, name);
  });
}

}  // namespace

void register_fortran_types(State& s) {
  alias(s, MPI_CHARACTER, "MPI_CHARACTER", MPI_CHAR);
  alias(s, MPI_LOGICAL, "MPI_LOGICAL", MPI_INT32_T);
  alias(s, MPI_INTEGER, "MPI_INTEGER", MPI_INT);
  alias(s, MPI_REAL, "MPI_REAL", MPI_FLOAT);
  alias(s, MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", MPI_DOUBLE);
  alias(s, MPI_COMPLEX, "MPI_COMPLEX", MPI_C_FLOAT_COMPLEX);
  alias(s, MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX);
  alias(s, MPI_2INTEGER, "MPI_2INTEGER", MPI_2INT, 2, MPI_INTEGER);  // MINLOC as MPI_2INT
  opaque(s, MPI_2REAL, "MPI_2REAL", 2 * sizeof(float), alignof(float), 2, MPI_REAL);
  opaque(s, MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 2 * sizeof(double), alignof(double), 2,
         MPI_DOUBLE_PRECISION);
  alias(s, MPI_INTEGER1, "MPI_INTEGER1", MPI_INT8_T);
  alias(s, MPI_INTEGER2, "MPI_INTEGER2", MPI_INT16_T);
  alias(s, MPI_INTEGER4, "MPI_INTEGER4", MPI_INT32_T);
  alias(s, MPI_INTEGER8, "MPI_INTEGER8", MPI_INT64_T);
  opaque(s, MPI_INTEGER16, "MPI_INTEGER16", 16, 16);
  opaque(s, MPI_REAL2, "MPI_REAL2", 2, 2);
  alias(s, MPI_REAL4, "MPI_REAL4", MPI_FLOAT);
  alias(s, MPI_REAL8, "MPI_REAL8", MPI_DOUBLE);
  opaque(s, MPI_REAL16, "MPI_REAL16", 16, 16);
  opaque(s, MPI_COMPLEX4, "MPI_COMPLEX4", 4, 2);
  alias(s, MPI_COMPLEX8, "MPI_COMPLEX8", MPI_C_FLOAT_COMPLEX);
  alias(s, MPI_COMPLEX16, "MPI_COMPLEX16", MPI_C_DOUBLE_COMPLEX);
  opaque(s, MPI_COMPLEX32, "MPI_COMPLEX32", 32, 16);
  alias(s, MPI_LOGICAL1, "MPI_LOGICAL1", MPI_INT8_T);
  alias(s, MPI_LOGICAL2, "MPI_LOGICAL2", MPI_INT16_T);
  alias(s, MPI_LOGICAL4, "MPI_LOGICAL4", MPI_INT32_T);
  alias(s, MPI_LOGICAL8, "MPI_LOGICAL8", MPI_INT64_T);
  alias(s, MPI_CXX_BOOL, "MPI_CXX_BOOL", MPI_C_BOOL);
  alias(s, MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", MPI_C_FLOAT_COMPLEX);
  alias(s, MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", MPI_C_DOUBLE_COMPLEX);
  alias(s, MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", MPI_C_LONG_DOUBLE_COMPLEX);
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  static constexpr const char* call = "MPI_Type_match_size";
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    check_ptr(datatype, call, "datatype");
    std::vector<MPI_Datatype> c;
    switch (typeclass) {
      case MPI_TYPECLASS_REAL: c = {MPI_REAL2, MPI_REAL4, MPI_REAL8, MPI_REAL16}; break;
      case MPI_TYPECLASS_INTEGER:
        c = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8, MPI_INTEGER16};
        break;
      case MPI_TYPECLASS_COMPLEX: c = {MPI_COMPLEX4, MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32}; break;
      default:
        raise(MPI_ERR_ARG, std::string(call) + ": typeclass " + std::to_string(typeclass) +
                               " is not MPI_TYPECLASS_REAL, _INTEGER or _COMPLEX");
    }
    for (MPI_Datatype h : c)
      if (named(h).size == static_cast<size_t>(size)) {
        *datatype = h;
        return;
      }
    raise(MPI_ERR_ARG, std::string(call) + ": no type of typeclass " + std::to_string(typeclass) +
                           " has size " + std::to_string(size));
  });
}

int MPI_Type_create_f90_integer(int r, MPI_Datatype* newtype) {
  static const std::tuple<int, int, MPI_Datatype> c[] = {
      {0, 2, MPI_INTEGER1}, {0, 4, MPI_INTEGER2}, {0, 9, MPI_INTEGER4}, {0, 18, MPI_INTEGER8},
      {0, 38, MPI_INTEGER16}};
  return create_f90("MPI_Type_create_f90_integer", MPI_COMBINER_F90_INTEGER, MPI_UNDEFINED, r, c, newtype,
                    "MPI_TYPE_CREATE_F90_INTEGER");
}

int MPI_Type_create_f90_real(int p, int r, MPI_Datatype* newtype) {
  static const std::tuple<int, int, MPI_Datatype> c[] = {
      {6, 37, MPI_REAL4}, {15, 307, MPI_REAL8}, {33, 4931, MPI_REAL16}};
  return create_f90("MPI_Type_create_f90_real", MPI_COMBINER_F90_REAL, p, r, c, newtype,
                    "MPI_TYPE_CREATE_F90_REAL");
}

int MPI_Type_create_f90_complex(int p, int r, MPI_Datatype* newtype) {
  static const std::tuple<int, int, MPI_Datatype> c[] = {
      {6, 37, MPI_COMPLEX8}, {15, 307, MPI_COMPLEX16}, {33, 4931, MPI_COMPLEX32}};
  return create_f90("MPI_Type_create_f90_complex", MPI_COMBINER_F90_COMPLEX, p, r, c, newtype,
                    "MPI_TYPE_CREATE_F90_COMPLEX");
}

int MPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype* pair_type) {
  static constexpr const char* call = "MPI_Type_get_value_index";
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    check_ptr(pair_type, call, "pair_type");
    any_type(value_type, call, "value_type");
    any_type(index_type, call, "index_type");
    static const MPI_Datatype pairs[][3] = {
        {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},     {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
        {MPI_LONG, MPI_INT, MPI_LONG_INT},       {MPI_INT, MPI_INT, MPI_2INT},
        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},     {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER}, {MPI_REAL, MPI_REAL, MPI_2REAL},
        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION}};
    *pair_type = MPI_DATATYPE_NULL;  // MPI: no predefined pair type for the combination
    for (const auto& p : pairs)
      if (p[0] == value_type && p[1] == index_type) *pair_type = p[2];
  });
}

}  // extern "C"
