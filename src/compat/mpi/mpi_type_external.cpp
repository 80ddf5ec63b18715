// MPI_Pack_external / Unpack_external / Pack_external_size with the "external32"
// representation (MPI-4.1 13.5.2): big-endian, IEEE formats, and the standard's sizes,
// which differ from this platform's for MPI_LONG / MPI_UNSIGNED_LONG (4 bytes),
// MPI_WCHAR (2) and MPI_LONG_DOUBLE (16, IEEE binary128).
//
// Data is packed natively first (pack() of mpi_datatype.cpp), then each basic element of
// the typemap (TypeObj::runs) is converted in turn; unpacking runs the other way.
#include <bit>
#include <climits>
#include <cstring>

#include "compat/mpi/mpi_type_builder.hpp"

namespace interlace::mpi {
namespace {

enum class Conv { swap, swap_halves, narrow_signed, narrow_unsigned, quad, quad_halves };

struct Ext {
  size_t native, ext;
  Conv conv;
};

Ext ext_of(MPI_Datatype h) {
  const size_t native = state().types.get(h)->size;
  switch (h) {
    case MPI_LONG: return {native, 4, native == 4 ? Conv::swap : Conv::narrow_signed};
    case MPI_UNSIGNED_LONG: return {native, 4, native == 4 ? Conv::swap : Conv::narrow_unsigned};
    case MPI_WCHAR: return {native, 2, native == 2 ? Conv::swap : Conv::narrow_unsigned};
    case MPI_LONG_DOUBLE: return {native, 16, Conv::quad};
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX: return {native, 32, Conv::quad_halves};
    case MPI_C_FLOAT_COMPLEX: case MPI_C_DOUBLE_COMPLEX: case MPI_COMPLEX: case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX4: case MPI_COMPLEX8: case MPI_COMPLEX16: case MPI_COMPLEX32:
    case MPI_CXX_FLOAT_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX:
      return {native, native, Conv::swap_halves};
    default: return {native, native, Conv::swap};
  }
}

// Big-endian bytes of a little- or big-endian value of n bytes.
void to_big(const std::byte* in, std::byte* out, size_t n) {
  if constexpr (std::endian::native == std::endian::big) std::memcpy(out, in, n);
  else
    for (size_t i = 0; i < n; ++i) out[i] = in[n - 1 - i];
}

void quad(const std::byte* in, std::byte* out, bool to_ext) {
#if defined(__SIZEOF_FLOAT128__)
  std::byte tmp[16];
  if (to_ext) {
    long double v;
    std::memcpy(&v, in, sizeof v);
    const __float128 q = static_cast<__float128>(v);
    std::memcpy(tmp, &q, 16);
    to_big(tmp, out, 16);
  } else {
    to_big(in, tmp, 16);
    __float128 q;
    std::memcpy(&q, tmp, 16);
    const long double v = static_cast<long double>(q);
    std::memset(out, 0, sizeof(long double));
    std::memcpy(out, &v, sizeof v);
  }
#else
  raise(MPI_ERR_UNSUPPORTED_OPERATION, "external32: MPI_LONG_DOUBLE needs __float128, which this compiler lacks");
#endif
}

// One basic element between native (n) and external32 (x) form.
void convert(const Ext& e, const std::byte* in, std::byte* out, bool to_ext) {
  switch (e.conv) {
    case Conv::swap: to_big(in, out, e.ext); return;
    case Conv::swap_halves:
      to_big(in, out, e.ext / 2);
      to_big(in + e.ext / 2, out + e.ext / 2, e.ext / 2);
      return;
    case Conv::quad: quad(in, out, to_ext); return;
    case Conv::quad_halves: {
      const size_t nh = e.native / 2;
      quad(in, out, to_ext);
      if (to_ext) quad(in + nh, out + 16, true);
      else quad(in + 16, out + nh, false);
      return;
    }
    case Conv::narrow_signed: case Conv::narrow_unsigned: {
      const bool sign = e.conv == Conv::narrow_signed;
      if (to_ext) {
        long long v = 0;  // native 8 bytes, little-endian host assumed by the width check
        std::memcpy(&v, in, std::min(e.native, sizeof v));
        if (e.native < sizeof v && sign && (v >> (8 * e.native - 1))) v |= ~0LL << (8 * e.native);
        const int bits = static_cast<int>(8 * e.ext);
        const bool fits = sign ? (v >= -(1LL << (bits - 1)) && v < (1LL << (bits - 1)))
                               : (static_cast<unsigned long long>(v) < (1ULL << bits));
        if (!fits)
          raise(MPI_ERR_CONVERSION, "MPI_Pack_external: value " + std::to_string(v) + " does not fit the " +
                                        std::to_string(e.ext) + " bytes external32 gives its type");
        unsigned char b[8];
        std::memcpy(b, &v, sizeof v);
        for (size_t i = 0; i < e.ext; ++i) out[i] = static_cast<std::byte>(b[e.ext - 1 - i]);
      } else {
        unsigned long long u = 0;
        for (size_t i = 0; i < e.ext; ++i) u = (u << 8) | static_cast<unsigned char>(in[i]);
        long long v = static_cast<long long>(u);
        if (sign && (u >> (8 * e.ext - 1))) v = static_cast<long long>(u | (~0ULL << (8 * e.ext)));
        std::memcpy(out, &v, std::min(e.native, sizeof v));
      }
      return;
    }
  }
}

void check_datarep(const char* datarep, const char* call) {
  check_ptr(datarep, call, "datarep");
  if (std::strcmp(datarep, "external32") != 0)
    raise(MPI_ERR_UNSUPPORTED_DATAREP,
          std::string(call) + ": datarep \"" + datarep + "\" is not supported (only \"external32\")");
}

size_t external_size(const TypeObj& t, long long count) {
  size_t per = 0;
  for (const TypeObj::Run& r : t.runs) per += r.count * ext_of(r.type).ext;
  return count <= 0 ? 0 : per * static_cast<size_t>(count);
}

// Converts count packed elements of t (native <-> external32).
void convert_all(const TypeObj& t, int count, const std::byte* in, std::byte* out, bool to_ext) {
  std::vector<Ext> exts;
  for (const TypeObj::Run& r : t.runs) exts.push_back(ext_of(r.type));
  for (int i = 0; i < count; ++i)
    for (size_t k = 0; k < t.runs.size(); ++k)
      for (size_t c = 0; c < t.runs[k].count; ++c) {
        convert(exts[k], in, out, to_ext);
        in += to_ext ? exts[k].native : exts[k].ext;
        out += to_ext ? exts[k].ext : exts[k].native;
      }
}

template <class Pos>
void pack_external(const char* call, const char* datarep, const void* inbuf, long long incount,
                   MPI_Datatype datatype, void* outbuf, long long outsize, Pos* position) {
  require_initialized(call);
  check_datarep(datarep, call);
  check_count(int_count(incount, call, "incount"), "incount");
  check_ptr(position, call, "position");
  const TypeObj& t = type_obj(datatype);
  const size_t bytes = external_size(t, incount);
  if (*position < 0 || outsize < 0 || static_cast<size_t>(*position) + bytes > static_cast<size_t>(outsize))
    raise(MPI_ERR_TRUNCATE, std::string(call) + ": " + std::to_string(bytes) + " bytes at position " +
                                std::to_string(*position) + " do not fit outsize " + std::to_string(outsize));
  if (bytes == 0) return;
  check_ptr(inbuf, call, "inbuf");
  check_ptr(outbuf, call, "outbuf");
  std::vector<std::byte> native(data_bytes(t, static_cast<int>(incount)));
  pack(inbuf, static_cast<int>(incount), t, native.data());
  convert_all(t, static_cast<int>(incount), native.data(), static_cast<std::byte*>(outbuf) + *position, true);
  *position += static_cast<Pos>(bytes);
}

template <class Pos>
void unpack_external(const char* call, const char* datarep, const void* inbuf, long long insize, Pos* position,
                     void* outbuf, long long outcount, MPI_Datatype datatype) {
  require_initialized(call);
  check_datarep(datarep, call);
  check_count(int_count(outcount, call, "outcount"), "outcount");
  check_ptr(position, call, "position");
  const TypeObj& t = type_obj(datatype);
  const size_t bytes = external_size(t, outcount);
  if (*position < 0 || insize < 0 || static_cast<size_t>(*position) + bytes > static_cast<size_t>(insize))
    raise(MPI_ERR_TRUNCATE, std::string(call) + ": " + std::to_string(bytes) + " bytes at position " +
                                std::to_string(*position) + " exceed insize " + std::to_string(insize));
  if (bytes == 0) return;
  check_ptr(inbuf, call, "inbuf");
  check_ptr(outbuf, call, "outbuf");
  std::vector<std::byte> native(data_bytes(t, static_cast<int>(outcount)));
  convert_all(t, static_cast<int>(outcount), static_cast<const std::byte*>(inbuf) + *position, native.data(), false);
  unpack(native.data(), static_cast<int>(outcount), t, outbuf);
  *position += static_cast<Pos>(bytes);
}

template <class Size>
void pack_external_size(const char* call, const char* datarep, long long incount, MPI_Datatype datatype,
                        Size* size) {
  require_initialized(call);
  check_datarep(datarep, call);
  check_count(int_count(incount, call, "incount"), "incount");
  check_ptr(size, call, "size");
  *size = static_cast<Size>(external_size(type_obj(datatype), incount));
}

}  // namespace
}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Pack_external(const char datarep[], const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf,
                      MPI_Aint outsize, MPI_Aint* position) {
  return guard("MPI_Pack_external", MPI_COMM_NULL, [&] {
    pack_external("MPI_Pack_external", datarep, inbuf, incount, datatype, outbuf, outsize, position);
  });
}

int MPI_Pack_external_c(const char datarep[], const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                        void* outbuf, MPI_Count outsize, MPI_Count* position) {
  return guard("MPI_Pack_external_c", MPI_COMM_NULL, [&] {
    pack_external("MPI_Pack_external_c", datarep, inbuf, incount, datatype, outbuf, outsize, position);
  });
}

int MPI_Unpack_external(const char datarep[], const void* inbuf, MPI_Aint insize, MPI_Aint* position,
                        void* outbuf, int outcount, MPI_Datatype datatype) {
  return guard("MPI_Unpack_external", MPI_COMM_NULL, [&] {
    unpack_external("MPI_Unpack_external", datarep, inbuf, insize, position, outbuf, outcount, datatype);
  });
}

int MPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
                          void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  return guard("MPI_Unpack_external_c", MPI_COMM_NULL, [&] {
    unpack_external("MPI_Unpack_external_c", datarep, inbuf, insize, position, outbuf, outcount, datatype);
  });
}

int MPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint* size) {
  return guard("MPI_Pack_external_size", MPI_COMM_NULL,
               [&] { pack_external_size("MPI_Pack_external_size", datarep, incount, datatype, size); });
}

int MPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count* size) {
  return guard("MPI_Pack_external_size_c", MPI_COMM_NULL,
               [&] { pack_external_size("MPI_Pack_external_size_c", datarep, incount, datatype, size); });
}

}  // extern "C"
