/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --impl git:PATH@REV: the files a backend is built from, taken from a
 * revision of a git repository (git show REV:FILE) without checking it
 * out, into a directory named by the commit, so a revision is fetched
 * and built once.
 */
#ifndef PTELAB_KERNEL_GIT_TREE_H
#define PTELAB_KERNEL_GIT_TREE_H

#include <stddef.h>

/*
 * spec is "PATH@REV" (REV: anything git rev-parse takes; no "@REV":
 * HEAD). 0 with the materialised tree's directory in tree and the full
 * commit id in commit (41 bytes), or -1 with one line in err.
 */
int git_tree_materialize(const char *spec, char *tree, size_t treelen, char *commit,
			 char *err, size_t errlen);

#endif
