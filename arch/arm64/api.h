/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * arm64 backends: each provides the public PTE API (arch/pte_api.h) whole:
 * the reference (arch/arm64/pgtable.c) or a kernel tree, whose own
 * CONFIG_ARM64_CONTPTE dispatcher block is compiled with its contpte.c
 * (kernel/shim/api.c); the wrappers adapt each version's signatures
 * (int vs bool young, ...).
 */
#ifndef PTELAB_ARM64_API_H
#define PTELAB_ARM64_API_H

#include "arch/arm64/raw.h"
#include "arch/pte_api.h"



/* A backend: its API with contiguous PTEs (CONFIG_ARM64_CONTPTE=y) and without. */
struct arm64_backend {
	const char *name;    /* "ref", "linux-7.3", "tree:/path" */
	const char *version; /* the kernel release, or "ptelab" */
	const struct pte_api *api;
	const struct pte_api *api_nocont; /* the tree's #else block */
};

extern const struct arm64_backend arm64_ref_backend;

/* The backend of the run, and its API as the switches want it. */
void arm64_use_backend(const struct arm64_backend *b);
const struct arm64_backend *arm64_current_backend(void);
const struct pte_api *arm64_backend_api(void);

#endif
