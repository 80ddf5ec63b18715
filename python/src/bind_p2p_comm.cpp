// interlace._core.Comm: the buffer (capitalised, mpi4py-named) half of the
// communicator API. interlace/comm.py subclasses it with the pickle-based
// lowercase methods and with Dup/Split returning that subclass.
// Every call that may wait releases the GIL; posting a non-blocking operation
// does not, so Python threads see posts in program order.
#include <string>

#include "bind_p2p_support.hpp"

namespace interlace::python {

namespace {

using C = Communicator;

void send_impl(const C& c, nb::handle buf, long long dest, long long tag, bool sync) {
  HeldBuffer b = acquire_buffer(buf, false, "send buffer");
  const int d = int_arg(dest, "dest"), t = int_arg(tag, "tag");
  nb::gil_scoped_release unlocked;
  if (sync) c.ssend(b.data, b.count, b.dt, d, t);
  else c.send(b.data, b.count, b.dt, d, t);
}

nb::object isend_impl(const C& c, nb::handle buf, long long dest, long long tag, bool sync) {
  HeldBuffer b = acquire_buffer(buf, false, "send buffer");
  const int d = int_arg(dest, "dest"), t = int_arg(tag, "tag");
  Request r = sync ? c.issend(b.data, b.count, b.dt, d, t) : c.isend(b.data, b.count, b.dt, d, t);
  return make_request(std::move(r), std::move(b));
}

void recv(const C& c, nb::handle buf, long long source, long long tag, nb::handle status) {
  HeldBuffer b = acquire_buffer(buf, true, "receive buffer");
  const int s = int_arg(source, "source"), t = int_arg(tag, "tag");
  status_arg(status);
  Status st;
  {
    nb::gil_scoped_release unlocked;
    st = c.recv(b.data, b.count, b.dt, s, t);
  }
  fill_status(status, st);
}

nb::object irecv(const C& c, nb::handle buf, long long source, long long tag) {
  HeldBuffer b = acquire_buffer(buf, true, "receive buffer");
  Request r = c.irecv(b.data, b.count, b.dt, int_arg(source, "source"), int_arg(tag, "tag"));
  return make_request(std::move(r), std::move(b));
}

void sendrecv(const C& c, nb::handle sendbuf, long long dest, long long sendtag,
              nb::handle recvbuf, long long source, long long recvtag, nb::handle status) {
  HeldBuffer s = acquire_buffer(sendbuf, false, "send buffer");
  HeldBuffer r;  // None: an empty receive, as in mpi4py
  if (!recvbuf.is_none()) r = acquire_buffer(recvbuf, true, "receive buffer");
  const int d = int_arg(dest, "dest"), st_ = int_arg(sendtag, "sendtag");
  const int src = int_arg(source, "source"), rt = int_arg(recvtag, "recvtag");
  status_arg(status);
  Status st;
  {
    nb::gil_scoped_release unlocked;
    st = c.sendrecv(s.data, s.count, s.dt, d, st_, r.data, r.count, r.dt, src, rt);
  }
  fill_status(status, st);
}

bool probe(const C& c, long long source, long long tag, nb::handle status) {
  const int s = int_arg(source, "source"), t = int_arg(tag, "tag");
  status_arg(status);
  Status st;
  {
    nb::gil_scoped_release unlocked;
    st = c.probe(s, t);
  }
  fill_status(status, st);
  return true;
}

bool iprobe(const C& c, long long source, long long tag, nb::handle status) {
  status_arg(status);
  Status st;
  bool found = c.iprobe(int_arg(source, "source"), int_arg(tag, "tag"), &st);
  if (found) fill_status(status, st);
  return found;
}

std::string comm_repr(const C& c) {
  if (c.is_null()) return "<interlace.Comm null>";
  return "<interlace.Comm rank " + std::to_string(c.rank()) + " of " + std::to_string(c.size()) +
         ", id " + std::to_string(c.id()) + ">";
}

}  // namespace

void bind_p2p_comm(nb::module_& m) {
  auto src = nb::arg("source") = ANY_SOURCE;
  auto tag_any = nb::arg("tag") = ANY_TAG;
  auto status = nb::arg("status") = nb::none();
  nb::class_<C>(m, "Comm", "Communicator: buffer point-to-point operations.")
      .def(nb::init<>())
      .def(nb::init<const C&>())
      .def_prop_ro("rank", &C::rank)
      .def_prop_ro("size", &C::size)
      .def_prop_ro("id", &C::id)
      .def_prop_ro("is_null", &C::is_null)
      .def("Get_rank", &C::rank)
      .def("Get_size", &C::size)
      .def("world_rank_of", &C::world_rank_of, nb::arg("rank"))
      .def("__bool__", [](const C& c) { return !c.is_null(); })
      .def("__eq__", [](const C& a, nb::handle o) {
        C* b = nullptr;
        if (!nb::try_cast<C*>(o, b) || !b) return false;
        if (a.is_null() || b->is_null()) return a.is_null() == b->is_null();
        return a.id() == b->id();
      })
      .def("__hash__", [](const C& c) { return c.is_null() ? 0 : c.id(); })
      .def("__repr__", &comm_repr)
      .def("Send", [](const C& c, nb::handle b, long long d, long long t) { send_impl(c, b, d, t, false); },
           nb::arg("buf"), nb::arg("dest"), nb::arg("tag") = 0)
      .def("Ssend", [](const C& c, nb::handle b, long long d, long long t) { send_impl(c, b, d, t, true); },
           nb::arg("buf"), nb::arg("dest"), nb::arg("tag") = 0)
      .def("Isend", [](const C& c, nb::handle b, long long d, long long t) { return isend_impl(c, b, d, t, false); },
           nb::arg("buf"), nb::arg("dest"), nb::arg("tag") = 0)
      .def("Issend", [](const C& c, nb::handle b, long long d, long long t) { return isend_impl(c, b, d, t, true); },
           nb::arg("buf"), nb::arg("dest"), nb::arg("tag") = 0)
      .def("Recv", &recv, nb::arg("buf"), src, tag_any, status)
      .def("Irecv", &irecv, nb::arg("buf"), src, tag_any)
      .def("Sendrecv", &sendrecv, nb::arg("sendbuf"), nb::arg("dest"), nb::arg("sendtag") = 0,
           nb::arg("recvbuf") = nb::none(), src, nb::arg("recvtag") = ANY_TAG, status)
      .def("Probe", &probe, src, tag_any, status)
      .def("Iprobe", &iprobe, src, tag_any, status)
      .def("_dup", [](const C& c) {
        nb::gil_scoped_release unlocked;  // collective
        return c.dup();
      })
      .def("_split", [](const C& c, long long color, long long key) {
        const int co = int_arg(color, "color"), k = int_arg(key, "key");
        nb::gil_scoped_release unlocked;  // collective
        return c.split(co, k);
      }, nb::arg("color") = 0, nb::arg("key") = 0)
      .def("Free", [](C& c) {
        nb::gil_scoped_release unlocked;  // collective
        c.free();
      });
}

}  // namespace interlace::python
