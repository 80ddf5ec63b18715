// interlace._core.Pgas, continued: atomics on the first element of a symmetric
// array, put with signal, and the point-to-point waits (wait_until/test,
// signal_wait_until). The element type of the array picks the atomic's type;
// Python values are range-checked against it. Waits, and atomics that are a round
// trip to the peer, release the GIL.
#include <cstring>
#include <limits>
#include <string>

#include "bind_pgas.hpp"

namespace interlace::python {

namespace {

using pgas::AmoOp;
using pgas::AmoType;

std::string py_repr(nb::handle v) { return nb::cast<std::string>(nb::repr(v)); }

AmoType amo_type(Datatype dt, const char* what) {
  switch (dt) {
    case Datatype::int32: return AmoType::i32;
    case Datatype::int64: return AmoType::i64;
    case Datatype::uint32: return AmoType::u32;
    case Datatype::uint64: return AmoType::u64;
    case Datatype::float32: return AmoType::f32;
    case Datatype::float64: return AmoType::f64;
    default: break;
  }
  throw nb::type_error((std::string(what) + ": needs an int32, int64, uint32, uint64, float32 or "
                        "float64 array, got " + std::string(datatype_name(dt))).c_str());
}

bool is_float(AmoType t) { return t == AmoType::f32 || t == AmoType::f64; }

const char* type_name(AmoType t) {
  static const char* names[] = {"int32", "int64", "uint32", "uint64", "float32", "float64"};
  return names[static_cast<int>(t)];
}

// A Python number as the bits of a value of type t (the low 4 bytes for 32-bit types).
uint64_t to_bits(AmoType t, nb::handle v, const char* what) {
  if (is_float(t)) {
    double d;
    if (!nb::try_cast<double>(v, d))
      throw nb::type_error((std::string(what) + ": " + py_repr(v) + " is not a number").c_str());
    uint64_t b = 0;
    if (t == AmoType::f32) {
      const float f = static_cast<float>(d);
      std::memcpy(&b, &f, 4);
    } else {
      std::memcpy(&b, &d, 8);
    }
    return b;
  }
  long long s = 0;
  unsigned long long u = 0;
  bool ok;
  if (nb::try_cast<long long>(v, s, false)) {
    switch (t) {
      case AmoType::i32: ok = s >= INT32_MIN && s <= INT32_MAX; break;
      case AmoType::u32: ok = s >= 0 && s <= static_cast<long long>(UINT32_MAX); break;
      case AmoType::u64: ok = s >= 0; break;
      default: ok = true;
    }
    u = static_cast<unsigned long long>(s);
  } else if (nb::try_cast<unsigned long long>(v, u, false)) {
    ok = t == AmoType::u64;
  } else {
    throw nb::type_error((std::string(what) + ": " + py_repr(v) + " is not an integer").c_str());
  }
  if (!ok)
    throw nb::value_error((std::string(what) + ": " + py_repr(v) + " is out of range for " + type_name(t)).c_str());
  return (t == AmoType::i32 || t == AmoType::u32) ? (u & 0xffffffffu) : u;
}

nb::object from_bits(AmoType t, uint64_t b) {
  switch (t) {
    case AmoType::i32: return nb::int_(static_cast<int32_t>(static_cast<uint32_t>(b)));
    case AmoType::i64: return nb::int_(static_cast<int64_t>(b));
    case AmoType::u32: return nb::int_(static_cast<uint32_t>(b));
    case AmoType::u64: return nb::int_(b);
    case AmoType::f32: {
      float f;
      const uint32_t w = static_cast<uint32_t>(b);
      std::memcpy(&f, &w, 4);
      return nb::float_(f);
    }
    case AmoType::f64: {
      double d;
      std::memcpy(&d, &b, 8);
      return nb::float_(d);
    }
  }
  return nb::none();
}

// The first element of a symmetric array, and its atomic type.
struct Elem {
  HeldBuffer buf;
  AmoType type;
};

Elem element(PyPgas& g, nb::handle target, bool writable, const char* what) {
  Elem e{acquire_buffer(target, writable, what), AmoType::i32};
  e.type = amo_type(e.buf.dt, what);
  if (e.buf.count == 0) throw nb::value_error((std::string(what) + ": the array is empty").c_str());
  g.check_heap(e.buf.data, pgas::amo_size(e.type), what);
  return e;
}

pgas::Cmp cmp_arg(int cmp, const char* what) {
  if (cmp < 0 || cmp > static_cast<int>(pgas::Cmp::le))
    throw nb::value_error((std::string(what) + ": comparison " + std::to_string(cmp) +
                           " is not one of CMP_EQ..CMP_LE (0-5)").c_str());
  return static_cast<pgas::Cmp>(cmp);
}

nb::object atomic(PyPgas& g, int op, nb::handle target, nb::handle value, nb::handle cond, long long pe,
                  PyDomain* ctx) {
  if (op < 0 || op > static_cast<int>(AmoOp::xor_))
    throw nb::value_error(("atomic: operation " + std::to_string(op) + " is not known").c_str());
  const auto o = static_cast<AmoOp>(op);
  Elem e = element(g, target, false, "atomic");
  const bool bitwise = o == AmoOp::fetch_and || o == AmoOp::and_ || o == AmoOp::fetch_or ||
                       o == AmoOp::or_ || o == AmoOp::fetch_xor || o == AmoOp::xor_;
  const bool arith = o == AmoOp::fetch_add || o == AmoOp::add || o == AmoOp::cswap;
  if (is_float(e.type) && (bitwise || arith))
    throw nb::type_error((std::string("atomic: ") + (bitwise ? "bitwise" : "arithmetic") +
                          " atomics need an integer array, got " + type_name(e.type)).c_str());
  const uint64_t operand = value.is_none() ? 0 : to_bits(e.type, value, "atomic value");
  const uint64_t compare = cond.is_none() ? 0 : to_bits(e.type, cond, "atomic condition");
  const bool fetching = o == AmoOp::fetch || o == AmoOp::swap || o == AmoOp::cswap ||
                        o == AmoOp::fetch_add || o == AmoOp::fetch_and || o == AmoOp::fetch_or ||
                        o == AmoOp::fetch_xor;
  uint64_t old = 0;
  const int p = pe_arg(pe, "atomic");
  pgas::Domain& d = g.dom(ctx, "atomic");
  auto run = [&] { g.p->atomic(d, o, e.type, e.buf.data, &operand, &compare, fetching ? &old : nullptr, p); };
  if (g.may_wait(e.buf.data, p)) {
    nb::gil_scoped_release unlocked;  // a round trip to the peer
    run();
  } else {
    run();
  }
  return fetching ? from_bits(e.type, old) : nb::none();
}

void wait_until(PyPgas& g, nb::handle ivar, int cmp, nb::handle value) {
  Elem e = element(g, ivar, false, "wait_until");
  const pgas::Cmp c = cmp_arg(cmp, "wait_until");
  const uint64_t v = to_bits(e.type, value, "wait_until value");
  void* addr = e.buf.data;
  const AmoType t = e.type;
  nb::gil_scoped_release unlocked;
  g.p->wait([&] { return pgas::compare(c, t, addr, &v); });
}

bool test(PyPgas& g, nb::handle ivar, int cmp, nb::handle value) {
  Elem e = element(g, ivar, false, "test");
  const pgas::Cmp c = cmp_arg(cmp, "test");
  const uint64_t v = to_bits(e.type, value, "test value");
  if (pgas::compare(c, e.type, e.buf.data, &v)) return true;
  g.p->poll();  // serves incoming puts (tcp) before the second look
  return pgas::compare(c, e.type, e.buf.data, &v);
}

uint64_t* signal_word(PyPgas& g, HeldBuffer& b, const char* what) {
  if (b.dt != Datatype::uint64 || b.count == 0)
    throw nb::type_error((std::string(what) + ": the signal must be a uint64 array, got " +
                          std::to_string(b.count) + " " + std::string(datatype_name(b.dt))).c_str());
  g.check_heap(b.data, 8, what);
  return static_cast<uint64_t*>(b.data);
}

void put_signal(PyPgas& g, nb::handle target, nb::handle source, nb::handle sig, uint64_t signal, int op,
                long long pe, bool nbi, PyDomain* ctx) {
  const char* what = nbi ? "put_signal_nbi" : "put_signal";
  HeldBuffer t = acquire_buffer(target, false, "target");
  HeldBuffer s = acquire_buffer(source, false, "source");
  HeldBuffer sb = acquire_buffer(sig, false, "signal");
  uint64_t* word = signal_word(g, sb, what);
  if (s.bytes > t.bytes)
    throw nb::value_error((std::string(what) + ": source has " + std::to_string(s.bytes) +
                           " bytes, more than the target's " + std::to_string(t.bytes)).c_str());
  if (op != static_cast<int>(pgas::SignalOp::set) && op != static_cast<int>(pgas::SignalOp::add))
    throw nb::value_error((std::string(what) + ": signal operation " + std::to_string(op) +
                           " is neither SIGNAL_SET (0) nor SIGNAL_ADD (1)").c_str());
  g.check_heap(t.data, s.bytes, what);
  const int p = pe_arg(pe, what);
  pgas::Domain& d = g.dom(ctx, what);
  {
    nb::gil_scoped_release unlocked;
    g.p->put_signal(d, t.data, s.data, s.bytes, word, signal, static_cast<pgas::SignalOp>(op), p, nbi);
  }
  if (nbi) g.pyd(ctx).pending.push_back(std::move(s));
}

}  // namespace

void add_pgas_atomics(nb::class_<PyPgas>& cls) {
  cls.def("atomic", &atomic, nb::arg("op"), nb::arg("target"), nb::arg("value").none() = nb::none(),
          nb::arg("cond").none() = nb::none(), nb::arg("pe") = 0, nb::arg("ctx").none() = nb::none(),
          "Atomic `op` (an AmoOp number) on target's first element at `pe`; returns the old "
          "value for fetching operations, else None.")
      .def("wait_until", &wait_until, nb::arg("ivar"), nb::arg("cmp"), nb::arg("value"),
           "Blocks (GIL released) until ivar's first element compares true with value.")
      .def("test", &test, nb::arg("ivar"), nb::arg("cmp"), nb::arg("value"))
      .def("put_signal", &put_signal, nb::arg("target"), nb::arg("source"), nb::arg("signal_array"),
           nb::arg("signal"), nb::arg("sig_op"), nb::arg("pe"), nb::arg("nbi") = false,
           nb::arg("ctx").none() = nb::none())
      .def("signal_fetch", [](PyPgas& g, nb::handle sig) {
        HeldBuffer b = acquire_buffer(sig, false, "signal");
        return g.p->signal_fetch(signal_word(g, b, "signal_fetch"));
      }, nb::arg("signal_array"));
}

}  // namespace interlace::python
