// Umbrella header: everything a user program of interlace needs.
#pragma once
#include "interlace/core/datatype.hpp"
#include "interlace/core/error.hpp"
#include "interlace/core/reduce_op.hpp"
#include "interlace/p2p/communicator.hpp"
#include "interlace/p2p/request.hpp"
