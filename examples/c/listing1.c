/* The SMI paper's Listing 1 as one SPMD program: rank 0 streams N integers to rank 1
 * through a channel on port 0; rank 1 pops and checks them.
 *
 *   interlace-cc listing1.c -o listing1 && interlace run -n 2 ./listing1 [N]
 */
#include <smi.h>
#include <stdio.h>
#include <stdlib.h>

static void rank0(const int n) {
  SMI_Channel chs = SMI_Open_send_channel(n, SMI_INT, 1, 0, SMI_COMM_WORLD);
  for (int i = 0; i < n; i++) {
    int data = 3 * i + 1; /* create or load interesting data */
    SMI_Push(&chs, &data);
  }
}

static int rank1(const int n) {
  SMI_Channel chr = SMI_Open_recv_channel(n, SMI_INT, 0, 0, SMI_COMM_WORLD);
  long long wrong = 0;
  for (int i = 0; i < n; i++) {
    int data;
    SMI_Pop(&chr, &data);
    wrong += data != 3 * i + 1; /* do something useful with data */
  }
  printf("listing1: rank 1 received %d integers, %lld wrong: %s\n", n, wrong, wrong ? "FAILED" : "OK");
  return wrong != 0;
}

int main(int argc, char** argv) {
  SMI_Comm comm = SMI_Init(&argc, &argv);
  const int n = argc > 1 ? atoi(argv[1]) : 1000000;
  int rc = 0;
  if (SMI_Comm_size(comm) < 2) {
    fprintf(stderr, "listing1 needs 2 ranks: interlace run -n 2 ./listing1\n");
    rc = 2;
  } else if (SMI_Comm_rank(comm) == 0) {
    rank0(n);
  } else if (SMI_Comm_rank(comm) == 1) {
    rc = rank1(n);
  }
  SMI_Finalize();
  return rc;
}
