/* Contract: the Streaming Message Interface (SMI, de Matteis et al., SC'19) as a C API
 * over interlace's streaming channels, so that SMI code written against the paper's
 * listings compiles with interlace-cc / interlace-c++ and runs under `interlace run`.
 * docs/smi.md has the full description; the essentials:
 *
 *  - SMI_Init(&argc, &argv) joins the job described by the environment (interlace run,
 *    mpirun, Slurm, or a singleton) and returns SMI_COMM_WORLD; SMI_Finalize() leaves
 *    it. One runtime per process. No generated code and no routing tables are needed.
 *  - SMI_Open_send_channel(count, type, destination, port, comm) and
 *    SMI_Open_recv_channel(count, type, source, port, comm) (alias
 *    SMI_Open_receive_channel) return a channel by value; SMI_Push(&ch, &x) and
 *    SMI_Pop(&ch, &x) move one element each. A channel closes by itself once `count`
 *    elements went through. Ports are 0..2^31-1; the n-th send channel on
 *    (comm, destination, port) is matched with the n-th receive channel on
 *    (comm, source, port); both ends must agree on count and type.
 *  - Asynchronicity degree k: the _ad variants take it (k >= 0, in elements; 0 acts as
 *    1); without it k = SMI_DEFAULT_DEGREE_BYTES / element size. A sender runs at most
 *    k elements ahead of its receiver; a channel whose k >= count is eager.
 *  - SMI_Push stages elements in a packet; the packet goes out when full, when the
 *    count is reached, at SMI_Push_flush(&ch, &x, 1), and before the rank blocks in any
 *    push or pop. SMI_Push and SMI_Pop are static inline: the common case is a copy
 *    and a counter decrement, the library is entered once per packet.
 *  - Channel descriptors are used through pointers; do not copy one after its first
 *    push/pop (the copy would hold a stale packet position).
 *  - Errors: by default a failing call prints "SMI error on rank R in CALL: WHAT"
 *    (naming the bad values) to stderr and ends the process with exit status 1, as
 *    MPI_ERRORS_ARE_FATAL does. After SMI_Set_errhandler(SMI_ERRORS_RETURN) failing
 *    calls return instead (opens return a channel on which every push/pop fails,
 *    int-returning calls return the code); SMI_Error() fetches and clears the calling
 *    thread's last code, SMI_Error_string() its message.
 *  - Threads: a channel is used by one thread at a time; channels of one rank may be
 *    used from several threads only with INTERLACE_PROGRESS=thread.
 */
#ifndef INTERLACE_SMI_H
#define INTERLACE_SMI_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values equal interlace::Datatype (checked in the library), so no table is needed. */
typedef enum SMI_Datatype {
  SMI_BYTE = 0,
  SMI_CHAR = 1,    /* int8 */
  SMI_SHORT = 2,   /* int16 */
  SMI_INT = 3,     /* int32 */
  SMI_LONG = 4,    /* int64 */
  SMI_UCHAR = 5,
  SMI_USHORT = 6,
  SMI_UINT = 7,
  SMI_ULONG = 8,
  SMI_FLOAT16 = 9, /* IEEE binary16, carried as 2 bytes */
  SMI_BFLOAT16 = 10,
  SMI_FLOAT = 11,
  SMI_DOUBLE = 12
} SMI_Datatype;
#define SMI_INT8 SMI_CHAR
#define SMI_INT16 SMI_SHORT
#define SMI_INT32 SMI_INT
#define SMI_INT64 SMI_LONG
#define SMI_UINT8 SMI_UCHAR
#define SMI_UINT16 SMI_USHORT
#define SMI_UINT32 SMI_UINT
#define SMI_UINT64 SMI_ULONG

enum SMI_Error_code {
  SMI_SUCCESS = 0,
  SMI_ERR_ARG,        /* null pointer, negative degree, ... */
  SMI_ERR_RANK,       /* peer outside the communicator */
  SMI_ERR_PORT,       /* negative port */
  SMI_ERR_COUNT,      /* negative count, push/pop past the count, counts differ */
  SMI_ERR_TYPE,       /* unknown type, or the two ends disagree on it */
  SMI_ERR_COMM,       /* not SMI_COMM_WORLD / not initialised / finalised */
  SMI_ERR_CHANNEL,    /* push on a receive channel, use of a closed or failed channel */
  SMI_ERR_LOST_PEER,  /* the peer process died or its link broke */
  SMI_ERR_TIMEOUT,    /* INTERLACE_TIMEOUT passed */
  SMI_ERR_OTHER
};

#define SMI_ERRORS_ARE_FATAL 0
#define SMI_ERRORS_RETURN 1

/* Default asynchronicity degree, in bytes of elements: large enough that a channel of
 * a few thousand elements is eager and a long one streams at full speed. */
#define SMI_DEFAULT_DEGREE_BYTES 65536

typedef struct SMI_Comm_s* SMI_Comm;
extern struct SMI_Comm_s interlace_smi_comm_world;
#define SMI_COMM_WORLD (&interlace_smi_comm_world)

enum { SMI_SEND = 1, SMI_RECEIVE = 2 };

/* Fields are the library's: the fast path reads and advances cur/push_left/pop_left,
 * everything else is written only by the library. */
typedef struct SMI_Channel {
  unsigned char* cur;   /* next element slot in the current packet */
  uint32_t push_left;   /* pushes the inline path may still do in this packet */
  uint32_t pop_left;    /* pops the inline path may still do in this packet */
  uint32_t size;        /* bytes per element */
  int32_t op;           /* SMI_SEND, SMI_RECEIVE, or 0 when the open failed */
  void* impl;           /* the library's channel; NULL once closed */
  int32_t peer, port, count;
  SMI_Datatype type;
} SMI_Channel;

SMI_Comm SMI_Init(int* argc, char*** argv);
int SMI_Finalize(void);
int SMI_Initialized(void);
int SMI_Comm_rank(SMI_Comm comm);
int SMI_Comm_size(SMI_Comm comm);
size_t SMI_Type_size(SMI_Datatype type); /* 0 for an unknown type */

SMI_Channel SMI_Open_send_channel(int count, SMI_Datatype type, int destination, int port,
                                  SMI_Comm comm);
SMI_Channel SMI_Open_recv_channel(int count, SMI_Datatype type, int source, int port,
                                  SMI_Comm comm);
SMI_Channel SMI_Open_receive_channel(int count, SMI_Datatype type, int source, int port,
                                     SMI_Comm comm);
SMI_Channel SMI_Open_send_channel_ad(int count, SMI_Datatype type, int destination, int port,
                                     SMI_Comm comm, int asynch_degree);
SMI_Channel SMI_Open_recv_channel_ad(int count, SMI_Datatype type, int source, int port,
                                     SMI_Comm comm, int asynch_degree);
SMI_Channel SMI_Open_receive_channel_ad(int count, SMI_Datatype type, int source, int port,
                                        SMI_Comm comm, int asynch_degree);

/* Elements still to push/pop (0 once closed); abandons nothing. */
int SMI_Channel_remaining(const SMI_Channel* chan);
/* Releases a channel before its count is reached (the peer may then wait forever). */
void SMI_Close_channel(SMI_Channel* chan);

int SMI_Set_errhandler(int mode); /* returns the previous mode */
int SMI_Error(void);               /* the calling thread's last error; clears it */
const char* SMI_Error_string(void);
const char* SMI_Type_name(SMI_Datatype type);

/* Streaming collectives (docs/smi.md, "Collectives"). Every rank of the communicator
 * opens the same kind of channel with the same count, type, port and root, then calls
 * the operation once per element: SMI_Bcast and SMI_Reduce count times on every rank;
 * SMI_Scatter and SMI_Gather recv_count times on non-roots and send_count * size
 * (scatter) or recv_count * size (gather) times at the root, whose calls walk the
 * ranks in rank order (its own part included: scatter copies data_snd to data_rcv
 * then, gather reads data_snd). Collective ports are separate from the ports of
 * send/receive channels. The channel is released by itself after its last call. */
typedef enum SMI_Op {  /* values equal interlace::ReduceOp */
  SMI_ADD = 0,
  SMI_PROD = 1,
  SMI_MIN = 2,
  SMI_MAX = 3,
  SMI_BAND = 4,
  SMI_BOR = 5,
  SMI_BXOR = 6,
  SMI_LAND = 7,
  SMI_LOR = 8
} SMI_Op;
#define SMI_SUM SMI_ADD

/* Default reduce tile (elements a contributor may run ahead of the root). */
#define SMI_DEFAULT_REDUCE_TILE 1024

typedef struct SMI_BChannel {
  void* impl;  /* the library's channel; NULL once done or when the open failed */
  int32_t port, root, count;
  SMI_Datatype type;
} SMI_BChannel;
typedef struct SMI_RChannel {
  void* impl;
  int32_t port, root, count;
  SMI_Datatype type;
  SMI_Op op;
} SMI_RChannel;
typedef struct SMI_ScatterChannel {
  void* impl;
  int32_t port, root, send_count, recv_count;
  SMI_Datatype type;
} SMI_ScatterChannel;
typedef struct SMI_GatherChannel {
  void* impl;
  int32_t port, root, send_count, recv_count;
  SMI_Datatype type;
} SMI_GatherChannel;

SMI_BChannel SMI_Open_bcast_channel(int count, SMI_Datatype type, int port, int root, SMI_Comm comm);
SMI_BChannel SMI_Open_bcast_channel_ad(int count, SMI_Datatype type, int port, int root, SMI_Comm comm,
                                       int asynch_degree);
void SMI_Bcast(SMI_BChannel* chan, void* data);
SMI_RChannel SMI_Open_reduce_channel(int count, SMI_Datatype type, SMI_Op op, int port, int root,
                                     SMI_Comm comm);
/* tile: credits per contributor, in elements (0 acts as 1). */
SMI_RChannel SMI_Open_reduce_channel_ad(int count, SMI_Datatype type, SMI_Op op, int port, int root,
                                        SMI_Comm comm, int tile);
void SMI_Reduce(SMI_RChannel* chan, void* data_snd, void* data_rcv);
SMI_ScatterChannel SMI_Open_scatter_channel(int send_count, int recv_count, SMI_Datatype type, int port,
                                            int root, SMI_Comm comm);
void SMI_Scatter(SMI_ScatterChannel* chan, void* data_snd, void* data_rcv);
SMI_GatherChannel SMI_Open_gather_channel(int send_count, int recv_count, SMI_Datatype type, int port,
                                          int root, SMI_Comm comm);
void SMI_Gather(SMI_GatherChannel* chan, void* data_snd, void* data_rcv);

/* Library entries behind the inline paths. */
void interlace_smi_push_slow(SMI_Channel* chan, const void* data, int flush);
void interlace_smi_pop_slow(SMI_Channel* chan, void* data);

/* Constant sizes for the common widths: one load and one store, no memcpy call.
 * GCC cannot see that `size` matches the caller's object and would warn about the
 * wider cases at every call site. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpragmas"
#pragma GCC diagnostic ignored "-Warray-bounds"
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#pragma GCC diagnostic ignored "-Wstringop-overread"
#endif
static inline void interlace_smi_copy(void* dst, const void* src, uint32_t size) {
  switch (size) {
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 2: memcpy(dst, src, 2); break;
    case 1: memcpy(dst, src, 1); break;
    default: memcpy(dst, src, size); break;
  }
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

/* Fields are read into locals and updated before the element is copied: the copy
 * writes through a char pointer, after which the compiler would have to reload them. */
static inline void SMI_Push(SMI_Channel* chan, const void* data) {
  const uint32_t left = chan->push_left, size = chan->size;
  unsigned char* const cur = chan->cur;
  if (left != 0) {
    chan->push_left = left - 1;
    chan->cur = cur + size;
    interlace_smi_copy(cur, data, size);
  } else {
    interlace_smi_push_slow(chan, data, 0);
  }
}

/* immediate != 0 also sends the partly filled packet now. */
static inline void SMI_Push_flush(SMI_Channel* chan, const void* data, int immediate) {
  if (immediate) interlace_smi_push_slow(chan, data, 1);
  else SMI_Push(chan, data);
}

static inline void SMI_Pop(SMI_Channel* chan, void* data) {
  const uint32_t left = chan->pop_left, size = chan->size;
  unsigned char* const cur = chan->cur;
  if (left != 0) {
    chan->pop_left = left - 1;
    chan->cur = cur + size;
    interlace_smi_copy(data, cur, size);
  } else {
    interlace_smi_pop_slow(chan, data);
  }
}

#ifdef __cplusplus
}
#endif
#endif /* INTERLACE_SMI_H */
