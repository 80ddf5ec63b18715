// MPI_Type_get_envelope / MPI_Type_get_contents (and the MPI 4 _c forms): the
// constructor and arguments each derived type keeps (TypeObj::ints, aints, inputs).
#include <algorithm>
#include <climits>

#include "compat/mpi/mpi_type_builder.hpp"

namespace {

using namespace interlace::mpi;

// A named type (a predefined handle, or a dup/resized copy still marked NAMED) has no
// contents to return.
const TypeObj& derived(MPI_Datatype h, const char* call) {
  const TypeObj& t = any_type(h, call, "datatype");
  if (t.combiner == MPI_COMBINER_NAMED)
    raise(MPI_ERR_TYPE, std::string(call) + ": datatype " + (t.name.empty() ? std::to_string(h) : t.name) +
                            " is a named (predefined) type, which has no contents");
  return t;
}

void check_room(long long max, size_t need, const char* call, const char* what) {
  if (max < 0 || static_cast<size_t>(max) < need)
    raise(MPI_ERR_ARG, std::string(call) + ": " + what + " " + std::to_string(max) + " is less than the " +
                           std::to_string(need) + " that MPI_Type_get_envelope reports");
}

// The datatypes of the contents: predefined inputs as themselves, derived ones as new
// handles of their snapshot (the caller frees them, as MPI specifies).
void hand_out_types(const TypeObj& t, MPI_Datatype out[]) {
  for (size_t i = 0; i < t.inputs.size(); ++i) {
    if (!t.input_objs[i]) {
      out[i] = t.inputs[i];
      continue;
    }
    TypeObj copy = *t.input_objs[i];
    out[i] = state().types.add(std::move(copy));
  }
}

void envelope(MPI_Datatype h, const char* call, long long* ni, long long* na, long long* nd, int* combiner) {
  const TypeObj& t = any_type(h, call, "datatype");
  *combiner = t.combiner;
  if (t.combiner == MPI_COMBINER_NAMED) {
    *ni = *na = *nd = 0;
    return;
  }
  *ni = static_cast<long long>(t.ints.size());
  *na = static_cast<long long>(t.aints.size());
  *nd = static_cast<long long>(t.inputs.size());
}

void contents(const char* call, MPI_Datatype datatype, long long max_integers, long long max_addresses,
              long long max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
              MPI_Datatype array_of_datatypes[]) {
  require_initialized(call);
  const TypeObj& t = derived(datatype, call);
  check_room(max_integers, t.ints.size(), call, "max_integers");
  check_room(max_addresses, t.aints.size(), call, "max_addresses");
  check_room(max_datatypes, t.inputs.size(), call, "max_datatypes");
  if (!t.ints.empty()) check_ptr(array_of_integers, call, "array_of_integers");
  if (!t.aints.empty()) check_ptr(array_of_addresses, call, "array_of_addresses");
  if (!t.inputs.empty()) check_ptr(array_of_datatypes, call, "array_of_datatypes");
  std::copy(t.ints.begin(), t.ints.end(), array_of_integers);
  std::copy(t.aints.begin(), t.aints.end(), array_of_addresses);
  hand_out_types(t, array_of_datatypes);
}

}  // namespace

extern "C" {

int MPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses, int* num_datatypes,
                          int* combiner) {
  static constexpr const char* call = "MPI_Type_get_envelope";
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    check_ptr(num_integers, call, "num_integers");
    check_ptr(num_addresses, call, "num_addresses");
    check_ptr(num_datatypes, call, "num_datatypes");
    check_ptr(combiner, call, "combiner");
    long long ni, na, nd;
    envelope(datatype, call, &ni, &na, &nd, combiner);
    if (ni > INT_MAX) raise(MPI_ERR_COUNT, std::string(call) + ": " + std::to_string(ni) + " integers exceed INT_MAX");
    *num_integers = static_cast<int>(ni);
    *num_addresses = static_cast<int>(na);
    *num_datatypes = static_cast<int>(nd);
  });
}

int MPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                            MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  static constexpr const char* call = "MPI_Type_get_envelope_c";
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    check_ptr(num_integers, call, "num_integers");
    check_ptr(num_addresses, call, "num_addresses");
    check_ptr(num_large_counts, call, "num_large_counts");
    check_ptr(num_datatypes, call, "num_datatypes");
    check_ptr(combiner, call, "combiner");
    long long ni, na, nd;
    envelope(datatype, call, &ni, &na, &nd, combiner);
    // The _c constructors keep counts that fit an int (larger ones are refused), so
    // every type's contents are the int form.
    *num_integers = ni;
    *num_addresses = na;
    *num_large_counts = 0;
    *num_datatypes = nd;
  });
}

int MPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                          int array_of_integers[], MPI_Aint array_of_addresses[],
                          MPI_Datatype array_of_datatypes[]) {
  return guard("MPI_Type_get_contents", MPI_COMM_NULL, [&] {
    contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, max_datatypes, array_of_integers,
             array_of_addresses, array_of_datatypes);
  });
}

int MPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                            MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                            MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                            MPI_Datatype array_of_datatypes[]) {
  (void)max_large_counts;
  (void)array_of_large_counts;  // never any (see MPI_Type_get_envelope_c)
  return guard("MPI_Type_get_contents_c", MPI_COMM_NULL, [&] {
    contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses, max_datatypes, array_of_integers,
             array_of_addresses, array_of_datatypes);
  });
}

}  // extern "C"
