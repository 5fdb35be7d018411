/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * shmem / tmpfs (mm/shmem.c, 7.3): a memfd's page cache of swap-backed
 * folios. A page that reclaim wrote out leaves its swap entry in the
 * cache slot; the next fault reads it back.
 */
#ifndef PTELAB_MM_SHMEM_H
#define PTELAB_MM_SHMEM_H

#include "include/page.h"

struct address_space;

/* memfd_create + ftruncate(size): an empty shmem file of folios of order. */
struct address_space *shmem_file_setup(u64 size, unsigned int order);
/*
 * shmem_get_folio_gfp(SGP_CACHE) as a fault calls it: the folio holding
 * index, read back from swap (sleeping on the device) or newly allocated
 * and zeroed; on the LRU. NULL when no memory can be had.
 */
struct folio *shmem_get_folio(struct address_space *mapping, u64 index);
/*
 * shmem_writeout(): an unmapped, dirty folio goes to swap: its slots
 * take swap entries, the write is submitted, and the folio leaves the
 * page cache (freed once nobody else holds it). false: no swap space.
 */
bool shmem_writeout(struct folio *folio);
/* Machine reset: no fault is left asleep on a folio being read in. */
void shmem_reset(void);
#endif
