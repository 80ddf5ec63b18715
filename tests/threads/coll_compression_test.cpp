// Wire compression plugins: every allreduce/bcast/reduce algorithm with float32 and
// float64 data narrowed to 16 bits on the wire, a user compressor, and bad names.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "interlace/coll/coll.hpp"
#include "interlace/interlace.hpp"

using namespace interlace;
using coll::Kind;

namespace {

TEST(CollCompression, BuiltinsAcrossAlgorithms) {
  for (int n : {1, 3, 4}) {
    run_ranks_as_threads(n, [](Runtime& rt) {
      Communicator w = rt.world();
      const int size = w.size();
      for (const char* z : {"fp16", "bf16"})
        for (Kind k : {Kind::allreduce, Kind::bcast, Kind::reduce})
          for (const std::string& alg : coll::algorithm_names(k)) {
            std::vector<float> in(5000), out(5000, 0.0f);
            for (size_t i = 0; i < in.size(); ++i) in[i] = 0.001f * static_cast<float>(i % 97) + w.rank();
            coll::Options o{alg, 1024, z};
            if (k == Kind::allreduce) coll::allreduce(w, in.data(), out.data(), in.size(), Datatype::float32, ReduceOp::sum, o);
            if (k == Kind::reduce) coll::reduce(w, in.data(), out.data(), in.size(), Datatype::float32, ReduceOp::sum, 0, o);
            if (k == Kind::bcast) {
              out = in;
              coll::bcast(w, out.data(), out.size(), Datatype::float32, 0, o);
            }
            if (k == Kind::bcast && w.rank() != 0) {
              bool rounded = false;  // proves the data really travelled as 16-bit floats
              for (size_t i = 0; i < in.size(); ++i) rounded |= out[i] != 0.001f * static_cast<float>(i % 97);
              EXPECT_TRUE(rounded) << z << " " << alg;
            }
            if (k == Kind::reduce && w.rank() != 0) continue;
            for (size_t i = 0; i < in.size(); i += 7) {
              const float base = 0.001f * static_cast<float>(i % 97);
              const float want = k == Kind::bcast ? base : size * base + size * (size - 1) / 2.0f;
              // 16-bit floats keep 3 (bf16: 2) significant digits per hop.
              EXPECT_NEAR(out[i], want, std::fabs(want) * 0.02f + 0.01f) << z << " " << alg << " i " << i;
            }
          }
      // float64 through fp16 too.
      std::vector<double> d(100, 1.5), e(100);
      coll::allreduce(w, d.data(), e.data(), 100, Datatype::float64, ReduceOp::sum, {"", 0, "fp16"});
      EXPECT_EQ(e[99], 1.5 * size);
    });
  }
}

TEST(CollCompression, UserCompressorAndErrors) {
  // A lossless "compressor" that only keeps the low 2 bytes of small non-negative ints.
  coll::register_compressor({"test_u16", Datatype::uint16, [](Datatype dt) { return dt == Datatype::int32; },
                             [](const void* in, void* out, size_t n, Datatype) {
                               for (size_t i = 0; i < n; ++i)
                                 static_cast<uint16_t*>(out)[i] = static_cast<uint16_t>(static_cast<const int32_t*>(in)[i]);
                             },
                             [](const void* in, void* out, size_t n, Datatype) {
                               for (size_t i = 0; i < n; ++i)
                                 static_cast<int32_t*>(out)[i] = static_cast<const uint16_t*>(in)[i];
                             }});
  run_ranks_as_threads(3, [](Runtime& rt) {
    Communicator w = rt.world();
    std::vector<int32_t> v(1000, w.rank() + 1), o(1000);
    coll::allreduce(w, v.data(), o.data(), v.size(), Datatype::int32, ReduceOp::sum, {"ring", 0, "test_u16"});
    EXPECT_EQ(o[999], 6);
    try {
      coll::allreduce(w, v.data(), o.data(), v.size(), Datatype::int32, ReduceOp::sum, {"", 0, "fp16"});
      ADD_FAILURE() << "fp16 accepted int32";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("int32"), std::string::npos) << e.what();
    }
    try {
      coll::allreduce(w, v.data(), o.data(), v.size(), Datatype::int32, ReduceOp::sum, {"", 0, "zip"});
      ADD_FAILURE() << "unknown compressor accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("bf16"), std::string::npos) << e.what();
    }
    coll::barrier(w);
  });
}

}  // namespace
