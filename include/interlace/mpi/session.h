/* Part of mpi.h: the sessions model of MPI 4 (MPI_Session_*, process sets).
 * Included by mpi.h inside its extern "C" block; not to be included on its own.
 * Sessions and the world model (MPI_Init) share one interlace runtime; the process
 * sets are "mpi://WORLD" and "mpi://SELF" (docs/mpi.md). */
#ifndef INTERLACE_MPI_SESSION_H
#define INTERLACE_MPI_SESSION_H
#ifndef INTERLACE_MPI_H_INSIDE
#error "include <mpi.h>, not interlace/mpi/session.h"
#endif

typedef int MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0)
#ifndef MPI_MAX_PSET_NAME_LEN
#define MPI_MAX_PSET_NAME_LEN 256
#endif
#ifndef MPI_MAX_STRINGTAG_LEN /* MPI_Comm_create_from_group's tag (mpi_comm_ext.cpp) */
#define MPI_MAX_STRINGTAG_LEN 256
#endif

typedef void MPI_Session_errhandler_function(MPI_Session *session, int *error_code, ...);

int MPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session);
int MPI_Session_finalize(MPI_Session *session);
int MPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names);
int MPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                             char *pset_name);
int MPI_Session_get_info(MPI_Session session, MPI_Info *info_used);
int MPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info);
int MPI_Group_from_session_pset(MPI_Session session, const char *pset_name,
                                MPI_Group *newgroup);

int MPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                  MPI_Errhandler *errhandler);
int MPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler);
int MPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler);
int MPI_Session_call_errhandler(MPI_Session session, int errorcode);

MPI_Fint MPI_Session_c2f(MPI_Session session);
MPI_Session MPI_Session_f2c(MPI_Fint session);

/* MPI 4.1 buffered-send buffers of a session. interlace has one buffer per process:
 * a session's buffer is that of MPI_Buffer_attach (docs/mpi.md). */
int MPI_Session_attach_buffer(MPI_Session session, void *buffer, int size);
int MPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size);
int MPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size);
int MPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size);
int MPI_Session_flush_buffer(MPI_Session session);
int MPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request);

#endif /* INTERLACE_MPI_SESSION_H */
