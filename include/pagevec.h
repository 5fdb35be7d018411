/* SPDX-License-Identifier: GPL-2.0-only */
/* include/linux/pagevec.h's batch size (7.3's 31; 6.1's and 6.6's were 15). */
#ifndef PTELAB_INCLUDE_PAGEVEC_H
#define PTELAB_INCLUDE_PAGEVEC_H

#define PAGEVEC_SIZE 31

#endif
