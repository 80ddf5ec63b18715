/* pes: 1 2 3 4 8 */
/* Untyped RMA: putmem/getmem from 1 byte to 1 MiB with the ring neighbour, every PE
 * writing its own slot on every PE (static global and heap), put/get/iput/iget
 * 8/16/32/64/128 and the nbi forms completed by quiet. */
#include "check.h"

#define MIB (1 << 20)
#define SLOT 4096
#define MAXPES 64

static unsigned char g_slots[MAXPES * SLOT];
static uint64_t g_bits[64]; /* 512 bytes, aligned for every element size */

static unsigned char pat(int pe, int salt, size_t i) {
  return (unsigned char)(pe * 131 + salt * 17 + i * 7 + (i >> 8));
}
static void fill(unsigned char *p, size_t len, int pe, int salt) {
  for (size_t i = 0; i < len; ++i) p[i] = pat(pe, salt, i);
}
/* the first mismatch, one line */
static void expect(const unsigned char *p, size_t len, int pe, int salt, const char *what,
                   size_t size) {
  for (size_t i = 0; i < len; ++i)
    if (p[i] != pat(pe, salt, i)) {
      CHECK(0, "%s (size %zu): byte %zu is %d, want %d (from PE %d)", what, size, i, p[i],
            pat(pe, salt, i), pe);
      return;
    }
}

int main(void) {
  check_begin();
  shmem_init();
  int me = shmem_my_pe(), n = shmem_n_pes();
  int right = (me + 1) % n, left = (me + n - 1) % n;
  CHECK(n <= MAXPES, "more than %d PEs", MAXPES);
  unsigned char *dst = shmem_malloc(MIB);
  unsigned char *src = malloc(MIB), *tmp = malloc(MIB);

  static const size_t sizes[] = {1, 2, 7, 64, 1000, 4096, 65537, 300000, MIB};
  for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); ++k) {
    size_t len = sizes[k];
    fill(src, len, me, k);
    if (k % 2) shmem_putmem_nbi(dst, src, len, right), shmem_quiet();
    else shmem_putmem(dst, src, len, right);
    shmem_barrier_all();
    expect(dst, len, left, k, k % 2 ? "putmem_nbi" : "putmem", len);
    if (k % 2) shmem_getmem_nbi(tmp, dst, len, right), shmem_quiet();
    else shmem_getmem(tmp, dst, len, right);
    expect(tmp, len, me, k, k % 2 ? "getmem_nbi" : "getmem", len);
    shmem_barrier_all();
  }

  /* every PE writes its slot on every PE: static global, then the heap */
  fill(src, SLOT, me, 50);
  for (int p = 0; p < n; ++p) shmem_putmem(g_slots + (size_t)me * SLOT, src, SLOT, p);
  for (int p = 0; p < n; ++p) shmem_putmem_nbi(dst + (size_t)me * SLOT, src, SLOT - 3, p);
  shmem_quiet();
  shmem_barrier_all();
  for (int p = 0; p < n; ++p) {
    expect(g_slots + (size_t)p * SLOT, SLOT, p, 50, "all-PE putmem, static slot", SLOT);
    expect(dst + (size_t)p * SLOT, SLOT - 3, p, 50, "all-PE putmem_nbi, heap slot", SLOT - 3);
    shmem_getmem(tmp, g_slots + (size_t)p * SLOT, SLOT, p);
    expect(tmp, SLOT, p, 50, "all-PE getmem of the owner's slot", SLOT);
  }
  shmem_barrier_all();

  /* sized elements: 5 elements each, then strided (target stride 2, source stride 3) */
  uint64_t srcw[64], got[64];
  static const int bits[] = {8, 16, 32, 64, 128};
  for (int b = 0; b < 5; ++b) {
    size_t esz = (size_t)bits[b] / 8;
    fill((unsigned char *)srcw, sizeof srcw, me, 60 + b);
    memset(g_bits, 0, sizeof g_bits);
    shmem_barrier_all();
    switch (bits[b]) {
      case 8: shmem_put8(g_bits, srcw, 5, right); break;
      case 16: shmem_put16(g_bits, srcw, 5, right); break;
      case 32: shmem_put32(g_bits, srcw, 5, right); break;
      case 64: shmem_put64(g_bits, srcw, 5, right); break;
      case 128: shmem_put128(g_bits, srcw, 5, right); break;
    }
    shmem_barrier_all();
    expect((unsigned char *)g_bits, 5 * esz, left, 60 + b, "putN", esz);
    CHECK(((unsigned char *)g_bits)[5 * esz] == 0, "put%d wrote past 5 elements", bits[b]);
    memset(got, 0, sizeof got);
    switch (bits[b]) {
      case 8: shmem_get8(got, g_bits, 5, right); break;
      case 16: shmem_get16(got, g_bits, 5, right); break;
      case 32: shmem_get32(got, g_bits, 5, right); break;
      case 64: shmem_get64(got, g_bits, 5, right); break;
      case 128: shmem_get128(got, g_bits, 5, right); break;
    }
    expect((unsigned char *)got, 5 * esz, me, 60 + b, "getN", esz);
    shmem_barrier_all();
    memset(g_bits, 0, sizeof g_bits);
    shmem_barrier_all();
    switch (bits[b]) {
      case 8: shmem_iput8(g_bits, srcw, 2, 3, 4, right); break;
      case 16: shmem_iput16(g_bits, srcw, 2, 3, 4, right); break;
      case 32: shmem_iput32(g_bits, srcw, 2, 3, 4, right); break;
      case 64: shmem_iput64(g_bits, srcw, 2, 3, 4, right); break;
      case 128: shmem_iput128(g_bits, srcw, 2, 3, 4, right); break;
    }
    shmem_barrier_all();
    unsigned char want[64 * 8], lsrc[64 * 8];
    fill(lsrc, sizeof lsrc, left, 60 + b);
    memset(want, 0, sizeof want);
    for (int e = 0; e < 4; ++e) memcpy(want + 2 * e * esz, lsrc + 3 * e * esz, esz);
    CHECK(memcmp(g_bits, want, 8 * esz) == 0, "iput%d: strided elements differ", bits[b]);
    memset(got, 0, sizeof got);
    switch (bits[b]) {  /* got[3e] = right's g_bits[2e], which came from me */
      case 8: shmem_iget8(got, g_bits, 3, 2, 4, right); break;
      case 16: shmem_iget16(got, g_bits, 3, 2, 4, right); break;
      case 32: shmem_iget32(got, g_bits, 3, 2, 4, right); break;
      case 64: shmem_iget64(got, g_bits, 3, 2, 4, right); break;
      case 128: shmem_iget128(got, g_bits, 3, 2, 4, right); break;
    }
    fill(lsrc, sizeof lsrc, me, 60 + b);
    for (int e = 0; e < 4; ++e)
      CHECK(memcmp((unsigned char *)got + 3 * e * esz, lsrc + 3 * e * esz, esz) == 0,
            "iget%d: element %d differs", bits[b], e);
    /* nbi */
    shmem_barrier_all();
    switch (bits[b]) {
      case 8: shmem_put8_nbi(g_bits, srcw, 7, right); break;
      case 16: shmem_put16_nbi(g_bits, srcw, 7, right); break;
      case 32: shmem_put32_nbi(g_bits, srcw, 7, right); break;
      case 64: shmem_put64_nbi(g_bits, srcw, 7, right); break;
      case 128: shmem_put128_nbi(g_bits, srcw, 7, right); break;
    }
    shmem_quiet();
    shmem_barrier_all();
    expect((unsigned char *)g_bits, 7 * esz, left, 60 + b, "putN_nbi", esz);
    switch (bits[b]) {
      case 8: shmem_get8_nbi(got, g_bits, 7, right); break;
      case 16: shmem_get16_nbi(got, g_bits, 7, right); break;
      case 32: shmem_get32_nbi(got, g_bits, 7, right); break;
      case 64: shmem_get64_nbi(got, g_bits, 7, right); break;
      case 128: shmem_get128_nbi(got, g_bits, 7, right); break;
    }
    shmem_quiet();
    expect((unsigned char *)got, 7 * esz, me, 60 + b, "getN_nbi", esz);
    shmem_barrier_all();
  }
  free(src);
  free(tmp);
  shmem_free(dst);
  return check_finish("rma_sized");
}
