/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The core-mm functions a kernel backend takes from its tree (data):
 * each root, the tree files its closure is taken from, and the boundary,
 * the names ptelab provides instead, each with its reason. The entry
 * (kernel/shim/core_entry.c) calls the roots; ptelab's mm/ calls the
 * entry (mm/core.h).
 */
#ifndef PTELAB_KERNEL_CORE_ROOTS_H
#define PTELAB_KERNEL_CORE_ROOTS_H

/* A tree file to take definitions from; only: NULL (any) or just these names. */
struct core_file {
	const char *path;
	const char *const *only;
};

struct core_boundary {
	const char *name;
	const char *why;
};

struct core_root_set {
	const char *name;                     /* "zap" */
	const char *const *roots;             /* the functions the entry calls */
	const struct core_boundary *boundary; /* ends with { NULL } */
};

/* The files every unit reads, headers first (the order definitions are emitted in). */
extern const struct core_file core_files[];
extern const unsigned int nr_core_files;
extern const struct core_root_set core_root_sets[];
extern const unsigned int nr_core_root_sets;

#endif
