// Contract: active messages with GASNet-EX semantics (docs/pgas.md#active-messages).
//  - A handler table per PE: indices 128-255 are the user's (register before use, the
//    same index on every PE); 1-127 are interlace's own (put, get, atomics).
//  - Requests: short (up to kMaxArgs 32-bit arguments), medium (a payload of up to
//    max_medium() bytes, at least 512, in a buffer valid while the handler runs) and
//    long (a payload of up to max_long() bytes deposited at a symmetric address of the
//    target before the handler runs). The source buffer may be reused on return.
//  - A request handler may send at most one reply, to the requester; a reply
//    handler may not communicate. Handlers run from the target's progress, may not
//    block: a blocking call (wait, quiet, barrier, a request) from a handler raises
//    Error(invalid_argument) instead of hanging.
//  - Requests of one PE to another run in the order they were sent.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>

#include "interlace/pgas/pgas.hpp"

namespace interlace::pgas {

inline constexpr unsigned kMaxArgs = 16;
inline constexpr unsigned kFirstUserHandler = 128;
inline constexpr unsigned kLastHandler = 255;
inline constexpr size_t kMinMaxMedium = 512;

using AmArg = uint32_t;

struct Token {
  int src = -1;           // the PE that sent the message being handled
  bool is_request = true;
  bool replied = false;
  void* internal = nullptr;  // interlace's: the model state and the message's cookie
  uint64_t cookie = 0;
};

// buf/nbytes: the medium payload (valid during the call) or the long payload's place
// in the segment; nullptr/0 for short messages.
using AmHandler = void (*)(Token& token, void* buf, size_t nbytes, const AmArg* args,
                           unsigned nargs, void* user);

// index 0 picks the lowest free user index; returns the index used. Raises
// invalid_argument for an index outside 128-255 or one already taken.
unsigned register_handler(Pgas& p, unsigned index, AmHandler fn, void* user = nullptr,
                          const char* name = nullptr);

void request_short(Pgas& p, int pe, unsigned handler, std::span<const AmArg> args);
void request_medium(Pgas& p, int pe, unsigned handler, const void* buf, size_t nbytes,
                    std::span<const AmArg> args);
// dest: a symmetric address (this PE's view); the payload lands at the same offset on pe.
void request_long(Pgas& p, int pe, unsigned handler, const void* buf, size_t nbytes,
                  void* dest, std::span<const AmArg> args);

void reply_short(Token& t, unsigned handler, std::span<const AmArg> args);
void reply_medium(Token& t, unsigned handler, const void* buf, size_t nbytes,
                  std::span<const AmArg> args);
// dest: a symmetric address (the replier's view); lands at that offset on the requester.
void reply_long(Token& t, unsigned handler, const void* buf, size_t nbytes, void* dest,
                std::span<const AmArg> args);

}  // namespace interlace::pgas
