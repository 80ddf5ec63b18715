// The directory under a FileStore: opened so that another local user can
// neither read nor plant store data, and, for job directories inside the
// per-user parent ($TMPDIR/interlace-<uid>), removed when its last member
// leaves. See docs/launcher.md, "Local security".
#pragma once
#include <string>

namespace interlace::bootstrap::detail {

// Name of the per-user parent of job store directories: "interlace-<euid>".
std::string private_parent_name();

class StoreDir {
 public:
  // Creates missing components (mode 0700) and opens `path`. Refuses, with
  // Errc::invalid_argument naming the path and the reason: a store directory
  // that is a symbolic link, not owned by this user or open to group/other;
  // a parent owned by another user, or writable by others without the sticky
  // bit; a per-user parent that is not private.
  explicit StoreDir(const std::string& path);
  ~StoreDir();  // leaves the job (job directories only); never throws
  StoreDir(const StoreDir&) = delete;
  StoreDir& operator=(const StoreDir&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // A new open file description of the directory, for flock(): locks belong
  // to descriptions, so each caller needs its own to exclude other threads.
  int reopen() const;

 private:
  void open_once();
  bool arrive();  // false: the directory was removed under us, open again
  void leave() noexcept;

  std::string path_, parent_, name_;
  int parent_fd_ = -1;
  int fd_ = -1;
  bool job_dir_ = false;  // inside the per-user parent: membership and removal
  std::string member_;    // our line in .members
};

}  // namespace interlace::bootstrap::detail
