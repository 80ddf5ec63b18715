// Contract: the job clock every API reads (interlace_wtime, MPI_Wtime, interlace::wtime).
// (Timeouts and deadlines keep using core/clock.hpp: real time even on the simulator.)
// Wall-clock seconds (steady_clock) unless a fabric that keeps virtual time (sim) installs
// a source: then its virtual seconds. A source is installed for the calling thread (a
// rank that is a thread) and optionally for the whole process (a rank that is a
// process, whose helper threads read it too); the thread's source wins.
#pragma once

namespace interlace::clock {

using Source = double (*)(void* ctx);
using Advance = void (*)(void* ctx, double seconds);

// ctx identifies the installer; clear_source removes a source only if it is ctx's.
// `advance` (may be null) charges modelled compute time to the virtual clock.
void set_source(Source fn, void* ctx, bool process_wide, Advance advance = nullptr);
void clear_source(void* ctx);
double now();         // seconds
// Charges `seconds` of modelled compute: the virtual clock advances; on the wall clock
// nothing happens (the computation itself takes the time). Negative or NaN is an error.
void charge(double seconds);
double resolution();  // seconds per tick of the clock in use
bool is_virtual();

}  // namespace interlace::clock
