// Every rank says hello; rank 0 collects the greetings in rank order.
//   interlace run -n 4 ./build/examples/cpp/interlace-example-hello
#include <cstdio>
#include <string>

#include <interlace/interlace.hpp>

int main() {
  interlace::Runtime rt = interlace::Runtime::init();
  interlace::Communicator world = rt.world();
  char line[64];
  std::snprintf(line, sizeof line, "hello from rank %d of %d", world.rank(), world.size());
  if (world.rank() == 0) {
    std::printf("%s\n", line);
    for (int r = 1; r < world.size(); ++r) {
      world.recv(line, sizeof line, interlace::Datatype::bytes, r, 0);
      std::printf("%s\n", line);
    }
  } else {
    world.send(line, sizeof line, interlace::Datatype::bytes, 0, 0);
  }
  rt.finalize();
}
