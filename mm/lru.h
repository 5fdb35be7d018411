/* SPDX-License-Identifier: GPL-2.0-only */
/* LRU lists of one lruvec, linked through the head pages by pfn. */
#ifndef PTELAB_MM_LRU_H
#define PTELAB_MM_LRU_H

#include "include/page.h"

enum lru_list {
	LRU_INACTIVE_ANON,
	LRU_ACTIVE_ANON,
	LRU_INACTIVE_FILE,
	LRU_ACTIVE_FILE,
	LRU_UNEVICTABLE,
	NR_LRU_LISTS
};

struct lruvec {
	u32 head[NR_LRU_LISTS], tail[NR_LRU_LISTS];
	long nr_pages[NR_LRU_LISTS];
	unsigned int add_batch; /* folios added since the lock was last taken */
};

extern struct lruvec root_lruvec;

void lruvec_init(struct lruvec *lruvec);
enum lru_list folio_lru_list(const struct folio *folio);
void lruvec_add_folio(struct lruvec *lruvec, struct folio *folio);
void lruvec_add_folio_tail(struct lruvec *lruvec, struct folio *folio);
void lruvec_del_folio(struct lruvec *lruvec, struct folio *folio);
struct folio *lru_first(struct lruvec *lruvec, enum lru_list lru);
struct folio *lru_last(struct lruvec *lruvec, enum lru_list lru);
struct folio *lru_prev(struct folio *folio);

#endif
