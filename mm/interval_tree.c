// SPDX-License-Identifier: GPL-2.0-only
/* Mirrors 7.3: mm/interval_tree.c (vma_interval_tree_insert/remove), as a set. */
#include <stdlib.h>

#include "hw/host.h"
#include "mm/interval_tree.h"

void vma_interval_tree_insert(struct vm_area_struct *vma, struct rb_root_cached *root)
{
	if (root->nr == root->cap) {
		root->cap = root->cap ? 2 * root->cap : 4;
		root->vmas = host_realloc(root->vmas, (size_t)root->cap * sizeof(*root->vmas),
					  "the reverse map's VMA tree");
	}
	root->vmas[root->nr++] = vma;
}

void vma_interval_tree_remove(struct vm_area_struct *vma, struct rb_root_cached *root)
{
	for (int i = 0; i < root->nr; i++) {
		if (root->vmas[i] == vma) {
			/* keep insertion order: walks visit VMAs oldest first */
			for (int j = i + 1; j < root->nr; j++)
				root->vmas[j - 1] = root->vmas[j];
			root->nr--;
			return;
		}
	}
}

void vma_interval_tree_destroy(struct rb_root_cached *root)
{
	free(root->vmas);
	root->vmas = NULL;
	root->nr = root->cap = 0;
}
