#include "_common.h"
