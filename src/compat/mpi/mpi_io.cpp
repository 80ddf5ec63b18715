// MPI-IO is not provided (docs/mpi.md, "What is not provided"): every MPI_File_* call
// and MPI_Register_datarep returns an error code of class MPI_ERR_UNSUPPORTED_OPERATION
// whose MPI_Error_string names the call. File errors go to the handler of MPI_FILE_NULL,
// whose default is MPI_ERRORS_RETURN, so the code is returned, never fatal.
#include <string>

#include "compat/mpi/mpi_impl.hpp"

namespace {

int unsupported_io(const char* call) {
  return interlace::mpi::make_error_code(
      MPI_ERR_UNSUPPORTED_OPERATION,
      std::string(call) + ": MPI-IO is not provided by interlace (see docs/mpi.md)");
}

}  // namespace

extern "C" {

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
int MPI_File_read_at(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_at");
}
int MPI_File_iread_at(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread_at");
}
int MPI_File_read(MPI_File, void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read");
}
int MPI_File_iread(MPI_File, void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread");
}
int MPI_File_read_at_all(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_at_all");
}
int MPI_File_iread_at_all(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread_at_all");
}
int MPI_File_read_all(MPI_File, void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_all");
}
int MPI_File_iread_all(MPI_File, void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread_all");
}
int MPI_File_read_shared(MPI_File, void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_shared");
}
int MPI_File_iread_shared(MPI_File, void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread_shared");
}
int MPI_File_read_ordered(MPI_File, void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_ordered");
}
int MPI_File_read_at_all_begin(MPI_File, MPI_Offset, void *, int, MPI_Datatype) {
  return unsupported_io("MPI_File_read_at_all_begin");
}
int MPI_File_read_all_begin(MPI_File, void *, int, MPI_Datatype) {
  return unsupported_io("MPI_File_read_all_begin");
}
int MPI_File_read_ordered_begin(MPI_File, void *, int, MPI_Datatype) {
  return unsupported_io("MPI_File_read_ordered_begin");
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
int MPI_File_write_at(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_at");
}
int MPI_File_iwrite_at(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iwrite_at");
}
int MPI_File_write(MPI_File, const void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write");
}
int MPI_File_iwrite(MPI_File, const void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iwrite");
}
int MPI_File_write_at_all(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_at_all");
}
int MPI_File_iwrite_at_all(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iwrite_at_all");
}
int MPI_File_write_all(MPI_File, const void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_all");
}
int MPI_File_iwrite_all(MPI_File, const void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iwrite_all");
}
int MPI_File_write_shared(MPI_File, const void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_shared");
}
int MPI_File_iwrite_shared(MPI_File, const void *, int, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iwrite_shared");
}
int MPI_File_write_ordered(MPI_File, const void *, int, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_ordered");
}
int MPI_File_write_at_all_begin(MPI_File, MPI_Offset, const void *, int, MPI_Datatype) {
  return unsupported_io("MPI_File_write_at_all_begin");
}
int MPI_File_write_all_begin(MPI_File, const void *, int, MPI_Datatype) {
  return unsupported_io("MPI_File_write_all_begin");
}
int MPI_File_write_ordered_begin(MPI_File, const void *, int, MPI_Datatype) {
  return unsupported_io("MPI_File_write_ordered_begin");
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
int MPI_File_read_at_c(MPI_File, MPI_Offset, void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_at_c");
}
int MPI_File_iread_at_c(MPI_File, MPI_Offset, void *, MPI_Count, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread_at_c");
}
int MPI_File_read_c(MPI_File, void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_c");
}
int MPI_File_iread_c(MPI_File, void *, MPI_Count, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread_c");
}
int MPI_File_read_at_all_c(MPI_File, MPI_Offset, void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_at_all_c");
}
int MPI_File_iread_at_all_c(MPI_File, MPI_Offset, void *, MPI_Count, MPI_Datatype, MPI_Request *)
    {
  return unsupported_io("MPI_File_iread_at_all_c");
}
int MPI_File_read_all_c(MPI_File, void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_all_c");
}
int MPI_File_iread_all_c(MPI_File, void *, MPI_Count, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread_all_c");
}
int MPI_File_read_shared_c(MPI_File, void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_shared_c");
}
int MPI_File_iread_shared_c(MPI_File, void *, MPI_Count, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iread_shared_c");
}
int MPI_File_read_ordered_c(MPI_File, void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_read_ordered_c");
}
int MPI_File_read_at_all_begin_c(MPI_File, MPI_Offset, void *, MPI_Count, MPI_Datatype) {
  return unsupported_io("MPI_File_read_at_all_begin_c");
}
int MPI_File_read_all_begin_c(MPI_File, void *, MPI_Count, MPI_Datatype) {
  return unsupported_io("MPI_File_read_all_begin_c");
}
int MPI_File_read_ordered_begin_c(MPI_File, void *, MPI_Count, MPI_Datatype) {
  return unsupported_io("MPI_File_read_ordered_begin_c");
}
int MPI_File_write_at_c(MPI_File, MPI_Offset, const void *, MPI_Count, MPI_Datatype, MPI_Status *)
    {
  return unsupported_io("MPI_File_write_at_c");
}
int MPI_File_iwrite_at_c(MPI_File, MPI_Offset, const void *, MPI_Count, MPI_Datatype, MPI_Request
    *) {
  return unsupported_io("MPI_File_iwrite_at_c");
}
int MPI_File_write_c(MPI_File, const void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_c");
}
int MPI_File_iwrite_c(MPI_File, const void *, MPI_Count, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iwrite_c");
}
int MPI_File_write_at_all_c(MPI_File, MPI_Offset, const void *, MPI_Count, MPI_Datatype,
    MPI_Status *) {
  return unsupported_io("MPI_File_write_at_all_c");
}
int MPI_File_iwrite_at_all_c(MPI_File, MPI_Offset, const void *, MPI_Count, MPI_Datatype,
    MPI_Request *) {
  return unsupported_io("MPI_File_iwrite_at_all_c");
}
int MPI_File_write_all_c(MPI_File, const void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_all_c");
}
int MPI_File_iwrite_all_c(MPI_File, const void *, MPI_Count, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iwrite_all_c");
}
int MPI_File_write_shared_c(MPI_File, const void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_shared_c");
}
int MPI_File_iwrite_shared_c(MPI_File, const void *, MPI_Count, MPI_Datatype, MPI_Request *) {
  return unsupported_io("MPI_File_iwrite_shared_c");
}
int MPI_File_write_ordered_c(MPI_File, const void *, MPI_Count, MPI_Datatype, MPI_Status *) {
  return unsupported_io("MPI_File_write_ordered_c");
}
int MPI_File_write_at_all_begin_c(MPI_File, MPI_Offset, const void *, MPI_Count, MPI_Datatype) {
  return unsupported_io("MPI_File_write_at_all_begin_c");
}
int MPI_File_write_all_begin_c(MPI_File, const void *, MPI_Count, MPI_Datatype) {
  return unsupported_io("MPI_File_write_all_begin_c");
}
int MPI_File_write_ordered_begin_c(MPI_File, const void *, MPI_Count, MPI_Datatype) {
  return unsupported_io("MPI_File_write_ordered_begin_c");
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
