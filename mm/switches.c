// SPDX-License-Identifier: GPL-2.0-only
/* Mirrors 7.3: none: ptelab's "before" switches for core-mm. */
#include "mm/switches.h"

struct mm_switches mm_sw = { true, true, true };
