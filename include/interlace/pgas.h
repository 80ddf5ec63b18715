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
