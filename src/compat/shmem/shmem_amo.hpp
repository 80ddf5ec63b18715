// Internal: the atomic memory operation behind every shmem_*atomic* entry point.
#pragma once
#include <type_traits>

#include "compat/shmem/shmem_state.hpp"

namespace interlace::shmem {

template <class T>
constexpr pgas::AmoType amo_type() {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "AMO types are 32 or 64 bits wide");
  if constexpr (std::is_floating_point_v<T>)
    return sizeof(T) == 4 ? pgas::AmoType::f32 : pgas::AmoType::f64;
  else if constexpr (std::is_signed_v<T>)
    return sizeof(T) == 4 ? pgas::AmoType::i32 : pgas::AmoType::i64;
  else
    return sizeof(T) == 4 ? pgas::AmoType::u32 : pgas::AmoType::u64;
}

// One atomic on `target` at `pe`. `fetch_out`: where the old value goes (null for the
// non-fetching operations); with nbi the core writes it by the next quiet and copies
// `operand`/`compare` before returning (they live on this call's stack).
void amo_any(const char* routine, shmem_ctx_t ctx, pgas::AmoOp op, pgas::AmoType type,
             void* target, const void* operand, const void* compare, void* fetch_out, int pe,
             bool nbi);

template <class T>
T amo_fetching(const char* routine, shmem_ctx_t ctx, pgas::AmoOp op, const T* target,
               T operand, T compare, int pe) {
  T old{};
  amo_any(routine, ctx, op, amo_type<T>(), const_cast<T*>(target), &operand, &compare, &old, pe,
          false);
  return old;
}

template <class T>
void amo_fetching_nbi(const char* routine, shmem_ctx_t ctx, pgas::AmoOp op, T* fetch,
                      const T* target, T operand, T compare, int pe) {
  call(routine, [&] { check_ptr(fetch, "fetch"); });
  amo_any(routine, ctx, op, amo_type<T>(), const_cast<T*>(target), &operand, &compare, fetch, pe,
          true);
}

template <class T>
void amo_plain(const char* routine, shmem_ctx_t ctx, pgas::AmoOp op, T* target, T operand,
               int pe) {
  // Non-fetching: complete at the next quiet, as the specification allows (the core
  // copies the operand before returning).
  amo_any(routine, ctx, op, amo_type<T>(), target, &operand, nullptr, nullptr, pe, true);
}

}  // namespace interlace::shmem
