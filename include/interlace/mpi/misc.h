/* Part of mpi.h: dynamic processes, MPI-IO (not provided: returns MPI_ERR_UNSUPPORTED_OPERATION), handle conversion, profiling.
 * Included by mpi.h inside its extern "C" block; not to be included on its own. */
#ifndef INTERLACE_MPI_MISC_H
#define INTERLACE_MPI_MISC_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/misc.h"
#endif

/* ---- handle conversion (handles are ints: the Fortran handle is the C handle) ------- */
MPI_Fint MPI_Comm_c2f(MPI_Comm comm);
MPI_Comm MPI_Comm_f2c(MPI_Fint comm);
MPI_Fint MPI_Type_c2f(MPI_Datatype datatype);
MPI_Datatype MPI_Type_f2c(MPI_Fint datatype);
MPI_Fint MPI_Group_c2f(MPI_Group group);
MPI_Group MPI_Group_f2c(MPI_Fint group);
MPI_Fint MPI_Request_c2f(MPI_Request request);
MPI_Request MPI_Request_f2c(MPI_Fint request);
MPI_Fint MPI_Op_c2f(MPI_Op op);
MPI_Op MPI_Op_f2c(MPI_Fint op);
MPI_Fint MPI_Info_c2f(MPI_Info info);
MPI_Info MPI_Info_f2c(MPI_Fint info);
MPI_Fint MPI_Win_c2f(MPI_Win win);
MPI_Win MPI_Win_f2c(MPI_Fint win);
MPI_Fint MPI_File_c2f(MPI_File file);
MPI_File MPI_File_f2c(MPI_Fint file);
MPI_Fint MPI_Errhandler_c2f(MPI_Errhandler errhandler);
MPI_Errhandler MPI_Errhandler_f2c(MPI_Fint errhandler);
MPI_Fint MPI_Message_c2f(MPI_Message message);
MPI_Message MPI_Message_f2c(MPI_Fint message);

/* A Fortran status is the C status as MPI_F_STATUS_SIZE integers; MPI 4's C constants
 * MPI_F_SOURCE, MPI_F_TAG and MPI_F_ERROR are the (0-based) places of those fields. */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
#define MPI_F_STATUS_IGNORE ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE ((MPI_Fint *)0)
int MPI_Status_c2f(const MPI_Status *c_status, MPI_Fint *f_status);
int MPI_Status_f2c(const MPI_Fint *f_status, MPI_Status *c_status);

/* ---- memory for one-sided communication -------------------------------------------------- */
int MPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr);
int MPI_Free_mem(void *base);

/* ---- profiling ------------------------------------------------------------------------ */
int MPI_Pcontrol(const int level, ...);

/* ---- dynamic processes ------------------------------------------------------------------ */
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_MAX_PORT_NAME 1024
int MPI_Comm_get_parent(MPI_Comm *parent);
int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]);
int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[],
                            int root, MPI_Comm comm, MPI_Comm *intercomm,
                            int array_of_errcodes[]);
int MPI_Open_port(MPI_Info info, char *port_name);
int MPI_Close_port(const char *port_name);
int MPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm *newcomm);
int MPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm);
int MPI_Comm_disconnect(MPI_Comm *comm);
int MPI_Comm_join(int fd, MPI_Comm *intercomm);
int MPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name);
int MPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name);
int MPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name);

/* ---- MPI-IO: declared so that programs build; every call returns
 * MPI_ERR_UNSUPPORTED_OPERATION with a message (docs/mpi.md says why) -------------------- */
#define MPI_MODE_RDONLY 1
#define MPI_MODE_RDWR 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_CREATE 8
#define MPI_MODE_EXCL 16
#define MPI_MODE_DELETE_ON_CLOSE 32
#define MPI_MODE_UNIQUE_OPEN 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_MAX_DATAREP_STRING 128
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position,
                                            void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype,
                                              MPI_Count count, void *filebuf,
                                              MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent,
                                        void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)
int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh);
int MPI_File_close(MPI_File *fh);
int MPI_File_delete(const char *filename, MPI_Info info);
int MPI_File_set_size(MPI_File fh, MPI_Offset size);
int MPI_File_preallocate(MPI_File fh, MPI_Offset size);
int MPI_File_get_size(MPI_File fh, MPI_Offset *size);
int MPI_File_get_group(MPI_File fh, MPI_Group *group);
int MPI_File_get_amode(MPI_File fh, int *amode);
int MPI_File_set_info(MPI_File fh, MPI_Info info);
int MPI_File_get_info(MPI_File fh, MPI_Info *info_used);
int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
    const char *datarep, MPI_Info info);
int MPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
    char *datarep);
/* The data-access calls (MPI 4.1 14.4) come as read and write, each with an int count and
 * as MPI 4's _c form with an MPI_Count count, the parameters otherwise the same: one list
 * declares all four sets. X(name, params) is applied to each; mpi_io.cpp defines them
 * with the same list. */
#define INTERLACE_MPI_FILE_DATA_ACCESS(X, dir, Buf, S, Count)                                    \
  X(MPI_File_##dir##_at##S, (MPI_File fh, MPI_Offset offset, Buf *buf, Count count,             \
                             MPI_Datatype datatype, MPI_Status *status))                        \
  X(MPI_File_i##dir##_at##S, (MPI_File fh, MPI_Offset offset, Buf *buf, Count count,            \
                              MPI_Datatype datatype, MPI_Request *request))                     \
  X(MPI_File_##dir##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype,              \
                        MPI_Status *status))                                                    \
  X(MPI_File_i##dir##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype,             \
                         MPI_Request *request))                                                 \
  X(MPI_File_##dir##_at_all##S, (MPI_File fh, MPI_Offset offset, Buf *buf, Count count,         \
                                 MPI_Datatype datatype, MPI_Status *status))                    \
  X(MPI_File_i##dir##_at_all##S, (MPI_File fh, MPI_Offset offset, Buf *buf, Count count,        \
                                  MPI_Datatype datatype, MPI_Request *request))                 \
  X(MPI_File_##dir##_all##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype,        \
                              MPI_Status *status))                                              \
  X(MPI_File_i##dir##_all##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype,       \
                               MPI_Request *request))                                           \
  X(MPI_File_##dir##_shared##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype,     \
                                 MPI_Status *status))                                           \
  X(MPI_File_i##dir##_shared##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype,    \
                                  MPI_Request *request))                                        \
  X(MPI_File_##dir##_ordered##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype,    \
                                  MPI_Status *status))                                          \
  X(MPI_File_##dir##_at_all_begin##S, (MPI_File fh, MPI_Offset offset, Buf *buf, Count count,   \
                                       MPI_Datatype datatype))                                  \
  X(MPI_File_##dir##_all_begin##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype)) \
  X(MPI_File_##dir##_ordered_begin##S, (MPI_File fh, Buf *buf, Count count, MPI_Datatype datatype))
#define INTERLACE_MPI_FILE_ALL_DATA_ACCESS(X)                                                    \
  INTERLACE_MPI_FILE_DATA_ACCESS(X, read, void, , int)                                          \
  INTERLACE_MPI_FILE_DATA_ACCESS(X, write, const void, , int)                                   \
  INTERLACE_MPI_FILE_DATA_ACCESS(X, read, void, _c, MPI_Count)                                  \
  INTERLACE_MPI_FILE_DATA_ACCESS(X, write, const void, _c, MPI_Count)
#define INTERLACE_MPI_DECLARE_(name, params) int name params;
INTERLACE_MPI_FILE_ALL_DATA_ACCESS(INTERLACE_MPI_DECLARE_)
#undef INTERLACE_MPI_DECLARE_
int MPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status);
int MPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status);
int MPI_File_seek(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position(MPI_File fh, MPI_Offset *offset);
int MPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp);
int MPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence);
int MPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset);
int MPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent);
int MPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent);
int MPI_File_set_atomicity(MPI_File fh, int flag);
int MPI_File_get_atomicity(MPI_File fh, int *flag);
int MPI_File_sync(MPI_File fh);
int MPI_Register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
    MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function
    *dtype_file_extent_fn, void *extra_state);
int MPI_Register_datarep_c(const char *datarep, MPI_Datarep_conversion_function_c
    *read_conversion_fn, MPI_Datarep_conversion_function_c *write_conversion_fn,
    MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);

#endif /* INTERLACE_MPI_MISC_H */
