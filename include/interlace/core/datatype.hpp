// Contract: the element types interlace moves and reduces. Values are part of the
// wire format (FrameHeader::dtype) and of the Python API; never renumber them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace interlace {

enum class Datatype : uint8_t {
  bytes = 0,
  int8 = 1, int16 = 2, int32 = 3, int64 = 4,
  uint8 = 5, uint16 = 6, uint32 = 7, uint64 = 8,
  float16 = 9, bfloat16 = 10, float32 = 11, float64 = 12,
};
inline constexpr int kDatatypeCount = 13;

size_t datatype_size(Datatype t) noexcept;          // bytes per element (bytes -> 1)
std::string_view datatype_name(Datatype t) noexcept; // "int32", "bfloat16", ... "invalid"
std::optional<Datatype> datatype_from_name(std::string_view name) noexcept;
bool datatype_valid(uint8_t raw) noexcept;
bool datatype_is_float(Datatype t) noexcept;

// Compile-time mapping from C++ types.
template <class T> struct datatype_of;
template <> struct datatype_of<int8_t> { static constexpr Datatype value = Datatype::int8; };
template <> struct datatype_of<int16_t> { static constexpr Datatype value = Datatype::int16; };
template <> struct datatype_of<int32_t> { static constexpr Datatype value = Datatype::int32; };
template <> struct datatype_of<int64_t> { static constexpr Datatype value = Datatype::int64; };
template <> struct datatype_of<uint8_t> { static constexpr Datatype value = Datatype::uint8; };
template <> struct datatype_of<uint16_t> { static constexpr Datatype value = Datatype::uint16; };
template <> struct datatype_of<uint32_t> { static constexpr Datatype value = Datatype::uint32; };
template <> struct datatype_of<uint64_t> { static constexpr Datatype value = Datatype::uint64; };
template <> struct datatype_of<float> { static constexpr Datatype value = Datatype::float32; };
template <> struct datatype_of<double> { static constexpr Datatype value = Datatype::float64; };
template <> struct datatype_of<std::byte> { static constexpr Datatype value = Datatype::bytes; };
template <> struct datatype_of<char> { static constexpr Datatype value = Datatype::bytes; };

// IEEE half and bfloat16 conversions (round to nearest even), used by reductions.
float half_to_float(uint16_t h) noexcept;
uint16_t float_to_half(float f) noexcept;
float bfloat16_to_float(uint16_t b) noexcept;
uint16_t float_to_bfloat16(float f) noexcept;

}  // namespace interlace
