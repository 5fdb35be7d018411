// SPDX-License-Identifier: GPL-2.0-only
/* A kernel revision's backend files out of a git repository (kernel/git_tree.h). */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/git_tree.h"
#include "kernel/spawn.h"
#include "lab/paths.h"

/*
 * What a backend build and its checks read from a tree (kernel/build.c,
 * kernel/quirks.c, kernel/dispatch.c), and what kernels fetch keeps for
 * reading; the first group must exist at the revision.
 */
static const char *const required[] = {
	"Makefile",
	"arch/arm64/mm/contpte.c",
	"arch/arm64/include/asm/pgtable.h",
	"arch/arm64/include/asm/pgtable-hwdef.h",
	"arch/arm64/include/asm/pgtable-prot.h",
	"arch/arm64/include/asm/tlbflush.h",
	"include/linux/pgtable.h",
	NULL
};
static const char *const optional[] = {
	"arch/arm64/include/asm/cpufeature.h", "arch/arm64/include/asm/pgtable-types.h",
	"arch/arm64/include/asm/tlb.h", "include/linux/mm.h", "include/linux/mm_types.h",
	"include/linux/compiler.h", "include/linux/align.h", "include/vdso/bits.h",
	"mm/memory.c", "mm/rmap.c", "mm/internal.h", "mm/vmscan.c", "mm/util.c",
	"mm/mmu_gather.c", "mm/mlock.c", "mm/madvise.c", "mm/mprotect.c", "mm/mremap.c",
	"arch/arm64/mm/hugetlbpage.c", "arch/arm64/mm/fault.c", NULL
};

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

/* A half-made or unwanted revision tree, gone. */
static void rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int git(const char *repo, char **out, char *a1, char *a2, char *a3, char *a4)
{
	char *argv[] = { "git", "-C", (char *)repo, a1, a2, a3, a4, NULL };

	*out = NULL;
	return spawn_run(argv, SPAWN_CAPTURE_STDOUT, out);
}

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			if (mkdir(buf, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* REV:file of repo into dir/file; 1 if the revision has no such file */
static int show_file(const char *repo, const char *commit, const char *file, const char *dir)
{
	char obj[256], path[PATH_MAX + 256], *text = NULL, *slash;
	char *argv[] = { "git", "-C", (char *)repo, "show", obj, NULL };
	FILE *f;

	snprintf(obj, sizeof(obj), "%s:%s", commit, file);
	if (spawn_run(argv, SPAWN_CAPTURE_STDOUT, &text) || !text) {
		free(text);
		return 1;
	}
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	slash = strrchr(path, '/');
	*slash = 0;
	if (mkdirs(path)) {
		free(text);
		return -1;
	}
	*slash = '/';
	f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f)) {
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

int git_tree_materialize(const char *spec, char *tree, size_t treelen, char *commit,
			 char *err, size_t errlen)
{
	char repo[PATH_MAX], rev[256], *out = NULL, tmp[PATH_MAX + 64], stamp[PATH_MAX + 64];
	const char *at = strrchr(spec, '@');
	struct stat st;

	snprintf(repo, sizeof(repo), "%.*s", at ? (int)(at - spec) : (int)strlen(spec), spec);
	snprintf(rev, sizeof(rev), "%s^{commit}", at && at[1] ? at + 1 : "HEAD");
	if (!*repo || stat(repo, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "git:%s: %s is not a directory; use git:PATH@REV with PATH a "
			 "kernel git repository", spec, *repo ? repo : "(empty)");
		return -1;
	}
	if (git(repo, &out, "rev-parse", "--verify", "--quiet", rev) || !out || strlen(out) < 40) {
		free(out);
		snprintf(err, errlen, "git:%s: '%.*s' is no commit in %s (git rev-parse found none); "
			 "give a branch, tag or commit", spec, (int)strlen(rev) - 9, rev, repo);
		return -1;
	}
	snprintf(commit, 41, "%.40s", out);
	free(out);
	/* one directory per commit: its files never change */
	snprintf(tree, treelen, "%s/git-trees/%.16s", lab_state_dir(), commit);
	snprintf(stamp, sizeof(stamp), "%s/.ptelab-git", tree);
	if (!access(stamp, R_OK))
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp%d", tree, (int)getpid());
	if (mkdirs(tmp)) {
		snprintf(err, errlen, "git:%s: cannot create %s: %s", spec, tmp, strerror(errno));
		return -1;
	}
	for (int i = 0; required[i]; i++) {
		int r = show_file(repo, commit, required[i], tmp);

		if (r) {
			snprintf(err, errlen, r > 0 ? "git:%s: commit %.12s has no %s (contpte needs 6.9 "
				 "or newer)" : "git:%s: cannot write %.12s's %s", spec, commit, required[i]);
			rm_tree(tmp);
			return -1;
		}
	}
	for (int i = 0; optional[i]; i++)
		if (show_file(repo, commit, optional[i], tmp) < 0) {
			snprintf(err, errlen, "git:%s: cannot write %.12s's %s", spec, commit, optional[i]);
			rm_tree(tmp);
			return -1;
		}
	FILE *f;

	snprintf(stamp, sizeof(stamp), "%s/.ptelab-git", tmp);
	f = fopen(stamp, "w");
	if (!f || fprintf(f, "repository=%s\nrevision=%s\ncommit=%s\n", repo,
			  at && at[1] ? at + 1 : "HEAD", commit) < 0 || fclose(f)) {
		snprintf(err, errlen, "git:%s: cannot write %s", spec, stamp);
		rm_tree(tmp);
		return -1;
	}
	/* published whole or not at all; another process may have won the race */
	if (rename(tmp, tree)) {
		int e = errno;

		rm_tree(tmp); /* the loser's copy: the winner's is the same commit */
		if (access(tree, R_OK)) {
			snprintf(err, errlen, "git:%s: cannot create %s: %s", spec, tree, strerror(e));
			return -1;
		}
	}
	return 0;
}
