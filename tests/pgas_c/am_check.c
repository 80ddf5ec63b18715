/* Active messages through the C API (interlace/pgas.h) on every PE pair: short
 * requests with 16 arguments answered by a short reply, medium requests echoed by a
 * medium reply, long requests deposited before their handler runs, and the rules:
 * one reply per request, no communication from reply handlers, no blocking calls
 * from handlers, unregistered indices refused. Prints "OK am_check" on PE 0. */
#include <interlace/pgas.h>
#include <shmem.h>
#include <stdio.h>
#include <string.h>

#define H_PING 128
#define H_PONG 129
#define H_ECHO 130
#define H_ECHOED 131
#define H_LONG 132

static int failures;
#define CHECK(cond, ...)                                        \
  do {                                                          \
    if (!(cond)) {                                              \
      fprintf(stderr, "FAIL am_check.c:%d pe %d: ", __LINE__, shmem_my_pe()); \
      fprintf(stderr, __VA_ARGS__);                             \
      fprintf(stderr, "\n");                                    \
      failures++;                                               \
    }                                                           \
  } while (0)

static volatile long pongs, pong_sum, echoes, longs;
static int second_reply_rc, poll_in_handler_rc, reply_from_reply_rc;
static char echo_buf[1024];
static long landing[64];

static void ping(il_am_token_t t, void* buf, size_t n, const il_am_arg_t* a, unsigned na, void* u) {
  il_am_arg_t r[1] = {0};
  for (unsigned i = 0; i < na; i++) r[0] += a[i];
  il_am_reply_short(t, H_PONG, r, 1);
  second_reply_rc = il_am_reply_short(t, H_PONG, r, 1);
  poll_in_handler_rc = il_am_poll();
}

static void pong(il_am_token_t t, void* buf, size_t n, const il_am_arg_t* a, unsigned na, void* u) {
  reply_from_reply_rc = il_am_reply_short(t, H_PONG, NULL, 0);
  pong_sum += a[0];
  pongs++;
}

static void echo(il_am_token_t t, void* buf, size_t n, const il_am_arg_t* a, unsigned na, void* u) {
  il_am_reply_medium(t, H_ECHOED, buf, n, a, na);
}

static void echoed(il_am_token_t t, void* buf, size_t n, const il_am_arg_t* a, unsigned na, void* u) {
  memcpy(echo_buf, buf, n < sizeof echo_buf ? n : sizeof echo_buf);
  echoes++;
}

static void on_long(il_am_token_t t, void* buf, size_t n, const il_am_arg_t* a, unsigned na, void* u) {
  /* The payload is in place before the handler runs. */
  if (buf == (void*)landing && n == sizeof landing && landing[63] == (long)a[0]) longs++;
}

int main(void) {
  shmem_init();
  const int me = shmem_my_pe(), npes = shmem_n_pes();
  unsigned got = 0;
  CHECK(il_am_register(H_PING, ping, NULL, "ping", &got) == 0 && got == H_PING, "%s", il_am_last_error());
  CHECK(il_am_register(H_PONG, pong, NULL, "pong", NULL) == 0, "%s", il_am_last_error());
  CHECK(il_am_register(H_ECHO, echo, NULL, "echo", NULL) == 0, "%s", il_am_last_error());
  CHECK(il_am_register(H_ECHOED, echoed, NULL, "echoed", NULL) == 0, "%s", il_am_last_error());
  CHECK(il_am_register(H_LONG, on_long, NULL, "long", NULL) == 0, "%s", il_am_last_error());
  CHECK(il_am_register(7, ping, NULL, "bad", NULL) == IL_AM_ERR_ARG && strstr(il_am_last_error(), "index 7"),
        "index 7 accepted: %s", il_am_last_error());
  CHECK(il_am_max_medium() >= IL_AM_MIN_MAX_MEDIUM, "max medium %zu", il_am_max_medium());
  shmem_barrier_all();

  il_am_arg_t args[IL_AM_MAX_ARGS];
  long want = 0;
  for (int pe = 0; pe < npes; pe++) {
    for (unsigned i = 0; i < IL_AM_MAX_ARGS; i++) args[i] = (il_am_arg_t)(pe + i);
    for (unsigned i = 0; i < IL_AM_MAX_ARGS; i++) want += pe + i;
    CHECK(il_am_request_short(pe, H_PING, args, IL_AM_MAX_ARGS) == 0, "%s", il_am_last_error());
  }
  while (pongs < npes) CHECK(il_am_poll() == 0, "%s", il_am_last_error());
  CHECK(pong_sum == want, "pong sum %ld, want %ld", pong_sum, want);
  CHECK(second_reply_rc == IL_AM_ERR_ARG, "a second reply returned %d", second_reply_rc);
  CHECK(poll_in_handler_rc == IL_AM_ERR_ARG, "poll in a handler returned %d", poll_in_handler_rc);
  CHECK(reply_from_reply_rc == IL_AM_ERR_ARG, "a reply from a reply handler returned %d", reply_from_reply_rc);

  char msg[512];
  const int right = (me + 1) % npes;
  for (int i = 0; i < (int)sizeof msg; i++) msg[i] = (char)(i * 3 + me);
  CHECK(il_am_request_medium(right, H_ECHO, msg, sizeof msg, NULL, 0) == 0, "%s", il_am_last_error());
  while (echoes < 1) il_am_poll();
  CHECK(memcmp(echo_buf, msg, sizeof msg) == 0, "echo differs");

  long src[64];
  for (int i = 0; i < 64; i++) src[i] = 1000 * me + i;
  il_am_arg_t last = (il_am_arg_t)(1000 * me + 63);
  CHECK(il_am_request_long(right, H_LONG, src, sizeof src, landing, &last, 1) == 0, "%s", il_am_last_error());
  while (longs < 1) il_am_poll();
  const int left = (me + npes - 1) % npes;
  CHECK(landing[5] == 1000 * left + 5, "landing[5] %ld", landing[5]);

  CHECK(il_am_request_short(right, 250, NULL, 0) == IL_AM_ERR_ARG && strstr(il_am_last_error(), "250"),
        "unregistered 250: %s", il_am_last_error());
  CHECK(il_am_request_short(npes + 3, H_PING, NULL, 0) != 0, "PE %d accepted", npes + 3);

  shmem_barrier_all();
  shmem_finalize();
  if (me == 0 && failures == 0) printf("OK am_check\n");
  return failures != 0;
}
