/* A ZRLMPI node for interlace's interop tests, written from ZRLMPI's documented
 * protocol (docs/zrlmpi.md): it behaves like ZRLMPI's CPU library on the wire --
 * the 32-byte header, SEND_REQUEST -> CLEAR_TO_SEND -> DATA -> ACK with
 * MPI_SEND_INT/MPI_RECV_INT calls, DATA split into 1416-byte datagrams, a one-slot
 * per-source cache for headers that arrive early, 100 ms receive timeouts growing
 * by a second per retry and none after the third, and no sequence numbers.
 * Plain C and POSIX sockets; no interlace code.
 *
 * usage: zrl_peer udp <host-address> <cluster-size> <own-rank> <ip of every other
 *        rank, in rank order> <app> [app arguments]
 * apps (the partner is rank 0):
 *   echo N            receive N ints, add 1 to each, send them back
 *   echo-float N      receive N floats, double each, send them back
 *   pingpong N ITERS  receive N ints and send them back, ITERS times
 *   send-large N      send N ints (value 3*i+1) to rank 0
 *   recv-check N      receive N ints and check they are 7*i (also: wrong-type N)
 *   corrupt N         receive 1 int, send rank 0 three corrupt packets, then N ints (value i)
 * Environment (extensions for tests): ZRL_PEER_BASE_PORT replaces 2718;
 * ZRL_PEER_FLOAT_CALLS=1 makes echo-float send with MPI_SEND_FLOAT (as an FPGA node
 * may) instead of the CPU library's MPI_SEND_INT; it still receives int calls.
 * Exit status 0 and "zrl_peer: OK ..." on success. */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define HDR 32
#define MAX_DGRAM 1416
#define MAX_RANKS 128
#define TIMEOUT_MS 100
#define MAX_INC 3
#define TIMED_OUT (-3)

enum { SEND_INT = 0, RECV_INT = 1, SEND_FLOAT = 2, RECV_FLOAT = 3 };
enum { SEND_REQUEST = 1, CLEAR_TO_SEND = 2, DATA = 3, ACK = 4, ERROR_PKT = 5 };

typedef struct { uint32_t dst, src, size; uint8_t call, type; } hdr_t;

static int sock, nranks, me;
static struct sockaddr_in addr_of[MAX_RANKS];
static hdr_t cache[MAX_RANKS];
static int cached[MAX_RANKS];

static void die(const char* what) {
  fprintf(stderr, "zrl_peer %d: %s\n", me, what);
  exit(2);
}

static void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static uint32_t get32(const uint8_t* p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void encode(const hdr_t* h, uint8_t* b) {
  memset(b, 0, HDR);
  memset(b, 0x96, 4);
  memset(b + 28, 0x96, 4);
  put32(b + 4, h->dst);
  put32(b + 8, h->src);
  put32(b + 12, h->size);
  b[16] = h->call;
  b[17] = h->type;
}

/* ZRLMPI's validity test: markers and ten zero bytes; nothing else. */
static int decode(const uint8_t* b, long len, hdr_t* h) {
  if (len < HDR) return -1;
  for (int i = 0; i < 4; i++) if (b[i] != 0x96 || b[28 + i] != 0x96) return -1;
  for (int i = 18; i < 28; i++) if (b[i] != 0) return -2;
  h->dst = get32(b + 4);
  h->src = get32(b + 8);
  h->size = get32(b + 12);
  h->call = b[16];
  h->type = b[17];
  return 0;
}

static void send_raw(int dst, const void* p, size_t n) {
  if (sendto(sock, p, n, 0, (struct sockaddr*)&addr_of[dst], sizeof addr_of[dst]) < 0) die("sendto failed");
}

static void send_hdr(int dst, uint32_t size, uint8_t call, uint8_t type) {
  uint8_t b[HDR];
  hdr_t h = {(uint32_t)dst, (uint32_t)me, size, call, type};
  encode(&h, b);
  send_raw(dst, b, HDR);
}

static void set_timeout(int with_timeout, int inc) {
  struct timeval tv = {0, 0};  /* after MAX_INC retries: wait forever, as ZRLMPI */
  if (with_timeout && inc < MAX_INC) { tv.tv_sec = inc; tv.tv_usec = TIMEOUT_MS * 1000; }
  setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

/* Waits for a packet of `type`/`call` from `src`. payload_len > 0: DATA of up to that
 * many bytes into buf (header included), continuation datagrams appended. Headers
 * that do not match go to the source's cache slot, which later waits look at first
 * (not for DATA). Returns payload bytes (DATA), the header's size, or TIMED_OUT. */
static long recv_header(uint8_t type, uint8_t call, int src, long payload_len, uint8_t* buf,
                        int with_timeout, int inc) {
  const int is_data = type == DATA;
  const long expected = HDR + payload_len;
  const int multi = expected > MAX_DGRAM;
  long received = 0, count = 0;
  uint32_t size = 0;
  uint8_t small[HDR];
  set_timeout(with_timeout, inc);
  if (!is_data && cached[src]) {
    hdr_t h = cache[src];
    if (h.src == (uint32_t)src && h.dst == (uint32_t)me && h.type == type && h.call == call) {
      cached[src] = 0;
      return h.size;
    }
  }
  for (;;) {
    struct sockaddr_in from;
    socklen_t fl = sizeof from;
    uint8_t* at = payload_len > 0 ? buf + received : small;
    long res = recvfrom(sock, at, payload_len > 0 ? (size_t)(expected - received > MAX_DGRAM ? MAX_DGRAM : expected - received)
                                                  : HDR, 0, (struct sockaddr*)&from, &fl);
    if (res < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return TIMED_OUT;
      if (errno == EINTR) continue;
      die("recvfrom failed");
    }
    hdr_t h;
    int bad = decode(at, res, &h);
    if (bad && count == 0) continue;  /* invalid header: dropped */
    if (bad && multi) {               /* a continuation of DATA */
      received += res;
      count++;
      if (received >= expected) break;
      continue;
    }
    int to_cache = multi && count > 0;  /* another header in between */
    if (!to_cache && from.sin_addr.s_addr != addr_of[src].sin_addr.s_addr) to_cache = 1;
    if (!to_cache && (h.src != (uint32_t)src || h.dst != (uint32_t)me || h.type != type || h.call != call))
      to_cache = 1;
    if (to_cache) {
      if (h.src < MAX_RANKS) { cache[h.src] = h; cached[h.src] = 1; }
      continue;
    }
    size = h.size;
    received += res;
    count++;
    if (!multi || received >= expected) break;
  }
  if (is_data) return received - HDR;
  return size;
}

static void zrl_send(const void* data, int count, int dst, int float_call) {
  const uint8_t call = float_call ? SEND_FLOAT : SEND_INT, answer = call + 1;
  const size_t bytes = (size_t)count * 4;
  uint8_t* dg = malloc(MAX_DGRAM);
  int inc = 0;
  for (;;) {
    send_hdr(dst, 0, call, SEND_REQUEST);
    if (recv_header(CLEAR_TO_SEND, answer, dst, 0, NULL, 1, inc) == TIMED_OUT) { inc++; continue; }
    break;
  }
  for (;;) {
    hdr_t h = {(uint32_t)dst, (uint32_t)me, (uint32_t)count, call, DATA};
    encode(&h, dg);
    size_t first = bytes < MAX_DGRAM - HDR ? bytes : MAX_DGRAM - HDR;
    memcpy(dg + HDR, data, first);
    send_raw(dst, dg, HDR + first);
    for (size_t off = first; off < bytes; off += MAX_DGRAM)
      send_raw(dst, (const uint8_t*)data + off, bytes - off < MAX_DGRAM ? bytes - off : MAX_DGRAM);
    if (recv_header(ACK, answer, dst, 0, NULL, 1, inc) == TIMED_OUT) { inc++; continue; }
    break;
  }
  free(dg);
}

static void zrl_recv(void* data, int count, int src, int float_call) {
  const uint8_t call = float_call ? RECV_FLOAT : RECV_INT, expect = call - 1;
  uint8_t* buf = malloc((size_t)count * 4 + HDR + 32);
  int inc = 0;
  long got;
  recv_header(SEND_REQUEST, expect, src, 0, NULL, 0, 0);  /* no timeout */
  for (;;) {
    send_hdr(src, 0, call, CLEAR_TO_SEND);
    got = recv_header(DATA, expect, src, (long)count * 4, buf, 1, inc);
    if (got == TIMED_OUT) { inc++; continue; }
    break;
  }
  memcpy(data, buf + HDR, got > (long)count * 4 ? (size_t)count * 4 : (size_t)got);
  free(buf);
  send_hdr(src, 0, call, ACK);
}

static void corrupt_packets(int dst) {
  uint8_t b[HDR];
  hdr_t h = {(uint32_t)dst, (uint32_t)me, 0, SEND_INT, SEND_REQUEST};
  encode(&h, b);
  b[21] = 0x5a;  /* reserved byte not zero */
  send_raw(dst, b, HDR);
  h.dst = (uint32_t)dst + 40;  /* wrong destination rank */
  encode(&h, b);
  send_raw(dst, b, HDR);
  h.dst = (uint32_t)dst;
  h.type = 9;  /* unknown packet type */
  encode(&h, b);
  send_raw(dst, b, HDR);
}

int main(int argc, char** argv) {
  if (argc < 6 || strcmp(argv[1], "udp") != 0) {
    fprintf(stderr, "usage: %s udp <host-address> <cluster-size> <own-rank> <ip-rank...> <app> [args]\n", argv[0]);
    return 2;
  }
  nranks = atoi(argv[3]);
  me = atoi(argv[4]);
  if (nranks < 2 || nranks > MAX_RANKS || me < 0 || me >= nranks) die("bad cluster size or rank");
  if (argc < 5 + nranks - 1 + 1) die("missing addresses or app");
  const char* base_env = getenv("ZRL_PEER_BASE_PORT");
  const int base = base_env ? atoi(base_env) : 2718;
  const int float_calls = getenv("ZRL_PEER_FLOAT_CALLS") && atoi(getenv("ZRL_PEER_FLOAT_CALLS"));
  /* Port: base + the number of earlier ranks on the same address (ZRLMPI's rule). */
  const char* ip[MAX_RANKS];
  for (int r = 0, a = 5; r < nranks; r++) ip[r] = r == me ? argv[2] : argv[a++];
  int my_port = base;
  for (int r = 0; r < nranks; r++) {
    int port = base;
    for (int q = 0; q < r; q++) if (strcmp(ip[q], ip[r]) == 0) port++;
    if (r == me) { my_port = port; continue; }
    memset(&addr_of[r], 0, sizeof addr_of[r]);
    addr_of[r].sin_family = AF_INET;
    addr_of[r].sin_port = htons((uint16_t)port);
    if (inet_pton(AF_INET, ip[r], &addr_of[r].sin_addr) != 1) die("bad address");
  }
  sock = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in self = {0};
  self.sin_family = AF_INET;
  self.sin_port = htons((uint16_t)my_port);
  if (inet_pton(AF_INET, argv[2], &self.sin_addr) != 1) die("bad host address");
  if (bind(sock, (struct sockaddr*)&self, sizeof self) < 0) die("bind failed (port in use?)");
  int rcvbuf = 1 << 24;
  setsockopt(sock, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);

  char** app = argv + 4 + nranks;
  const int n = argc > 5 + nranks ? atoi(app[1]) : 0;
  if (n < 0 || n > (1 << 24)) die("bad element count");
  int32_t* v = calloc((size_t)n + 1, 4);
  float* f = (float*)v;
  if (strcmp(app[0], "echo") == 0) {
    zrl_recv(v, n, 0, 0);
    for (int i = 0; i < n; i++) v[i] += 1;
    zrl_send(v, n, 0, 0);
  } else if (strcmp(app[0], "echo-float") == 0) {
    zrl_recv(f, n, 0, 0);  /* interlace, like ZRLMPI's CPU library, sends int calls */
    for (int i = 0; i < n; i++) f[i] *= 2.0f;
    zrl_send(f, n, 0, float_calls);
  } else if (strcmp(app[0], "pingpong") == 0) {
    const int iters = argc > 6 + nranks ? atoi(app[2]) : 1;
    for (int it = 0; it < iters; it++) {
      zrl_recv(v, n, 0, 0);
      zrl_send(v, n, 0, 0);
    }
  } else if (strcmp(app[0], "send-large") == 0) {
    for (int i = 0; i < n; i++) v[i] = 3 * i + 1;
    zrl_send(v, n, 0, 0);
  } else if (strcmp(app[0], "recv-check") == 0 || strcmp(app[0], "wrong-type") == 0) {
    zrl_recv(v, n, 0, 0);
    for (int i = 0; i < n; i++)
      if (v[i] != 7 * i) {
        printf("zrl_peer %d: FAIL element %d = %d (want %d)\n", me, i, v[i], 7 * i);
        return 1;
      }
  } else if (strcmp(app[0], "corrupt") == 0) {
    int32_t go;
    zrl_recv(&go, 1, 0, 0);  /* rank 0 is up: the corrupt packets reach its socket */
    corrupt_packets(0);
    for (int i = 0; i < n; i++) v[i] = i;
    zrl_send(v, n, 0, 0);
  } else {
    die("unknown app (echo, echo-float, pingpong, send-large, recv-check, corrupt)");
  }
  printf("zrl_peer %d: OK %s %d\n", me, app[0], n);
  fflush(stdout);
  close(sock);
  free(v);
  return 0;
}
