// The predefined datatypes and packing of any datatype into contiguous bytes (what
// point-to-point and collectives move).
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <type_traits>

#include "compat/mpi/mpi_core.hpp"
#include "compat/mpi/mpi_type_builder.hpp"

namespace interlace::mpi {
namespace {

// A one-block predefined type of C size `size`.
TypeObj basic_type(const char* name, size_t size, std::optional<Datatype> core,
                   size_t align) {
  TypeObj t;
  t.align = align;
  t.name = name;
  t.size = size;
  t.extent = t.true_extent = static_cast<MPI_Aint>(size);
  t.blocks = {Block{0, size}};
  t.predefined = t.committed = true;
  t.combiner = MPI_COMBINER_NAMED;
  t.basic_count = 1;
  t.core = core;
  return t;
}

// A value-index pair type laid out as the C struct {V value; I index;}: data bytes
// are the two members; the extent includes the struct's trailing padding.
template <class V, class I>
TypeObj pair_type(const char* name) {
  struct Pair { V v; I i; };
  TypeObj t;
  t.align = alignof(Pair);
  t.name = name;
  t.size = sizeof(V) + sizeof(I);
  t.extent = t.true_extent = static_cast<MPI_Aint>(sizeof(Pair));
  const size_t index_at = offsetof(Pair, i);
  if (index_at == sizeof(V)) {  // adjacent members merge into one block
    t.blocks = {Block{0, t.size}};
  } else {
    t.blocks = {Block{0, sizeof(V)}, Block{static_cast<std::ptrdiff_t>(index_at), sizeof(I)}};
  }
  t.true_extent = static_cast<MPI_Aint>(index_at + sizeof(I));
  t.predefined = t.committed = true;
  t.combiner = MPI_COMBINER_NAMED;
  t.basic_count = 1;
  return t;
}

template <class T>
constexpr std::optional<Datatype> int_core() {
  if constexpr (std::is_signed_v<T>) {
    if constexpr (sizeof(T) == 1) return Datatype::int8;
    if constexpr (sizeof(T) == 2) return Datatype::int16;
    if constexpr (sizeof(T) == 4) return Datatype::int32;
    if constexpr (sizeof(T) == 8) return Datatype::int64;
  } else {
    if constexpr (sizeof(T) == 1) return Datatype::uint8;
    if constexpr (sizeof(T) == 2) return Datatype::uint16;
    if constexpr (sizeof(T) == 4) return Datatype::uint32;
    if constexpr (sizeof(T) == 8) return Datatype::uint64;
  }
  return std::nullopt;
}

template <class T>
TypeObj int_type(const char* name) {
  return basic_type(name, sizeof(T), int_core<T>(), alignof(T));
}

}  // namespace

void register_predefined_types(State& s) {
  auto put = [&](MPI_Datatype h, TypeObj t) {
    if (t.basic_count == 1) t.basic = h;  // a predefined type is its own basic element
    if (t.runs.empty()) t.runs = {{h, 1}};
    s.types.put(h, std::move(t));
  };
  put(MPI_CHAR, int_type<signed char>("MPI_CHAR"));
  put(MPI_SIGNED_CHAR, int_type<signed char>("MPI_SIGNED_CHAR"));
  put(MPI_UNSIGNED_CHAR, int_type<unsigned char>("MPI_UNSIGNED_CHAR"));
  put(MPI_BYTE, basic_type("MPI_BYTE", 1, Datatype::uint8, 1));
  put(MPI_WCHAR, int_type<wchar_t>("MPI_WCHAR"));
  put(MPI_SHORT, int_type<short>("MPI_SHORT"));
  put(MPI_UNSIGNED_SHORT, int_type<unsigned short>("MPI_UNSIGNED_SHORT"));
  put(MPI_INT, int_type<int>("MPI_INT"));
  put(MPI_UNSIGNED, int_type<unsigned>("MPI_UNSIGNED"));
  put(MPI_LONG, int_type<long>("MPI_LONG"));
  put(MPI_UNSIGNED_LONG, int_type<unsigned long>("MPI_UNSIGNED_LONG"));
  put(MPI_LONG_LONG_INT, int_type<long long>("MPI_LONG_LONG_INT"));
  put(MPI_UNSIGNED_LONG_LONG, int_type<unsigned long long>("MPI_UNSIGNED_LONG_LONG"));
  put(MPI_FLOAT, basic_type("MPI_FLOAT", sizeof(float), Datatype::float32, alignof(float)));
  put(MPI_DOUBLE, basic_type("MPI_DOUBLE", sizeof(double), Datatype::float64, alignof(double)));
  put(MPI_LONG_DOUBLE, basic_type("MPI_LONG_DOUBLE", sizeof(long double), std::nullopt,
                                     alignof(long double)));
  put(MPI_C_BOOL, basic_type("MPI_C_BOOL", sizeof(bool), Datatype::uint8, alignof(bool)));
  put(MPI_INT8_T, int_type<int8_t>("MPI_INT8_T"));
  put(MPI_INT16_T, int_type<int16_t>("MPI_INT16_T"));
  put(MPI_INT32_T, int_type<int32_t>("MPI_INT32_T"));
  put(MPI_INT64_T, int_type<int64_t>("MPI_INT64_T"));
  put(MPI_UINT8_T, int_type<uint8_t>("MPI_UINT8_T"));
  put(MPI_UINT16_T, int_type<uint16_t>("MPI_UINT16_T"));
  put(MPI_UINT32_T, int_type<uint32_t>("MPI_UINT32_T"));
  put(MPI_UINT64_T, int_type<uint64_t>("MPI_UINT64_T"));
  put(MPI_AINT, int_type<MPI_Aint>("MPI_AINT"));
  put(MPI_OFFSET, int_type<MPI_Offset>("MPI_OFFSET"));
  put(MPI_COUNT, int_type<MPI_Count>("MPI_COUNT"));
  put(MPI_PACKED, basic_type("MPI_PACKED", 1, Datatype::uint8, 1));
  put(MPI_C_FLOAT_COMPLEX, basic_type("MPI_C_FLOAT_COMPLEX", 2 * sizeof(float), std::nullopt,
                                         alignof(float)));
  put(MPI_C_DOUBLE_COMPLEX, basic_type("MPI_C_DOUBLE_COMPLEX", 2 * sizeof(double), std::nullopt,
                                          alignof(double)));
  put(MPI_C_LONG_DOUBLE_COMPLEX,
      basic_type("MPI_C_LONG_DOUBLE_COMPLEX", 2 * sizeof(long double), std::nullopt,
                 alignof(long double)));
  put(MPI_FLOAT_INT, pair_type<float, int>("MPI_FLOAT_INT"));
  put(MPI_DOUBLE_INT, pair_type<double, int>("MPI_DOUBLE_INT"));
  put(MPI_LONG_INT, pair_type<long, int>("MPI_LONG_INT"));
  put(MPI_2INT, pair_type<int, int>("MPI_2INT"));
  put(MPI_SHORT_INT, pair_type<short, int>("MPI_SHORT_INT"));
  put(MPI_LONG_DOUBLE_INT, pair_type<long double, int>("MPI_LONG_DOUBLE_INT"));
  // A pair holds two basic elements, the value and the index (MPI_Get_elements).
  const MPI_Datatype values[][2] = {{MPI_FLOAT_INT, MPI_FLOAT}, {MPI_DOUBLE_INT, MPI_DOUBLE},
                                    {MPI_LONG_INT, MPI_LONG}, {MPI_SHORT_INT, MPI_SHORT},
                                    {MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE}};
  for (const auto& [pair, value] : values) s.types.get(pair)->runs = {{value, 1}, {MPI_INT, 1}};
  s.types.get(MPI_2INT)->runs = {{MPI_INT, 2}};
  register_fortran_types(s);
  register_type_attr_check();
}

size_t data_bytes(const TypeObj& t, int count) {
  return count <= 0 ? 0 : t.size * static_cast<size_t>(count);
}

void pack(const void* buf, int count, const TypeObj& t, void* out) {
  auto* dst = static_cast<std::byte*>(out);
  const auto base = reinterpret_cast<uintptr_t>(buf);  // MPI_BOTTOM + absolute offsets
  for (int i = 0; i < count; ++i) {
    const uintptr_t elem = base + static_cast<uintptr_t>(static_cast<MPI_Aint>(i) * t.extent);
    for (const Block& b : t.blocks) {
      std::memcpy(dst, reinterpret_cast<const void*>(elem + b.offset), b.len);
      dst += b.len;
    }
  }
}

void unpack(const void* in, int count, const TypeObj& t, void* buf) {
  const auto* src = static_cast<const std::byte*>(in);
  const auto base = reinterpret_cast<uintptr_t>(buf);
  for (int i = 0; i < count; ++i) {
    const uintptr_t elem = base + static_cast<uintptr_t>(static_cast<MPI_Aint>(i) * t.extent);
    for (const Block& b : t.blocks) {
      std::memcpy(reinterpret_cast<void*>(elem + b.offset), src, b.len);
      src += b.len;
    }
  }
}

Packed pack_view(const void* buf, int count, const TypeObj& t) {
  Packed p;
  p.bytes = data_bytes(t, count);
  if (t.contiguous() || p.bytes == 0) {
    p.data = buf;
    return p;
  }
  p.tmp = std::make_shared<std::vector<std::byte>>(p.bytes);
  pack(buf, count, t, p.tmp->data());
  p.data = p.tmp->data();
  return p;
}

Unpacked unpack_view(void* buf, int count, const TypeObj& t) {
  Unpacked u;
  u.bytes = data_bytes(t, count);
  if (t.contiguous() || u.bytes == 0) {
    u.data = buf;
    return u;
  }
  u.tmp = std::make_shared<std::vector<std::byte>>(u.bytes);
  u.data = u.tmp->data();
  u.user = buf;
  u.type = &t;
  return u;
}

void Unpacked::finish(size_t received) const {
  if (!tmp || !type || type->size == 0) return;
  const size_t whole = std::min(received, tmp->size()) / type->size;
  unpack(tmp->data(), static_cast<int>(whole), *type, user);
  // A partial last element (MPI_Get_elements counts it): unpack its leading blocks.
  size_t rest = std::min(received, tmp->size()) - whole * type->size;
  const std::byte* src = tmp->data() + whole * type->size;
  const auto elem = reinterpret_cast<uintptr_t>(user) +
                    static_cast<uintptr_t>(static_cast<MPI_Aint>(whole) * type->extent);
  for (const Block& b : type->blocks) {
    if (rest == 0) break;
    const size_t n = std::min(rest, b.len);
    std::memcpy(reinterpret_cast<void*>(elem + b.offset), src, n);
    src += n;
    rest -= n;
  }
}

}  // namespace interlace::mpi
