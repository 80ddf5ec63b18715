/* interlace extensions of OpenSHMEM: none yet beyond shmem.h. */
#ifndef INTERLACE_SHMEMX_H
#define INTERLACE_SHMEMX_H
#include <shmem.h>
#endif
