/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PTELAB_KERNEL_BUILD_H
#define PTELAB_KERNEL_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include <time.h>

#include "hw/types.h"

/*
 * Set when a tree's code could not be built or extracted (its contpte.c or
 * core-mm does not compile against the shim, a root or a file it needs is
 * missing): a revision that cannot be tested (check --bisect exits 125).
 */
extern bool kernel_tree_untestable;

/*
 * The shared object of backend name from the kernel tree at tree, built
 * if it is not cached. 0 with so_path and version ("X.Y.Z"), or -1 with
 * one line in err (not a tree, no contpte.c, no dispatcher block, does
 * not compile against the shim).
 */
int kernel_build_backend(const char *name, const char *tree, char *so_path, size_t so_len,
			 char *version, char *err, size_t errlen);

/* Build backends with AddressSanitizer from now on. */
void kernel_backends_sanitize(bool on);
bool kernel_backends_sanitized(void);

/*
 * The build's own helpers, shared with kernel/build_core.c: a whole file
 * (0, or -1), a string into an FNV-1a hash, the compiler's identity in a
 * hash, the first error line of a log, a compile's output added to a
 * build's log, the tree's warnings reported in one line, the cached
 * object's dependency list (checked, collected from a .d file, written),
 * a tree's Makefile version ("X.Y.Z"; -1 if not a kernel tree).
 */
int kbuild_read_file(const char *path, char **out);
u64 kbuild_hash(u64 h, const char *s);
u64 kbuild_compiler_identity(u64 h, const char *cc);
void kbuild_first_error(const char *log, char *out, size_t n);
void kbuild_log_append(char **all, size_t *len, const char *what, const char *out);
/* warnings in the tree's files: lines under tree, or (tree NULL) named relative to it */
void kbuild_report_warnings(const char *name, const char *tree, const char *log,
			    const char *log_path);
bool kbuild_deps_unchanged(const char *so);
void kbuild_add_deps(const char *d_file, const char *skip, char **deps, size_t *len);
int kbuild_write_deps(const char *so, const char *deps, time_t started);
int kbuild_tree_version(const char *tree, int *v, int *p, int *s, char *version);
/* A backend's name as a file name: anything but letters, digits, '.' and '-' as '_'. */
void kbuild_safe_name(const char *name, char *out, size_t len);
/*
 * The object's path under build/backends (STEM-HASH.so, the hash of h,
 * the compile command and the compiler), and whether it is built and
 * still good; the directory is made.
 */
bool kbuild_cached(u64 h, char *const *argv, int argc, int cc_words, const char *stem,
		   char *so_path, size_t so_len);
/* A build's whole compiler output as <so>.log; its path, or "(could not be written)". */
void kbuild_keep_log(const char *so_path, const char *all_log, char *log_path, size_t len);
/* The built object tmp renamed to so_path with its dependency list; -1 (errno) if not. */
int kbuild_install(const char *tmp, const char *so_path, const char *deps, time_t started);

/*
 * The shared object of the tree's core-mm roots (kernel/core_roots.c),
 * extracted from its mm/ files, compiled against kernel/shim/core.h:
 * 0 with so_path, or -1 with one line in err naming the root or the
 * symbol and the file.
 */
int kernel_build_core(const char *name, const char *tree, char *so_path, size_t so_len,
		      char *err, size_t errlen);

#endif
