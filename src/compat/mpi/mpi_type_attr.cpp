// Attribute caching on datatypes: the MPI_Type_*_keyval / *_attr calls over the shared
// attribute store (mpi_attr.hpp). MPI_Type_dup copies and MPI_Type_free deletes them
// (mpi_type_create.cpp).
#include "compat/mpi/mpi_attr.hpp"
#include "compat/mpi/mpi_type_builder.hpp"

namespace interlace::mpi {

// Attributes may be set on uncommitted types too, so the handle check is any_type's,
// not type_obj's (which refuses uncommitted ones).
void register_type_attr_check() {
  attr_register_handle_check(AttrKind::type, [](int h) { any_type(h, "datatype attribute call", "datatype"); });
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                           MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                           void* extra_state) {
  return guard("MPI_Type_create_keyval", MPI_COMM_NULL, [&] {
    check_ptr(type_keyval, "MPI_Type_create_keyval", "type_keyval");
    *type_keyval = attr_create_keyval(AttrKind::type, type_copy_attr_fn, type_delete_attr_fn, extra_state);
  });
}

int MPI_Type_free_keyval(int* type_keyval) {
  return guard("MPI_Type_free_keyval", MPI_COMM_NULL, [&] { attr_free_keyval(AttrKind::type, type_keyval); });
}

int MPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  return guard("MPI_Type_set_attr", MPI_COMM_NULL, [&] {
    attr_check_handle(AttrKind::type, datatype);
    attr_set(AttrKind::type, datatype, type_keyval, attribute_val);
  });
}

int MPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  return guard("MPI_Type_get_attr", MPI_COMM_NULL, [&] {
    attr_check_handle(AttrKind::type, datatype);
    check_ptr(attribute_val, "MPI_Type_get_attr", "attribute_val");
    check_ptr(flag, "MPI_Type_get_attr", "flag");
    *flag = attr_get(AttrKind::type, datatype, type_keyval, attribute_val) ? 1 : 0;
  });
}

int MPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  return guard("MPI_Type_delete_attr", MPI_COMM_NULL, [&] {
    attr_check_handle(AttrKind::type, datatype);
    attr_delete(AttrKind::type, datatype, type_keyval);
  });
}

}  // extern "C"
