/* The interlace clock for C and C++ programs: seconds as a double, like MPI_Wtime.
 * On the simulated fabric (INTERLACE_FABRIC=sim, docs/sim.md) it is the rank's virtual
 * time; elsewhere a monotonic wall clock. MPI_Wtime and interlace::wtime() read the same
 * clock, so a program timed with any of them reports virtual seconds on the simulator. */
#ifndef INTERLACE_CLOCK_H
#define INTERLACE_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Seconds since an arbitrary origin fixed for the job (virtual: the job's start). */
double interlace_wtime(void);
/* Resolution of interlace_wtime in seconds. */
double interlace_wtick(void);
/* Accounts `seconds` of modelled computation (an FPGA kernel's run time, say): on the
 * simulator the rank's virtual clock advances by it; elsewhere nothing happens. Returns 0,
 * or -1 (with a message on stderr naming the value) for a negative or non-finite time. */
int interlace_charge(double seconds);
/* 1 when interlace_wtime reads virtual time (the sim fabric), else 0. */
int interlace_wtime_is_virtual(void);

#ifdef __cplusplus
}
#endif

#endif
