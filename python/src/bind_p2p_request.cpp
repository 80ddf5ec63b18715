// interlace._core.Request: a non-blocking operation plus the Python buffers it
// reads or writes. The buffers stay exported until the operation completes;
// a Request dropped while still pending parks them in an orphan list instead
// of freeing memory the engine may still touch.
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bind_p2p_support.hpp"

namespace interlace::python {

namespace {

struct Orphan {
  Request req;
  std::vector<HeldBuffer> held;
  nb::object keep;
};

// Heap-allocated and never freed: its buffers must not be released after the
// interpreter is gone, which a static destructor would do.
std::vector<Orphan>& orphans() {
  static auto* list = new std::vector<Orphan>();
  return *list;
}

void sweep_orphans() {
  auto& list = orphans();
  for (size_t i = 0; i < list.size();) {
    bool done = true;
    try { done = list[i].req.test(); } catch (const Error&) {}
    if (done) {
      list[i] = std::move(list.back());
      list.pop_back();
    } else {
      ++i;
    }
  }
}

PyTypeObject* request_type() {
  static PyTypeObject* t = reinterpret_cast<PyTypeObject*>(nb::type<PyRequest>().ptr());
  return t;
}

// Subclasses (the lazily matched object receive in interlace/comm.py) are driven
// through their Python methods; the base class is driven directly.
PyRequest* exact(nb::handle h) {
  if (Py_TYPE(h.ptr()) == request_type()) return nb::inst_ptr<PyRequest>(h);
  if (!PyObject_TypeCheck(h.ptr(), request_type()))
    throw nb::type_error((std::string("expected an interlace.Request, got ") +
                          Py_TYPE(h.ptr())->tp_name).c_str());
  return nullptr;
}

Status do_wait(PyRequest& r) {
  if (r.done) return r.status;
  Status st;
  try {
    nb::gil_scoped_release unlocked;
    st = r.req.wait();
  } catch (const Error& e) {
    Status failed;
    failed.error = e.code();
    r.finish(failed);
    throw;
  }
  r.finish(st);
  return st;
}

bool do_test(PyRequest& r) {
  if (r.done) return true;
  Status st;
  bool ok = false;
  try {
    ok = r.req.test(&st);
  } catch (const Error& e) {
    Status failed;
    failed.error = e.code();
    r.finish(failed);
    throw;
  }
  if (ok) r.finish(st);
  return ok;
}

bool test_any_kind(nb::handle h, nb::handle status) {
  if (PyRequest* r = exact(h)) {
    bool ok = do_test(*r);
    if (ok) fill_status(status, r->status);
    return ok;
  }
  return nb::cast<bool>(h.attr("Test")(status));
}

// Growing sleeps (GIL released) for the rare lists that mix in Python-driven requests.
void back_off(int& round) {
  nb::gil_scoped_release unlocked;
  if (round < 8) std::this_thread::yield();
  else std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 1 << (round - 8))));
  ++round;
}

nb::object status_slot(nb::handle statuses, size_t i) {
  if (statuses.is_none()) return nb::none();
  return nb::borrow(statuses[i]);
}

// mpi4py fills a caller-provided list, growing it to the number of requests.
void prepare_statuses(nb::handle statuses, size_t n) {
  if (statuses.is_none()) return;
  if (!PyList_Check(statuses.ptr()))
    throw nb::type_error((std::string("statuses must be a list or None, got ") +
                          Py_TYPE(statuses.ptr())->tp_name).c_str());
  nb::list l = nb::borrow<nb::list>(statuses);
  while (nb::len(l) < n) l.append(nb::cast(Status{}));
}

bool waitall(nb::handle requests, nb::handle statuses) {
  std::vector<nb::object> reqs;
  bool all_exact = true;
  for (nb::handle h : requests) {
    reqs.push_back(nb::borrow(h));
    if (!exact(h)) all_exact = false;
  }
  prepare_statuses(statuses, reqs.size());
  if (all_exact) {
    // Each wait progresses every operation, so waiting in list order cannot deadlock.
    for (size_t i = 0; i < reqs.size(); ++i)
      fill_status(status_slot(statuses, i), do_wait(*exact(reqs[i])));
    return true;
  }
  // A Python-driven request only matches its message while it is being tested,
  // so test everything in turn rather than blocking on one.
  std::vector<bool> done(reqs.size(), false);
  size_t left = reqs.size();
  for (int round = 0; left > 0;) {
    bool moved = false;
    for (size_t i = 0; i < reqs.size(); ++i)
      if (!done[i] && test_any_kind(reqs[i], status_slot(statuses, i))) {
        done[i] = true;
        --left;
        moved = true;
      }
    if (moved) round = 0;
    else if (left > 0) back_off(round);
  }
  return true;
}

int waitany(nb::handle requests, nb::handle status) {
  std::vector<nb::object> reqs;
  for (nb::handle h : requests) reqs.push_back(nb::borrow(h));
  std::vector<Request> pending;
  std::vector<size_t> where;
  bool all_exact = true;
  for (size_t i = 0; i < reqs.size(); ++i) {
    PyRequest* r = exact(reqs[i]);
    if (!r) { all_exact = false; continue; }
    if (r->done) continue;  // inactive, as MPI treats completed requests
    if (r->req.is_null()) {   // e.g. a send to PROC_NULL: complete at once
      do_test(*r);
      fill_status(status, r->status);
      return static_cast<int>(i);
    }
    pending.push_back(r->req);
    where.push_back(i);
  }
  if (all_exact) {
    if (pending.empty()) {
      fill_status(status, Status{});
      return UNDEFINED;
    }
    int k = -1;
    try {
      nb::gil_scoped_release unlocked;
      k = Request::wait_any(pending, nullptr);
    } catch (const Error&) {
      // Attribute the failure to its request so that request is finished, then re-raise.
      for (size_t j = 0; j < where.size(); ++j) do_test(*exact(reqs[where[j]]));
      throw;
    }
    PyRequest* r = exact(reqs[where[k]]);
    do_test(*r);
    fill_status(status, r->status);
    return static_cast<int>(where[k]);
  }
  for (int round = 0;;) {
    bool active = false;
    for (size_t i = 0; i < reqs.size(); ++i) {
      PyRequest* r = exact(reqs[i]);
      if (r ? r->done : nb::cast<bool>(reqs[i].attr("_inactive"))) continue;
      active = true;
      if (test_any_kind(reqs[i], status)) return static_cast<int>(i);
    }
    if (!active) {
      fill_status(status, Status{});
      return UNDEFINED;
    }
    back_off(round);
  }
}

}  // namespace

PyRequest::~PyRequest() {
  if (done || req.is_null()) return;
  try {
    if (req.test()) return;
  } catch (const Error&) {
    return;
  }
  orphans().push_back(Orphan{std::move(req), std::move(held), std::move(keep)});
}

void PyRequest::finish(const Status& st) {
  status = st;
  done = true;
  held.clear();
  keep.reset();
  req = Request();
}

nb::object make_request(Request req, HeldBuffer a, HeldBuffer b, nb::object keep) {
  if (!orphans().empty()) sweep_orphans();
  auto* r = new PyRequest();
  r->req = std::move(req);
  r->held.push_back(std::move(a));
  r->held.push_back(std::move(b));
  r->keep = std::move(keep);
  return nb::cast(r, nb::rv_policy::take_ownership);
}

// Sends whose Request was dropped while pending (buffered object sends) must
// reach their receivers before the fabrics close. Gives up after `timeout_s`
// so that a program whose peer never receives still exits.
size_t drain_orphans(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration<double>(timeout_s);
  for (int round = 0; !orphans().empty(); ) {
    const size_t before = orphans().size();
    sweep_orphans();
    if (orphans().empty() || std::chrono::steady_clock::now() > deadline) break;
    if (orphans().size() < before) round = 0;
    else back_off(round);
  }
  return orphans().size();
}

void bind_p2p_request(nb::module_& m) {
  m.def("_drain_orphans", &drain_orphans, nb::arg("timeout_s"),
        "Completes dropped pending requests; returns how many are still pending.");
  nb::class_<PyRequest>(m, "Request", "Handle to a non-blocking operation.")
      .def(nb::init<>())
      .def("Wait", [](PyRequest& r, nb::handle status) {
             status_arg(status);
             fill_status(status, do_wait(r));
             return true;
           }, nb::arg("status") = nb::none())
      .def("wait", [](PyRequest& r, nb::handle status) {
             status_arg(status);
             fill_status(status, do_wait(r));
             return nb::none();
           }, nb::arg("status") = nb::none(),
           "Completes the operation; returns the received object for object receives, else None.")
      .def("Test", [](PyRequest& r, nb::handle status) {
             bool ok = do_test(r);
             if (ok) fill_status(status, r.status);
             return ok;
           }, nb::arg("status") = nb::none())
      .def("test", [](PyRequest& r, nb::handle status) {
             bool ok = do_test(r);
             if (ok) fill_status(status, r.status);
             return nb::make_tuple(ok, nb::none());
           }, nb::arg("status") = nb::none())
      .def("Cancel", [](PyRequest& r) { if (!r.done) r.req.cancel(); })
      .def("cancel", [](PyRequest& r) { if (!r.done) r.req.cancel(); },
           "Cancels a receive that has not matched yet; wait() then reports status.cancelled.")
      .def_prop_ro("_inactive", [](const PyRequest& r) { return r.done; })
      .def_static("Waitall", &waitall, nb::arg("requests"), nb::arg("statuses") = nb::none())
      .def_static("Waitany", &waitany, nb::arg("requests"), nb::arg("status") = nb::none(),
                  "Index of a completed request; UNDEFINED when none is active.")
      .def_static("Testall", [](nb::handle requests, nb::handle statuses) {
             std::vector<nb::object> reqs;
             for (nb::handle h : requests) reqs.push_back(nb::borrow(h));
             prepare_statuses(statuses, reqs.size());
             bool all = true;
             for (size_t i = 0; i < reqs.size(); ++i)
               all = test_any_kind(reqs[i], status_slot(statuses, i)) && all;
             return all;
           }, nb::arg("requests"), nb::arg("statuses") = nb::none())
      .def_static("waitall", [](nb::handle requests, nb::handle statuses) {
             waitall(requests, statuses);
             nb::list out;
             for (nb::handle h : requests) out.append(h.attr("wait")());
             return out;
           }, nb::arg("requests"), nb::arg("statuses") = nb::none(),
           "Waits for all; returns each request's wait() result (objects for object receives).");
}

}  // namespace interlace::python
