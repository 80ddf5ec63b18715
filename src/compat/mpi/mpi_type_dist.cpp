// MPI_Type_create_subarray and MPI_Type_create_darray (and their _c forms): a part of
// an n-dimensional array of oldtype, flattened like the other constructors.
//
// Both types span the whole array: lb 0 and extent prod(sizes) * extent(oldtype), as the
// standard defines them through MPI_Type_create_resized (so they act as resized types
// inside other constructors). Their typemap lists the chosen elements in array order:
// row-major for MPI_ORDER_C, column-major for MPI_ORDER_FORTRAN.
#include <climits>

#include "compat/mpi/mpi_type_builder.hpp"

namespace interlace::mpi {
namespace {

// An owned run of the fastest dimension or one owned index of another: start, length.
struct Span {
  long long start, len;
};

// The dimensions slowest first, and the element stride of each, for the array order.
struct Layout {
  std::vector<int> dims;          // dimension numbers, slowest to fastest
  std::vector<long long> stride;  // elements between neighbours of dimension d (by d)
};

Layout layout(const char* call, int ndims, const std::vector<long long>& sizes, int order) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    raise(MPI_ERR_ARG, std::string(call) + ": order " + std::to_string(order) +
                           " is neither MPI_ORDER_C nor MPI_ORDER_FORTRAN");
  Layout l;
  for (int i = 0; i < ndims; ++i) l.dims.push_back(order == MPI_ORDER_C ? i : ndims - 1 - i);
  l.stride.assign(ndims, 1);
  for (int k = ndims - 2; k >= 0; --k) l.stride[l.dims[k]] = l.stride[l.dims[k + 1]] * sizes[l.dims[k + 1]];
  return l;
}

// Adds, for every combination of owned indices of the slower dimensions, the owned runs
// of the fastest one; spans[d] lists dimension d's in increasing order.
TypeObj build(MPI_Datatype oldtype, const TypeObj& old, int combiner, const Layout& l,
              const std::vector<std::vector<Span>>& spans, long long total) {
  Builder b(combiner);
  const int n = static_cast<int>(l.dims.size());
  std::vector<size_t> at(n, 0);
  bool empty = false;
  for (const auto& s : spans) empty = empty || s.empty();
  while (!empty) {
    long long base = 0;
    for (int k = 0; k + 1 < n; ++k) base += spans[l.dims[k]][at[k]].start * l.stride[l.dims[k]];
    for (const Span& s : spans[l.dims[n - 1]])
      b.add(oldtype, old, static_cast<MPI_Aint>((base + s.start) * old.extent), s.len);
    int k = n - 2;  // odometer over the slower dimensions
    while (k >= 0 && ++at[k] == spans[l.dims[k]].size()) at[k--] = 0;
    if (k < 0) break;
  }
  TypeObj t = b.finish(false);
  t.lb = 0;
  t.extent = static_cast<MPI_Aint>(total) * old.extent;
  t.explicit_bounds = true;
  return t;
}

// Each index of [start, start+len) as its own span (a slower dimension).
void split(std::vector<Span>& out, long long start, long long len, bool fastest) {
  if (len <= 0) return;
  if (fastest) out.push_back({start, len});
  else
    for (long long i = 0; i < len; ++i) out.push_back({start + i, 1});
}

template <class C>
int subarray(const char* call, int ndims, const C sizes_in[], const C subsizes[], const C starts[], int order,
             MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(call, newtype, [&] {
    if (ndims <= 0) raise(MPI_ERR_ARG, std::string(call) + ": ndims " + std::to_string(ndims) + " is not positive");
    check_ptr(sizes_in, call, "array_of_sizes");
    check_ptr(subsizes, call, "array_of_subsizes");
    check_ptr(starts, call, "array_of_starts");
    const TypeObj& old = any_type(oldtype, call, "oldtype");
    std::vector<long long> sizes(sizes_in, sizes_in + ndims);
    const Layout l = layout(call, ndims, sizes, order);
    std::vector<std::vector<Span>> spans(ndims);
    std::vector<int> ints{ndims};
    long long total = 1;
    for (int d = 0; d < ndims; ++d) {
      if (sizes[d] <= 0 || subsizes[d] < 0 || subsizes[d] > sizes[d] || starts[d] < 0 ||
          starts[d] > sizes[d] - subsizes[d])
        raise(MPI_ERR_ARG, std::string(call) + ": dimension " + std::to_string(d) + ": size " + std::to_string(sizes[d]) +
                               ", subsize " + std::to_string(subsizes[d]) + ", start " + std::to_string(starts[d]) +
                               " do not satisfy 0 <= start, start + subsize <= size, size > 0");
      split(spans[d], starts[d], subsizes[d], d == l.dims.back());
      total *= sizes[d];
    }
    for (const C* a : {sizes_in, subsizes, starts})
      for (int d = 0; d < ndims; ++d) ints.push_back(int_count(a[d], call, "array element"));
    ints.push_back(order);
    TypeObj t = build(oldtype, old, MPI_COMBINER_SUBARRAY, l, spans, total);
    record_contents(t, std::move(ints), {}, {oldtype});
    return t;
  });
}

// The spans dimension d's process coordinate owns (MPI-4.1 5.1.4's distributions).
std::vector<Span> owned(const char* call, int d, long long gsize, int distrib, int darg, int psize, int coord,
                        bool fastest) {
  const std::string at = std::string(call) + ": dimension " + std::to_string(d) + ": ";
  if (darg <= 0 && darg != MPI_DISTRIBUTE_DFLT_DARG)
    raise(MPI_ERR_ARG, at + "darg " + std::to_string(darg) + " is neither positive nor MPI_DISTRIBUTE_DFLT_DARG");
  std::vector<Span> out;
  switch (distrib) {
    case MPI_DISTRIBUTE_NONE:
      if (psize != 1)
        raise(MPI_ERR_ARG, at + "MPI_DISTRIBUTE_NONE needs psize 1, not " + std::to_string(psize));
      split(out, 0, gsize, fastest);
      return out;
    case MPI_DISTRIBUTE_BLOCK: {
      const long long b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
      if (b * psize < gsize)
        raise(MPI_ERR_ARG, at + "block size " + std::to_string(b) + " times psize " + std::to_string(psize) +
                               " does not cover gsize " + std::to_string(gsize));
      const long long start = coord * b;
      split(out, start, std::min(b, gsize - start), fastest);
      return out;
    }
    case MPI_DISTRIBUTE_CYCLIC: {
      const long long b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
      for (long long start = coord * b; start < gsize; start += b * psize)
        split(out, start, std::min(b, gsize - start), fastest);
      return out;
    }
    default:
      raise(MPI_ERR_ARG, at + "distrib " + std::to_string(distrib) +
                             " is not MPI_DISTRIBUTE_BLOCK, _CYCLIC or _NONE");
  }
}

template <class C>
int darray(const char* call, int size, int rank, int ndims, const C gsizes_in[], const int distribs[],
           const int dargs[], const int psizes[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return construct(call, newtype, [&] {
    if (size <= 0) raise(MPI_ERR_ARG, std::string(call) + ": size " + std::to_string(size) + " is not positive");
    if (rank < 0 || rank >= size)
      raise(MPI_ERR_RANK, std::string(call) + ": rank " + std::to_string(rank) + " is not in [0, " +
                              std::to_string(size) + ")");
    if (ndims <= 0) raise(MPI_ERR_ARG, std::string(call) + ": ndims " + std::to_string(ndims) + " is not positive");
    for (const void* p : {static_cast<const void*>(gsizes_in), static_cast<const void*>(distribs),
                          static_cast<const void*>(dargs), static_cast<const void*>(psizes)})
      check_ptr(p, call, "an array argument");
    const TypeObj& old = any_type(oldtype, call, "oldtype");
    std::vector<long long> gsizes(gsizes_in, gsizes_in + ndims);
    long long procs = 1, total = 1;
    for (int d = 0; d < ndims; ++d) {
      if (gsizes[d] <= 0 || psizes[d] <= 0)
        raise(MPI_ERR_ARG, std::string(call) + ": dimension " + std::to_string(d) + ": gsize " +
                               std::to_string(gsizes[d]) + " and psize " + std::to_string(psizes[d]) +
                               " must be positive");
      procs *= psizes[d];
      total *= gsizes[d];
    }
    if (procs != size)
      raise(MPI_ERR_ARG, std::string(call) + ": the product of array_of_psizes, " + std::to_string(procs) +
                             ", is not size " + std::to_string(size));
    const Layout l = layout(call, ndims, gsizes, order);
    // The process grid is row-major whatever the array order.
    std::vector<int> coord(ndims);
    for (int d = ndims - 1, r = rank; d >= 0; --d) {
      coord[d] = r % psizes[d];
      r /= psizes[d];
    }
    std::vector<std::vector<Span>> spans(ndims);
    for (int d = 0; d < ndims; ++d)
      spans[d] = owned(call, d, gsizes[d], distribs[d], dargs[d], psizes[d], coord[d], d == l.dims.back());
    std::vector<int> ints{size, rank, ndims};
    for (int d = 0; d < ndims; ++d) ints.push_back(int_count(gsizes[d], call, "gsize"));
    ints.insert(ints.end(), distribs, distribs + ndims);
    ints.insert(ints.end(), dargs, dargs + ndims);
    ints.insert(ints.end(), psizes, psizes + ndims);
    ints.push_back(order);
    TypeObj t = build(oldtype, old, MPI_COMBINER_DARRAY, l, spans, total);
    record_contents(t, std::move(ints), {}, {oldtype});
    return t;
  });
}

}  // namespace
}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                             const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return subarray("MPI_Type_create_subarray", ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                  oldtype, newtype);
}

int MPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                               const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                               MPI_Datatype* newtype) {
  return subarray("MPI_Type_create_subarray_c", ndims, array_of_sizes, array_of_subsizes, array_of_starts, order,
                  oldtype, newtype);
}

int MPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[],
                           const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype,
                           MPI_Datatype* newtype) {
  return darray("MPI_Type_create_darray", size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                array_of_psizes, order, oldtype, newtype);
}

int MPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                             const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                             int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  return darray("MPI_Type_create_darray_c", size, rank, ndims, array_of_gsizes, array_of_distribs, array_of_dargs,
                array_of_psizes, order, oldtype, newtype);
}

}  // extern "C"
