// interlace._core collectives: one entry point, coll_start(), that the Python
// mixin in interlace/coll.py calls for every buffer collective; the CollRequest
// it returns for the non-blocking forms; ReduceOp; user reductions (a Python
// callable wrapped by coll.py); coll_describe(), coll_algorithms(), coll_select();
// coll_register() and Schedule: algorithms written in Python, registered at run time.
// The GIL is released while a blocking collective waits; a Python reduction
// re-acquires it for each combine.
#include <string>
#include <vector>

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "bind_p2p_support.hpp"
#include "interlace/coll/coll.hpp"
#include "interlace/core/config.hpp"

namespace interlace::python {

namespace {

struct InPlace {};

struct CollRequest {
  coll::Request req;
  std::vector<HeldBuffer> held;
  nb::object keep;
  bool done = false;
  CollRequest() = default;
  CollRequest(const CollRequest&) = delete;
  CollRequest& operator=(const CollRequest&) = delete;
  ~CollRequest();
};

// Requests dropped while in flight keep their buffers exported forever-ish: the
// engine may still write into them (as the p2p Request does with orphans).
std::vector<CollRequest*>& orphans() {
  static auto* v = new std::vector<CollRequest*>();
  return *v;
}

CollRequest::~CollRequest() {
  if (done || req.is_null()) return;
  auto* o = new CollRequest();
  o->req = std::move(req);
  o->held = std::move(held);
  o->keep = std::move(keep);
  orphans().push_back(o);
}

void finish(CollRequest& r) {
  r.done = true;
  r.held.clear();
  r.keep = nb::object();
}

void wait(CollRequest& r) {
  if (r.done) return;
  try {
    nb::gil_scoped_release unlocked;
    r.req.wait();
  } catch (...) {
    finish(r);
    throw;
  }
  finish(r);
}

bool test(CollRequest& r) {
  if (r.done) return true;
  bool ok;
  try {
    ok = r.req.test();
  } catch (...) {
    finish(r);
    throw;
  }
  if (ok) finish(r);
  return ok;
}

// A Python reduction: fn(in_view, inout_view, datatype_name) updates inout_view.
coll::Op user_op(nb::object fn, bool commute) {
  auto holder = std::make_shared<nb::object>(std::move(fn));
  return coll::Op(
      [holder](const void* in, void* inout, size_t count, Datatype dt) {
        nb::gil_scoped_acquire gil;
        const Py_ssize_t bytes = static_cast<Py_ssize_t>(count * datatype_size(dt));
        try {
          nb::object a = nb::steal(PyMemoryView_FromMemory(static_cast<char*>(const_cast<void*>(in)), bytes, PyBUF_READ));
          nb::object b = nb::steal(PyMemoryView_FromMemory(static_cast<char*>(inout), bytes, PyBUF_WRITE));
          (*holder)(a, b, std::string(datatype_name(dt)));
        } catch (nb::python_error& e) {
          const std::string msg = e.what();
          throw Error(Errc::invalid_op, "the Python reduction op raised: " + msg);
        }
      },
      commute, "python");
}

coll::Op op_arg(nb::handle op) {
  ReduceOp b;
  if (nb::try_cast<ReduceOp>(op, b)) return coll::Op(b);
  if (PyTuple_Check(op.ptr()) && nb::len(op) == 2)
    return user_op(nb::borrow(op[0]), nb::cast<bool>(op[1]));
  throw nb::type_error(("op must be an interlace op (SUM, MAX, ...) or a callable, got " +
                        std::string(Py_TYPE(op.ptr())->tp_name)).c_str());
}

std::vector<size_t> counts_arg(const std::vector<long long>& v, const char* what) {
  std::vector<size_t> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] < 0)
      throw nb::value_error((std::string(what) + "[" + std::to_string(i) + "] is " + std::to_string(v[i]) +
                             "; counts and displacements must not be negative").c_str());
    out.push_back(static_cast<size_t>(v[i]));
  }
  return out;
}

[[noreturn]] void size_error(const std::string& what, size_t have, size_t need, Datatype dt) {
  throw nb::value_error((what + " holds " + std::to_string(have) + " " + std::string(datatype_name(dt)) +
                         " elements but " + std::to_string(need) + " are needed").c_str());
}

struct Bufs {
  HeldBuffer s, r;
  bool s_in_place = false, s_none = true, r_none = true;
  Datatype dt = Datatype::bytes;
};

// Buffers and the datatype both ends share; ValueError/TypeError on mismatch.
Bufs buffers(nb::handle sendbuf, nb::handle recvbuf, nb::handle in_place) {
  Bufs b;
  b.s_in_place = sendbuf.is(in_place);
  b.s_none = sendbuf.is_none() || b.s_in_place;
  b.r_none = recvbuf.is_none() || recvbuf.is(in_place);
  if (!b.s_none) b.s = acquire_buffer(sendbuf, false, "sendbuf");
  if (!b.r_none) b.r = acquire_buffer(recvbuf, true, "recvbuf");
  if (!b.s_none && !b.r_none && b.s.dt != b.r.dt)
    throw nb::type_error(("sendbuf holds " + std::string(datatype_name(b.s.dt)) + " but recvbuf holds " +
                          std::string(datatype_name(b.r.dt)) + "; collectives need one datatype").c_str());
  b.dt = !b.s_none ? b.s.dt : b.r.dt;
  return b;
}

nb::object coll_start(const Communicator& c, const std::string& kind, nb::handle sendbuf, nb::handle recvbuf,
                      nb::handle op_h, long long root_ll, const std::string& algorithm, bool nonblocking,
                      const std::vector<long long>& sc_in, const std::vector<long long>& sd_in,
                      const std::vector<long long>& rc_in, const std::vector<long long>& rd_in,
                      nb::handle in_place, const std::string& compression) {
  auto k = coll::kind_from_name(kind);
  if (!k) throw nb::value_error(("unknown collective " + kind).c_str());
  const int root = int_arg(root_ll, "root");
  coll::Options o{algorithm, 0, compression};
  Bufs b = buffers(sendbuf, recvbuf, in_place);
  const int n = c.size(), me = c.rank();
  const bool at_root = me == root;
  void* IP = coll::IN_PLACE;
  const void* s = b.s_in_place ? IP : b.s.data;
  void* r = b.r.data;
  if (recvbuf.is(in_place)) r = IP;
  const Datatype dt = b.dt;
  coll::Op op = op_h.is_none() ? coll::Op() : op_arg(op_h);
  std::vector<size_t> sc = counts_arg(sc_in, "sendcounts"), sd = counts_arg(sd_in, "sdispls");
  std::vector<size_t> rc = counts_arg(rc_in, "recvcounts"), rd = counts_arg(rd_in, "rdispls");
  auto need = [&](const HeldBuffer& h, bool none, size_t count, const char* what) {
    if (none) {
      if (count) throw nb::value_error((std::string(what) + " is required here").c_str());
      return;
    }
    if (h.count < count) size_error(what, h.count, count, dt);
  };
  const size_t count_s = b.s_none ? b.r.count : b.s.count;
  coll::Request req;
  {
    // Checks above may raise Python errors; only the start below is C++.
    switch (*k) {
      case coll::Kind::barrier: req = coll::ibarrier(c, o); break;
      case coll::Kind::bcast: req = coll::ibcast(c, b.r.data, b.r.count, dt, root, o); break;
      case coll::Kind::reduce: case coll::Kind::allreduce: case coll::Kind::scan: case coll::Kind::exscan: {
        const bool receives = *k != coll::Kind::reduce || at_root;
        if (receives && !b.s_none && !b.r_none && b.r.count != b.s.count)
          throw nb::value_error(("recvbuf holds " + std::to_string(b.r.count) + " elements but sendbuf holds " +
                                 std::to_string(b.s.count)).c_str());
        if (receives) need(b.r, b.r_none, count_s, "recvbuf");
        if (*k == coll::Kind::reduce) req = coll::ireduce(c, s, r, count_s, dt, op, root, o);
        if (*k == coll::Kind::allreduce) req = coll::iallreduce(c, s, r, count_s, dt, op, o);
        if (*k == coll::Kind::scan) req = coll::iscan(c, s, r, count_s, dt, op, o);
        if (*k == coll::Kind::exscan) req = coll::iexscan(c, s, r, count_s, dt, op, o);
        break;
      }
      case coll::Kind::gather: case coll::Kind::allgather: {
        const bool receives = *k == coll::Kind::allgather || at_root;
        size_t cnt = b.s_in_place ? b.r.count / n : b.s.count;
        if (receives) need(b.r, b.r_none, cnt * n, "recvbuf");
        if (*k == coll::Kind::gather) req = coll::igather(c, s, receives ? r : nullptr, cnt, dt, root, o);
        else req = coll::iallgather(c, s, r, cnt, dt, o);
        break;
      }
      case coll::Kind::scatter: {
        const size_t cnt = recvbuf.is(in_place) ? b.s.count / n : b.r.count;
        if (at_root) need(b.s, b.s_none, cnt * n, "sendbuf");
        req = coll::iscatter(c, at_root ? b.s.data : nullptr, r, cnt, dt, root, o);
        break;
      }
      case coll::Kind::alltoall: {
        const size_t total = b.s_in_place ? b.r.count : b.s.count;
        if (total % n)
          throw nb::value_error(("alltoall: the buffer holds " + std::to_string(total) +
                                 " elements, not a multiple of the communicator size " + std::to_string(n)).c_str());
        need(b.r, b.r_none, total, "recvbuf");
        req = coll::ialltoall(c, s, r, total / n, dt, o);
        break;
      }
      case coll::Kind::reduce_scatter_block: {
        const size_t cnt = b.s_in_place ? b.r.count / n : b.r.count;
        if (!b.s_in_place) need(b.s, b.s_none, cnt * n, "sendbuf");
        req = coll::ireduce_scatter_block(c, s, r, cnt, dt, op, o);
        break;
      }
      case coll::Kind::reduce_scatter: {
        size_t total = 0;
        for (size_t x : rc) total += x;
        if (rc.size() == static_cast<size_t>(n)) {
          if (!b.s_in_place) need(b.s, b.s_none, total, "sendbuf");
          need(b.r, b.r_none, b.s_in_place ? total : rc[me], "recvbuf");
        }
        req = coll::ireduce_scatter(c, s, r, rc, dt, op, o);
        break;
      }
      case coll::Kind::gatherv: case coll::Kind::allgatherv: {
        const bool receives = *k == coll::Kind::allgatherv || at_root;
        if (receives && rc.size() == static_cast<size_t>(n))
          for (int i = 0; i < n; ++i) need(b.r, b.r_none, rd[i] + rc[i], "recvbuf");
        const size_t cnt = b.s_in_place ? 0 : b.s.count;
        if (*k == coll::Kind::gatherv) req = coll::igatherv(c, s, cnt, r, rc, rd, dt, root, o);
        else req = coll::iallgatherv(c, s, cnt, r, rc, rd, dt, o);
        break;
      }
      case coll::Kind::scatterv: {
        if (at_root && sc.size() == static_cast<size_t>(n))
          for (int i = 0; i < n; ++i) need(b.s, b.s_none, sd[i] + sc[i], "sendbuf");
        const size_t cnt = recvbuf.is(in_place) ? 0 : b.r.count;
        req = coll::iscatterv(c, b.s.data, sc, sd, r, cnt, dt, root, o);
        break;
      }
      case coll::Kind::alltoallv: {
        if (rc.size() == static_cast<size_t>(n) && sc.size() == static_cast<size_t>(n))
          for (int i = 0; i < n; ++i) {
            need(b.r, b.r_none, rd[i] + rc[i], "recvbuf");
            if (!b.s_in_place) need(b.s, b.s_none, sd[i] + sc[i], "sendbuf");
          }
        req = coll::ialltoallv(c, s, sc, sd, r, rc, rd, dt, o);
        break;
      }
    }
  }
  auto* cr = new CollRequest();
  cr->req = std::move(req);
  cr->held.push_back(std::move(b.s));
  cr->held.push_back(std::move(b.r));
  cr->keep = nb::borrow(op_h);
  nb::object handle = nb::cast(cr, nb::rv_policy::take_ownership);
  if (nonblocking) return handle;
  wait(*cr);
  return nb::none();
}

// A schedule under construction, as the Python builder of a registered algorithm
// sees it: buffers are named ("send", "recv" or a scratch id from scratch()) plus a
// byte offset, so Python never holds raw pointers.
struct PySchedule {
  coll::Schedule* s = nullptr;
  const coll::Args* a = nullptr;
  std::vector<std::pair<std::byte*, size_t>> scratch;  // id -> (memory, bytes)

  std::byte* at(nb::handle buf, long long off, size_t bytes, bool write) {
    if (off < 0) throw nb::value_error(("offset " + std::to_string(off) + " is negative").c_str());
    std::byte* base = nullptr;
    size_t cap = SIZE_MAX;
    if (nb::isinstance<nb::str>(buf)) {
      const std::string name = nb::cast<std::string>(buf);
      if (name == "send") {
        if (write) throw nb::value_error("the send buffer is read-only in a schedule");
        base = static_cast<std::byte*>(const_cast<void*>(a->sendbuf));
      } else if (name == "recv") {
        base = static_cast<std::byte*>(a->recvbuf);
      } else {
        throw nb::value_error(("unknown buffer '" + name + "' (use 'send', 'recv' or a scratch id)").c_str());
      }
    } else {
      const long long id = nb::cast<long long>(buf);
      if (id < 0 || id >= static_cast<long long>(scratch.size()))
        throw nb::value_error(("scratch id " + std::to_string(id) + " does not exist").c_str());
      base = scratch[id].first;
      cap = scratch[id].second;
    }
    if (cap != SIZE_MAX && static_cast<size_t>(off) + bytes > cap)
      throw nb::value_error(("bytes [" + std::to_string(off) + ", " + std::to_string(off + bytes) +
                             ") lie outside scratch of " + std::to_string(cap) + " bytes").c_str());
    return base ? base + off : nullptr;
  }
};

std::vector<std::pair<coll::Kind, std::string>>& python_registered() {
  static auto* v = new std::vector<std::pair<coll::Kind, std::string>>();
  return *v;
}

coll::Algorithm python_algorithm(const std::string& kind, const std::string& name, nb::object builder,
                                 bool keeps_order, const std::string& about) {
  auto k = coll::kind_from_name(kind);
  if (!k) throw nb::value_error(("unknown collective " + kind).c_str());
  // interlace/coll.py unregisters Python algorithms at exit; one that survives the
  // interpreter (the registry is a C++ static) is leaked rather than DECREF'd late.
  auto fn = std::shared_ptr<nb::object>(new nb::object(std::move(builder)), [](nb::object* o) {
    if (Py_IsInitialized()) {
      nb::gil_scoped_acquire gil;
      delete o;
    }
  });
  coll::Algorithm alg{*k, name, nullptr, keeps_order, about.empty() ? "registered from Python" : about};
  alg.build = [fn](const coll::Args& a, coll::Schedule& s) {
    nb::gil_scoped_acquire gil;
    PySchedule ps{&s, &a, {}};
    nb::dict args;
    args["rank"] = a.rank;
    args["size"] = a.size;
    args["count"] = a.count;
    args["itemsize"] = a.esize;
    args["root"] = a.root;
    args["datatype"] = std::string(datatype_name(a.dt));
    args["counts"] = a.counts;
    args["displs"] = a.displs;
    try {
      (*fn)(args, nb::cast(&ps, nb::rv_policy::reference));
    } catch (nb::python_error& e) {
      throw Error(Errc::invalid_argument, std::string("the Python algorithm builder raised: ") + e.what());
    }
  };
  return alg;
}

}  // namespace

void bind_coll(nb::module_& m) {
  nb::enum_<ReduceOp>(m, "ReduceOp", "Built-in reduction operators (interlace/core/reduce_op.hpp).")
      .value("sum", ReduceOp::sum).value("prod", ReduceOp::prod).value("min", ReduceOp::min)
      .value("max", ReduceOp::max).value("band", ReduceOp::band).value("bor", ReduceOp::bor)
      .value("bxor", ReduceOp::bxor).value("land", ReduceOp::land).value("lor", ReduceOp::lor);

  nb::class_<InPlace>(m, "_InPlace").def("__repr__", [](const InPlace&) { return "interlace.IN_PLACE"; });
  m.attr("IN_PLACE") = nb::cast(InPlace{});

  nb::class_<CollRequest>(m, "CollRequest", "Handle to a non-blocking collective.")
      .def("wait", [](CollRequest& r) { wait(r); }, "Completes the collective (raises its error).")
      .def("Wait", [](CollRequest& r) { wait(r); return true; })
      .def("test", [](CollRequest& r) { return test(r); }, "Progresses once; True when complete.")
      .def("Test", [](CollRequest& r) { return test(r); })
      .def_prop_ro("algorithm", [](const CollRequest& r) { return r.req.algorithm(); });

  m.def("coll_start", &coll_start, nb::arg("comm"), nb::arg("kind"), nb::arg("sendbuf").none(),
        nb::arg("recvbuf").none(), nb::arg("op").none(), nb::arg("root"), nb::arg("algorithm"),
        nb::arg("nonblocking"), nb::arg("sendcounts"), nb::arg("sdispls"), nb::arg("recvcounts"),
        nb::arg("rdispls"), nb::arg("in_place").none(), nb::arg("compression") = "",
        "Starts the buffer collective `kind` (interlace/coll.py builds the arguments).");
  using Deps = std::vector<int>;
  nb::class_<PySchedule>(m, "Schedule", "A schedule being built by a registered Python algorithm.")
      .def("send", [](PySchedule& p, int peer, nb::handle buf, long long off, size_t nbytes, const Deps& deps) {
        return p.s->send(peer, p.at(buf, off, nbytes, false), nbytes, deps);
      }, nb::arg("peer"), nb::arg("buf"), nb::arg("offset"), nb::arg("nbytes"), nb::arg("deps") = Deps{})
      .def("recv", [](PySchedule& p, int peer, nb::handle buf, long long off, size_t nbytes, const Deps& deps) {
        return p.s->recv(peer, p.at(buf, off, nbytes, true), nbytes, deps);
      }, nb::arg("peer"), nb::arg("buf"), nb::arg("offset"), nb::arg("nbytes"), nb::arg("deps") = Deps{})
      .def("recv_reduce", [](PySchedule& p, int peer, nb::handle buf, long long off, size_t count, const Deps& deps,
                             bool incoming_left) {
        return p.s->recv_reduce(peer, p.at(buf, off, count * p.s->esize(), true), count, deps, incoming_left);
      }, nb::arg("peer"), nb::arg("buf"), nb::arg("offset"), nb::arg("count"), nb::arg("deps") = Deps{},
         nb::arg("incoming_left") = false)
      .def("copy", [](PySchedule& p, nb::handle dst, long long doff, nb::handle src, long long soff, size_t nbytes,
                      const Deps& deps) {
        return p.s->copy(p.at(dst, doff, nbytes, true), p.at(src, soff, nbytes, false), nbytes, deps);
      }, nb::arg("dst"), nb::arg("dst_offset"), nb::arg("src"), nb::arg("src_offset"), nb::arg("nbytes"),
         nb::arg("deps") = Deps{})
      .def("combine", [](PySchedule& p, nb::handle dst, long long doff, nb::handle src, long long soff, size_t count,
                         const Deps& deps, bool src_left) {
        const size_t b = count * p.s->esize();
        return p.s->combine(p.at(dst, doff, b, true), p.at(src, soff, b, false), count, deps, src_left);
      }, nb::arg("dst"), nb::arg("dst_offset"), nb::arg("src"), nb::arg("src_offset"), nb::arg("count"),
         nb::arg("deps") = Deps{}, nb::arg("src_left") = false)
      .def("join", [](PySchedule& p, const Deps& deps) { return p.s->join(deps); }, nb::arg("deps"))
      .def("scratch", [](PySchedule& p, size_t nbytes) {
        p.scratch.emplace_back(p.s->scratch(nbytes), nbytes);
        return static_cast<int>(p.scratch.size() - 1);
      }, nb::arg("nbytes"), "Zeroed scratch memory; returns its id, usable as a buffer name.");
  m.def("coll_register", [](const std::string& kind, const std::string& name, nb::object builder, bool keeps_order,
                            const std::string& about) {
    coll::register_algorithm(python_algorithm(kind, name, std::move(builder), keeps_order, about));
    python_registered().emplace_back(*coll::kind_from_name(kind), name);
  }, nb::arg("kind"), nb::arg("name"), nb::arg("builder"), nb::arg("keeps_order") = false, nb::arg("about") = "",
     "Registers builder(args: dict, schedule: Schedule) as algorithm `name` of collective `kind`.");
  m.def("coll_unregister_python", [] {
    for (auto& [k, name] : python_registered()) coll::unregister_algorithm(k, name);
    python_registered().clear();
  }, "Drops every algorithm registered from Python (called at interpreter exit).");
  m.def("coll_describe", &coll::describe, "Collective algorithms and the selection rules in effect.");
  m.def(
      "coll_check_config", [] { coll::check_rules(Config::from_env().coll_rules); },
      "Checks INTERLACE_COLL's collective and algorithm names (Config checks only its syntax); raises "
      "on an unknown one.");
  m.def("launcher_variables", &Config::launcher_variables,
        "INTERLACE_* variables the launcher sets for each rank, with their meaning.");
  m.def("coll_algorithms", [](const std::string& kind) {
    auto k = coll::kind_from_name(kind);
    if (!k) throw nb::value_error(("unknown collective " + kind).c_str());
    return coll::algorithm_names(*k);
  });
  m.def("coll_select", [](const std::string& kind, size_t bytes, int n) {
    auto k = coll::kind_from_name(kind);
    if (!k) throw nb::value_error(("unknown collective " + kind).c_str());
    return coll::select(*k, bytes, n);
  }, "The algorithm the selection table picks for (collective, bytes, communicator size).");
}

}  // namespace interlace::python
