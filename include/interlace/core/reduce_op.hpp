// Contract: element-wise reductions inout[i] = inout[i] OP in[i] for every
// datatype. float16/bfloat16 are computed in float32 and rounded back.
// Bitwise ops on floats are invalid_op errors; `bytes` supports only band/bor/bxor (as uint8).
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"

namespace interlace {

enum class ReduceOp : uint8_t { sum = 0, prod, min, max, band, bor, bxor, land, lor };
inline constexpr int kReduceOpCount = 9;

std::string_view reduce_op_name(ReduceOp op) noexcept;
std::optional<ReduceOp> reduce_op_from_name(std::string_view name) noexcept;
bool reduce_op_supports(ReduceOp op, Datatype t) noexcept;

// Returns invalid_op (with no change to inout) when the pair is unsupported.
Errc reduce(ReduceOp op, Datatype t, void* inout, const void* in, size_t count) noexcept;

// Throwing form with a message naming op and datatype.
void reduce_or_throw(ReduceOp op, Datatype t, void* inout, const void* in, size_t count);

}  // namespace interlace
