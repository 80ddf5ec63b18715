/* interlace transpile: stand-in for mpi.h, for parsing only (the emitted
   file includes the real one). Handles are type names here; the constants
   (MPI_COMM_WORLD, MPI_INT, MPI_SUM, ...) stay identifiers. */
#include "_common.h"
#define INTERLACE_MPI 1
#define MPI_VERSION 3
#define MPI_SUBVERSION 1
typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Op;
typedef int MPI_Request;
typedef int MPI_Group;
typedef int MPI_Errhandler;
typedef int MPI_Info;
typedef long MPI_Aint;
typedef long MPI_Offset;
typedef long MPI_Count;
typedef struct { int MPI_SOURCE; int MPI_TAG; int MPI_ERROR; } MPI_Status;
