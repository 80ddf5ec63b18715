// MPI_Dims_create: a balanced Cartesian grid for a number of processes.
#include <algorithm>
#include <vector>

#include "mpi_impl.hpp"

using namespace interlace;
using namespace interlace::mpi;

namespace {

// Greedy: the prime factors of n, largest first, each to the smallest value so far.
std::vector<int> greedy_factors(int n, int k) {
  std::vector<int> primes;
  for (int p = 2; static_cast<long long>(p) * p <= n; ++p)
    while (n % p == 0) {
      primes.push_back(p);
      n /= p;
    }
  if (n > 1) primes.push_back(n);
  std::vector<int> v(k, 1);
  for (size_t i = primes.size(); i-- > 0;) *std::min_element(v.begin(), v.end()) *= primes[i];
  std::sort(v.rbegin(), v.rend());
  return v;
}

struct FactorSearch {
  std::vector<int> divisors;  // of the number being split, descending
  std::vector<int> cur, best;
  long steps = 0;
  static constexpr long kMaxSteps = 2000000;

  // Splits rem into k more factors, each at most maxf, in non-increasing order.
  void run(int rem, int k, int maxf) {
    if (++steps > kMaxSteps) return;
    if (k == 1) {
      if (rem > maxf) return;
      cur.push_back(rem);
      if (cur.front() - cur.back() < best.front() - best.back()) best = cur;
      cur.pop_back();
      return;
    }
    for (int f : divisors) {
      if (f > maxf || rem % f != 0) continue;
      // f is the largest of the k factors left, so f^k >= rem; smaller f only fail.
      long double p = 1;
      for (int i = 0; i < k; ++i) p *= f;
      if (p < rem) break;
      // The spread is at least first - f, and grows as f shrinks.
      const int first = cur.empty() ? f : cur.front();
      if (first - f >= best.front() - best.back()) {
        if (!cur.empty()) break;
        continue;
      }
      cur.push_back(f);
      run(rem / f, k - 1, f);
      cur.pop_back();
    }
  }
};

std::vector<int> balanced_factors(int n, int k) {
  FactorSearch s;
  s.best = greedy_factors(n, k);
  for (long long d = 1; d * d <= n; ++d)
    if (n % d == 0) {
      s.divisors.push_back(static_cast<int>(d));
      if (d * d != n) s.divisors.push_back(static_cast<int>(n / d));
    }
  std::sort(s.divisors.rbegin(), s.divisors.rend());
  s.run(n, k, n);
  return s.best;
}

}  // namespace

extern "C" {

// Fills the zero entries of dims so that the product is nnodes and the filled values
// are as close to each other as possible (the smallest difference between the largest
// and the smallest), in non-increasing order. An exhaustive search over non-increasing
// factorisations, started from a greedy answer (largest prime factors first, each to
// the smallest dimension) and bounded in steps so that huge inputs stay fast; the
// greedy answer alone gives 12 x 6 for 72 where 9 x 8 exists.
int MPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const char* call = "MPI_Dims_create";
  return guard(call, MPI_COMM_NULL, [&] {
    require_initialized(call);
    if (nnodes <= 0) raise(MPI_ERR_ARG, std::string(call) + ": nnodes " + std::to_string(nnodes) + " is not positive");
    if (ndims < 0) raise(MPI_ERR_DIMS, std::string(call) + ": ndims " + std::to_string(ndims) + " is negative");
    if (ndims > 0) need(dims, call, "dims");
    long long fixed = 1;
    std::vector<int> free_at;
    for (int i = 0; i < ndims; ++i) {
      if (dims[i] < 0)
        raise(MPI_ERR_DIMS, std::string(call) + ": dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) +
                                " is negative");
      if (dims[i] == 0) free_at.push_back(i);
      else fixed *= dims[i];
      if (fixed > nnodes) break;
    }
    if (fixed > nnodes || nnodes % fixed != 0 || (free_at.empty() && fixed != nnodes))
      raise(MPI_ERR_DIMS, std::string(call) + ": nnodes " + std::to_string(nnodes) +
                              " is not a multiple of the product of the dimensions given" +
                              (free_at.empty() ? " (no dimension is free)" : ""));
    if (free_at.empty()) return;
    const std::vector<int> vals = balanced_factors(static_cast<int>(nnodes / fixed), static_cast<int>(free_at.size()));
    for (size_t i = 0; i < free_at.size(); ++i) dims[free_at[i]] = vals[i];
  });
}

}  // extern "C"
