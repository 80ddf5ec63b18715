// A store in a directory shared by the ranks of one host. Each key is a file;
// set() writes a temporary file and renames it, so a reader sees either no
// file or the complete value, never a partial write.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <thread>

#include "bootstrap/store_util.hpp"
#include "interlace/bootstrap/store.hpp"
#include "interlace/core/clock.hpp"

namespace interlace::bootstrap {
namespace {

// Keys may contain '/' and other characters a filename cannot; escape them as
// %XX. A leading '.' is escaped too, so keys never collide with our ".tmp" and
// ".lock" files.
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

void mkdir_p(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string part = dir.substr(0, pos);
    // 0700: the directory is the only protection a file store has.
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      throw_system_error("file store: cannot create directory '" + part + "'");
  }
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw_error(Errc::invalid_argument, "file store: '" + dir + "' is not a directory");
}

bool read_file(const std::string& path, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return false;
    throw_system_error("file store: cannot open '" + path + "'");
  }
  out->clear();
  char buf[4096];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ::close(fd);
      throw_system_error("file store: cannot read '" + path + "'");
    }
    if (n == 0) break;
    out->append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return true;
}

class FileStore final : public Store {
 public:
  explicit FileStore(std::string dir) : dir_(std::move(dir)) {
    while (dir_.size() > 1 && dir_.back() == '/') dir_.pop_back();
    if (dir_.empty()) throw_error(Errc::invalid_argument, "file store: empty directory name");
    mkdir_p(dir_);
  }

  void set(const std::string& key, const std::string& value) override {
    write_atomically(path_of(key), value);
  }

  std::string get(const std::string& key, double timeout_s) override {
    Deadline deadline = Deadline::after(timeout_s);
    std::string path = path_of(key), value;
    // Back off from 50 us to 10 ms: fast when peers are quick, cheap when a
    // rank waits long for a slow peer to start.
    auto pause = std::chrono::microseconds(50);
    while (!read_file(path, &value)) {
      if (deadline.expired())
        throw_error(Errc::timeout, detail::timeout_text(key, timeout_s, "file store " + dir_));
      std::this_thread::sleep_for(pause);
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(10));
    }
    return value;
  }

  bool check(const std::string& key) override {
    return ::access(path_of(key).c_str(), F_OK) == 0;
  }

  long long add(const std::string& key, long long delta) override {
    // The value file is replaced by rename, so it cannot carry the lock; a
    // separate lock file serialises read-modify-write across processes.
    std::string lock_path = dir_ + "/.lock." + encode_key(key);
    int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) throw_system_error("file store: cannot open lock file '" + lock_path + "'");
    while (::flock(fd, LOCK_EX) != 0) {
      if (errno != EINTR) {
        ::close(fd);
        throw_system_error("file store: cannot lock '" + lock_path + "'");
      }
    }
    long long v = 0;
    try {
      std::string path = path_of(key), old;
      v = (read_file(path, &old) ? detail::parse_counter(key, old) : 0) + delta;
      write_atomically(path, std::to_string(v));
    } catch (...) {
      ::close(fd);  // releases the flock
      throw;
    }
    ::close(fd);
    return v;
  }

 private:
  std::string path_of(const std::string& key) const { return dir_ + "/" + encode_key(key); }

  void write_atomically(const std::string& path, const std::string& value) {
    static std::atomic<unsigned long> counter{0};
    // Unique per process, thread and call, so concurrent setters never share a temp file.
    std::string tmp = dir_ + "/.tmp." + std::to_string(::getpid()) + "." +
                      std::to_string(counter.fetch_add(1));
    int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw_system_error("file store: cannot create '" + tmp + "'");
    const char* p = value.data();
    size_t left = value.size();
    while (left > 0) {
      ssize_t n = ::write(fd, p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        ::close(fd);
        ::unlink(tmp.c_str());
        throw_system_error("file store: cannot write '" + tmp + "'");
      }
      p += n;
      left -= static_cast<size_t>(n);
    }
    ::close(fd);
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
      ::unlink(tmp.c_str());
      throw_system_error("file store: cannot rename '" + tmp + "' to '" + path + "'");
    }
  }

  std::string dir_;
};

}  // namespace

std::unique_ptr<Store> make_file_store(const std::string& dir) {
  return std::make_unique<FileStore>(dir);
}

}  // namespace interlace::bootstrap
