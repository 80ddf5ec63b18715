"""The C++ API: examples/cpp/showcase.cpp built with interlace-c++."""
TITLE = "C++: the same runtime from C++ (examples/cpp/showcase.cpp)"


def run_programs(tools):
    exe = tools.cxx("examples/cpp/showcase.cpp", "-O2")
    out = [line.strip() for line in tools.run(exe).splitlines()]
    assert out and out[-1].endswith("OK"), out
    return out
