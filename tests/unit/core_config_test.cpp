#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "interlace/core/config.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/log.hpp"

using namespace interlace;

namespace {

const char* kVars[] = {"INTERLACE_FABRIC", "INTERLACE_EAGER_LIMIT", "INTERLACE_SHM_RING_BYTES",
                       "INTERLACE_SHM_SINGLE_COPY", "INTERLACE_SPIN", "INTERLACE_YIELD", "INTERLACE_PROGRESS",
                       "INTERLACE_PEER_CHECK", "INTERLACE_CONNECT_TIMEOUT", "INTERLACE_TIMEOUT",
                       "INTERLACE_TCP_ADDR", "INTERLACE_LOG", "INTERLACE_COLL", "INTERLACE_COLL_SEGMENT",
                       "INTERLACE_COLL_CHECK", "INTERLACE_EAGER_CREDIT", "INTERLACE_TASK_WORKERS",
                       "INTERLACE_ZRLMPI_RANKS", "INTERLACE_ROUTES", "INTERLACE_ROUTE_CREDITS",
                       "INTERLACE_ROUTE_WATCHDOG"};

// Clears every variable before and after each test so tests do not leak settings.
class CoreConfig : public ::testing::Test {
 protected:
  void SetUp() override { clear(); }
  void TearDown() override { clear(); }
  static void clear() {
    for (const char* v : kVars) unsetenv(v);
  }
  // Expects from_env to fail with a message naming both variable and value.
  static void expect_bad(const char* var, const char* value) {
    setenv(var, value, 1);
    try {
      Config::from_env();
      ADD_FAILURE() << var << "=" << value << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      std::string msg = e.what();
      EXPECT_NE(msg.find(var), std::string::npos) << msg;
      EXPECT_NE(msg.find(value), std::string::npos) << msg;
    }
    unsetenv(var);
  }
};

}  // namespace

TEST(CoreParseSize, SuffixesAndErrors) {
  EXPECT_EQ(parse_size("123", "X"), 123u);
  EXPECT_EQ(parse_size("0", "X"), 0u);
  EXPECT_EQ(parse_size("64k", "X"), 64u * 1024);
  EXPECT_EQ(parse_size("64K", "X"), 64u * 1024);
  EXPECT_EQ(parse_size("4M", "X"), 4u << 20);
  EXPECT_EQ(parse_size("1g", "X"), 1u << 30);
  EXPECT_EQ(parse_size("2KiB", "X"), 2048u);
  EXPECT_EQ(parse_size("3mb", "X"), 3u << 20);
  for (const char* bad : {"", "k", "-1", "12x", "1.5k", " 12", "12 ", "99999999999999999999999",
                          "17179869184g"}) {
    try {
      parse_size(bad, "INTERLACE_THING");
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("INTERLACE_THING"), std::string::npos);
    }
  }
}

TEST_F(CoreConfig, DefaultsWhenUnset) {
  Config c = Config::from_env();
  Config d;
  EXPECT_EQ(c.fabric, "auto");
  EXPECT_EQ(c.eager_limit, d.eager_limit);
  EXPECT_EQ(c.shm_ring_bytes, d.shm_ring_bytes);
  EXPECT_EQ(c.progress, ProgressMode::auto_);
  EXPECT_EQ(c.describe()["INTERLACE_PROGRESS"], "auto");
  EXPECT_EQ(c.op_timeout_s, 0.0);
  EXPECT_EQ(c.log_level, "warn");
  // Empty counts as unset.
  setenv("INTERLACE_FABRIC", "", 1);
  EXPECT_EQ(Config::from_env().fabric, "auto");
  // Two tiers named (docs/fabrics.md): the form passes here, the names in the registry.
  setenv("INTERLACE_FABRIC", "shm+tcp", 1);
  EXPECT_EQ(Config::from_env().fabric, "shm+tcp");
}

TEST_F(CoreConfig, ReadsEveryVariable) {
  setenv("INTERLACE_FABRIC", "tcp", 1);
  setenv("INTERLACE_EAGER_LIMIT", "8k", 1);
  setenv("INTERLACE_SHM_RING_BYTES", "1m", 1);
  setenv("INTERLACE_SHM_SINGLE_COPY", "0", 1);
  setenv("INTERLACE_SPIN", "17", 1);
  setenv("INTERLACE_YIELD", "5", 1);
  setenv("INTERLACE_PROGRESS", "thread", 1);
  setenv("INTERLACE_PEER_CHECK", "0.5", 1);
  setenv("INTERLACE_CONNECT_TIMEOUT", "3", 1);
  setenv("INTERLACE_TIMEOUT", "2.5", 1);
  setenv("INTERLACE_TCP_ADDR", "10.0.0.7", 1);
  setenv("INTERLACE_LOG", "debug", 1);
  setenv("INTERLACE_EAGER_CREDIT", "16m", 1);
  setenv("INTERLACE_TASK_WORKERS", "3", 1);
  Config c = Config::from_env();
  EXPECT_EQ(c.eager_credit, 16u << 20);
  EXPECT_EQ(c.fabric, "tcp");
  EXPECT_EQ(c.eager_limit, 8192u);
  EXPECT_EQ(c.shm_ring_bytes, 1u << 20);
  EXPECT_FALSE(c.shm_single_copy);
  EXPECT_EQ(c.spin_before_block, 17);
  EXPECT_EQ(c.yield_before_block, 5);
  EXPECT_EQ(c.progress, ProgressMode::thread);
  EXPECT_DOUBLE_EQ(c.peer_check_s, 0.5);
  EXPECT_DOUBLE_EQ(c.connect_timeout_s, 3.0);
  EXPECT_DOUBLE_EQ(c.op_timeout_s, 2.5);
  EXPECT_EQ(c.tcp_interface, "10.0.0.7");
  EXPECT_EQ(c.log_level, "debug");

  auto d = c.describe();
  EXPECT_EQ(d.size(), sizeof kVars / sizeof kVars[0]);
  for (const char* v : kVars) EXPECT_TRUE(d.count(v)) << v;
  EXPECT_EQ(d["INTERLACE_FABRIC"], "tcp");
  EXPECT_EQ(d["INTERLACE_EAGER_LIMIT"], "8192");
  EXPECT_EQ(d["INTERLACE_PROGRESS"], "thread");
  EXPECT_EQ(d["INTERLACE_SHM_SINGLE_COPY"], "0");
  EXPECT_EQ(d["INTERLACE_TIMEOUT"], "2.5");
  EXPECT_EQ(d["INTERLACE_TASK_WORKERS"], "3");
}

TEST_F(CoreConfig, ZrlmpiRanks) {
  EXPECT_TRUE(Config::from_env().zrlmpi_ranks.empty());
  EXPECT_EQ(Config::from_env().describe()["INTERLACE_ZRLMPI_RANKS"], "(none)");
  setenv("INTERLACE_ZRLMPI_RANKS", "3,1,7", 1);
  Config c = Config::from_env();
  EXPECT_EQ(c.zrlmpi_ranks, (std::vector<int>{3, 1, 7}));
  EXPECT_EQ(c.describe()["INTERLACE_ZRLMPI_RANKS"], "3,1,7");
  for (const char* bad : {"1,,2", "a", "1,-2", "2,2", "1, 2", ","}) expect_bad("INTERLACE_ZRLMPI_RANKS", bad);
}

TEST_F(CoreConfig, RouteVariables) {
  Config d = Config::from_env();
  EXPECT_TRUE(d.routes_dir.empty());
  EXPECT_EQ(d.route_credits, 8);
  EXPECT_EQ(d.describe()["INTERLACE_ROUTES"], "(not routed)");
  setenv("INTERLACE_ROUTES", "/tmp/r", 1);
  setenv("INTERLACE_ROUTE_CREDITS", "2", 1);
  setenv("INTERLACE_ROUTE_WATCHDOG", "0.5", 1);
  Config c = Config::from_env();
  EXPECT_EQ(c.routes_dir, "/tmp/r");
  EXPECT_EQ(c.route_credits, 2);
  EXPECT_DOUBLE_EQ(c.route_watchdog_s, 0.5);
  for (const char* bad : {"0", "-1", "x", "70000"}) expect_bad("INTERLACE_ROUTE_CREDITS", bad);
  for (const char* bad : {"0", "soon"}) expect_bad("INTERLACE_ROUTE_WATCHDOG", bad);
}

TEST_F(CoreConfig, BadValuesNameVariableAndValue) {
  expect_bad("INTERLACE_FABRIC", "Infini Band!");  // names themselves: fabric registry
  for (const char* bad : {"shm+", "+tcp", "shm+tcp+udp", "shm++tcp"}) expect_bad("INTERLACE_FABRIC", bad);
  expect_bad("INTERLACE_EAGER_LIMIT", "lots");
  expect_bad("INTERLACE_SHM_RING_BYTES", "100");  // below the 4k minimum
  expect_bad("INTERLACE_SHM_SINGLE_COPY", "maybe");
  expect_bad("INTERLACE_SPIN", "-3");
  expect_bad("INTERLACE_SPIN", "12abc");
  expect_bad("INTERLACE_YIELD", "-1");
  expect_bad("INTERLACE_PROGRESS", "async");
  expect_bad("INTERLACE_PEER_CHECK", "0");
  expect_bad("INTERLACE_CONNECT_TIMEOUT", "soon");
  expect_bad("INTERLACE_TIMEOUT", "-1");
  expect_bad("INTERLACE_TIMEOUT", "inf");
  expect_bad("INTERLACE_LOG", "loud");
}

TEST_F(CoreConfig, CollSegmentIsASizeOfAtLeast1k) {
  EXPECT_EQ(Config::from_env().coll_segment, 65536u);
  setenv("INTERLACE_COLL_SEGMENT", "64k", 1);  // was read with strtoull: 64 bytes
  EXPECT_EQ(Config::from_env().coll_segment, 65536u);
  setenv("INTERLACE_COLL_SEGMENT", "1k", 1);
  EXPECT_EQ(Config::from_env().coll_segment, 1024u);
  setenv("INTERLACE_COLL_SEGMENT", "", 1);  // empty is unset, as for every variable
  EXPECT_EQ(Config::from_env().coll_segment, 65536u);
  // Each of these became a 1-byte segment (a 1 MiB bcast on 4 ranks ran for minutes).
  for (const char* v : {"0", "abc", "512", "1023", "64q", "-4k"}) expect_bad("INTERLACE_COLL_SEGMENT", v);
  EXPECT_NE(Config::from_env().describe().count("INTERLACE_COLL_SEGMENT"), 0u);
}

TEST_F(CoreConfig, CollRulesSyntaxIsChecked) {
  setenv("INTERLACE_COLL", "allreduce:0-4k:@ring#allreduce:4k-inf:2-3:@rabenseifner#bcast:@binomial", 1);
  EXPECT_EQ(Config::from_env().coll_rules,
            "allreduce:0-4k:@ring#allreduce:4k-inf:2-3:@rabenseifner#bcast:@binomial");
  // Names are coll's to check: any well-formed name passes here.
  setenv("INTERLACE_COLL", "allreduce:@nosuch", 1);
  EXPECT_NO_THROW(Config::from_env());
  for (const char* v : {"garbage", "allreduce:0-4k", "allreduce:ring", "allreduce:0-4k:@", "allreduce:zero-4k:@ring",
                        "allreduce:0+4k:@ring", "allreduce:0-4k:2-x:@ring", "a:b:c:d:@e", ":@ring"})
    expect_bad("INTERLACE_COLL", v);
  EXPECT_EQ(Config::from_env().describe().at("INTERLACE_COLL"), "(built-in rules)");
}

TEST_F(CoreConfig, CollCheckIsABoolean) {
  EXPECT_FALSE(Config::from_env().coll_check);
  setenv("INTERLACE_COLL_CHECK", "1", 1);
  EXPECT_TRUE(Config::from_env().coll_check);
  EXPECT_EQ(Config::from_env().describe().at("INTERLACE_COLL_CHECK"), "1");
  expect_bad("INTERLACE_COLL_CHECK", "maybe");
}

TEST_F(CoreConfig, LauncherVariablesAreListed) {
  const auto& v = Config::launcher_variables();
  for (const char* name : {"INTERLACE_RANK", "INTERLACE_SIZE", "INTERLACE_LOCAL_RANK", "INTERLACE_LOCAL_SIZE",
                           "INTERLACE_JOB_ID", "INTERLACE_SECRET", "INTERLACE_STORE", "INTERLACE_HOST"})
    EXPECT_NE(v.count(name), 0u) << name;
  for (const auto& [name, meaning] : Config::from_env().describe()) EXPECT_EQ(v.count(name), 0u) << name;
}

TEST(CoreLog, LevelsAndFormat) {
  log::Level l;
  EXPECT_TRUE(log::parse_level("trace", &l));
  EXPECT_EQ(l, log::Level::trace);
  EXPECT_TRUE(log::parse_level("WARN", &l));
  EXPECT_EQ(l, log::Level::warn);
  EXPECT_FALSE(log::parse_level("verbose", &l));

  log::Level saved = log::level();
  log::set_level(log::Level::info);
  EXPECT_TRUE(log::enabled(log::Level::warn));
  EXPECT_TRUE(log::enabled(log::Level::info));
  EXPECT_FALSE(log::enabled(log::Level::debug));

  // Capture stderr through a pipe to check the exact line format.
  int pipefd[2];
  ASSERT_EQ(pipe(pipefd), 0);
  int saved_err = dup(2);
  dup2(pipefd[1], 2);
  log::set_rank(3);
  IL_LOG(info, "hello " << 42);
  IL_LOG(debug, "not shown");
  log::set_rank(-1);
  IL_LOG(error, "no rank");
  dup2(saved_err, 2);
  close(saved_err);
  close(pipefd[1]);
  std::string out;
  char buf[256];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  close(pipefd[0]);
  log::set_level(saved);
  EXPECT_EQ(out, "[interlace r3] INFO: hello 42\n[interlace r?] ERROR: no rank\n");
}
