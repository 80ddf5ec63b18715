// The typemap builder shared by the datatype constructors (see mpi_type_create.cpp for
// the bounds rules) and their argument checks.
#include "compat/mpi/mpi_type_builder.hpp"

#include <algorithm>
#include <climits>
#include <map>

namespace interlace::mpi {

TypeObj& any_type(MPI_Datatype h, const char* call, const char* what) {
  if (h == MPI_DATATYPE_NULL)
    raise(MPI_ERR_TYPE, std::string(call) + ": " + what + " is MPI_DATATYPE_NULL");
  TypeObj* t = state().types.get(h);
  if (!t) raise(MPI_ERR_TYPE, std::string(call) + ": " + what + " " + std::to_string(h) + " is not a valid datatype");
  return *t;
}

void append_runs(std::vector<TypeObj::Run>& out, const std::vector<TypeObj::Run>& runs, size_t count) {
  if (count == 0 || runs.empty()) return;
  if (runs.size() == 1) {  // copies of one run stay one run
    if (!out.empty() && out.back().type == runs[0].type) out.back().count += runs[0].count * count;
    else out.push_back({runs[0].type, runs[0].count * count});
    return;
  }
  for (size_t k = 0; k < count; ++k)
    for (const TypeObj::Run& r : runs) {
      if (!out.empty() && out.back().type == r.type) out.back().count += r.count;
      else out.push_back(r);
    }
}

void Builder::add(MPI_Datatype h, const TypeObj& old, MPI_Aint disp, MPI_Aint count) {
  if (count <= 0) return;
  const MPI_Aint ext = old.extent;
  const MPI_Aint first = disp + old.lb, last = disp + old.lb + (count - 1) * ext;
  const bool marked = !is_builtin(h) && old.explicit_bounds;
  Range& r = marked ? marked_ : natural_;
  r.lb = std::min({r.lb, first, last});
  r.ub = std::max({r.ub, first + ext, last + ext});
  r.any = true;
  t_.size += static_cast<size_t>(count) * old.size;
  t_.align = std::max(t_.align, old.align);
  t_.explicit_bounds = t_.explicit_bounds || marked;
  add_basic(old, static_cast<size_t>(count));
  append_runs(t_.runs, old.runs, static_cast<size_t>(count));
  if (old.blocks.size() == 1 && static_cast<MPI_Aint>(old.blocks[0].len) == ext) {
    // Dense elements (e.g. a predefined type): the copies touch, one block holds them.
    append(disp + old.blocks[0].offset, static_cast<size_t>(count) * old.blocks[0].len);
    return;
  }
  for (MPI_Aint k = 0; k < count; ++k)
    for (const Block& b : old.blocks) append(disp + k * ext + b.offset, b.len);
}

TypeObj Builder::finish(bool pad_to_alignment) {
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

void Builder::append(MPI_Aint off, size_t len) {
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

// A predefined type's `basic` is itself, or for a Fortran / C++ handle the C type that
// reductions use (MPI_INTEGER -> MPI_INT), so both kinds mix as one basic type.
void Builder::add_basic(const TypeObj& old, size_t count) {
  if (old.size == 0) return;  // contributes no elements
  const MPI_Datatype b = old.basic;
  if (b == MPI_DATATYPE_NULL || (t_.basic != MPI_DATATYPE_NULL && t_.basic != b)) {
    mixed_ = true;
    return;
  }
  t_.basic = b;
  t_.basic_count += old.basic_count * count;
}

void record_contents(TypeObj& t, std::vector<int> ints, std::vector<MPI_Aint> aints,
                     const std::vector<MPI_Datatype>& inputs) {
  t.ints = std::move(ints);
  t.aints = std::move(aints);
  t.inputs = inputs;
  t.input_objs.clear();
  std::map<MPI_Datatype, std::shared_ptr<const TypeObj>> taken;  // a struct may repeat a type
  for (MPI_Datatype h : inputs) {
    const TypeObj* in = state().types.get(h);
    if (!in || in->predefined) {
      t.input_objs.push_back(nullptr);  // never freed: keep the handle
      continue;
    }
    auto& snap = taken[h];
    if (!snap) snap = std::make_shared<const TypeObj>(*in);
    t.input_objs.push_back(snap);
  }
}

void check_nonneg(long long v, int cls, const char* call, const char* what) {
  if (v < 0) raise(cls, std::string(call) + ": " + what + " " + std::to_string(v) + " is negative");
}

void check_ptr(const void* p, const char* call, const char* what) {
  if (!p) raise(MPI_ERR_ARG, std::string(call) + ": " + what + " is NULL");
}

int int_count(MPI_Count v, const char* call, const char* what) {
  if (v > INT_MAX || v < INT_MIN)
    raise(MPI_ERR_COUNT, std::string(call) + ": " + what + " " + std::to_string(v) +
                             " exceeds what interlace carries (INT_MAX, " + std::to_string(INT_MAX) + ")");
  return static_cast<int>(v);
}

int construct(const char* call, MPI_Datatype* newtype, const std::function<TypeObj()>& build) {
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    check_ptr(newtype, call, "newtype");
    *newtype = state().types.add(build());
  });
}

}  // namespace interlace::mpi
