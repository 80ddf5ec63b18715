/* The C API of interlace's PGAS model (docs/pgas.md). C programs get the model's
 * process state from the OpenSHMEM layer: call shmem_init() first. */
#ifndef INTERLACE_PGAS_H
#define INTERLACE_PGAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------
 * Active messages (GASNet-EX semantics; docs/pgas.md#active-messages).
 * Handler indices 128-255 are the program's (register the same index on every PE
 * before any PE sends to it; index 0 picks the lowest free one). Short messages
 * carry up to IL_AM_MAX_ARGS 32-bit arguments; medium ones also a payload of up to
 * il_am_max_medium() bytes (at least 512) in a buffer valid while the handler runs;
 * long ones a payload of up to il_am_max_long() bytes deposited at the same offset
 * of the symmetric address `dest` on the target before the handler runs. A request
 * handler may reply once, to the requester; reply handlers may not communicate; no
 * handler may block (a blocking call from one fails with IL_AM_ERR_ARG).
 * Every call returns 0 or an error code (interlace::Errc: 2 invalid argument, 3
 * invalid rank, 5 invalid count, 10 lost peer, ...); il_am_last_error() names the
 * bad value.
 * ------------------------------------------------------------------------------ */
#define IL_AM_MAX_ARGS 16
#define IL_AM_FIRST_USER_HANDLER 128
#define IL_AM_LAST_HANDLER 255
#define IL_AM_MIN_MAX_MEDIUM 512
#define IL_AM_OK 0
#define IL_AM_ERR_ARG 2

typedef uint32_t il_am_arg_t;
typedef struct il_am_token* il_am_token_t;
typedef void (*il_am_handler_t)(il_am_token_t token, void* buf, size_t nbytes,
                                const il_am_arg_t* args, unsigned nargs, void* user);

int il_am_register(unsigned index, il_am_handler_t fn, void* user, const char* name,
                   unsigned* index_out);
int il_am_request_short(int pe, unsigned handler, const il_am_arg_t* args, unsigned nargs);
int il_am_request_medium(int pe, unsigned handler, const void* buf, size_t nbytes,
                         const il_am_arg_t* args, unsigned nargs);
int il_am_request_long(int pe, unsigned handler, const void* buf, size_t nbytes, void* dest,
                       const il_am_arg_t* args, unsigned nargs);
int il_am_reply_short(il_am_token_t token, unsigned handler, const il_am_arg_t* args,
                      unsigned nargs);
int il_am_reply_medium(il_am_token_t token, unsigned handler, const void* buf, size_t nbytes,
                       const il_am_arg_t* args, unsigned nargs);
int il_am_reply_long(il_am_token_t token, unsigned handler, const void* buf, size_t nbytes,
                     void* dest, const il_am_arg_t* args, unsigned nargs);
int il_am_token_src(il_am_token_t token); /* the sending PE */
int il_am_token_is_request(il_am_token_t token);
size_t il_am_max_medium(void);
size_t il_am_max_long(void);
int il_am_poll(void); /* serves arrived messages; fails inside a handler */
const char* il_am_last_error(void);

/* ------------------------------------------------------------------------------
 * Automatic result transfer (ART, FSHMEM section III-B; docs/pgas-art.md).
 * A producer thread of the PE emits results; every `batch` of them is put into the
 * symmetric array `dest` (`capacity` elements of `elem_size` bytes) on PE `pe`,
 * followed by an update of the symmetric 64-bit `signal` there. The thread that
 * creates a transfer owns it: it issues the puts while inside il_art_poll,
 * il_art_finish or il_art_wait_results, so only one thread ever calls into the
 * PGAS runtime (the producer only copies into a local staging buffer).
 *
 * Every call returns IL_ART_OK (0) or an error code (an interlace::Errc value: 2
 * invalid argument, 3 invalid rank, 5 invalid count, 10 lost peer, 11 timeout, ...);
 * il_art_last_error() is the calling thread's last message, naming the bad value.
 * ------------------------------------------------------------------------------ */
#define IL_ART_OK 0
#define IL_ART_SIGNAL_SET 0 /* signal = running count of elements delivered */
#define IL_ART_SIGNAL_ADD 1 /* signal += elements of each piece (shared signals) */

typedef struct il_art* il_art_t;

typedef struct il_art_options {
  int signal_op;    /* IL_ART_SIGNAL_SET (default) or IL_ART_SIGNAL_ADD */
  uint64_t* credit; /* symmetric word on this PE; non-NULL makes dest a ring */
  size_t stage;     /* staging buffer in elements; 0: four batches */
} il_art_options;

/* Creates a transfer on this PE's runtime (shmem_init must have run). */
int il_art_create(void* dest, size_t elem_size, size_t capacity, int pe, size_t batch,
                  uint64_t* signal, il_art_t* out);
/* The same with options (NULL: the defaults). */
int il_art_create_opts(void* dest, size_t elem_size, size_t capacity, int pe, size_t batch,
                       uint64_t* signal, const il_art_options* opts, il_art_t* out);
/* Producer thread. */
int il_art_emit(il_art_t art, const void* values, size_t n);
int il_art_flush(il_art_t art);
int il_art_close(il_art_t art);
/* Owner thread. */
int il_art_poll(il_art_t art);
int il_art_finish(il_art_t art);
int il_art_destroy(il_art_t art); /* after il_art_finish; NULL is a no-op */
uint64_t il_art_transferred(il_art_t art);
/* Consumer: waits until *signal >= count; *value (may be NULL) receives the signal.
 * timeout_s < 0 waits without limit; on timeout returns 11 with the value so far. */
int il_art_wait_results(const uint64_t* signal, uint64_t count, double timeout_s, uint64_t* value);
/* Consumer of a ring: the first `consumed` elements may be overwritten. */
int il_art_release(uint64_t* credit, uint64_t consumed, int producer_pe);
const char* il_art_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* INTERLACE_PGAS_H */
