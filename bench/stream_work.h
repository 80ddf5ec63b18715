/* The per-element computation of the pipeline benchmark, shared by the interlace and
 * MPI programs so both sides do exactly the same work. A dependent chain of
 * multiply-adds: its time per element is fixed by latency, not by the compiler. */
#ifndef INTERLACE_STREAM_WORK_H
#define INTERLACE_STREAM_WORK_H

static inline float stream_work(float x, int rounds) {
  for (int k = 0; k < rounds; ++k) {
    x = x * 0.9990234375f + 0.5f;
    __asm__ volatile("" : "+x"(x)); /* no vectorising or folding across elements */
  }
  return x;
}

#define PIPE_N_DEFAULT 100000
#define PIPE_WORK_DEFAULT 200
#endif
