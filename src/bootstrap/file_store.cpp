// A store in a directory shared by the ranks of one host. Each key is a file;
// set() writes a temporary file and renames it, so a reader sees either no
// file or the complete value, never a partial write. The directory is private
// to the user and checked on opening (file_store_dir.hpp).
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "bootstrap/file_store_dir.hpp"
#include "bootstrap/store_util.hpp"
#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"

namespace interlace::bootstrap {
namespace {

// Keys may contain '/' and other characters a filename cannot; escape them as
// %XX. A leading '.' is escaped too, so keys never collide with our ".tmp" and
// ".members" files.
std::string encode_key(const std::string& key) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < key.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(key[i]);
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || (c == '.' && i > 0);
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (out.empty()) out = "%";  // the empty key is legal, "" is not a filename
  return out;
}

// Store files are opened relative to the verified directory and never through
// a symbolic link; what such a file holds never appears in an error message.
bool read_file(int dirfd, const std::string& name, const std::string& shown, std::string* out) {
  int fd = ::openat(dirfd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return false;
    if (errno == ELOOP)
      throw_error(Errc::invalid_argument,
                  "file store: '" + shown + "' is a symbolic link; not following it");
    throw_system_error("file store: cannot open '" + shown + "'");
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw_error(Errc::invalid_argument, "file store: '" + shown + "' is not a regular file");
  }
  out->clear();
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw_system_error("file store: cannot read '" + shown + "'");
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

class FileStore final : public Store {
 public:
  explicit FileStore(const std::string& dir) : dir_(checked(dir)) {}

  void set(const std::string& key, const std::string& value) override {
    write_atomically(encode_key(key), value);
  }

  std::string get(const std::string& key, double timeout_s) override {
    Deadline deadline = Deadline::after(timeout_s);
    std::string name = encode_key(key), value;
    // Back off from 50 us to 10 ms: fast when peers are quick, cheap when a
    // rank waits long for a slow peer to start.
    auto pause = std::chrono::microseconds(50);
    while (!read_file(dir_.fd(), name, shown(name), &value)) {
      if (deadline.expired())
        throw_error(Errc::timeout, detail::timeout_text(key, timeout_s, "file store " + dir_.path()));
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(10));
    }
    return value;
  }

  bool check(const std::string& key) override {
    struct stat st {};
    return ::fstatat(dir_.fd(), encode_key(key).c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0;
  }

  long long add(const std::string& key, long long delta) override {
    // The value file is replaced by rename, so it cannot carry the lock; the
    // directory's own lock serialises read-modify-write across processes. A
    // fresh description per call, because flock does not exclude threads
    // sharing one.
    int fd = dir_.reopen();
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        ::close(fd);
        throw_system_error("file store: cannot lock '" + dir_.path() + "'");
      }
    }
    long long v = 0;
    try {
      std::string name = encode_key(key), old;
      v = (read_file(dir_.fd(), name, shown(name), &old) ? detail::parse_counter(key, old) : 0) +
          delta;
      write_atomically(name, std::to_string(v));
    } catch (...) {
      ::close(fd);  // releases the flock
      throw;
    }
    ::close(fd);
    return v;
  }

 private:
  static std::string checked(std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    if (dir.empty()) throw_error(Errc::invalid_argument, "file store: empty directory name");
    return dir;
  }
  std::string shown(const std::string& name) const { return dir_.path() + "/" + name; }

  void write_atomically(const std::string& name, const std::string& value) {
    static std::atomic<unsigned long> counter{0};
    // Unique per process, thread and call, so concurrent setters never share a temp file.
    std::string tmp = ".tmp." + std::to_string(::getpid()) + "." +
                      std::to_string(counter.fetch_add(1));
    int fd = ::openat(dir_.fd(), tmp.c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw_system_error("file store: cannot create '" + shown(tmp) + "'");
    const char* p = value.data();
    size_t left = value.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        ::unlinkat(dir_.fd(), tmp.c_str(), 0);
        throw_system_error("file store: cannot write '" + shown(tmp) + "'");
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    ::close(fd);
    // rename replaces whatever entry has the name, a planted link included,
    // without following it.
    if (::renameat(dir_.fd(), tmp.c_str(), dir_.fd(), name.c_str()) != 0) {
      ::unlinkat(dir_.fd(), tmp.c_str(), 0);
      throw_system_error("file store: cannot rename '" + shown(tmp) + "' to '" + shown(name) + "'");
    }
  }

  detail::StoreDir dir_;
};

}  // namespace

std::unique_ptr<Store> make_file_store(const std::string& dir) {
  return std::make_unique<FileStore>(dir);
}

}  // namespace interlace::bootstrap
