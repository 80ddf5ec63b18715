// The TCP store server, for the launcher of multi-host jobs: it serves the
// job's key-value store while the ranks bootstrap.
#include <memory>
#include <string>

#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>

#include "bindings.hpp"
#include "interlace/bootstrap/store.hpp"

namespace nb = nanobind;

namespace interlace::python {
namespace {

// Holds the server behind a pointer so close() can stop it deterministically
// (Python's garbage collection would otherwise decide when the port is freed).
class StoreServerHandle {
 public:
  StoreServerHandle(const std::string& host, int port, const std::string& secret) {
    if (port < 0 || port > 65535)
      throw nb::value_error(("TcpStoreServer: port " + std::to_string(port) +
                             " is outside 0..65535").c_str());
    nb::gil_scoped_release unlocked;  // binding and starting threads may take a moment
    server_ = std::make_unique<bootstrap::TcpStoreServer>(host, port, secret);
    port_ = server_->port();
  }
  int port() const { return port_; }
  bool closed() const { return !server_; }
  void close() {
    nb::gil_scoped_release unlocked;  // joins the server's threads
    server_.reset();
  }

 private:
  std::unique_ptr<bootstrap::TcpStoreServer> server_;
  int port_ = 0;
};

}  // namespace

void bind_store(nb::module_& m) {
  nb::class_<StoreServerHandle>(m, "TcpStoreServer",
                                "Serves a job's key-value store over TCP until closed.")
      .def(nb::init<const std::string&, int, const std::string&>(), nb::arg("host"),
           nb::arg("port"), nb::arg("secret"),
           "Binds host:port (port 0 picks a free one); clients must present secret.")
      .def_prop_ro("port", &StoreServerHandle::port, "The port actually bound.")
      .def_prop_ro("closed", &StoreServerHandle::closed)
      .def("close", &StoreServerHandle::close, "Stops serving; idempotent.")
      .def("__enter__", [](StoreServerHandle& s) -> StoreServerHandle& { return s; },
           nb::rv_policy::reference)
      .def("__exit__", [](StoreServerHandle& s, nb::args) { s.close(); });
}

}  // namespace interlace::python
