#include "bootstrap/file_store_dir.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <vector>

#include "interlace/core/error.hpp"

namespace interlace::bootstrap::detail {
namespace {

const char* kMembers = ".members";  // keys never start with '.', see encode_key

[[noreturn]] void refuse(const std::string& why) {
  throw_error(Errc::invalid_argument, "file store: " + why);
}

std::string octal(mode_t m) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(m & 07777));
  return buf;
}

struct Fd {
  int fd = -1;
  ~Fd() { if (fd >= 0) ::close(fd); }
};

void lock(int fd, const std::string& path) {
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) throw_system_error("file store: cannot lock '" + path + "'");
}

void make_parents(const std::string& dir) {
  for (size_t pos = 1; pos <= dir.size(); ++pos) {
    if (pos != dir.size() && dir[pos] != '/') continue;
    std::string part = dir.substr(0, pos);
    if (::mkdir(part.c_str(), 0700) != 0 && errno != EEXIST)
      throw_system_error("file store: cannot create directory '" + part + "'");
  }
}

// Start time of a live process (field 22 of /proc/PID/stat), "" when it is
// gone or a zombie. With the pid it names a process even across pid reuse.
std::string start_time(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(f, line)) return {};
  auto close = line.rfind(')');
  if (close == std::string::npos || close + 2 > line.size()) return {};
  std::istringstream rest(line.substr(close + 2));
  std::string field, state;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 3) state = field;
    if (i == 22) return (state == "Z" || state == "X") ? std::string() : field;
  }
  return {};
}

// Without a readable /proc nobody can be shown dead, so nothing is swept.
bool alive(const std::string& member) {
  static const bool proc_ok = !start_time(::getpid()).empty();
  if (!proc_ok) return true;
  std::istringstream in(member);
  long pid = 0;
  std::string start;
  if (!(in >> pid >> start) || pid <= 0) return false;
  return start_time(static_cast<pid_t>(pid)) == start;
}

std::vector<std::string> read_members(int dirfd, const std::string& where) {
  std::vector<std::string> out;
  Fd f{::openat(dirfd, kMembers, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)};
  if (f.fd < 0) {
    if (errno == ENOENT) return out;
    throw_system_error("file store: cannot open '" + where + "/" + kMembers + "'");
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(f.fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

void write_members(int dirfd, const std::vector<std::string>& members, const std::string& where) {
  const char* tmp = ".members.tmp";  // written only under the directory lock
  std::string text;
  for (const auto& m : members) text += m + "\n";
  Fd f{::openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600)};
  if (f.fd < 0) throw_system_error("file store: cannot create '" + where + "/" + tmp + "'");
  if (::write(f.fd, text.data(), text.size()) != static_cast<ssize_t>(text.size()))
    throw_system_error("file store: cannot write '" + where + "/" + tmp + "'");
  if (::renameat(dirfd, tmp, dirfd, kMembers) != 0)
    throw_system_error("file store: cannot rename '" + where + "/" + tmp + "'");
}

// Names in a directory (an fd of ours), without "." and ".."; empty if unreadable.
std::vector<std::string> entries(int dirfd) {
  std::vector<std::string> names;
  int fd = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return names;
  DIR* d = ::fdopendir(fd);
  if (!d) { ::close(fd); return names; }
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(n);
  }
  ::closedir(d);
  return names;
}

// Unlinks every entry; the store creates only plain files.
void wipe(int dirfd) {
  for (const auto& n : entries(dirfd)) ::unlinkat(dirfd, n.c_str(), 0);
}

bool same_dir(int parent_fd, const std::string& name, int fd) {
  struct stat a {}, b {};
  return ::fstatat(parent_fd, name.c_str(), &a, AT_SYMLINK_NOFOLLOW) == 0 &&
         ::fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

// Job directories whose members all died (a crashed job) are removed by the
// next job of the same user on this host. Best effort: a busy or odd entry is skipped.
void sweep_dead_jobs(int parent_fd, const std::string& ours) {
  for (const auto& n : entries(parent_fd)) {
    if (n == ours) continue;
    Fd s{::openat(parent_fd, n.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)};
    struct stat st {};
    if (s.fd < 0 || ::fstat(s.fd, &st) != 0 || st.st_uid != ::geteuid() || st.st_nlink == 0)
      continue;
    if (::flock(s.fd, LOCK_EX | LOCK_NB) != 0) continue;
    try {
      auto members = read_members(s.fd, n);
      // No member list: a job directory being set up right now.
      if (members.empty() || std::any_of(members.begin(), members.end(), alive)) continue;
    } catch (const Error&) {
      continue;
    }
    wipe(s.fd);
    ::unlinkat(parent_fd, n.c_str(), AT_REMOVEDIR);
  }
}

}  // namespace

std::string private_parent_name() { return "interlace-" + std::to_string(::geteuid()); }

StoreDir::StoreDir(const std::string& path) : path_(path) {
  auto slash = path_.rfind('/');
  parent_ = slash == std::string::npos ? "." : slash == 0 ? "/" : path_.substr(0, slash);
  name_ = slash == std::string::npos ? path_ : path_.substr(slash + 1);
  if (name_.empty() || name_ == "." || name_ == "..")
    refuse("'" + path + "' cannot be a store directory");
  auto pslash = parent_.rfind('/');
  job_dir_ = (pslash == std::string::npos ? parent_ : parent_.substr(pslash + 1)) ==
             private_parent_name();
  for (int attempt = 0;; ++attempt) {
    open_once();
    if (!job_dir_ || arrive()) break;
    // The last member of an earlier job removed it while we opened it.
    ::close(fd_);
    ::close(parent_fd_);
    fd_ = parent_fd_ = -1;
    if (attempt == 100) refuse("'" + path_ + "' keeps disappearing while it is opened");
  }
}

StoreDir::~StoreDir() {
  leave();
  if (fd_ >= 0) ::close(fd_);
  if (parent_fd_ >= 0) ::close(parent_fd_);
}

int StoreDir::reopen() const {
  int fd = ::openat(fd_, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw_system_error("file store: cannot reopen '" + path_ + "'");
  return fd;
}

void StoreDir::open_once() {
  const uid_t me = ::geteuid();
  make_parents(parent_);
  struct stat st {};
  // A link planted by someone else could lead us into a directory of ours
  // that happens to pass the checks below (~/.ssh); ours or root's is a choice.
  if (::lstat(parent_.c_str(), &st) == 0 && S_ISLNK(st.st_mode) && st.st_uid != me &&
      st.st_uid != 0)
    refuse("'" + parent_ + "' is a symbolic link owned by uid " + std::to_string(st.st_uid) +
           " (not this user, uid " + std::to_string(me) + ", nor root); not following it");
  parent_fd_ = ::open(parent_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (parent_fd_ < 0) throw_system_error("file store: cannot open directory '" + parent_ + "'");
  if (::fstat(parent_fd_, &st) != 0) throw_system_error("file store: cannot stat '" + parent_ + "'");
  if (st.st_uid != me && (job_dir_ || st.st_uid != 0))
    refuse("directory '" + parent_ + "' is owned by uid " + std::to_string(st.st_uid) +
           ", not by this user (uid " + std::to_string(me) + ")" + (job_dir_ ? "" : " or root") +
           "; another user may have created it to read or replace the job's store; remove it "
           "or point TMPDIR or INTERLACE_STORE elsewhere");
  if (job_dir_ && (st.st_mode & 077))
    refuse("directory '" + parent_ + "' has mode " + octal(st.st_mode) +
           "; the per-user store directory must be private (chmod 700)");
  if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))
    refuse("directory '" + parent_ + "' has mode " + octal(st.st_mode) +
           ": other users may write to it and it has no sticky bit, so they could replace "
           "the store directory");

  if (::mkdirat(parent_fd_, name_.c_str(), 0700) != 0 && errno != EEXIST)
    throw_system_error("file store: cannot create directory '" + path_ + "'");
  fd_ = ::openat(parent_fd_, name_.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd_ < 0) {
    // With O_DIRECTORY a link reports ENOTDIR rather than ELOOP.
    const int err = errno;
    if (err == ELOOP || (err == ENOTDIR && ::fstatat(parent_fd_, name_.c_str(), &st,
                                                     AT_SYMLINK_NOFOLLOW) == 0 &&
                         S_ISLNK(st.st_mode)))
      refuse("'" + path_ + "' is a symbolic link; not following it");
    if (err == ENOTDIR) refuse("'" + path_ + "' is not a directory");
    errno = err;
    throw_system_error("file store: cannot open directory '" + path_ + "'");
  }
  if (::fstat(fd_, &st) != 0) throw_system_error("file store: cannot stat '" + path_ + "'");
  if (st.st_uid != me)
    refuse("directory '" + path_ + "' is owned by uid " + std::to_string(st.st_uid) +
           ", not by this user (uid " + std::to_string(me) + "); another user may have created "
           "it to read or plant store data; remove it or choose another directory");
  if (st.st_mode & 077)
    refuse("directory '" + path_ + "' has mode " + octal(st.st_mode) +
           "; a store directory must be private to its user (no group or other "
           "permissions: chmod 700)");
}

bool StoreDir::arrive() {
  Fd lk{reopen()};
  lock(lk.fd, path_);
  struct stat st {};
  if (::fstat(lk.fd, &st) != 0 || st.st_nlink == 0) return false;
  auto members = read_members(fd_, path_);
  std::vector<std::string> live;
  for (const auto& m : members)
    if (alive(m)) live.push_back(m);
  // Every member gone: what is here is a crashed job's (same job id reused).
  if (live.empty() && !members.empty()) wipe(fd_);
  static std::atomic<unsigned> serial{0};
  member_ = std::to_string(::getpid()) + " " + start_time(::getpid()) + " " +
            std::to_string(serial.fetch_add(1));
  live.push_back(member_);
  write_members(fd_, live, path_);
  sweep_dead_jobs(parent_fd_, name_);
  return true;
}

void StoreDir::leave() noexcept {
  if (!job_dir_ || fd_ < 0 || member_.empty()) return;
  try {
    Fd lk{reopen()};
    lock(lk.fd, path_);
    auto members = read_members(fd_, path_);
    std::vector<std::string> rest;
    for (const auto& m : members)
      if (m != member_ && alive(m)) rest.push_back(m);
    if (!rest.empty()) {
      write_members(fd_, rest, path_);
      return;
    }
    wipe(fd_);
    if (same_dir(parent_fd_, name_, fd_)) ::unlinkat(parent_fd_, name_.c_str(), AT_REMOVEDIR);
  } catch (...) {
    // Leaving must not fail a finishing job; the next job sweeps what stays.
  }
}

}  // namespace interlace::bootstrap::detail
