// MPI_Info: ordered (key, value) string pairs, MPI_INFO_ENV (what the process was
// started with), and communicator hints (MPI_Comm_set_info/get_info), kept as given:
// interlace acts on no communicator hint, which MPI allows.
#include "compat/mpi/mpi_info.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>

#include "compat/mpi/mpi_attr.hpp"

namespace interlace::mpi {
namespace {

std::mutex g_mu;  // info calls are allowed before MPI_Init and from any thread
HandleTable<InfoItems> g_infos;  // 1: MPI_INFO_ENV (its items are made when read)

std::string handle_name(MPI_Info info) {
  if (info == MPI_INFO_NULL) return "MPI_INFO_NULL";
  if (info == MPI_INFO_ENV) return "MPI_INFO_ENV";
  return "info " + std::to_string(info);
}

// The command line of this process (argv[0] first), from /proc.
std::vector<std::string> own_argv() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] == '\0') {
      out.push_back(all.substr(start, i - start));
      start = i + 1;
    }
  return out;
}

InfoItems env_items(const std::vector<std::string>& argv) {
  InfoItems items;
  if (!argv.empty()) {
    items.emplace_back("command", argv[0]);
    std::string rest;
    for (size_t i = 1; i < argv.size(); ++i) rest += (i > 1 ? " " : "") + argv[i];
    if (!rest.empty()) items.emplace_back("argv", rest);
  }
  const State& s = state();
  if (s.initialized && !s.finalized) {
    items.emplace_back("maxprocs", std::to_string(comm_of(MPI_COMM_WORLD).size()));
    static const char* const levels[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                         "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};
    if (s.thread_level >= 0 && s.thread_level <= 3)
      items.emplace_back("thread_level", levels[s.thread_level]);
  }
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) items.emplace_back("host", host);
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd)) items.emplace_back("wdir", cwd);
  return items;
}

// The items of a user info object or MPI_INFO_ENV (lock held).
InfoItems& items_of(MPI_Info info) {
  if (info == MPI_INFO_ENV) {
    if (!g_infos.get(MPI_INFO_ENV)) g_infos.put(MPI_INFO_ENV, InfoItems{});
    *g_infos.get(MPI_INFO_ENV) = env_items(own_argv());
  }
  InfoItems* it = g_infos.get(info);
  if (!it) raise(MPI_ERR_INFO, handle_name(info) + " is not a valid info object");
  return *it;
}

InfoItems& user_items(MPI_Info info) {  // one the user may change or free
  if (info == MPI_INFO_ENV) raise(MPI_ERR_INFO, "MPI_INFO_ENV is predefined and cannot be changed");
  return items_of(info);
}

const std::string& check_key(const char* key) {
  need(key, "key");
  static thread_local std::string k;
  k = key;
  if (k.empty()) raise(MPI_ERR_INFO_KEY, "info key is empty");
  if (k.size() > MPI_MAX_INFO_KEY)
    raise(MPI_ERR_INFO_KEY, "info key of " + std::to_string(k.size()) +
                                " characters is longer than MPI_MAX_INFO_KEY (255)");
  return k;
}

const std::string* find(const InfoItems& items, const std::string& key) {
  for (const auto& kv : items)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

void ensure_env_slot() {  // the first user object must not take MPI_INFO_ENV's handle
  if (!g_infos.get(MPI_INFO_ENV)) g_infos.put(MPI_INFO_ENV, InfoItems{});
}

int hints_keyval() {
  static const int kv = attr_internal_keyval(
      AttrKind::comm, [](const std::shared_ptr<void>& v) -> std::shared_ptr<void> {
        return std::make_shared<InfoItems>(*std::static_pointer_cast<InfoItems>(v));
      });
  return kv;
}

}  // namespace

InfoItems info_items(MPI_Info info) {
  if (info == MPI_INFO_NULL) return {};
  std::lock_guard<std::mutex> g(g_mu);
  return items_of(info);
}

MPI_Info info_new(InfoItems items) {
  std::lock_guard<std::mutex> g(g_mu);
  ensure_env_slot();
  return g_infos.add(std::move(items));
}

void comm_set_hints(MPI_Comm comm, InfoItems items) {
  attr_set_internal(AttrKind::comm, comm, hints_keyval(),
                    std::make_shared<InfoItems>(std::move(items)));
}

InfoItems comm_hints(MPI_Comm comm) {
  auto v = attr_get_internal(AttrKind::comm, comm, hints_keyval());
  return v ? *std::static_pointer_cast<InfoItems>(v) : InfoItems{};
}

}  // namespace interlace::mpi

using namespace interlace::mpi;

extern "C" {

int MPI_Info_create(MPI_Info* info) {
  return guard("MPI_Info_create", MPI_COMM_NULL, [&] {
    need(info, "info");
    *info = info_new({});
  });
}

int MPI_Info_create_env(int argc, char* argv[], MPI_Info* info) {
  return guard("MPI_Info_create_env", MPI_COMM_NULL, [&] {
    need(info, "info");
    if (argc < 0) raise(MPI_ERR_ARG, "argc " + std::to_string(argc) + " is negative");
    std::vector<std::string> args;
    if (argv)
      for (int i = 0; i < argc && argv[i]; ++i) args.emplace_back(argv[i]);
    *info = info_new(env_items(args.empty() ? own_argv() : args));
  });
}

int MPI_Info_set(MPI_Info info, const char* key, const char* value) {
  return guard("MPI_Info_set", MPI_COMM_NULL, [&] {
    const std::string& k = check_key(key);
    need(value, "value");
    size_t n = std::strlen(value);
    if (n == 0) raise(MPI_ERR_INFO_VALUE, "value of info key \"" + k + "\" is empty");
    if (n > MPI_MAX_INFO_VAL)
      raise(MPI_ERR_INFO_VALUE, "value of info key \"" + k + "\" has " + std::to_string(n) +
                                    " characters, more than MPI_MAX_INFO_VAL (1024)");
    std::lock_guard<std::mutex> g(g_mu);
    InfoItems& items = user_items(info);
    for (auto& kv : items)
      if (kv.first == k) {
        kv.second = value;
        return;
      }
    items.emplace_back(k, value);
  });
}

int MPI_Info_delete(MPI_Info info, const char* key) {
  return guard("MPI_Info_delete", MPI_COMM_NULL, [&] {
    const std::string& k = check_key(key);
    std::lock_guard<std::mutex> g(g_mu);
    InfoItems& items = user_items(info);
    auto it = std::find_if(items.begin(), items.end(), [&](auto& kv) { return kv.first == k; });
    if (it == items.end())
      raise(MPI_ERR_INFO_NOKEY, "info key \"" + k + "\" is not in " + handle_name(info));
    items.erase(it);
  });
}

int MPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
  return guard("MPI_Info_get", MPI_COMM_NULL, [&] {
    const std::string& k = check_key(key);
    need(flag, "flag");
    if (valuelen < 0) raise(MPI_ERR_ARG, "valuelen " + std::to_string(valuelen) + " is negative");
    std::lock_guard<std::mutex> g(g_mu);
    const std::string* v = find(items_of(info), k);
    *flag = v != nullptr;
    if (!v) return;
    need(value, "value");
    // MPI: value holds valuelen characters plus the terminating null.
    size_t n = std::min(v->size(), static_cast<size_t>(valuelen));
    std::memcpy(value, v->data(), n);
    value[n] = '\0';
  });
}

int MPI_Info_get_string(MPI_Info info, const char* key, int* buflen, char* value, int* flag) {
  return guard("MPI_Info_get_string", MPI_COMM_NULL, [&] {
    const std::string& k = check_key(key);
    need(flag, "flag");
    need(buflen, "buflen");
    if (*buflen < 0) raise(MPI_ERR_ARG, "buflen " + std::to_string(*buflen) + " is negative");
    std::lock_guard<std::mutex> g(g_mu);
    const std::string* v = find(items_of(info), k);
    *flag = v != nullptr;
    if (!v) return;
    // MPI 4: up to buflen-1 characters and a null; buflen becomes the full length + 1.
    if (*buflen > 0) {
      need(value, "value");
      size_t n = std::min(v->size(), static_cast<size_t>(*buflen - 1));
      std::memcpy(value, v->data(), n);
      value[n] = '\0';
    }
    *buflen = static_cast<int>(v->size()) + 1;
  });
}

int MPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
  return guard("MPI_Info_get_valuelen", MPI_COMM_NULL, [&] {
    const std::string& k = check_key(key);
    need(valuelen, "valuelen");
    need(flag, "flag");
    std::lock_guard<std::mutex> g(g_mu);
    const std::string* v = find(items_of(info), k);
    *flag = v != nullptr;
    if (v) *valuelen = static_cast<int>(v->size());
  });
}

int MPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
  return guard("MPI_Info_get_nkeys", MPI_COMM_NULL, [&] {
    need(nkeys, "nkeys");
    std::lock_guard<std::mutex> g(g_mu);
    *nkeys = static_cast<int>(items_of(info).size());
  });
}

int MPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
  return guard("MPI_Info_get_nthkey", MPI_COMM_NULL, [&] {
    need(key, "key");
    std::lock_guard<std::mutex> g(g_mu);
    const InfoItems& items = items_of(info);
    if (n < 0 || static_cast<size_t>(n) >= items.size())
      raise(MPI_ERR_ARG, "n " + std::to_string(n) + " is not below the number of keys (" +
                             std::to_string(items.size()) + ") of " + handle_name(info));
    const std::string& k = items[n].first;
    std::memcpy(key, k.c_str(), k.size() + 1);
  });
}

int MPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
  return guard("MPI_Info_dup", MPI_COMM_NULL, [&] {
    need(newinfo, "newinfo");
    std::lock_guard<std::mutex> g(g_mu);
    InfoItems copy = items_of(info);
    *newinfo = g_infos.add(std::move(copy));
  });
}

int MPI_Info_free(MPI_Info* info) {
  return guard("MPI_Info_free", MPI_COMM_NULL, [&] {
    need(info, "info");
    std::lock_guard<std::mutex> g(g_mu);
    user_items(*info);
    g_infos.remove(*info);
    *info = MPI_INFO_NULL;
  });
}

int MPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  return guard("MPI_Comm_set_info", comm, [&] {
    require_initialized("MPI_Comm_set_info");
    comm_obj(comm);
    InfoItems items = info_items(info);
    // MPI: a later call adds to and replaces the hints given before.
    InfoItems all = comm_hints(comm);
    for (auto& kv : items) {
      auto it = std::find_if(all.begin(), all.end(), [&](auto& a) { return a.first == kv.first; });
      if (it != all.end()) it->second = kv.second;
      else all.push_back(kv);
    }
    comm_set_hints(comm, std::move(all));
  });
}

int MPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  return guard("MPI_Comm_get_info", comm, [&] {
    require_initialized("MPI_Comm_get_info");
    comm_obj(comm);
    need(info_used, "info_used");
    *info_used = info_new(comm_hints(comm));
  });
}

}  // extern "C"
