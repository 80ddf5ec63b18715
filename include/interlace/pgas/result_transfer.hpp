// Contract: automatic result transfer (ART, FSHMEM section III-B; docs/pgas-art.md).
// A producer kernel (a thread of the rank, like the stream model's in-rank kernels)
// emits results; the runtime puts every `batch` of them into a symmetric array on the
// destination PE with put_signal, while the kernel keeps computing. The consumer waits
// on the signal word (wait_results).
//  - Element i of the stream lands at dest[i % capacity] on `pe`. Without a credit
//    word the stream may not pass `capacity` elements (invalid_count naming both);
//    with one (ArtOptions::credit) the destination is a ring: the consumer posts how
//    many elements it has consumed (release_results) and the transfer of element i
//    waits until i - consumed < capacity.
//  - The signal: SignalOp::set writes the running count of elements delivered (one
//    producer per signal); SignalOp::add adds each piece's count (several producers
//    into disjoint destinations may share one signal). Either way a consumer that
//    sees signal >= k sees the first k elements (put_signal orders data first).
//  - Pieces: every full batch is one put_signal; flush() and close() send a partial
//    batch. A batch that crosses the end of the destination ring or of the local
//    staging buffer goes as two put_signals.
//  - Threads (the core's calls are not thread-safe under inline progress): the thread
//    that creates the ResultTransfer owns it and its Pgas. emit/flush/close are for
//    one producer thread (the owner may be that thread too). With ArtIssue::owner (the
//    default) the producer only copies into a local staging ring and the owner issues
//    the put_signals whenever it is inside poll(), finish() or wait_results(), so no
//    two threads ever call into the Pgas at once; a producer that finds the ring full
//    sleeps until the owner drains it. ArtIssue::producer has the producer thread
//    issue each put_signal itself; it needs the context lock, i.e.
//    INTERLACE_PROGRESS=thread (invalid_argument otherwise).
//  - finish() (owner) returns once the producer closed the stream and every element
//    is delivered and complete (quiet). Destroy the transfer only after finish() and
//    after the producer thread has returned from close() (join it): destroying one
//    that a producer still uses is the program's error.
//  - Errors are interlace::Error naming the bad value: batch 0, an element size of 0,
//    capacity smaller than batch, a destination, signal or credit word that is not
//    symmetric, a PE out of range. A failed put_signal (lost PE) is raised on the
//    owner and on the producer's next emit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <type_traits>

#include "interlace/pgas/pgas.hpp"

namespace interlace::pgas {

enum class ArtIssue : uint8_t { owner, producer };

struct ArtOptions {
  SignalOp op = SignalOp::set;
  // A symmetric uint64_t on the producing PE (zero at the start) where the consumer
  // posts the number of elements it has consumed; makes the destination a ring.
  uint64_t* credit = nullptr;
  // Local staging buffer in elements; 0: four batches. At least one batch.
  size_t stage = 0;
  ArtIssue issue = ArtIssue::owner;
};

class ResultTransfer {
 public:
  ResultTransfer(Pgas& p, void* dest, size_t elem_size, size_t capacity, int pe, size_t batch,
                 uint64_t* signal, const ArtOptions& opts = {});
  ~ResultTransfer();
  ResultTransfer(ResultTransfer&&) noexcept;
  ResultTransfer& operator=(ResultTransfer&&) noexcept;

  // Producer thread.
  void emit(const void* values, size_t n);
  void flush();  // hand the partial batch over now
  void close();  // flush; no more emits

  // Owner thread.
  bool poll();    // issues what is ready; true if anything moved
  void finish();  // waits for close(), delivers the rest, completes it (quiet)

  size_t elem_size() const noexcept;
  size_t batch() const noexcept;
  size_t capacity() const noexcept;
  int pe() const noexcept;
  uint64_t emitted() const noexcept;      // producer thread: elements emitted so far
  uint64_t transferred() const noexcept;  // any thread: elements put so far

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

template <class T>
class ResultStream {
  static_assert(std::is_trivially_copyable_v<T>, "ResultStream<T> needs a trivially copyable T");

 public:
  ResultStream(Pgas& p, T* dest, size_t capacity, int pe, size_t batch, uint64_t* signal,
               const ArtOptions& opts = {})
      : t_(p, dest, sizeof(T), capacity, pe, batch, signal, opts) {}
  void emit(const T& v) { t_.emit(&v, 1); }
  void emit(std::span<const T> v) { t_.emit(v.data(), v.size()); }
  void flush() { t_.flush(); }
  void close() { t_.close(); }
  bool poll() { return t_.poll(); }
  void finish() { t_.finish(); }
  ResultTransfer& transfer() noexcept { return t_; }

 private:
  ResultTransfer t_;
};

// Consumer: waits until the signal word (symmetric, on this PE) reaches `count`,
// issuing meanwhile the owner-side transfers of this Pgas (a PE may produce and
// consume). Returns the signal's value: >= count, or less when timeout_s (>= 0)
// passed first.
uint64_t wait_results(Pgas& p, const uint64_t* signal, uint64_t count, double timeout_s = -1);
// Consumer of a ring: tells the producer on `producer_pe` that the first `consumed`
// elements may be overwritten (an atomic set of its credit word).
void release_results(Pgas& p, uint64_t* credit, uint64_t consumed, int producer_pe);

// The Pgas of this process for the C API (pgas.h): set by whoever attaches it
// (Pgas::attach, the shmem layer); nullptr clears it. The setting thread sees its own
// value first (ranks run as threads of one process); other threads the last one set.
Pgas* current() noexcept;
void set_current(Pgas* p) noexcept;

}  // namespace interlace::pgas
