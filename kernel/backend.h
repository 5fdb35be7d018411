/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel backends: a kernel tree's arch/arm64/mm/contpte.c and the
 * CONFIG_ARM64_CONTPTE dispatcher block of its asm/pgtable.h, compiled
 * unchanged against the shim into a shared object, loaded beside the
 * others (RTLD_LOCAL): the tree's own public arm64 PTE API.
 */
#ifndef PTELAB_KERNEL_BACKEND_H
#define PTELAB_KERNEL_BACKEND_H

#include <stdbool.h>
#include <stddef.h>

struct arm64_backend;
struct mm_core_ops;

/* The versions Debian packages as linux-source-X.Y that ptelab knows. */
extern const char *const kernel_fetchable[];

/*
 * "ref", "linux-X.Y" (fetched with `ptelab kernels fetch X.Y`) or
 * "tree:PATH". Builds on first use (cached by content), loads, returns
 * the ops; NULL with one line in err saying what is wrong and what to do.
 */
const struct arm64_backend *arm64_backend_by_name(const char *impl, char *err, size_t errlen);

/*
 * Whether kernel backends run their tree's core-mm roots (the default)
 * or only its arch code, with ptelab's twin calling it (--core ref).
 * Set before the first backend is loaded.
 */
void kernel_backends_core(bool from_tree);
bool kernel_backends_core_from_tree(void);
/* A loaded backend's core-mm roots; NULL: ref, or --core ref. */
const struct mm_core_ops *kernel_backend_core(const struct arm64_backend *b);

/* Fetched kernel sources under build/kernels, sorted; returns how many. */
int kernel_fetched(char names[][64], int max);
/*
 * Where a backend's code came from, as a JSON object: built in; a
 * fetched package and its version; or a tree's path and git revision.
 * With the kernel version each was built from.
 */
void kernel_backend_provenance(const char *impl, char *buf, size_t len);

/*
 * `ptelab kernels fetch X.Y`: runs kernel/fetch.sh; exit status.
 * allow_unverified: accept package lists no available keyring verifies.
 */
int kernel_fetch(const char *version, bool allow_unverified);


/*
 * The backend whose shared object is the file at path (as dladdr names
 * it), and its kernel version; NULL if it is not a loaded kernel backend.
 */
const char *kernel_backend_of_object(const char *path, const char **version);

#endif
