// The frame header's byte layout (docs/wire.md) and validate_header's verdicts.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <fstream>
#include <sstream>

#include "interlace/fabric/fabric.hpp"
#include "interlace/fabric/frame.hpp"
#include "interlace/fabric/registry.hpp"

namespace {

using interlace::fabric::FrameHeader;

const char* const kVectorLines[] = {
    "4c 49 01 02 07 81 00 00 03 00 00 00 05 00 00 00",
    "08 07 06 05 04 03 02 01 fe ff ff ff 44 33 22 11",
    "00 10 00 00 00 00 00 00 0d f0 fe ca ef be ad de",
};

FrameHeader vector_header() {
  FrameHeader h;
  h.kind = interlace::fabric::kKindP2pRts;
  h.dtype = 7;
  h.flags = 0x81;
  h.src = 3;
  h.dst = 5;
  h.comm = 0x0102030405060708ull;
  h.tag = -2;
  h.seq = 0x11223344u;
  h.len = 4096;
  h.aux = 0xdeadbeefcafef00dull;
  return h;
}

std::string hex_lines(const FrameHeader& h) {
  unsigned char b[sizeof h];
  std::memcpy(b, &h, sizeof h);
  std::string out;
  char tmp[4];
  for (size_t i = 0; i < sizeof h; ++i) {
    std::snprintf(tmp, sizeof tmp, "%02x", b[i]);
    out += tmp;
    out += (i % 16 == 15) ? "\n" : " ";
  }
  return out;
}

TEST(FrameHeader, MatchesTheTestVectorInWireMd) {
  std::string expected;
  for (const char* l : kVectorLines) expected += std::string(l) + "\n";
  EXPECT_EQ(hex_lines(vector_header()), expected);

  EXPECT_EQ(offsetof(FrameHeader, src), 8u);
  EXPECT_EQ(offsetof(FrameHeader, comm), 16u);
  EXPECT_EQ(offsetof(FrameHeader, tag), 24u);
  EXPECT_EQ(offsetof(FrameHeader, len), 32u);
  EXPECT_EQ(offsetof(FrameHeader, aux), 40u);

  // The document and this test must not drift apart.
  std::string path = __FILE__;
  path = path.substr(0, path.rfind("tests/conformance/")) + "docs/wire.md";
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << "cannot read " << path;
  std::stringstream doc;
  doc << in.rdbuf();
  for (const char* l : kVectorLines)
    EXPECT_NE(doc.str().find(l), std::string::npos) << path << " lacks the vector line " << l;
}

TEST(FrameHeader, ValidateAcceptsAGoodHeader) {
  EXPECT_EQ(interlace::fabric::validate_header(vector_header(), 5, 6, 4096), "");
}

struct BadCase {
  const char* field;
  void (*spoil)(FrameHeader&);
  const char* value;
};

TEST(FrameHeader, ValidateNamesTheBadFieldAndValue) {
  const BadCase cases[] = {
      {"magic", [](FrameHeader& h) { h.magic = 0x1234; }, "4660"},
      {"version", [](FrameHeader& h) { h.version = 9; }, "9"},
      {"kind", [](FrameHeader& h) { h.kind = 0; }, "0"},
      {"kind", [](FrameHeader& h) { h.kind = 200; }, "200"},
      {"dst", [](FrameHeader& h) { h.dst = 4; }, "4"},
      {"src", [](FrameHeader& h) { h.src = 6; }, "6"},
      {"len", [](FrameHeader& h) { h.len = 4097; }, "4097"},
  };
  for (const auto& c : cases) {
    FrameHeader h = vector_header();
    c.spoil(h);
    const std::string msg = interlace::fabric::validate_header(h, 5, 6, 4096);
    EXPECT_NE(msg.find(std::string(c.field) + " = " + c.value), std::string::npos)
        << "field " << c.field << ": got \"" << msg << "\"";
  }
}

TEST(Fabric, BuiltinFabricsListsShmSimTcpAndUdp) {
  std::vector<std::string> names;
  for (const char* const* p = interlace::fabric::builtin_fabrics(); *p; ++p) names.emplace_back(*p);
  // ucx is built only where libucx is found.
  std::vector<std::string> want{"shm", "sim", "tcp", "udp"};
  if (interlace::fabric::registry().find("ucx")) want.insert(want.begin() + 3, "ucx");
  EXPECT_EQ(names, want);
}

}  // namespace
