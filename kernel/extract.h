/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Extracting a tree's core-mm functions by name: the roots and the
 * same-file definitions they use (functions, macros, types, enum
 * constants), each under #line and inside its #if context, so the tree's
 * code compiles unchanged against the shim. Every PTE-level worker in
 * mm/ is static; taking the functions out is the way in (whole files
 * would need a shim for most of the kernel).
 *
 * What the lab provides instead of the tree is the boundary: names never
 * taken from the tree (kernel/core_roots.c lists each with its reason).
 * Inside the unit the tree's own definitions win: every extracted name is
 * renamed by a #define before the tree's text (so a ptelab declaration of
 * the same name does not clash), and a macro the shim also defines is
 * #undef'd first.
 */
#ifndef PTELAB_KERNEL_EXTRACT_H
#define PTELAB_KERNEL_EXTRACT_H

#include <stdbool.h>
#include <stddef.h>

/* One file of the tree: its path in the tree (for #line) and its text. */
struct extract_file {
	const char *name;  /* "mm/memory.c" */
	const char *path;  /* what #line says (the file on disk) */
	const char *text;
	const char *const *only; /* NULL: every definition; else just these names */
};

struct extract_req {
	const struct extract_file *files; /* headers first: the order of emission */
	int nr_files;
	const char *const *roots;         /* functions that must be found */
	int nr_roots;
	const char *const *boundary;      /* never taken from the tree */
	int nr_boundary;
	/*
	 * If set, the unit ends with an array of that name listing every
	 * function taken, { (void *)fn, "name" } (each inside its #if
	 * context), then { 0 }: its element type is the shim's.
	 */
	const char *fn_table;
	/*
	 * If set, put before every function the tree defines inline (static
	 * inline, __always_inline): build_core's no_instrument_function, so
	 * that, as in perf, inlined code counts in its caller's frame.
	 */
	const char *inline_attr;
};

/*
 * The unit's C text (malloc'd), or NULL with one line in err naming the
 * root and the files it was looked for in. *nr_items, if given, says how
 * many definitions went in.
 */
char *kernel_extract(const struct extract_req *req, int *nr_items, char *err, size_t errlen);

/* Whether the closure took a definition of name (for tests and reports). */
bool kernel_extract_has(const char *unit, const char *name);

#endif
