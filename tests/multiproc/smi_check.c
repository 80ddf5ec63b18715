/* The SMI C API in real processes, run by tests/python/test_stream.py:
 *   interlace run -n N smi_check           every pair exchanges on every type, ring,
 *                                          flush, consecutive channels, self channel
 *   interlace run -n 2 smi_check errors    SMI_ERRORS_RETURN: codes and messages
 *   interlace run -n 2 smi_check fatal     the default handler ends the job, naming values
 * Prints "smi_check OK on N ranks" from rank 0 when everything passed. */
#include <smi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond, ...)                                       \
  do {                                                         \
    if (!(cond)) {                                             \
      fprintf(stderr, "smi_check rank %d: ", rank);            \
      fprintf(stderr, __VA_ARGS__);                            \
      fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__);       \
      ++failures;                                              \
    }                                                          \
  } while (0)

static int rank, size;

/* Every ordered pair (a, b) streams n elements of each type from a to b. */
static void pairs(int n) {
  static const SMI_Datatype types[] = {SMI_CHAR, SMI_SHORT, SMI_INT, SMI_LONG, SMI_UCHAR, SMI_USHORT,
                                       SMI_UINT, SMI_ULONG, SMI_FLOAT16, SMI_BFLOAT16, SMI_FLOAT,
                                       SMI_DOUBLE, SMI_BYTE};
  for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
    const SMI_Datatype type = types[t];
    const size_t es = SMI_Type_size(type);
    const int port = 10 + (int)t;
    /* Push everything before popping anything: needs eager channels (degree >= n). */
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      SMI_Channel out = SMI_Open_send_channel_ad(n, type, peer, port, SMI_COMM_WORLD, n);
      for (int i = 0; i < n; ++i) {
        unsigned char v[8] = {0};
        long long x = (long long)rank * 1000003 + i;
        memcpy(v, &x, es);
        SMI_Push(&out, v);
      }
    }
    for (int peer = 0; peer < size; ++peer) {
      if (peer == rank) continue;
      SMI_Channel in = SMI_Open_recv_channel(n, type, peer, port, SMI_COMM_WORLD);
      int bad = 0;
      for (int i = 0; i < n; ++i) {
        unsigned char v[8] = {0}, want[8] = {0};
        long long x = (long long)peer * 1000003 + i;
        memcpy(want, &x, es);
        SMI_Pop(&in, v);
        bad += memcmp(v, want, es) != 0;
      }
      CHECK(bad == 0, "%d of %d %s elements from rank %d wrong", bad, n, SMI_Type_name(type), peer);
    }
  }
}

/* A ring where every element waits for the previous one to come around: long
 * channels used element by element with small degrees (credit flow control). */
static void ring(void) {
  const int n = 2000, next = (rank + 1) % size, prev = (rank + size - 1) % size;
  SMI_Channel out = SMI_Open_send_channel_ad(n, SMI_INT, next, 3, SMI_COMM_WORLD, 4);
  SMI_Channel in = SMI_Open_recv_channel_ad(n, SMI_INT, prev, 3, SMI_COMM_WORLD, 4);
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    int v = i;
    if (rank == 0) {
      SMI_Push(&out, &v);
      SMI_Pop(&in, &v);
      bad += v != i + size - 1;
    } else {
      SMI_Pop(&in, &v);
      v += 1;
      SMI_Push(&out, &v);
    }
  }
  CHECK(bad == 0, "ring: %d wrong", bad);
}

static void consecutive_and_self(void) {
  for (int round = 0; round < 100; ++round) {
    SMI_Channel s = SMI_Open_send_channel(2, SMI_DOUBLE, rank, 4, SMI_COMM_WORLD);
    double a = round, b = -round;
    SMI_Push_flush(&s, &a, 1);
    SMI_Push(&s, &b);
    SMI_Channel r = SMI_Open_recv_channel(2, SMI_DOUBLE, rank, 4, SMI_COMM_WORLD);
    SMI_Pop(&r, &a);
    SMI_Pop(&r, &b);
    CHECK(a == round && b == -round, "self channel round %d: %g %g", round, a, b);
  }
}

static void errors(void) {
  SMI_Set_errhandler(SMI_ERRORS_RETURN);
  SMI_Channel c = SMI_Open_send_channel(1, SMI_INT, size + 5, 0, SMI_COMM_WORLD);
  CHECK(SMI_Error() == SMI_ERR_RANK && c.op == 0, "bad rank not reported");
  CHECK(strstr(SMI_Error_string(), "out of range") != NULL, "message: %s", SMI_Error_string());
  c = SMI_Open_recv_channel(1, (SMI_Datatype)77, 0, 0, SMI_COMM_WORLD);
  CHECK(SMI_Error() == SMI_ERR_TYPE && strstr(SMI_Error_string(), "77"), "bad type: %s", SMI_Error_string());
  int x = 0;
  SMI_Pop(&c, &x);
  CHECK(SMI_Error() == SMI_ERR_CHANNEL, "pop on a failed channel");
  if (rank < 2) {
    /* Counts disagree: the receiver's pop names both sides. */
    const int peer = 1 - rank;
    if (rank == 0) {
      SMI_Channel s = SMI_Open_send_channel(3, SMI_INT, peer, 9, SMI_COMM_WORLD);
      for (int i = 0; i < 3; ++i) SMI_Push(&s, &i);
    } else {
      SMI_Channel r = SMI_Open_recv_channel(4, SMI_INT, peer, 9, SMI_COMM_WORLD);
      SMI_Pop(&r, &x);
      CHECK(SMI_Error() == SMI_ERR_COUNT, "count mismatch not reported");
      CHECK(strstr(SMI_Error_string(), "3") && strstr(SMI_Error_string(), "4"), "message: %s",
            SMI_Error_string());
    }
  }
  SMI_Set_errhandler(SMI_ERRORS_ARE_FATAL);
}

int main(int argc, char** argv) {
  SMI_Comm comm = SMI_Init(&argc, &argv);
  rank = SMI_Comm_rank(comm);
  size = SMI_Comm_size(comm);
  const char* mode = argc > 1 ? argv[1] : "battery";
  if (strcmp(mode, "fatal") == 0) {
    /* Default handler: prints the error naming 42 and the size, exits with 1. */
    SMI_Channel c = SMI_Open_send_channel(1, SMI_INT, 42, 0, comm);
    (void)c;
    printf("smi_check: fatal error did not end the process\n");
    return 0;
  }
  if (strcmp(mode, "errors") == 0) {
    errors();
  } else {
    consecutive_and_self();
    if (size > 1) {
      pairs(1);
      pairs(1000);
      pairs(50000);
      ring();
    }
  }
  /* Every rank reports to rank 0, which prints the verdict. */
  if (rank != 0) {
    SMI_Channel c = SMI_Open_send_channel(1, SMI_INT, 0, 99, comm);
    SMI_Push(&c, &failures);
  } else {
    for (int r = 1; r < size; ++r) {
      int f = 0;
      SMI_Channel c = SMI_Open_recv_channel(1, SMI_INT, r, 99, comm);
      SMI_Pop(&c, &f);
      failures += f;
    }
    if (failures == 0) printf("smi_check OK on %d ranks (%s)\n", size, mode);
    else printf("smi_check FAILED on %d ranks: %d failures\n", size, failures);
  }
  SMI_Finalize();
  return failures != 0;
}
