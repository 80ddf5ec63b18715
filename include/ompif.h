/* OMPIF (OmpSs MPI for FPGAs) for device tasks, the nanos6 distributed-task host calls,
 * and interlace's C calls for distributed tasks (il_dist_*). docs/ompif.md.
 *
 * Roles: a program that calls il_dist_init has a host (world rank INTERLACE_TASK_HOST,
 * default 0) and P devices; OMPIF_COMM_WORLD is the devices only. A program that never
 * calls il_dist_init (started with `interlace run -n N`) has N devices and no host;
 * the first OMPIF call starts the runtime, which is finalised at exit.
 *
 * The OMPIF and nanos6_dist_* calls return nothing: errors go to the error handler
 * (OMPIF_Set_error_handler) with a message naming the bad values; the default handler
 * prints it and exits the rank with status 1. */
#ifndef INTERLACE_OMPIF_H
#define INTERLACE_OMPIF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- OMPIF ---------------------------------------------------------------------- */

typedef enum {
  OMPIF_INT = 0,
  OMPIF_DOUBLE = 1,
  OMPIF_FLOAT = 2,
  OMPIF_CHAR,
  OMPIF_UNSIGNED_CHAR,
  OMPIF_SHORT,
  OMPIF_UNSIGNED_SHORT,
  OMPIF_UNSIGNED,
  OMPIF_LONG,
  OMPIF_UNSIGNED_LONG,
  OMPIF_LONG_LONG,
  OMPIF_UNSIGNED_LONG_LONG,
  OMPIF_BYTE,
  OMPIF_INT8_T,
  OMPIF_INT16_T,
  OMPIF_INT32_T,
  OMPIF_INT64_T,
  OMPIF_UINT8_T,
  OMPIF_UINT16_T,
  OMPIF_UINT32_T,
  OMPIF_UINT64_T
} OMPIF_Datatype;

typedef enum { OMPIF_COMM_WORLD = 0 } OMPIF_Comm;

/* Error codes passed to the error handler (interlace's Errc values). */
enum {
  OMPIF_SUCCESS = 0,
  OMPIF_ERR_ARG = 2,
  OMPIF_ERR_RANK = 3,
  OMPIF_ERR_TAG = 4,
  OMPIF_ERR_COUNT = 5,
  OMPIF_ERR_TYPE = 6,
  OMPIF_ERR_COMM = 8,
  OMPIF_ERR_TRUNCATE = 9,
  OMPIF_ERR_LOST_PEER = 10,
  OMPIF_ERR_OTHER = 17
};

typedef void (*OMPIF_Error_handler)(int code, const char* message);
/* Installs h (NULL: the default) for every thread; returns the previous handler. */
OMPIF_Error_handler OMPIF_Set_error_handler(OMPIF_Error_handler h);

int OMPIF_Comm_rank(OMPIF_Comm communicator);
int OMPIF_Comm_size(OMPIF_Comm communicator);
void OMPIF_Send(const void* data, int count, OMPIF_Datatype datatype, int destination,
                uint8_t tag, OMPIF_Comm communicator);
void OMPIF_Recv(void* data, int count, OMPIF_Datatype datatype, int source, uint8_t tag,
                OMPIF_Comm communicator);
void OMPIF_Bcast(void* data, int count, OMPIF_Datatype datatype, int root,
                 OMPIF_Comm communicator);
/* In place: data holds size x count elements, rank r's block at r x count. */
void OMPIF_Allgather(void* data, int count, OMPIF_Datatype datatype, OMPIF_Comm communicator);

/* Checked entry points: the tag as int, so that a tag above 255 is reported instead of
 * silently truncated by the uint8_t parameter. The macros below route direct calls
 * here; `(OMPIF_Send)(...)` or a function pointer reaches the exact-signature
 * functions above. */
void il_ompif_send_checked(const void* data, int count, OMPIF_Datatype datatype,
                           int destination, int tag, OMPIF_Comm communicator);
void il_ompif_recv_checked(void* data, int count, OMPIF_Datatype datatype, int source,
                           int tag, OMPIF_Comm communicator);
#define OMPIF_Send(data, count, datatype, destination, tag, communicator) \
  il_ompif_send_checked((data), (count), (datatype), (destination), (tag), (communicator))
#define OMPIF_Recv(data, count, datatype, source, tag, communicator) \
  il_ompif_recv_checked((data), (count), (datatype), (source), (tag), (communicator))

/* ---- nanos6 distributed host calls (blocking; host only) ------------------------- */

typedef struct {
  uint64_t size;
  uint64_t sendOffset;
  uint64_t recvOffset;
  int devId;
} nanos6_dist_memcpy_info_t;

typedef enum { NANOS6_DIST_COPY_TO, NANOS6_DIST_COPY_FROM } nanos6_dist_copy_dir_t;

int nanos6_dist_num_devices(void);
void nanos6_dist_map_address(const void* address, uint64_t size);
void nanos6_dist_unmap_address(const void* address);
void nanos6_dist_memcpy_to_all(const void* address, uint64_t size, uint64_t srcOffset,
                               uint64_t dstOffset);
void nanos6_dist_scatter(const void* address, uint64_t size, uint64_t sendOffset,
                         uint64_t recvOffset);
void nanos6_dist_gather(void* address, uint64_t size, uint64_t sendOffset,
                        uint64_t recvOffset);
void nanos6_dist_scatterv(const void* address, const uint64_t* sizes,
                          const uint64_t* sendOffsets, const uint64_t* recvOffsets);
void nanos6_dist_memcpy_to_device(int dev_id, const void* address, uint64_t size,
                                  uint64_t srcOffset, uint64_t dstOffset);
void nanos6_dist_memcpy_from_device(int dev_id, void* address, uint64_t size,
                                    uint64_t srcOffset, uint64_t dstOffset);
void nanos6_dist_memcpy_vector(void* address, int vector_len, nanos6_dist_memcpy_info_t* v,
                               nanos6_dist_copy_dir_t dir);

/* ---- interlace's distributed tasks (what nanos6 gets from its compiler) ----------- */

enum {
  IL_DIST_BROADCAST = 0,
  IL_DIST_SCATTER = 1,
  IL_DIST_GATHER = 2,
  IL_DIST_SEND = 3,
  IL_DIST_RECEIVE = 4,
  IL_DIST_MAPPED = 5
};

typedef struct {
  int kind;        /* IL_DIST_* */
  void* address;   /* host address (for IL_DIST_MAPPED: a mapped address) */
  uint64_t size;   /* bytes; scatter/gather: the whole buffer, size / P per device */
  int device;      /* IL_DIST_SEND / IL_DIST_RECEIVE: the device index */
} il_dist_clause_t;

/* regions[i]: the device-local region of clause i (NULL for a send/receive clause that
 * names another device); args: a copy of the host's argument bytes. */
typedef void (*il_dist_fn)(void* const* regions, const void* args, size_t args_size);

/* Every il_dist_* call returns 0 on success (il_dist_init: 1 on the host) and -1 on
 * failure, with the message in il_dist_error_message(). */
int il_dist_register(const char* name, il_dist_fn fn);
/* Collective over every rank. Host: returns 1. Device: serves the host's commands and
 * returns 0 once the host has called il_dist_finalize (or exited). */
int il_dist_init(void);
int il_dist_spawn(const char* name, const il_dist_clause_t* clauses, int nclauses,
                  const void* args, size_t args_size);
/* Waits for every task spawned at top level (distributed or local, il_task_*). */
int il_dist_taskwait(void);
/* Host: waits, then releases the devices (also run at exit). */
int il_dist_finalize(void);
/* The message of this thread's last failed il_dist_* call ("" if none). */
const char* il_dist_error_message(void);
/* Device index inside a distributed task (-1 on the host), number of devices. */
int il_dist_device(void);

#ifdef __cplusplus
}
#endif

#endif /* INTERLACE_OMPIF_H */
