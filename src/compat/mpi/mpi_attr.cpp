// Attribute caching (mpi_attr.hpp): one keyval table for communicators, datatypes and
// windows, and the attributes of each (kind, handle). The table lock is never held
// while a user callback runs: callbacks may call MPI, attributes included.
#include "compat/mpi/mpi_attr.hpp"

#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace interlace::mpi {
namespace {

const char* kind_name(AttrKind k) {
  switch (k) {
    case AttrKind::comm: return "communicators";
    case AttrKind::type: return "datatypes";
    case AttrKind::win: return "windows";
  }
  return "?";
}

struct Keyval {
  AttrKind kind;
  AttrCopyFn copy = nullptr;
  AttrDeleteFn del = nullptr;
  void* extra = nullptr;
  InternalCopy internal_copy;  // set for internal keyvals only
  bool internal = false;
  bool freed = false;          // by the user; kept while attributes use it
  int refs = 1;                // the user's handle plus one per attribute set
};

struct Entry {
  int keyval;
  void* value = nullptr;
  std::shared_ptr<void> internal;
};

std::mutex g_mu;
std::unordered_map<int, Keyval> g_keyvals;
int g_next_keyval = kFirstUserKeyval;
// Per object, in the order the attributes were set (deleted in reverse order).
std::map<std::pair<int, int>, std::vector<Entry>> g_attrs;

std::vector<PredefinedAttr>& providers(AttrKind k) {
  static std::vector<PredefinedAttr> p[3];
  return p[static_cast<int>(k)];
}

std::pair<int, int> key(AttrKind k, int h) { return {static_cast<int>(k), h}; }

// The user keyval `keyval` of kind k (lock held); raises MPI_ERR_KEYVAL naming it.
Keyval& user_keyval(AttrKind k, int keyval) {
  auto it = g_keyvals.find(keyval);
  if (keyval == MPI_KEYVAL_INVALID)
    raise(MPI_ERR_KEYVAL, "keyval MPI_KEYVAL_INVALID is not a keyval");
  if (it == g_keyvals.end() || it->second.internal)
    raise(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " is not a valid keyval");
  if (it->second.kind != k)
    raise(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " was created for " +
                              kind_name(it->second.kind) + ", not for " + kind_name(k));
  return it->second;
}

void release(int keyval) {  // lock held
  auto it = g_keyvals.find(keyval);
  if (it != g_keyvals.end() && --it->second.refs == 0) g_keyvals.erase(it);
}

Entry* find(AttrKind k, int h, int keyval) {  // lock held
  auto it = g_attrs.find(key(k, h));
  if (it == g_attrs.end()) return nullptr;
  for (Entry& e : it->second)
    if (e.keyval == keyval) return &e;
  return nullptr;
}

void erase(AttrKind k, int h, int keyval) {  // lock held
  auto it = g_attrs.find(key(k, h));
  if (it == g_attrs.end()) return;
  auto& v = it->second;
  for (auto e = v.begin(); e != v.end(); ++e)
    if (e->keyval == keyval) {
      v.erase(e);
      release(keyval);
      break;
    }
  if (v.empty()) g_attrs.erase(it);
}

// Runs a callback's error through MPI's rules: the call that ran it fails with it.
[[noreturn]] void callback_failed(const char* what, int keyval, int rc) {
  int cls = MPI_ERR_OTHER;
  if (MPI_Error_class(rc, &cls) != MPI_SUCCESS) cls = MPI_ERR_OTHER;
  raise(cls, std::string(what) + " callback of keyval " + std::to_string(keyval) +
                 " returned error code " + std::to_string(rc));
}

// Runs the delete callback for (h, keyval, value) without the lock; raises its error.
void run_delete(AttrKind k, int h, int keyval, void* value) {
  AttrDeleteFn del;
  void* extra;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = g_keyvals.find(keyval);
    if (it == g_keyvals.end()) return;
    del = it->second.del;
    extra = it->second.extra;
  }
  if (!del) return;
  int rc = del(h, keyval, value, extra);
  if (rc != MPI_SUCCESS) callback_failed("delete", keyval, rc);
}

}  // namespace

int attr_create_keyval(AttrKind k, AttrCopyFn copy, AttrDeleteFn del, void* extra_state) {
  std::lock_guard<std::mutex> g(g_mu);
  int kv = g_next_keyval++;
  g_keyvals.emplace(kv, Keyval{k, copy, del, extra_state, {}, false, false, 1});
  return kv;
}

int attr_internal_keyval(AttrKind k, InternalCopy copy) {
  std::lock_guard<std::mutex> g(g_mu);
  int kv = g_next_keyval++;
  g_keyvals.emplace(kv, Keyval{k, nullptr, nullptr, nullptr, std::move(copy), true, false, 1});
  return kv;
}

void attr_free_keyval(AttrKind k, int* keyval) {
  if (!keyval) raise(MPI_ERR_ARG, "keyval is a null pointer");
  std::lock_guard<std::mutex> g(g_mu);
  if (*keyval > MPI_KEYVAL_INVALID && *keyval < kFirstUserKeyval)
    raise(MPI_ERR_KEYVAL, "keyval " + std::to_string(*keyval) + " is predefined and cannot be freed");
  Keyval& kv = user_keyval(k, *keyval);
  if (kv.freed) raise(MPI_ERR_KEYVAL, "keyval " + std::to_string(*keyval) + " was already freed");
  kv.freed = true;
  release(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
}

void attr_set(AttrKind k, int h, int keyval, void* value) {
  void* old = nullptr;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (keyval > MPI_KEYVAL_INVALID && keyval < kFirstUserKeyval)
      raise(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) +
                                " is predefined: its attribute cannot be set");
    Keyval& kv = user_keyval(k, keyval);
    if (kv.freed) raise(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) + " was freed");
    Entry* e = find(k, h, keyval);
    if (!e) {
      g_attrs[key(k, h)].push_back(Entry{keyval, value, {}});
      ++kv.refs;
      return;
    }
    old = e->value;
  }
  run_delete(k, h, keyval, old);  // MPI: replacing a value deletes the old one first
  std::lock_guard<std::mutex> g(g_mu);
  if (Entry* e = find(k, h, keyval)) {
    e->value = value;
  } else {  // the callback deleted it itself
    auto it = g_keyvals.find(keyval);
    if (it == g_keyvals.end()) return;
    g_attrs[key(k, h)].push_back(Entry{keyval, value, {}});
    ++it->second.refs;
  }
}

bool attr_get(AttrKind k, int h, int keyval, void* attribute_val) {
  if (!attribute_val) raise(MPI_ERR_ARG, "attribute_val is a null pointer");
  if (keyval > MPI_KEYVAL_INVALID && keyval < kFirstUserKeyval) {
    for (PredefinedAttr p : providers(k))
      if (p(h, keyval, attribute_val)) return true;
    return false;  // a predefined key without a value here (MPI_APPNUM, ...)
  }
  std::lock_guard<std::mutex> g(g_mu);
  user_keyval(k, keyval);  // a freed keyval still reads the attributes set with it
  if (Entry* e = find(k, h, keyval)) {
    *static_cast<void**>(attribute_val) = e->value;
    return true;
  }
  return false;
}

void attr_delete(AttrKind k, int h, int keyval) {
  void* value;
  {
    std::lock_guard<std::mutex> g(g_mu);
    if (keyval > MPI_KEYVAL_INVALID && keyval < kFirstUserKeyval)
      raise(MPI_ERR_KEYVAL, "keyval " + std::to_string(keyval) +
                                " is predefined: its attribute cannot be deleted");
    user_keyval(k, keyval);
    Entry* e = find(k, h, keyval);
    if (!e) raise(MPI_ERR_KEYVAL, "no attribute is set with keyval " + std::to_string(keyval) +
                                      " on handle " + std::to_string(h));
    value = e->value;
  }
  run_delete(k, h, keyval, value);  // on failure the attribute stays, as MPI says
  std::lock_guard<std::mutex> g(g_mu);
  erase(k, h, keyval);
}

void attr_set_internal(AttrKind k, int h, int keyval, std::shared_ptr<void> value) {
  std::shared_ptr<void> old;  // destroyed after the lock is released
  std::lock_guard<std::mutex> g(g_mu);
  auto it = g_keyvals.find(keyval);
  if (it == g_keyvals.end() || !it->second.internal || it->second.kind != k)
    raise(MPI_ERR_INTERN, "keyval " + std::to_string(keyval) + " is not an internal keyval");
  if (Entry* e = find(k, h, keyval)) {
    old = std::exchange(e->internal, std::move(value));
    return;
  }
  g_attrs[key(k, h)].push_back(Entry{keyval, nullptr, std::move(value)});
  ++it->second.refs;
}

std::shared_ptr<void> attr_get_internal(AttrKind k, int h, int keyval) {
  std::lock_guard<std::mutex> g(g_mu);
  Entry* e = find(k, h, keyval);
  return e ? e->internal : nullptr;
}

void attr_register_predefined(AttrKind k, PredefinedAttr provider) {
  std::lock_guard<std::mutex> g(g_mu);
  for (PredefinedAttr p : providers(k))
    if (p == provider) return;
  providers(k).push_back(provider);
}

void attr_copy_all(AttrKind k, int from, int to) {
  std::vector<Entry> src;
  {
    std::lock_guard<std::mutex> g(g_mu);
    auto it = g_attrs.find(key(k, from));
    if (it == g_attrs.end()) return;
    src = it->second;
  }
  for (const Entry& e : src) {
    Keyval kv;
    {
      std::lock_guard<std::mutex> g(g_mu);
      auto it = g_keyvals.find(e.keyval);
      if (it == g_keyvals.end()) continue;
      kv = it->second;
    }
    Entry out{e.keyval, nullptr, nullptr};
    if (kv.internal) {
      if (!kv.internal_copy || !e.internal) continue;
      out.internal = kv.internal_copy(e.internal);
      if (!out.internal) continue;
    } else {
      if (!kv.copy) continue;  // MPI_*_NULL_COPY_FN
      int flag = 0;
      int rc = kv.copy(from, e.keyval, kv.extra, e.value, &out.value, &flag);
      if (rc != MPI_SUCCESS) {
        try {
          attr_delete_all(k, to);  // the duplicate is not created: undo what was copied
        } catch (const MpiError&) {
        }
        callback_failed("copy", e.keyval, rc);
      }
      if (!flag) continue;
    }
    std::lock_guard<std::mutex> g(g_mu);
    auto it = g_keyvals.find(e.keyval);
    if (it == g_keyvals.end()) continue;
    ++it->second.refs;
    g_attrs[key(k, to)].push_back(std::move(out));
  }
}

void attr_delete_all(AttrKind k, int h) {
  std::string first_error;
  int first_class = MPI_SUCCESS;
  for (;;) {  // a delete callback may set new attributes on h: loop until none is left
    Entry e{0, nullptr, nullptr};
    {
      std::lock_guard<std::mutex> g(g_mu);
      auto it = g_attrs.find(key(k, h));
      if (it == g_attrs.end()) break;
      if (it->second.empty()) {
        g_attrs.erase(it);
        break;
      }
      e = std::move(it->second.back());
      it->second.pop_back();
    }
    if (!e.internal) {
      try {
        run_delete(k, h, e.keyval, e.value);
      } catch (const MpiError& err) {
        if (first_class == MPI_SUCCESS) {
          first_class = err.error_class();
          first_error = err.what();
        }
      }
    }
    e.internal.reset();
    std::lock_guard<std::mutex> g(g_mu);
    release(e.keyval);
  }
  if (first_class != MPI_SUCCESS) raise(first_class, first_error);
}

}  // namespace interlace::mpi
