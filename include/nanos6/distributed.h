/* nanos6's distributed-task header name: the calls live in ompif.h (docs/ompif.md). */
#ifndef INTERLACE_NANOS6_DISTRIBUTED_H
#define INTERLACE_NANOS6_DISTRIBUTED_H
#include "../ompif.h"
#endif
