// SPDX-License-Identifier: GPL-2.0-only
/* The lab's directory layout (lab/paths.h). */
#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hw/profile.h"
#include "lab/paths.h"
#if __has_include("build/version.h")
#include "build/version.h" /* PTELAB_DATADIR: make install's prefix */
#endif

const char *lab_home(void)
{
	static char home[PATH_MAX];

	if (home[0])
		return home;
	const char *env = getenv("PTELAB_HOME");
	if (env && *env) {
		snprintf(home, sizeof(home), "%s", env);
		return home;
	}
	ssize_t n = readlink("/proc/self/exe", home, sizeof(home) - 1);
	if (n <= 0) {
		strcpy(home, ".");
		return home;
	}
	home[n] = 0;
	char *slash = strrchr(home, '/');
	if (slash)
		*slash = 0;
	char bindir[PATH_MAX];

	snprintf(bindir, sizeof(bindir), "%s", home);
	/* test binaries live in build/san/tests: walk up to the tree */
	for (int up = 0; up < 4; up++) {
		char probe[PATH_MAX + 16];

		snprintf(probe, sizeof(probe), "%s/profiles", home);
		if (!access(probe, R_OK))
			return home;
		slash = strrchr(home, '/');
		if (!slash)
			break;
		*slash = 0;
	}
	/* installed (make install): PREFIX/bin/ptelab and PREFIX/share/ptelab */
	char probe[PATH_MAX + 32];

	snprintf(probe, sizeof(probe), "%s/../share/ptelab/profiles", bindir);
	if (!access(probe, R_OK)) {
		snprintf(home, sizeof(home), "%.*s/../share/ptelab", PATH_MAX - 20, bindir);
		return home;
	}
#ifdef PTELAB_DATADIR
	/* a copy of an installed binary: the prefix it was built for */
	if (!access(PTELAB_DATADIR "/profiles", R_OK)) {
		snprintf(home, sizeof(home), "%s", PTELAB_DATADIR);
		return home;
	}
#endif
	strcpy(home, ".");
	return home;
}

/*
 * What ptelab fetches and builds (kernels/, backends/): the home's
 * build/ where it may write there (a source tree), else the user's cache
 * ($XDG_CACHE_HOME/ptelab, ~/.cache/ptelab) for an installed ptelab.
 */
/* mkdir -p: every missing directory of path (a failure shows at the first write). */
static void make_dirs(const char *path)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(buf, 0755);
			*p = '/';
		}
	mkdir(buf, 0755);
}

const char *lab_state_dir(void)
{
	static char dir[PATH_MAX];
	const char *xdg = getenv("XDG_CACHE_HOME"), *user = getenv("HOME");

	if (dir[0])
		return dir;
	snprintf(dir, sizeof(dir), "%.*s/build", PATH_MAX - 8, lab_home());
	if (!access(dir, W_OK) || (access(dir, F_OK) && !access(lab_home(), W_OK)))
		goto out;
	if (xdg && *xdg == '/')
		snprintf(dir, sizeof(dir), "%.*s/ptelab", PATH_MAX - 8, xdg);
	else if (user && *user)
		snprintf(dir, sizeof(dir), "%.*s/.cache/ptelab", PATH_MAX - 16, user);
	else
		snprintf(dir, sizeof(dir), "/tmp/ptelab-cache");
out:
	/* created on first use: a fresh install's ~/.cache may not exist yet */
	make_dirs(dir);
	return dir;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

int lab_list_dir(const char *subdir, const char *prefix, const char *suffix,
		 char names[][64], int max)
{
	char path[PATH_MAX + 64];
	size_t plen = strlen(prefix), slen = strlen(suffix);
	struct dirent *d;
	int n = 0;

	/* "build/..." is in the state directory, the rest in the home */
	if (!strncmp(subdir, "build/", 6))
		snprintf(path, sizeof(path), "%s/%s", lab_state_dir(), subdir + 6);
	else
		snprintf(path, sizeof(path), "%s/%s", lab_home(), subdir);
	DIR *dir = opendir(path);
	if (!dir)
		return 0;
	while ((d = readdir(dir)) && n < max) {
		size_t len = strlen(d->d_name);

		if (len <= plen + slen || len - slen >= 64 || strncmp(d->d_name, prefix, plen) ||
		    strcmp(d->d_name + len - slen, suffix))
			continue;
		memcpy(names[n], d->d_name, len - slen);
		names[n++][len - slen] = 0;
	}
	closedir(dir);
	qsort(names, n, 64, cmp);
	return n;
}

int lab_profile_load(const char *name, struct profile *p, char *err, size_t errlen)
{
	char path[PATH_MAX + 64];
	FILE *f;
	int ret;

	for (const char *c = name; *c; c++) {
		if (!isalnum((unsigned char)*c) && *c != '-' && *c != '_') {
			snprintf(err, errlen, "bad profile name '%s'; 'ptelab list' shows the profiles", name);
			return -1;
		}
	}
	snprintf(path, sizeof(path), "%s/profiles/%s.prof", lab_home(), name);
	f = fopen(path, "r");
	if (!f) {
		char dir[PATH_MAX + 16];

		snprintf(dir, sizeof(dir), "%s/profiles", lab_home());
		if (access(dir, R_OK))
			snprintf(err, errlen, "no profiles directory found (not beside the binary, nor "
				 "installed): set PTELAB_HOME to a ptelab tree, or run make install");
		else
			snprintf(err, errlen, "unknown profile '%s'; 'ptelab list' shows the profiles",
				 name);
		return -1;
	}
	ret = profile_parse(f, path, name, p, err, errlen);
	fclose(f);
	return ret;
}

int lab_profile_names(char names[][64], int max)
{
	return lab_list_dir("profiles", "", ".prof", names, max);
}
