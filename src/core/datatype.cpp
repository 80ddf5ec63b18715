// Datatype metadata and the IEEE half / bfloat16 conversions.
#include "interlace/core/datatype.hpp"

#include "interlace/core/half.hpp"

namespace interlace {
namespace {

struct TypeInfo {
  std::string_view name;
  size_t size;
};

// Indexed by the enum value, which is fixed by the wire format.
constexpr TypeInfo kTypes[kDatatypeCount] = {
    {"bytes", 1},   {"int8", 1},    {"int16", 2},    {"int32", 4},    {"int64", 8},
    {"uint8", 1},   {"uint16", 2},  {"uint32", 4},   {"uint64", 8},   {"float16", 2},
    {"bfloat16", 2}, {"float32", 4}, {"float64", 8},
};

// Spellings users bring from C, numpy and ML frameworks.
struct Alias {
  std::string_view name;
  Datatype type;
};
constexpr Alias kAliases[] = {
    {"byte", Datatype::bytes},
    {"half", Datatype::float16},   {"bf16", Datatype::bfloat16},
    {"float", Datatype::float32},  {"double", Datatype::float64},
};

}  // namespace

bool datatype_valid(uint8_t raw) noexcept { return raw < kDatatypeCount; }

size_t datatype_size(Datatype t) noexcept {
  auto i = static_cast<uint8_t>(t);
  return datatype_valid(i) ? kTypes[i].size : 0;
}

std::string_view datatype_name(Datatype t) noexcept {
  auto i = static_cast<uint8_t>(t);
  return datatype_valid(i) ? kTypes[i].name : std::string_view("invalid");
}

std::optional<Datatype> datatype_from_name(std::string_view name) noexcept {
  for (int i = 0; i < kDatatypeCount; ++i)
    if (kTypes[i].name == name) return static_cast<Datatype>(i);
  for (const Alias& a : kAliases)
    if (a.name == name) return a.type;
  return std::nullopt;
}

bool datatype_is_float(Datatype t) noexcept {
  return t == Datatype::float16 || t == Datatype::bfloat16 || t == Datatype::float32 ||
         t == Datatype::float64;
}

float half_to_float(uint16_t h) noexcept { return detail::half_to_float_inline(h); }
uint16_t float_to_half(float f) noexcept { return detail::float_to_half_inline(f); }
float bfloat16_to_float(uint16_t b) noexcept { return detail::bfloat16_to_float_inline(b); }
uint16_t float_to_bfloat16(float f) noexcept { return detail::float_to_bfloat16_inline(f); }

}  // namespace interlace
