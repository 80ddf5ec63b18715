// MPI-IO is not provided (docs/mpi.md, "What is not provided"): every MPI_File_* call
// and MPI_Register_datarep returns an error code of class MPI_ERR_UNSUPPORTED_OPERATION
// whose MPI_Error_string names the call. File errors go to the handler of MPI_FILE_NULL,
// whose default is MPI_ERRORS_RETURN: the code is returned unless the user set another.
#include <string>

#include "compat/mpi/mpi_impl.hpp"

namespace {

int unsupported_io(const char* call) {
  const int code = interlace::mpi::make_error_code(
      MPI_ERR_UNSUPPORTED_OPERATION,
      std::string(call) + ": MPI-IO is not provided by interlace (see docs/mpi.md)");
  // No file ever opens, so every file error is MPI_FILE_NULL's to handle (a user handler
  // or MPI_ERRORS_ARE_FATAL set there sees it; the default returns the code).
  MPI_File_call_errhandler(MPI_FILE_NULL, code);
  return code;
}

}  // namespace

extern "C" {

// The data-access calls, all 56 from the list that declares them (interlace/mpi/misc.h).
#define IL_MPI_IO_STUB(name, params) \
  int name params { return unsupported_io(#name); }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
INTERLACE_MPI_FILE_ALL_DATA_ACCESS(IL_MPI_IO_STUB)
#pragma GCC diagnostic pop
#undef IL_MPI_IO_STUB

int MPI_File_open(MPI_Comm, const char *, int, MPI_Info, MPI_File *) {
  return unsupported_io("MPI_File_open");
}
int MPI_File_close(MPI_File *) {
  return unsupported_io("MPI_File_close");
}
int MPI_File_delete(const char *, MPI_Info) {
  return unsupported_io("MPI_File_delete");
}
int MPI_File_set_size(MPI_File, MPI_Offset) {
  return unsupported_io("MPI_File_set_size");
}
int MPI_File_preallocate(MPI_File, MPI_Offset) {
  return unsupported_io("MPI_File_preallocate");
}
int MPI_File_get_size(MPI_File, MPI_Offset *) {
  return unsupported_io("MPI_File_get_size");
}
int MPI_File_get_group(MPI_File, MPI_Group *) {
  return unsupported_io("MPI_File_get_group");
}
int MPI_File_get_amode(MPI_File, int *) {
  return unsupported_io("MPI_File_get_amode");
}
int MPI_File_set_info(MPI_File, MPI_Info) {
  return unsupported_io("MPI_File_set_info");
}
int MPI_File_get_info(MPI_File, MPI_Info *) {
  return unsupported_io("MPI_File_get_info");
}
int MPI_File_set_view(MPI_File, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info) {
  return unsupported_io("MPI_File_set_view");
}
int MPI_File_get_view(MPI_File, MPI_Offset *, MPI_Datatype *, MPI_Datatype *, char *) {
  return unsupported_io("MPI_File_get_view");
}
int MPI_File_read_at_all_end(MPI_File, void *, MPI_Status *) {
  return unsupported_io("MPI_File_read_at_all_end");
}
int MPI_File_read_all_end(MPI_File, void *, MPI_Status *) {
  return unsupported_io("MPI_File_read_all_end");
}
int MPI_File_read_ordered_end(MPI_File, void *, MPI_Status *) {
  return unsupported_io("MPI_File_read_ordered_end");
}
int MPI_File_write_at_all_end(MPI_File, const void *, MPI_Status *) {
  return unsupported_io("MPI_File_write_at_all_end");
}
int MPI_File_write_all_end(MPI_File, const void *, MPI_Status *) {
  return unsupported_io("MPI_File_write_all_end");
}
int MPI_File_write_ordered_end(MPI_File, const void *, MPI_Status *) {
  return unsupported_io("MPI_File_write_ordered_end");
}
int MPI_File_seek(MPI_File, MPI_Offset, int) {
  return unsupported_io("MPI_File_seek");
}
int MPI_File_get_position(MPI_File, MPI_Offset *) {
  return unsupported_io("MPI_File_get_position");
}
int MPI_File_get_byte_offset(MPI_File, MPI_Offset, MPI_Offset *) {
  return unsupported_io("MPI_File_get_byte_offset");
}
int MPI_File_seek_shared(MPI_File, MPI_Offset, int) {
  return unsupported_io("MPI_File_seek_shared");
}
int MPI_File_get_position_shared(MPI_File, MPI_Offset *) {
  return unsupported_io("MPI_File_get_position_shared");
}
int MPI_File_get_type_extent(MPI_File, MPI_Datatype, MPI_Aint *) {
  return unsupported_io("MPI_File_get_type_extent");
}
int MPI_File_get_type_extent_c(MPI_File, MPI_Datatype, MPI_Count *) {
  return unsupported_io("MPI_File_get_type_extent_c");
}
int MPI_File_set_atomicity(MPI_File, int) {
  return unsupported_io("MPI_File_set_atomicity");
}
int MPI_File_get_atomicity(MPI_File, int *) {
  return unsupported_io("MPI_File_get_atomicity");
}
int MPI_File_sync(MPI_File) {
  return unsupported_io("MPI_File_sync");
}
int MPI_Register_datarep(const char *, MPI_Datarep_conversion_function *,
    MPI_Datarep_conversion_function *, MPI_Datarep_extent_function *, void *) {
  return unsupported_io("MPI_Register_datarep");
}
int MPI_Register_datarep_c(const char *, MPI_Datarep_conversion_function_c *,
    MPI_Datarep_conversion_function_c *, MPI_Datarep_extent_function *, void *) {
  return unsupported_io("MPI_Register_datarep_c");
}

}  // extern "C"
