/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The lab's memory of young/dirty state that software set or hardware
 * recorded and nobody has reported yet (shadow bits beside each table).
 * The public pte API updates it; any report that drops such state, or a
 * table that no longer shows it, is a lost-young or lost-dirty violation.
 */
#ifndef PTELAB_ARCH_ORACLE_H
#define PTELAB_ARCH_ORACLE_H

#include "hw/cpu.h"
#include "hw/mmu.h"
#include "hw/pgtable_mem.h"
#include "include/pte_types.h"

/* State now recorded in entries [ptep, ptep+nr). */
void oracle_set(pte_t *ptep, unsigned int nr, bool young, bool dirty);
/*
 * A read must show what the shadows of its slot said when it started
 * (oracle_shadow(); the hardware may set more during the read).
 */
void __oracle_check_read(pte_t *ptep, pte_t pte, u8 shadow, const char *op);

/* Inline: most reads owe nothing, or show what they owe (the masks of hw/mmu.h). */
static inline void oracle_check_read(pte_t *ptep, pte_t pte, u8 shadow, const char *op)
{
	const struct hw_mmu_fmt *f = hw_machine.fmt;

	if (!shadow || ((!(shadow & SHADOW_YOUNG) || hw_fmt_af(f, pte_val(pte))) &&
			(!(shadow & SHADOW_DIRTY) || hw_fmt_dirty(f, pte_val(pte)))))
		return;
	__oracle_check_read(ptep, pte, shadow, op);
}

/*
 * ...nor more than the entries hold: young or dirty in what a read returned
 * must be in its entry or, for a contiguous entry, in its block, once the
 * read is over (hardware only adds state while it runs). A gather that
 * strays past its block, or gathers an entry that is not contiguous,
 * reports the neighbours' state as the folio's.
 */
void __oracle_check_phantom(pte_t *ptep, pte_t pte, const char *op);

static inline void oracle_check_phantom(pte_t *ptep, pte_t pte, const char *op)
{
	const struct hw_mmu_fmt *f = hw_machine.fmt;
	u64 d = __atomic_load_n(&ptep->pte, __ATOMIC_RELAXED);

	if ((!hw_fmt_af(f, pte_val(pte)) || hw_fmt_af(f, d)) &&
	    (!hw_fmt_dirty(f, pte_val(pte)) || hw_fmt_dirty(f, d)))
		return;
	__oracle_check_phantom(ptep, pte, op);
}

static inline u8 oracle_shadow(const pte_t *ptep)
{
	return *hw_pt_shadow(&ptep->pte);
}
/*
 * A report (return value) covering [ptep, ptep+nr), widened to whole
 * contiguous blocks where the entries are contiguous, consumes the state
 * it reports; the state must be in the report.
 */
void oracle_report(pte_t *ptep, unsigned int nr, bool young, bool dirty,
		   bool check_young, bool check_dirty, bool widen,
		   const char *op);
/* Software discards state on purpose (MADV_FREE, aging). */
void oracle_discard(pte_t *ptep, unsigned int nr, bool young, bool dirty);
/* Sweep one mm's tables: shadows must still show in the entries. */
void oracle_sweep(u64 *pgd);

#endif
