// Handle conversion and profiling control. Handles are ints (mpi.h), so a C handle is
// already a valid Fortran handle: the conversions are the identity, which is what
// MPICH does too; mixed-language C libraries only need the functions to exist.
#include "compat/mpi/mpi_impl.hpp"

#define IL_MPI_HANDLE_CONVERSION(Kind, CType)                  \
  MPI_Fint MPI_##Kind##_c2f(CType h) { return static_cast<MPI_Fint>(h); } \
  CType MPI_##Kind##_f2c(MPI_Fint h) { return static_cast<CType>(h); }

extern "C" {

IL_MPI_HANDLE_CONVERSION(Comm, MPI_Comm)
IL_MPI_HANDLE_CONVERSION(Type, MPI_Datatype)
IL_MPI_HANDLE_CONVERSION(Group, MPI_Group)
IL_MPI_HANDLE_CONVERSION(Request, MPI_Request)
IL_MPI_HANDLE_CONVERSION(Op, MPI_Op)
IL_MPI_HANDLE_CONVERSION(Info, MPI_Info)
IL_MPI_HANDLE_CONVERSION(Win, MPI_Win)
IL_MPI_HANDLE_CONVERSION(File, MPI_File)
IL_MPI_HANDLE_CONVERSION(Errhandler, MPI_Errhandler)
IL_MPI_HANDLE_CONVERSION(Message, MPI_Message)
IL_MPI_HANDLE_CONVERSION(Session, MPI_Session)

// MPI leaves the meaning of the level to the profiling tool; with no tool attached the
// call has no effect, as the standard allows.
int MPI_Pcontrol(const int /*level*/, ...) { return MPI_SUCCESS; }

}  // extern "C"
