// The file store against another local user: directories it did not create
// privately are refused, planted links are not followed, file contents never
// reach error messages; job directories go away with their last member.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "interlace/bootstrap/store.hpp"
#include "interlace/core/error.hpp"

using namespace interlace;
using namespace interlace::bootstrap;
namespace fs = std::filesystem;

namespace {

constexpr uid_t kNobody = 65534;
const char* kSecret = "TOP-SECRET-VICTIM-CONTENT";

class FileStoreSecurity : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "il-sec-XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
  }
  void TearDown() override { fs::remove_all(root_); }

  // The message of the Error that opening (or the action) throws; "" if none.
  template <class F>
  static std::string error_of(F&& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  }
  std::string victim() {
    std::string v = root_ + "/victim";
    std::ofstream(v) << kSecret;
    return v;
  }
  std::string private_parent() {
    std::string p = root_ + "/interlace-" + std::to_string(geteuid());
    EXPECT_EQ(mkdir(p.c_str(), 0700), 0);
    return p;
  }
  std::string root_;
};

TEST_F(FileStoreSecurity, DirectoryOwnedByAnotherUserIsRefused) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
  std::string d = root_ + "/theirs";
  ASSERT_EQ(mkdir(d.c_str(), 0700), 0);
  ASSERT_EQ(chown(d.c_str(), kNobody, kNobody), 0);
  std::string msg = error_of([&] { make_file_store(d); });
  EXPECT_NE(msg.find("'" + d + "' is owned by uid 65534"), std::string::npos) << msg;
  EXPECT_NE(msg.find("not by this user (uid 0)"), std::string::npos) << msg;
}

TEST_F(FileStoreSecurity, WorldWritableDirectoryIsRefused) {
  std::string d = root_ + "/open";
  ASSERT_EQ(mkdir(d.c_str(), 0700), 0);
  ASSERT_EQ(chmod(d.c_str(), 0777), 0);
  std::string msg = error_of([&] { make_file_store(d); });
  EXPECT_NE(msg.find("'" + d + "' has mode 0777"), std::string::npos) << msg;
  ASSERT_EQ(chmod(d.c_str(), 0750), 0);  // group access alone is refused too
  msg = error_of([&] { make_file_store(d); });
  EXPECT_NE(msg.find("mode 0750"), std::string::npos) << msg;
  ASSERT_EQ(chmod(d.c_str(), 0700), 0);
  EXPECT_EQ(error_of([&] { make_file_store(d)->set("k", "v"); }), "");
}

TEST_F(FileStoreSecurity, StoreDirectoryThatIsASymlinkIsNotFollowed) {
  std::string target = root_ + "/real";
  ASSERT_EQ(mkdir(target.c_str(), 0700), 0);
  std::string link = root_ + "/link";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  std::string msg = error_of([&] { make_file_store(link); });
  EXPECT_NE(msg.find("'" + link + "' is a symbolic link"), std::string::npos) << msg;
}

TEST_F(FileStoreSecurity, PlantedLinkToAStoreFileIsNotFollowedNorShown) {
  std::string d = root_ + "/store";
  auto s = make_file_store(d);
  std::string v = victim();
  ASSERT_EQ(symlink(v.c_str(), (d + "/counter").c_str()), 0);
  ASSERT_EQ(symlink(v.c_str(), (d + "/key").c_str()), 0);

  std::string add_msg = error_of([&] { s->add("counter", 1); });
  std::string get_msg = error_of([&] { s->get("key", 1.0); });
  for (const std::string& msg : {add_msg, get_msg}) {
    EXPECT_NE(msg.find("is a symbolic link"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(kSecret), std::string::npos) << msg;
  }
  // set() replaces the link itself; the victim is untouched.
  s->set("key", "ours");
  EXPECT_EQ(s->get("key", 1.0), "ours");
  std::ifstream in(v);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, kSecret);
}

TEST_F(FileStoreSecurity, CounterErrorsDoNotEchoTheValue) {
  std::unique_ptr<Store> stores[] = {make_memory_store(), make_file_store(root_ + "/s")};
  for (auto& store : stores) {
    store->set("k", kSecret);
    std::string msg = error_of([&] { store->add("k", 1); });
    EXPECT_NE(msg.find("'k'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("is not an integer"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(kSecret), std::string::npos) << msg;
  }
}

TEST_F(FileStoreSecurity, ParentWritableByOthersWithoutStickyBitIsRefused) {
  std::string p = root_ + "/shared";
  ASSERT_EQ(mkdir(p.c_str(), 0700), 0);
  ASSERT_EQ(chmod(p.c_str(), 0777), 0);
  std::string msg = error_of([&] { make_file_store(p + "/job"); });
  EXPECT_NE(msg.find("'" + p + "' has mode 0777"), std::string::npos) << msg;
  ASSERT_EQ(chmod(p.c_str(), 01777), 0);  // like /tmp: others cannot replace our entry
  EXPECT_EQ(error_of([&] { make_file_store(p + "/job")->set("k", "v"); }), "");
}

TEST_F(FileStoreSecurity, PerUserParentMustBeOursAndPrivate) {
  std::string p = private_parent();
  ASSERT_EQ(chmod(p.c_str(), 0755), 0);
  std::string msg = error_of([&] { make_file_store(p + "/job"); });
  EXPECT_NE(msg.find("'" + p + "' has mode 0755"), std::string::npos) << msg;
  if (geteuid() == 0) {
    ASSERT_EQ(chmod(p.c_str(), 0700), 0);
    ASSERT_EQ(chown(p.c_str(), kNobody, kNobody), 0);
    msg = error_of([&] { make_file_store(p + "/job"); });
    EXPECT_NE(msg.find("'" + p + "' is owned by uid 65534"), std::string::npos) << msg;
  }
}

TEST_F(FileStoreSecurity, JobDirectoryGoesWithItsLastMember) {
  std::string job = private_parent() + "/ompi-42";
  auto a = make_file_store(job);
  auto b = make_file_store(job);
  a->set("addr", "x");
  a.reset();
  EXPECT_TRUE(fs::exists(job));  // b is still a member
  EXPECT_EQ(b->get("addr", 1.0), "x");
  b.reset();
  EXPECT_FALSE(fs::exists(job));

  // A directory the user named (not inside the per-user parent) stays.
  std::string mine = root_ + "/mine";
  make_file_store(mine)->set("k", "v");
  EXPECT_TRUE(fs::exists(mine + "/k"));
}

// A job directory whose members are all dead: a crashed job.
std::string plant_dead_job(const std::string& dir) {
  pid_t child = fork();
  if (child == 0) _exit(0);
  waitpid(child, nullptr, 0);  // reaped: its pid names nobody now
  EXPECT_EQ(mkdir(dir.c_str(), 0700), 0);
  std::ofstream(dir + "/.members") << child << " 12345 0\n";
  std::ofstream(dir + "/barrier%2fb%2fcount") << "7";
  return dir;
}

TEST_F(FileStoreSecurity, CrashedJobIsSweptByTheNextJob) {
  std::string p = private_parent();
  std::string dead = plant_dead_job(p + "/ompi-crashed");
  std::string busy = p + "/being-set-up";  // no member list yet: left alone
  ASSERT_EQ(mkdir(busy.c_str(), 0700), 0);
  auto s = make_file_store(p + "/ompi-next");
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(busy));
}

TEST_F(FileStoreSecurity, ReusedJobIdStartsFromAnEmptyStore) {
  std::string p = private_parent();
  std::string job = plant_dead_job(p + "/ompi-7");
  auto s = make_file_store(job);
  EXPECT_FALSE(s->check("barrier/b/count"));  // the crashed job's counter is gone
  EXPECT_EQ(s->add("barrier/b/count", 1), 1);
}

}  // namespace
