// The names and descriptions of the predefined error classes (MPI_Error_string).
#include <iterator>

#include "compat/mpi/mpi_errh.hpp"

namespace interlace::mpi {

const char* predefined_class_name(int cls) {
  static const char* const names[] = {
      "MPI_SUCCESS", "MPI_ERR_BUFFER", "MPI_ERR_COUNT", "MPI_ERR_TYPE", "MPI_ERR_TAG",
      "MPI_ERR_COMM", "MPI_ERR_RANK", "MPI_ERR_ROOT", "MPI_ERR_GROUP", "MPI_ERR_OP",
      "MPI_ERR_TOPOLOGY", "MPI_ERR_DIMS", "MPI_ERR_ARG", "MPI_ERR_UNKNOWN",
      "MPI_ERR_TRUNCATE", "MPI_ERR_OTHER", "MPI_ERR_INTERN", "MPI_ERR_IN_STATUS",
      "MPI_ERR_PENDING", "MPI_ERR_REQUEST", "MPI_ERR_NO_MEM", "MPI_ERR_KEYVAL",
      "MPI_ERR_INFO", "MPI_ERR_UNSUPPORTED_OPERATION", "MPI_ERR_PROC_FAILED",
      "MPI_ERR_TIMEOUT", "MPI_ERR_ACCESS", "MPI_ERR_AMODE", "MPI_ERR_ASSERT",
      "MPI_ERR_BAD_FILE", "MPI_ERR_BASE", "MPI_ERR_CONVERSION", "MPI_ERR_DISP",
      "MPI_ERR_DUP_DATAREP", "MPI_ERR_FILE_EXISTS", "MPI_ERR_FILE_IN_USE", "MPI_ERR_FILE",
      "MPI_ERR_INFO_KEY", "MPI_ERR_INFO_NOKEY", "MPI_ERR_INFO_VALUE", "MPI_ERR_IO",
      "MPI_ERR_LOCKTYPE", "MPI_ERR_NAME", "MPI_ERR_NO_SPACE", "MPI_ERR_NO_SUCH_FILE",
      "MPI_ERR_NOT_SAME", "MPI_ERR_PORT", "MPI_ERR_QUOTA", "MPI_ERR_READ_ONLY",
      "MPI_ERR_RMA_ATTACH", "MPI_ERR_RMA_CONFLICT", "MPI_ERR_RMA_RANGE", "MPI_ERR_RMA_SHARED",
      "MPI_ERR_RMA_SYNC", "MPI_ERR_RMA_FLAVOR", "MPI_ERR_SERVICE", "MPI_ERR_SIZE",
      "MPI_ERR_SPAWN", "MPI_ERR_UNSUPPORTED_DATAREP", "MPI_ERR_WIN", "MPI_ERR_SESSION",
      "MPI_ERR_PROC_ABORTED", "MPI_ERR_VALUE_TOO_LARGE", "MPI_ERR_ERRHANDLER"};
  static_assert(std::size(names) == MPI_ERR_LASTCODE + 1);
  if (cls >= 0 && cls < static_cast<int>(std::size(names))) return names[cls];
  return nullptr;
}

const char* predefined_class_description(int cls) {
  static const char* const texts[] = {
      "no error", "invalid buffer pointer or size", "invalid count argument",
      "invalid datatype", "invalid tag", "invalid communicator", "invalid rank",
      "invalid root", "invalid group", "invalid operation", "invalid topology",
      "invalid dimension argument", "invalid argument", "unknown error",
      "message truncated on receive", "other error", "internal error",
      "error code is in status", "pending request", "invalid request",
      "out of memory", "invalid keyval", "invalid info", "unsupported operation",
      "a peer process failed", "operation timed out (INTERLACE_TIMEOUT)",
      "permission denied", "invalid file access mode", "invalid assertion",
      "invalid file name", "invalid base address", "data conversion failed",
      "invalid displacement", "data representation already registered", "file exists",
      "file is in use", "invalid file handle", "invalid info key", "info key not found",
      "invalid info value", "I/O error", "invalid lock type", "name not published",
      "not enough space", "no such file", "collective argument not the same on all ranks",
      "invalid port name", "quota exceeded", "read-only file or file system",
      "memory cannot be attached", "conflicting accesses to a window",
      "target memory is outside the window", "invalid shared-memory window operation",
      "wrong synchronization of RMA calls", "window flavor does not allow the call",
      "name service failed", "invalid size", "process spawn failed",
      "unsupported data representation", "invalid window", "invalid session",
      "a peer process aborted", "value too large for the output argument",
      "invalid error handler"};
  static_assert(std::size(texts) == MPI_ERR_LASTCODE + 1);
  if (cls >= 0 && cls < static_cast<int>(std::size(texts))) return texts[cls];
  return nullptr;
}

}  // namespace interlace::mpi
