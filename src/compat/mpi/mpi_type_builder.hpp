// Internal to the datatype files (mpi_type_*.cpp): building a derived type's flattened
// typemap, and the argument checks the constructors share.
#pragma once
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "compat/mpi/mpi_impl.hpp"

namespace interlace::mpi {

// Any datatype, committed or not (constructors and queries accept uncommitted ones).
TypeObj& any_type(MPI_Datatype h, const char* call, const char* what);

// The Fortran and C++ handles of interlace/mpi/types.h (mpi_type_fortran.cpp); called by
// register_predefined_types after the C types exist.
void register_fortran_types(State& s);
// Makes the attribute calls accept uncommitted datatypes (mpi_type_attr.cpp).
void register_type_attr_check();

inline bool is_builtin(MPI_Datatype h) { return h > 0 && h < IL_MPI_PREDEFINED_TYPES; }

// Appends `count` copies of `runs` to `out`, merging runs of the same type.
void append_runs(std::vector<TypeObj::Run>& out, const std::vector<TypeObj::Run>& runs, size_t count);

// Accumulates blocks of copies of old types into a new type (mpi_type_create.cpp
// explains the bounds rules).
class Builder {
 public:
  explicit Builder(int combiner) { t_.combiner = combiner; }
  // `count` copies of old (handle h) starting at byte displacement disp.
  void add(MPI_Datatype h, const TypeObj& old, MPI_Aint disp, MPI_Aint count);
  // pad_to_alignment: a struct's extent rounds up to its largest alignment.
  TypeObj finish(bool pad_to_alignment);

 private:
  void append(MPI_Aint off, size_t len);
  void add_basic(const TypeObj& old, size_t count);

  TypeObj t_;
  struct Range {
    MPI_Aint lb = std::numeric_limits<MPI_Aint>::max();
    MPI_Aint ub = std::numeric_limits<MPI_Aint>::min();
    bool any = false;
  };
  Range natural_, marked_;  // components without / with resized bounds (markers)
  bool mixed_ = false;
};

// Stores the constructor's arguments in t for MPI_Type_get_contents; derived inputs
// are snapshotted (their handles may be freed before the query).
void record_contents(TypeObj& t, std::vector<int> ints, std::vector<MPI_Aint> aints,
                     const std::vector<MPI_Datatype>& inputs);

void check_nonneg(long long v, int cls, const char* call, const char* what);
void check_ptr(const void* p, const char* call, const char* what);
// A large count that must fit an int (interlace's typemaps carry int counts).
int int_count(MPI_Count v, const char* call, const char* what);

// Runs a constructor under guard(): validates newtype, stores the built type.
int construct(const char* call, MPI_Datatype* newtype, const std::function<TypeObj()>& build);

}  // namespace interlace::mpi
