// Derived datatype constructors, commit, free, dup and names.
//
// A derived type is flattened at construction into the byte blocks of one element
// (TypeObj::blocks, typemap order, touching blocks merged), so it never refers to the
// types it was built from: freeing those leaves it intact.
//
// Bounds follow MPI-3.1 4.1: every block of b copies of oldtype at displacement d
// spans [d + lb_old, d + lb_old + b*extent_old) (negative extents handled), the new lb
// is the least start and ub the greatest end over blocks with b > 0. Bounds set by
// MPI_Type_create_resized act as the standard's lb/ub markers: when any component
// carries them (explicit_bounds), only such components define lb and ub. Without
// markers a struct's extent is rounded up to the largest alignment of its basic
// elements (the standard's epsilon, as MPICH and Open MPI do); other constructors add
// no padding. true_lb/true_extent come from the data blocks alone.
#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>

#include "compat/mpi/mpi_attr.hpp"
#include "compat/mpi/mpi_type_builder.hpp"

namespace interlace::mpi {

namespace {

// Shared by vector/hvector/indexed/hindexed/indexed_block: blocks of `bl(i)` oldtype
// elements at byte displacement `disp(i)`.
template <class BL, class Disp>
TypeObj blocks_of(const char* call, int combiner, int count, MPI_Datatype oldtype, BL bl, Disp disp) {
  check_nonneg(count, MPI_ERR_COUNT, call, "count");
  const TypeObj& old = any_type(oldtype, call, "oldtype");
  Builder b(combiner);
  for (int i = 0; i < count; ++i) {
    const long long n = bl(i);
    if (n < 0)
      raise(MPI_ERR_ARG, std::string(call) + ": blocklength " + std::to_string(n) + " (block " +
                             std::to_string(i) + ") is negative");
    b.add(oldtype, old, disp(i), n);
  }
  return b.finish(false);
}

}  // namespace
}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_contiguous";
  return construct(call, newtype, [&] {
    TypeObj t = blocks_of(call, MPI_COMBINER_CONTIGUOUS, count > 0 ? 1 : count, oldtype,
                          [&](int) { return count; }, [](int) { return MPI_Aint{0}; });
    record_contents(t, {count}, {}, {oldtype});
    return t;
  });
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_vector";
  return construct(call, newtype, [&] {
    const MPI_Aint ext = any_type(oldtype, call, "oldtype").extent;
    TypeObj t = blocks_of(call, MPI_COMBINER_VECTOR, count, oldtype, [&](int) { return blocklength; },
                          [&](int i) { return MPI_Aint{i} * stride * ext; });
    record_contents(t, {count, blocklength, stride}, {}, {oldtype});
    return t;
  });
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_hvector";
  return construct(call, newtype, [&] {
    TypeObj t = blocks_of(call, MPI_COMBINER_HVECTOR, count, oldtype, [&](int) { return blocklength; },
                          [&](int i) { return MPI_Aint{i} * stride; });
    record_contents(t, {count, blocklength}, {stride}, {oldtype});
    return t;
  });
}

int MPI_Type_indexed(int count, const int blocklengths[], const int displacements[],
                     MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_indexed";
  return construct(call, newtype, [&] {
    if (count > 0) {
      check_ptr(blocklengths, call, "array_of_blocklengths");
      check_ptr(displacements, call, "array_of_displacements");
    }
    const MPI_Aint ext = any_type(oldtype, call, "oldtype").extent;
    TypeObj t = blocks_of(call, MPI_COMBINER_INDEXED, count, oldtype, [&](int i) { return blocklengths[i]; },
                          [&](int i) { return MPI_Aint{displacements[i]} * ext; });
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    ints.insert(ints.end(), displacements, displacements + count);
    record_contents(t, std::move(ints), {}, {oldtype});
    return t;
  });
}

int MPI_Type_create_hindexed(int count, const int blocklengths[], const MPI_Aint displacements[],
                             MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_hindexed";
  return construct(call, newtype, [&] {
    if (count > 0) {
      check_ptr(blocklengths, call, "array_of_blocklengths");
      check_ptr(displacements, call, "array_of_displacements");
    }
    TypeObj t = blocks_of(call, MPI_COMBINER_HINDEXED, count, oldtype, [&](int i) { return blocklengths[i]; },
                          [&](int i) { return displacements[i]; });
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    record_contents(t, std::move(ints), std::vector<MPI_Aint>(displacements, displacements + count), {oldtype});
    return t;
  });
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_indexed_block";
  return construct(call, newtype, [&] {
    if (count > 0) check_ptr(displacements, call, "array_of_displacements");
    const MPI_Aint ext = any_type(oldtype, call, "oldtype").extent;
    TypeObj t = blocks_of(call, MPI_COMBINER_INDEXED_BLOCK, count, oldtype, [&](int) { return blocklength; },
                          [&](int i) { return MPI_Aint{displacements[i]} * ext; });
    std::vector<int> ints{count, blocklength};
    ints.insert(ints.end(), displacements, displacements + count);
    record_contents(t, std::move(ints), {}, {oldtype});
    return t;
  });
}

int MPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_hindexed_block";
  return construct(call, newtype, [&] {
    if (count > 0) check_ptr(displacements, call, "array_of_displacements");
    TypeObj t = blocks_of(call, MPI_COMBINER_HINDEXED_BLOCK, count, oldtype, [&](int) { return blocklength; },
                          [&](int i) { return displacements[i]; });
    record_contents(t, {count, blocklength}, std::vector<MPI_Aint>(displacements, displacements + count),
                    {oldtype});
    return t;
  });
}

int MPI_Type_create_struct(int count, const int blocklengths[], const MPI_Aint displacements[],
                           const MPI_Datatype types[], MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_struct";
  return construct(call, newtype, [&] {
    check_nonneg(count, MPI_ERR_COUNT, call, "count");
    if (count > 0) {
      check_ptr(blocklengths, call, "array_of_blocklengths");
      check_ptr(displacements, call, "array_of_displacements");
      check_ptr(types, call, "array_of_types");
    }
    Builder b(MPI_COMBINER_STRUCT);
    for (int i = 0; i < count; ++i) {
      if (blocklengths[i] < 0)
        raise(MPI_ERR_ARG, std::string(call) + ": blocklength " + std::to_string(blocklengths[i]) +
                               " (block " + std::to_string(i) + ") is negative");
      const std::string what = "array_of_types[" + std::to_string(i) + "]";
      b.add(types[i], any_type(types[i], call, what.c_str()), displacements[i], blocklengths[i]);
    }
    TypeObj t = b.finish(true);
    std::vector<int> ints{count};
    ints.insert(ints.end(), blocklengths, blocklengths + count);
    record_contents(t, std::move(ints), std::vector<MPI_Aint>(displacements, displacements + count),
                    std::vector<MPI_Datatype>(types, types + count));
    return t;
  });
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_resized";
  return construct(call, newtype, [&] {
    TypeObj t = any_type(oldtype, call, "oldtype");
    t.name.clear();
    t.predefined = false;
    t.committed = false;
    t.combiner = MPI_COMBINER_RESIZED;
    t.lb = lb;
    t.extent = extent;
    t.explicit_bounds = true;
    record_contents(t, {}, {lb, extent}, {oldtype});
    return t;
  });
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_dup";
  const int rc = construct(call, newtype, [&] {
    TypeObj t = any_type(oldtype, call, "oldtype");
    t.name.clear();
    t.predefined = false;  // committed state is kept, as MPI specifies
    t.combiner = MPI_COMBINER_DUP;
    record_contents(t, {}, {}, {oldtype});
    return t;
  });
  if (rc != MPI_SUCCESS) return rc;
  return guard(call, MPI_COMM_NULL, [&] {
    try {
      attr_copy_all(AttrKind::type, oldtype, *newtype);
    } catch (...) {  // a copy callback failed: no new type, as if the call had not run
      attr_delete_all(AttrKind::type, *newtype);
      state().types.remove(*newtype);
      *newtype = MPI_DATATYPE_NULL;
      throw;
    }
  });
}

// MPI-1 constructors, removed from MPI 3.0: the MPI-2 ones with the same C arguments.
int MPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                     MPI_Datatype* newtype) {
  return MPI_Type_create_hvector(count, blocklength, stride, oldtype, newtype);
}

int MPI_Type_hindexed(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype oldtype,
                      MPI_Datatype* newtype) {
  return MPI_Type_create_hindexed(count, blocklengths, displacements, oldtype, newtype);
}

int MPI_Type_struct(int count, int blocklengths[], MPI_Aint displacements[], MPI_Datatype types[],
                    MPI_Datatype* newtype) {
  return MPI_Type_create_struct(count, blocklengths, displacements, types, newtype);
}

int MPI_Type_commit(MPI_Datatype* datatype) {
  return guard("MPI_Type_commit", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Type_commit");
    check_ptr(datatype, "MPI_Type_commit", "datatype");
    any_type(*datatype, "MPI_Type_commit", "datatype").committed = true;
  });
}

int MPI_Type_free(MPI_Datatype* datatype) {
  return guard("MPI_Type_free", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Type_free");
    check_ptr(datatype, "MPI_Type_free", "datatype");
    const TypeObj& t = any_type(*datatype, "MPI_Type_free", "datatype");
    if (is_builtin(*datatype) || t.predefined)
      raise(MPI_ERR_TYPE, "MPI_Type_free: " + t.name + " is predefined and cannot be freed");
    attr_delete_all(AttrKind::type, *datatype);  // a failing delete callback keeps the type
    state().types.remove(*datatype);
    *datatype = MPI_DATATYPE_NULL;
  });
}

int MPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  return guard("MPI_Type_get_name", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Type_get_name");
    check_ptr(type_name, "MPI_Type_get_name", "type_name");
    check_ptr(resultlen, "MPI_Type_get_name", "resultlen");
    const std::string& n = any_type(datatype, "MPI_Type_get_name", "datatype").name;
    const size_t len = std::min(n.size(), static_cast<size_t>(MPI_MAX_OBJECT_NAME - 1));
    std::memcpy(type_name, n.data(), len);
    type_name[len] = '\0';
    *resultlen = static_cast<int>(len);
  });
}

int MPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  return guard("MPI_Type_set_name", MPI_COMM_NULL, [&] {
    require_initialized("MPI_Type_set_name");
    check_ptr(type_name, "MPI_Type_set_name", "type_name");
    TypeObj& t = any_type(datatype, "MPI_Type_set_name", "datatype");
    t.name.assign(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  });
}

}  // extern "C"
