// Point-to-point synchronization: wait_until/test and their all/any/some and vector
// forms over the point-to-point synchronization types, signal_wait_until, the
// deprecated shmem_wait forms. Waiting goes through Pgas::wait, which progresses (serves
// active messages) and blocks the way every engine wait does.
#include <cstdint>

#include "compat/shmem/shmem_entry.hpp"


namespace {

template <class T>
bool holds(int cmp, const T* ivar, T value, T* seen = nullptr) {
  // An atomic load: a partly written value must never satisfy the condition.
  T cur = __atomic_load_n(ivar, __ATOMIC_ACQUIRE);
  if (seen) *seen = cur;
  switch (cmp) {
    case SHMEM_CMP_EQ: return cur == value;
    case SHMEM_CMP_NE: return cur != value;
    case SHMEM_CMP_GT: return cur > value;
    case SHMEM_CMP_GE: return cur >= value;
    case SHMEM_CMP_LT: return cur < value;
    default: return cur <= value;  // SHMEM_CMP_LE (check_cmp ran)
  }
}

// The vector forms compare element i with values[i], the others with one value.
template <class T>
struct Values {
  const T* vec;
  T one;
  T operator[](size_t i) const { return vec ? vec[i] : one; }
};

template <class T>
struct Set {
  T* ivars;
  size_t n;
  const int* status;  // nonzero: element left out
  int cmp;
  Values<T> values;

  bool active(size_t i) const { return !status || status[i] == 0; }
  bool any_active() const {
    for (size_t i = 0; i < n; ++i)
      if (active(i)) return true;
    return false;
  }
  bool all() const {
    for (size_t i = 0; i < n; ++i)
      if (active(i) && !holds(cmp, &ivars[i], values[i])) return false;
    return true;
  }
  size_t first() const {
    for (size_t i = 0; i < n; ++i)
      if (active(i) && holds(cmp, &ivars[i], values[i])) return i;
    return SIZE_MAX;
  }
  size_t some(size_t* indices) const {
    size_t k = 0;
    for (size_t i = 0; i < n; ++i)
      if (active(i) && holds(cmp, &ivars[i], values[i])) indices[k++] = i;
    return k;
  }
};

template <class T>
Set<T> checked_set(T* ivars, size_t n, const int* status, int cmp, const T* vec, T one,
                   bool vector) {
  check_nelems(n);
  check_cmp(cmp);
  if (n > 0) {
    check_ptr(ivars, "ivars");
    if (vector) check_ptr(vec, "cmp_values");
  }
  return Set<T>{ivars, n, status, cmp, Values<T>{vec, one}};
}

template <class T>
void wait_until(const char* r, T* ivar, int cmp, T value) {
  call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    check_ptr(ivar, "ivar");
    check_cmp(cmp);
    if (!holds(cmp, ivar, value)) p.wait([&] { return holds(cmp, ivar, value); });
  });
}

template <class T>
int test(const char* r, T* ivar, int cmp, T value) {
  return call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    check_ptr(ivar, "ivar");
    check_cmp(cmp);
    p.poll();
    return holds(cmp, ivar, value) ? 1 : 0;
  });
}

template <class T>
void wait_all(const char* r, T* iv, size_t n, const int* st, int cmp, const T* vec, T one,
              bool vector) {
  call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    Set<T> s = checked_set(iv, n, st, cmp, vec, one, vector);
    if (!s.all()) p.wait([&] { return s.all(); });
  });
}

template <class T>
size_t wait_any(const char* r, T* iv, size_t n, const int* st, int cmp, const T* vec, T one,
                bool vector) {
  return call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    Set<T> s = checked_set(iv, n, st, cmp, vec, one, vector);
    if (!s.any_active()) return SIZE_MAX;
    size_t i = s.first();
    if (i == SIZE_MAX) p.wait([&] { return (i = s.first()) != SIZE_MAX; });
    return i;
  });
}

template <class T>
size_t wait_some(const char* r, T* iv, size_t n, size_t* ix, const int* st, int cmp,
                 const T* vec, T one, bool vector) {
  return call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    Set<T> s = checked_set(iv, n, st, cmp, vec, one, vector);
    if (n > 0) check_ptr(ix, "indices");
    if (!s.any_active()) return size_t{0};
    size_t k = s.some(ix);
    if (k == 0) p.wait([&] { return (k = s.some(ix)) > 0; });
    return k;
  });
}

template <class T>
int test_all(const char* r, T* iv, size_t n, const int* st, int cmp, const T* vec, T one,
             bool vector) {
  return call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    Set<T> s = checked_set(iv, n, st, cmp, vec, one, vector);
    p.poll();
    return s.all() ? 1 : 0;
  });
}

template <class T>
size_t test_any(const char* r, T* iv, size_t n, const int* st, int cmp, const T* vec, T one,
                bool vector) {
  return call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    Set<T> s = checked_set(iv, n, st, cmp, vec, one, vector);
    p.poll();
    return s.first();
  });
}

template <class T>
size_t test_some(const char* r, T* iv, size_t n, size_t* ix, const int* st, int cmp,
                 const T* vec, T one, bool vector) {
  return call(r, [&] {
    pgas::Pgas& p = shmem::pgas(r);
    Set<T> s = checked_set(iv, n, st, cmp, vec, one, vector);
    if (n > 0) check_ptr(ix, "indices");
    p.poll();
    return s.some(ix);
  });
}

}  // namespace

#define SHMEMI_DEF_SYNC(T, N)                                                                 \
  void shmem_##N##_wait_until(T* v, int c, T x) { wait_until<T>("shmem_" #N "_wait_until", v, c, x); } \
  void shmem_##N##_wait_until_all(T* v, size_t n, const int* st, int c, T x) {               \
    wait_all<T>("shmem_" #N "_wait_until_all", v, n, st, c, nullptr, x, false);              \
  }                                                                                          \
  size_t shmem_##N##_wait_until_any(T* v, size_t n, const int* st, int c, T x) {             \
    return wait_any<T>("shmem_" #N "_wait_until_any", v, n, st, c, nullptr, x, false);       \
  }                                                                                          \
  size_t shmem_##N##_wait_until_some(T* v, size_t n, size_t* ix, const int* st, int c, T x) { \
    return wait_some<T>("shmem_" #N "_wait_until_some", v, n, ix, st, c, nullptr, x, false); \
  }                                                                                          \
  void shmem_##N##_wait_until_all_vector(T* v, size_t n, const int* st, int c, T* x) {       \
    wait_all<T>("shmem_" #N "_wait_until_all_vector", v, n, st, c, x, static_cast<T>(0), true);            \
  }                                                                                          \
  size_t shmem_##N##_wait_until_any_vector(T* v, size_t n, const int* st, int c, T* x) {     \
    return wait_any<T>("shmem_" #N "_wait_until_any_vector", v, n, st, c, x, static_cast<T>(0), true);     \
  }                                                                                          \
  size_t shmem_##N##_wait_until_some_vector(T* v, size_t n, size_t* ix, const int* st,       \
                                            int c, T* x) {                                   \
    return wait_some<T>("shmem_" #N "_wait_until_some_vector", v, n, ix, st, c, x, static_cast<T>(0), true); \
  }                                                                                          \
  int shmem_##N##_test(T* v, int c, T x) { return test<T>("shmem_" #N "_test", v, c, x); }   \
  int shmem_##N##_test_all(T* v, size_t n, const int* st, int c, T x) {                      \
    return test_all<T>("shmem_" #N "_test_all", v, n, st, c, nullptr, x, false);             \
  }                                                                                          \
  size_t shmem_##N##_test_any(T* v, size_t n, const int* st, int c, T x) {                   \
    return test_any<T>("shmem_" #N "_test_any", v, n, st, c, nullptr, x, false);             \
  }                                                                                          \
  size_t shmem_##N##_test_some(T* v, size_t n, size_t* ix, const int* st, int c, T x) {      \
    return test_some<T>("shmem_" #N "_test_some", v, n, ix, st, c, nullptr, x, false);       \
  }                                                                                          \
  int shmem_##N##_test_all_vector(T* v, size_t n, const int* st, int c, T* x) {              \
    return test_all<T>("shmem_" #N "_test_all_vector", v, n, st, c, x, static_cast<T>(0), true);           \
  }                                                                                          \
  size_t shmem_##N##_test_any_vector(T* v, size_t n, const int* st, int c, T* x) {           \
    return test_any<T>("shmem_" #N "_test_any_vector", v, n, st, c, x, static_cast<T>(0), true);           \
  }                                                                                          \
  size_t shmem_##N##_test_some_vector(T* v, size_t n, size_t* ix, const int* st, int c,      \
                                      T* x) {                                                \
    return test_some<T>("shmem_" #N "_test_some_vector", v, n, ix, st, c, x, static_cast<T>(0), true);     \
  }

#define SHMEMI_DEF_WAIT_DEP(T, N) \
  void shmem_##N##_wait(T* v, T x) { wait_until<T>("shmem_" #N "_wait", v, SHMEM_CMP_NE, x); }

extern "C" {
SHMEMI_SYNC_TYPES(SHMEMI_DEF_SYNC)
SHMEMI_DEP_WAIT_TYPES(SHMEMI_DEF_WAIT_DEP)

void shmem_wait(long* ivar, long x) { wait_until<long>("shmem_wait", ivar, SHMEM_CMP_NE, x); }

void shmem_wait_until(long* ivar, int cmp, long x) {
  wait_until<long>("shmem_wait_until", ivar, cmp, x);
}

uint64_t shmem_signal_wait_until(uint64_t* sig_addr, int cmp, uint64_t value) {
  return call("shmem_signal_wait_until", [&] {
    pgas::Pgas& p = shmem::pgas("shmem_signal_wait_until");
    check_ptr(sig_addr, "sig_addr");
    check_cmp(cmp);
    uint64_t seen = 0;
    if (!holds(cmp, sig_addr, value, &seen))
      p.wait([&] { return holds(cmp, sig_addr, value, &seen); });
    return seen;
  });
}
}
