#include "../_common.h"
