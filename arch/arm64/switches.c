// SPDX-License-Identifier: GPL-2.0-only
#include "arch/arm64/switches.h"

struct arm64_switches arm64_sw = { true, true, true, true, CONTPTE_FULL_NONE };
