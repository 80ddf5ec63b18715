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

#include "compat/mpi/mpi_impl.hpp"
#include "compat/mpi/mpi_op_kernels.hpp"

namespace interlace::mpi {

// Any datatype, committed or not (constructors and queries accept uncommitted ones).
TypeObj& any_type(MPI_Datatype h, const char* call, const char* what) {
  if (h == MPI_DATATYPE_NULL)
    raise(MPI_ERR_TYPE, std::string(call) + ": " + what + " is MPI_DATATYPE_NULL");
  TypeObj* t = state().types.get(h);
  if (!t) raise(MPI_ERR_TYPE, std::string(call) + ": " + what + " " + std::to_string(h) + " is not a valid datatype");
  return *t;
}

namespace {

bool is_predefined(MPI_Datatype h) { return h > 0 && h < IL_MPI_PREDEFINED_TYPES; }

class Builder {
 public:
  explicit Builder(int combiner) { t_.combiner = combiner; }

  // `count` copies of old (handle h) starting at byte displacement disp.
  void add(MPI_Datatype h, const TypeObj& old, MPI_Aint disp, MPI_Aint count) {
    if (count <= 0) return;
    const MPI_Aint ext = old.extent;
    const MPI_Aint first = disp + old.lb, last = disp + old.lb + (count - 1) * ext;
    const bool marked = !is_predefined(h) && old.explicit_bounds;
    Range& r = marked ? marked_ : natural_;
    r.lb = std::min({r.lb, first, last});
    r.ub = std::max({r.ub, first + ext, last + ext});
    r.any = true;
    t_.size += static_cast<size_t>(count) * old.size;
    t_.align = std::max(t_.align, is_predefined(h) ? predefined_align(h) : old.align);
    t_.explicit_bounds = t_.explicit_bounds || (!is_predefined(h) && old.explicit_bounds);
    add_basic(h, old, static_cast<size_t>(count));
    if (old.blocks.size() == 1 && static_cast<MPI_Aint>(old.blocks[0].len) == ext) {
      // Dense elements (e.g. a predefined type): the copies touch, one block holds them.
      append(disp + old.blocks[0].offset, static_cast<size_t>(count) * old.blocks[0].len);
      return;
    }
    for (MPI_Aint k = 0; k < count; ++k)
      for (const Block& b : old.blocks) append(disp + k * ext + b.offset, b.len);
  }

  TypeObj finish(bool pad_to_alignment) {
    const Range& r = marked_.any ? marked_ : natural_;
    MPI_Aint lb = r.any ? r.lb : 0, ub = r.any ? r.ub : 0;
    if (pad_to_alignment && !t_.explicit_bounds && t_.align > 1) {
      const MPI_Aint a = static_cast<MPI_Aint>(t_.align);
      const MPI_Aint extent = ub - lb;
      ub = lb + (extent + a - 1) / a * a;
    }
    t_.lb = lb;
    t_.extent = ub - lb;
    if (t_.blocks.empty()) {
      t_.true_lb = t_.true_extent = 0;
    } else {
      MPI_Aint lo = std::numeric_limits<MPI_Aint>::max(), hi = std::numeric_limits<MPI_Aint>::min();
      for (const Block& b : t_.blocks) {
        lo = std::min(lo, b.offset);
        hi = std::max(hi, b.offset + static_cast<MPI_Aint>(b.len));
      }
      t_.true_lb = lo;
      t_.true_extent = hi - lo;
    }
    if (mixed_ || t_.size == 0) {
      t_.basic = MPI_DATATYPE_NULL;
      t_.basic_count = 0;
    }
    return std::move(t_);
  }

 private:
  void append(MPI_Aint off, size_t len) {
    if (len == 0) return;
    if (!t_.blocks.empty()) {
      Block& prev = t_.blocks.back();
      if (prev.offset + static_cast<MPI_Aint>(prev.len) == off) {
        prev.len += len;
        return;
      }
    }
    t_.blocks.push_back(Block{off, len});
  }

  void add_basic(MPI_Datatype h, const TypeObj& old, size_t count) {
    if (old.size == 0) return;  // contributes no elements
    MPI_Datatype b = is_predefined(h) ? h : old.basic;
    size_t per = is_predefined(h) ? 1 : old.basic_count;
    if (b == MPI_DATATYPE_NULL || (t_.basic != MPI_DATATYPE_NULL && t_.basic != b)) {
      mixed_ = true;
      return;
    }
    t_.basic = b;
    t_.basic_count += per * count;
  }

  TypeObj t_;
  struct Range {
    MPI_Aint lb = std::numeric_limits<MPI_Aint>::max();
    MPI_Aint ub = std::numeric_limits<MPI_Aint>::min();
    bool any = false;
  };
  Range natural_, marked_;  // components without / with resized bounds (markers)
  bool mixed_ = false;
};

void check_nonneg(long long v, int cls, const char* call, const char* what) {
  if (v < 0) raise(cls, std::string(call) + ": " + what + " " + std::to_string(v) + " is negative");
}

void check_ptr(const void* p, const char* call, const char* what) {
  if (!p) raise(MPI_ERR_ARG, std::string(call) + ": " + what + " is NULL");
}

// Runs a constructor: validates newtype, stores the built type in *newtype.
int construct(const char* call, MPI_Datatype* newtype, const std::function<TypeObj()>& build) {
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    check_ptr(newtype, call, "newtype");
    *newtype = state().types.add(build());
  });
}

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
    return blocks_of(call, MPI_COMBINER_CONTIGUOUS, count > 0 ? 1 : count, oldtype,
                     [&](int) { return count; }, [](int) { return MPI_Aint{0}; });
  });
}

int MPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_vector";
  return construct(call, newtype, [&] {
    const MPI_Aint ext = any_type(oldtype, call, "oldtype").extent;
    return blocks_of(call, MPI_COMBINER_VECTOR, count, oldtype, [&](int) { return blocklength; },
                     [&](int i) { return MPI_Aint{i} * stride * ext; });
  });
}

int MPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                            MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_hvector";
  return construct(call, newtype, [&] {
    return blocks_of(call, MPI_COMBINER_HVECTOR, count, oldtype, [&](int) { return blocklength; },
                     [&](int i) { return MPI_Aint{i} * stride; });
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
    return blocks_of(call, MPI_COMBINER_INDEXED, count, oldtype, [&](int i) { return blocklengths[i]; },
                     [&](int i) { return MPI_Aint{displacements[i]} * ext; });
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
    return blocks_of(call, MPI_COMBINER_HINDEXED, count, oldtype, [&](int i) { return blocklengths[i]; },
                     [&](int i) { return displacements[i]; });
  });
}

int MPI_Type_create_indexed_block(int count, int blocklength, const int displacements[],
                                  MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_indexed_block";
  return construct(call, newtype, [&] {
    if (count > 0) check_ptr(displacements, call, "array_of_displacements");
    const MPI_Aint ext = any_type(oldtype, call, "oldtype").extent;
    return blocks_of(call, MPI_COMBINER_INDEXED_BLOCK, count, oldtype, [&](int) { return blocklength; },
                     [&](int i) { return MPI_Aint{displacements[i]} * ext; });
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
    return b.finish(true);
  });
}

int MPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_create_resized";
  return construct(call, newtype, [&] {
    TypeObj t = any_type(oldtype, call, "oldtype");
    if (is_predefined(oldtype)) {  // a predefined type is its own single basic element
      t.basic = oldtype;
      t.basic_count = 1;
      t.align = predefined_align(oldtype);
    }
    t.name.clear();
    t.predefined = false;
    t.committed = false;
    t.combiner = MPI_COMBINER_RESIZED;
    t.lb = lb;
    t.extent = extent;
    t.explicit_bounds = true;
    return t;
  });
}

int MPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  static constexpr const char* call = "MPI_Type_dup";
  return construct(call, newtype, [&] {
    TypeObj t = any_type(oldtype, call, "oldtype");
    if (is_predefined(oldtype)) {
      t.basic = oldtype;
      t.basic_count = 1;
      t.align = predefined_align(oldtype);
    }
    t.name.clear();
    t.predefined = false;  // committed state is kept, as MPI specifies
    t.combiner = MPI_COMBINER_DUP;
    return t;
  });
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
    if (is_predefined(*datatype) || t.predefined)
      raise(MPI_ERR_TYPE, "MPI_Type_free: " + t.name + " is predefined and cannot be freed");
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
