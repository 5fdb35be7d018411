// SPDX-License-Identifier: GPL-2.0-only
#include "mm/switches.h"

struct mm_switches mm_sw = { true, true, true };
