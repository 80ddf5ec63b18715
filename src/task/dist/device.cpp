// The device's side of distributed tasks: serve() executes the host's commands in
// order; a distributed task runs as a task on the device's Executor.
#include <exception>

#include "task/dist/session_impl.hpp"

namespace interlace::task::dist {

DeviceFunction find_function(const std::string& name);

namespace {

void reply(Communicator& ctl, int host, const std::string& error) {
  std::vector<char> msg(1 + error.size());
  msg[0] = error.empty() ? 1 : 0;
  std::copy(error.begin(), error.end(), msg.begin() + 1);
  ctl.send(msg.data(), msg.size(), Datatype::bytes, host, kDone);
}

struct RunCommand {
  std::string name;
  std::vector<Clause> clauses;
  std::vector<std::byte> args;
};

RunCommand parse_run(Reader& r) {
  RunCommand c;
  auto name = r.get_bytes();
  c.name.assign(reinterpret_cast<const char*>(name.data()), name.size());
  auto n = r.get<uint32_t>();
  for (uint32_t i = 0; i < n; ++i) {
    Clause cl;
    cl.kind = r.get<ClauseKind>();
    cl.size = r.get<uint64_t>();
    cl.device = r.get<int32_t>();
    cl.address = reinterpret_cast<void*>(r.get<uint64_t>());
    c.clauses.push_back(cl);
  }
  auto a = r.get_bytes();
  c.args.assign(a.begin(), a.end());
  return c;
}

}  // namespace

void Session::serve() {
  Impl& s = *impl_;
  if (is_host())
    throw_error(Errc::unsupported, "serve() is for devices; world rank " +
                                       std::to_string(s.me) + " is the host");
  for (;;) {
    Status st = s.ctl.probe(s.host, kCmd);
    std::vector<std::byte> cmd(st.bytes);
    s.ctl.recv(cmd.data(), cmd.size(), Datatype::bytes, s.host, kCmd);
    Reader r{cmd.data(), cmd.data() + cmd.size()};
    auto op = r.get<Op>();
    if (op == Op::finish) return;
    if (op == Op::map) {
      auto key = r.get<uint64_t>();
      auto size = r.get<uint64_t>();
      std::string err;
      try {
        s.dev_maps[key].assign(size, std::byte{0});
      } catch (const std::bad_alloc&) {
        err = "cannot allocate " + std::to_string(size) + " bytes";
      }
      reply(s.ctl, s.host, err);
    } else if (op == Op::unmap) {
      s.dev_maps.erase(r.get<uint64_t>());
      reply(s.ctl, s.host, "");
    } else if (op == Op::copy_to || op == Op::copy_from) {
      auto key = r.get<uint64_t>();
      auto off = r.get<uint64_t>();
      auto size = r.get<uint64_t>();
      auto& buf = s.dev_maps[key];  // the host checked the range against its table
      if (op == Op::copy_to) {
        s.ctl.recv(buf.data() + off, size, Datatype::bytes, s.host, kData);
        reply(s.ctl, s.host, "");
      } else {
        reply(s.ctl, s.host, "");
        s.ctl.send(buf.data() + off, size, Datatype::bytes, s.host, kBack);
      }
    } else if (op == Op::run) {
      RunCommand c = parse_run(r);
      std::vector<std::vector<std::byte>> bufs(c.clauses.size());
      std::vector<void*> regions(c.clauses.size(), nullptr);
      std::vector<uint64_t> sizes(c.clauses.size(), 0);
      for (size_t i = 0; i < c.clauses.size(); ++i) {
        const Clause& cl = c.clauses[i];
        if (cl.kind == ClauseKind::mapped) {
          auto& m = s.dev_maps[reinterpret_cast<uint64_t>(cl.address)];
          regions[i] = m.data();
          sizes[i] = cl.size;
          continue;
        }
        uint64_t n = local_size(cl, s.ndev, s.dev);
        if (!n) continue;
        bufs[i].assign(n, std::byte{0});
        regions[i] = bufs[i].data();
        sizes[i] = n;
        if (cl.kind == ClauseKind::broadcast || cl.kind == ClauseKind::scatter ||
            cl.kind == ClauseKind::send)
          s.ctl.recv(regions[i], n, Datatype::bytes, s.host, kData);
      }
      std::string err;
      try {
        DeviceFunction fn = find_function(c.name);
        DeviceCall call{regions, sizes, c.args, s.dev, s.ndev, this};
        s.exec->spawn([&fn, &call] { fn(call); }, SpawnOptions{0, "distributed task"});
        s.exec->taskwait();
      } catch (const std::exception& e) {
        err = e.what();
        if (err.empty()) err = "an exception without a message";
      } catch (...) {
        err = "an exception that is not a std::exception";
      }
      reply(s.ctl, s.host, err);
      if (!err.empty()) continue;
      for (size_t i = 0; i < c.clauses.size(); ++i) {
        const Clause& cl = c.clauses[i];
        if ((cl.kind == ClauseKind::gather || cl.kind == ClauseKind::receive) && sizes[i])
          s.ctl.send(regions[i], sizes[i], Datatype::bytes, s.host, kBack);
      }
    } else {
      throw_error(Errc::protocol, "unknown distributed-task command " +
                                      std::to_string(static_cast<int>(op)));
    }
  }
}

}  // namespace interlace::task::dist
