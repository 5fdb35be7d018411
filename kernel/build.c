// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building a kernel backend: the tree's arch/arm64/mm/contpte.c and the
 * dispatcher block of its asm/pgtable.h (twice: contpte on and off),
 * compiled unchanged against the shim and linked into one shared object
 * under build/backends. Cached: the name carries a hash of the tree's
 * files, the commands and the compiler; the compiler's own dependency
 * list (-MMD) says which shim and lab headers went in, and a change to any
 * of them builds anew.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lab/paths.h"
#include "kernel/build.h"
#include "kernel/dispatch.h"
#include "kernel/quirks.h"
#include "kernel/spawn.h"

int kbuild_read_file(const char *path, char **out)
{
	FILE *f = fopen(path, "r");
	long n;

	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	*out = malloc((size_t)n + 1);
	if (!*out || fread(*out, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(*out);
		return -1;
	}
	(*out)[n] = 0;
	fclose(f);
	return 0;
}

static int makefile_int(const char *mk, const char *key)
{
	size_t n = strlen(key);

	/* "KEY = value" at the start of a line */
	for (const char *p = mk; p; p = strchr(p, '\n')) {
		if (*p == '\n')
			p++;
		if (strncmp(p, key, n))
			continue;
		p += n;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '=')
			return atoi(p + 1);
	}
	return -1;
}

u64 kbuild_hash(u64 h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The first line of compiler output that says "error". */
void kbuild_first_error(const char *log, char *out, size_t n)
{
	const char *p = strstr(log, "error");
	const char *start = p, *end;

	if (!p) {
		snprintf(out, n, "%.*s", 200, log);
		return;
	}
	while (start > log && start[-1] != '\n')
		start--;
	end = strchr(p, '\n');
	snprintf(out, n, "%.*s", (int)min((size_t)(end ? end - start : (long)strlen(start)), (size_t)300), start);
}

/* One compile's output added to the build's whole log, under a heading. */
void kbuild_log_append(char **all, size_t *len, const char *what, const char *out)
{
	size_t add = strlen(what) + (out ? strlen(out) : 0) + 16;
	char *p = realloc(*all, *len + add + 1);

	if (!p)
		return;
	*all = p;
	*len += (size_t)snprintf(p + *len, add + 1, "== %s\n%s", what, out ? out : "");
}

/*
 * The warnings the compiler gave on the tree's own files (the shim's are
 * ptelab's business): one line naming how many, the first, and the log.
 */
void kbuild_report_warnings(const char *name, const char *tree, const char *log,
			    const char *log_path)
{
	size_t tlen = tree ? strlen(tree) : 0;
	int n = 0;
	char first[240] = "";

	for (const char *l = log; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);
		/* the tree's lines: under its path, or named relative to it (NULL) */
		bool kernel = tree ? !strncmp(l, tree, tlen) : l[0] != '/';

		if (kernel && memmem(l, len, ": warning: ", 11)) {
			size_t skip = tree ? tlen + (l[tlen] == '/') : 0;

			if (!n++)
				snprintf(first, sizeof(first), "%.*s",
					 (int)min(len - skip, sizeof(first) - 1), l + skip);
		}
		l = end ? end + 1 : NULL;
	}
	if (n)
		fprintf(stderr, "ptelab: backend %s: %d compiler warning%s in the kernel's code, the "
			"first: %s (full log: %s)\n", name, n, n == 1 ? "" : "s", first, log_path);
}

/* Every regular file under dir, in name order: paths and contents. */
/*
 * Which compiler: its resolved path and the file's identity (inode, size,
 * mtime), so a different or upgraded compiler builds anew.
 */
u64 kbuild_compiler_identity(u64 h, const char *cc)
{
	char path[PATH_MAX], buf[PATH_MAX + 80];
	struct stat st;
	const char *env = getenv("PATH");

	snprintf(path, sizeof(path), "%s", cc);
	if (!strchr(cc, '/') && env) {
		char dirs[8192], *save = NULL;

		snprintf(dirs, sizeof(dirs), "%s", env);
		for (char *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			snprintf(path, sizeof(path), "%s/%s", d, cc);
			if (!access(path, X_OK))
				break;
		}
	}
	if (stat(path, &st))
		return kbuild_hash(h, cc);
	snprintf(buf, sizeof(buf), "%s %llu %llu %lld", path, (unsigned long long)st.st_ino,
		 (unsigned long long)st.st_size, (long long)st.st_mtime);
	return kbuild_hash(h, buf);
}

static bool sanitize;
bool kernel_tree_untestable;

void kernel_backends_sanitize(bool on)
{
	sanitize = on;
}

bool kernel_backends_sanitized(void)
{
	return sanitize;
}

/* A file's content hash, 0 if it cannot be read. */
static u64 file_hash(const char *path)
{
	char *text = NULL;
	u64 h;

	if (kbuild_read_file(path, &text))
		return 0;
	h = kbuild_hash(0xcbf29ce484222325ULL, text);
	free(text);
	return h ? h : 1;
}

/*
 * <so>.deps: "HASH PATH" for every file the compiler read (from its -MD
 * output). The cached object is good while every one of them is unchanged.
 */
bool kbuild_deps_unchanged(const char *so)
{
	char path[PATH_MAX + 16], line[PATH_MAX + 32];
	FILE *f;
	bool ok;
	int n = 0;

	snprintf(path, sizeof(path), "%s.deps", so);
	f = fopen(path, "r");
	if (!f)
		return false;
	/* first the object the list was written for: it must be this one */
	ok = fgets(line, sizeof(line), f) && strtoull(line, NULL, 16) == file_hash(so);
	while (ok && fgets(line, sizeof(line), f)) {
		unsigned long long h;
		char *file;

		line[strcspn(line, "\n")] = 0;
		h = strtoull(line, &file, 16);
		/* a file that cannot be read now, or could not then, is a change */
		ok = *file == ' ' && h && file_hash(file + 1) == h;
		n++;
	}
	fclose(f);
	return ok && n > 0;
}

/* Collects the paths of a make-style .d file into deps (one per line, once). */
void kbuild_add_deps(const char *d_file, const char *skip, char **deps, size_t *len)
{
	char *text = NULL;

	if (kbuild_read_file(d_file, &text))
		return;
	char *p = strchr(text, ':');
	for (p = p ? p + 1 : text; *p;) {
		char word[PATH_MAX + 1];
		size_t n = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n' || (*p == '\\' && p[1] == '\n'))
			p += *p == '\\' ? 2 : 1;
		while (*p && *p != ' ' && *p != '\t' && *p != '\n' && n < PATH_MAX) {
			if (*p == '\\' && p[1] == ' ')
				p++;
			word[n++] = *p++;
		}
		word[n] = 0;
		/* rules' targets, and the files generated for this build */
		if (!n || word[n - 1] == ':' || !strncmp(word, skip, strlen(skip)))
			continue;
		char entry[PATH_MAX + 4];
		snprintf(entry, sizeof(entry), "\n%s\n", word);
		if (*deps && strstr(*deps, entry))
			continue;
		size_t add = strlen(word) + 1;
		char *nd = realloc(*deps, *len + add + 2);
		if (!nd)
			break;
		if (!*len)
			nd[(*len)++] = '\n';
		*deps = nd;
		memcpy(*deps + *len, word, add - 1);
		*len += add;
		(*deps)[*len - 1] = '\n';
		(*deps)[*len] = 0;
	}
	free(text);
}

/*
 * The list, for the object as it is now. A file changed while the build ran
 * (mtime not before its start) leaves no list: the next run builds again.
 */
int kbuild_write_deps(const char *so, const char *deps, time_t started)
{
	char path[PATH_MAX + 16], tmp[PATH_MAX + 32];
	FILE *f;

	snprintf(path, sizeof(path), "%s.deps", so);
	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	fprintf(f, "%016llx %s\n", (unsigned long long)file_hash(so), so);
	for (const char *p = deps; p && *p;) {
		const char *nl = strchr(p, '\n');
		char file[PATH_MAX + 1];
		size_t n = nl ? (size_t)(nl - p) : strlen(p);

		if (n && n <= PATH_MAX) {
			struct stat st;

			memcpy(file, p, n);
			file[n] = 0;
			/* ptelab's own headers; the tree's files are in the key */
			if (stat(file, &st) ||
			    (!strncmp(file, lab_home(), strlen(lab_home())) && st.st_mtime >= started)) {
				fclose(f);
				unlink(tmp);
				return 0;
			}
			fprintf(f, "%016llx %s\n", (unsigned long long)file_hash(file), file);
		}
		p += n + (nl ? 1 : 0);
	}
	if (fclose(f) || rename(tmp, path)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

void kbuild_safe_name(const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s", name);
	for (char *c = out; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-')
			*c = '_';
}

/*
 * A build's temporaries are named <object>.so.PID.* (and <object>.so.deps.PID):
 * those of a process that is gone (a build interrupted by a signal) are
 * removed, so nothing is left there for ever.
 */
static void sweep_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		const char *p = strstr(e->d_name, ".so.");
		char path[PATH_MAX + 300];
		long pid;

		if (!p)
			continue;
		p += 4;
		if (!strncmp(p, "deps.", 5))
			p += 5;
		if (!isdigit((unsigned char)*p))
			continue;
		pid = strtol(p, NULL, 10);
		if (pid <= 0 || pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
}

bool kbuild_cached(u64 h, char *const *argv, int argc, int cc_words, const char *stem,
		   char *so_path, size_t so_len)
{
	char dir[PATH_MAX + 16];

	for (int i = 0; i < argc; i++)
		h = kbuild_hash(kbuild_hash(h, argv[i]), "\x1f");
	/* every word of $CC that is a program: "ccache gcc" is ccache and gcc */
	for (int i = 0; i < cc_words; i++)
		if (argv[i][0] != '-')
			h = kbuild_compiler_identity(h, argv[i]);
	snprintf(dir, sizeof(dir), "%s/backends", lab_state_dir());
	mkdir(dir, 0777);
	snprintf(so_path, so_len, "%s/%.80s-%016llx.so", dir, stem, (unsigned long long)h);
	if (!access(so_path, R_OK) && kbuild_deps_unchanged(so_path))
		return true;
	sweep_stale(dir); /* about to build: what interrupted builds left goes first */
	return false;
}

void kbuild_keep_log(const char *so_path, const char *all_log, char *log_path, size_t len)
{
	FILE *lf;

	snprintf(log_path, len, "%s.log", so_path);
	lf = fopen(log_path, "w");
	if (!lf || (all_log && fputs(all_log, lf) < 0) || fclose(lf))
		snprintf(log_path, len, "(could not be written)");
}

int kbuild_install(const char *tmp, const char *so_path, const char *deps, time_t started)
{
	char path[PATH_MAX + 16];

	/* the old list must never describe the new object */
	snprintf(path, sizeof(path), "%s.deps", so_path);
	unlink(path);
	if (rename(tmp, so_path) || kbuild_write_deps(so_path, deps, started)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The tree's Makefile version, "X.Y.Z"; -1 if tree is not a kernel tree. */
int kbuild_tree_version(const char *tree, int *v, int *p, int *s, char *version)
{
	char path[PATH_MAX + 16], *mk = NULL;

	snprintf(path, sizeof(path), "%s/Makefile", tree);
	if (kbuild_read_file(path, &mk) || (*v = makefile_int(mk, "VERSION")) < 0 ||
	    (*p = makefile_int(mk, "PATCHLEVEL")) < 0) {
		free(mk);
		return -1;
	}
	*s = makefile_int(mk, "SUBLEVEL");
	free(mk);
	if (*s < 0)
		*s = 0;
	snprintf(version, 32, "%d.%d.%d", *v, *p, *s);
	return 0;
}

int kernel_build_backend(const char *name, const char *tree, char *so_path, size_t so_len,
			 char *version, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], *src = NULL, *pgt = NULL, *block[2] = { NULL, NULL };
	char missing[64], quirk_defs[8][64];
	int v, p, s, nr_quirks = 0, rc = -1;

	if (kbuild_tree_version(tree, &v, &p, &s, version)) {
		snprintf(err, errlen, "%s is not a kernel tree (no Makefile with VERSION and PATCHLEVEL); "
			 "give the top directory of a Linux source tree", tree);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/arch/arm64/mm/contpte.c", tree);
	if (kbuild_read_file(path, &src)) {
		kernel_tree_untestable = true;
		snprintf(err, errlen, "kernel %s at %s has no arch/arm64/mm/contpte.c (contpte arrived "
			 "in 6.9); use a tree from 6.9 on", version, tree);
		return -1;
	}
	snprintf(path, sizeof(path), "%s/arch/arm64/include/asm/pgtable.h", tree);
	if (kbuild_read_file(path, &pgt)) {
		kernel_tree_untestable = true;
		snprintf(err, errlen, "kernel %s at %s has no arch/arm64/include/asm/pgtable.h; "
			 "give a whole kernel tree", version, tree);
		goto out;
	}
	if (dispatch_block_split(pgt, path, &block[0], &block[1], missing, sizeof(missing))) {
		kernel_tree_untestable = true;
		snprintf(err, errlen, "%s of kernel %s has no '%s' marker around its dispatchers; "
			 "ptelab needs the CONFIG_ARM64_CONTPTE block (6.9 on)", path, version, missing);
		goto out;
	}

	/*
	 * The key: the tree (its path: debug info and #line name its files),
	 * its files, the blocks as cut, then (below) the commands and compiler.
	 */
	u64 h = kbuild_hash(kbuild_hash(kbuild_hash(0xcbf29ce484222325ULL, src), pgt), version);
	h = kbuild_hash(kbuild_hash(kbuild_hash(h, tree), block[0]), block[1]);
	for (unsigned int i = 0; i < nr_kernel_quirks; i++) {
		const struct kernel_quirk *q = &kernel_quirks[i];
		char *text = NULL, *code;

		snprintf(path, sizeof(path), "%s/%s", tree, q->file);
		if (kbuild_read_file(path, &text))
			continue; /* not there: the quirk is absent */
		code = code_only(text);
		h = kbuild_hash(h, text);
		if (code && q->present(code))
			snprintf(quirk_defs[nr_quirks++], sizeof(quirk_defs[0]), "%s", q->define);
		free(code);
		free(text);
	}
	/* the definitions the shim copies must still be the tree's (kernel/quirks.c) */
	char dup_err[512];
	if (kernel_dups_check(tree, dup_err, sizeof(dup_err))) {
		kernel_tree_untestable = true;
		snprintf(err, errlen, "kernel %s at %s: %s; ptelab will not build it against a stale copy",
			 version, tree, dup_err);
		goto out;
	}

	char safe[80], stem[96];
	kbuild_safe_name(name, safe, sizeof(safe));

	/*
	 * The compiler commands, as argument vectors: no shell ever sees the
	 * tree's path. $CC may hold words ("ccache gcc"), split at blanks only.
	 */
	char cc_buf[512], *argv[64], kver[48], inc_lab[PATH_MAX + 8], inc_shim[PATH_MAX + 32],
		shim_h[PATH_MAX + 32], src_path[PATH_MAX + 64], api_path[PATH_MAX + 32],
		tmp[PATH_MAX + 16], obj[3][PATH_MAX + 32], dep[3][PATH_MAX + 32], hdr[2][PATH_MAX + 32],
		hdr_def[2][PATH_MAX + 64];
	const char *cc = getenv("CC");
	int argc = spawn_split_words(cc && *cc ? cc : "cc", cc_buf, sizeof(cc_buf), argv, 8);
	/*
	 * -fsemantic-interposition: calls inside the object to its own
	 * __contpte_try_fold/unfold and contpte_ptep_get stay PLT calls, so
	 * ptelab's counting interposers see them (gcc's default; clang's is not).
	 */
	/*
	 * The kernel's own default warnings (its top Makefile: -Wall without
	 * unused-but-set-variable): a tree's are shown, counted and logged
	 * whole; an unmodified 6.12, 7.2 or 7.3 gives none.
	 */
	char *const flags[] = { "-std=gnu11", "-O2", "-g", "-fPIC", "-fsemantic-interposition",
				"-Wall", "-Wno-unused-but-set-variable" };
	char *const asan_flags[] = { "-fsanitize=address", "-fno-omit-frame-pointer" };

	if (argc == 0) {
		snprintf(err, errlen, "$CC is empty; unset it or name a C compiler");
		goto out;
	}
	int cc_words = argc;
	for (unsigned int i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		argv[argc++] = flags[i];
	for (unsigned int i = 0; sanitize && i < sizeof(asan_flags) / sizeof(asan_flags[0]); i++)
		argv[argc++] = asan_flags[i];
	snprintf(kver, sizeof(kver), "-DPTELAB_KVER=%d", (v << 16) + (p << 8) + s);
	argv[argc++] = kver;
	for (int i = 0; i < nr_quirks; i++)
		argv[argc++] = quirk_defs[i];
	snprintf(inc_lab, sizeof(inc_lab), "-I%s", lab_home());
	snprintf(inc_shim, sizeof(inc_shim), "-I%s/kernel/shim/include", lab_home());
	snprintf(shim_h, sizeof(shim_h), "%s/kernel/shim/shim.h", lab_home());
	snprintf(src_path, sizeof(src_path), "%s/arch/arm64/mm/contpte.c", tree);
	snprintf(api_path, sizeof(api_path), "%s/kernel/shim/api.c", lab_home());
	argv[argc++] = inc_lab;
	argv[argc++] = inc_shim;
	argv[argc++] = "-include";
	argv[argc++] = shim_h;
	int base = argc;

	snprintf(stem, sizeof(stem), "%.60s%s", safe, sanitize ? "-asan" : "");
	if (kbuild_cached(h, argv, argc, cc_words, stem, so_path, so_len)) {
		rc = 0;
		goto out;
	}

	/* per-process names: two runs may build the same backend at once */
	int pid = (int)getpid();
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", so_path, pid);
	for (int i = 0; i < 2; i++) {
		FILE *f;

		snprintf(hdr[i], sizeof(hdr[i]), "%s.%d.%s.h", so_path, pid, i ? "nocont" : "cont");
		snprintf(hdr_def[i], sizeof(hdr_def[i]), "-DPTELAB_DISPATCH_BLOCK=\"%s\"", hdr[i]);
		f = fopen(hdr[i], "w");
		if (!f || fputs(block[i], f) < 0 || fclose(f)) {
			snprintf(err, errlen, "cannot write %s: %s", hdr[i], strerror(errno));
			goto out;
		}
	}
	for (int i = 0; i < 3; i++) {
		snprintf(obj[i], sizeof(obj[i]), "%s.%d.%d.o", so_path, pid, i);
		snprintf(dep[i], sizeof(dep[i]), "%s.%d.%d.d", so_path, pid, i);
	}
	fprintf(stderr, "ptelab: building backend %s (kernel %s)%s...\n", name, version,
		sanitize ? " with AddressSanitizer" : "");
	/* one second back: mtimes are whole seconds on some file systems */
	time_t started = time(NULL) - 1;

	/* contpte.c and the tree's dispatchers (contpte on), the #else block (off) */
	struct { const char *src; int block; bool nocont; } units[3] = {
		{ src_path, 0, false }, { api_path, 0, false }, { api_path, 1, true },
	};
	char *log = NULL, line[320] = "unknown error", *deps = NULL, *all_log = NULL;
	char log_path[PATH_MAX + 160];
	size_t deps_len = 0, all_len = 0;
	int r = 0;
	for (int u = 0; u < 3 && !r; u++) {
		argc = base;
		argv[argc++] = hdr_def[units[u].block];
		if (units[u].nocont)
			argv[argc++] = "-DPTELAB_API_NOCONT";
		argv[argc++] = "-MMD";
		argv[argc++] = "-MF";
		argv[argc++] = dep[u];
		argv[argc++] = "-c";
		argv[argc++] = (char *)units[u].src;
		argv[argc++] = "-o";
		argv[argc++] = obj[u];
		argv[argc] = NULL;
		free(log);
		log = NULL;
		r = spawn_run(argv, SPAWN_CAPTURE, &log);
		kbuild_log_append(&all_log, &all_len, units[u].src, log);
		kbuild_add_deps(dep[u], so_path, &deps, &deps_len);
	}
	if (!r) {
		/* link: the compiler words, the sanitizer runtime flag, the objects */
		argc = cc_words;
		if (sanitize)
			argv[argc++] = asan_flags[0];
		argv[argc++] = "-shared";
		argv[argc++] = "-o";
		argv[argc++] = tmp;
		for (int i = 0; i < 3; i++)
			argv[argc++] = obj[i];
		argv[argc] = NULL;
		free(log);
		log = NULL;
		r = spawn_run(argv, SPAWN_CAPTURE, &log);
		kbuild_log_append(&all_log, &all_len, "(link)", log);
	}
	/* the whole compiler output, kept beside the backend and named in messages */
	kbuild_keep_log(so_path, all_log, log_path, sizeof(log_path));
	for (int i = 0; i < 3; i++) {
		unlink(obj[i]);
		unlink(dep[i]);
	}
	for (int i = 0; i < 2; i++)
		unlink(hdr[i]);
	if (r != 0) {
		if (r < 0)
			snprintf(line, sizeof(line), "cannot run the compiler '%s': %s (set CC to a C compiler)",
				 argv[0], strerror(errno));
		else if (log)
			kbuild_first_error(log, line, sizeof(line));
		kernel_tree_untestable = true;
		snprintf(err, errlen, "contpte.c of kernel %s (%s) does not compile against the shim: "
			 "%s (full compiler log: %s)", version, tree, line, log_path);
		unlink(tmp);
		goto out_log;
	}
	if (kbuild_install(tmp, so_path, deps, started)) {
		snprintf(err, errlen, "cannot write %s: %s", so_path, strerror(errno));
		goto out_log;
	}
	rc = 0;
	kbuild_report_warnings(name, tree, all_log, log_path);
out_log:
	free(log);
	free(all_log);
	free(deps);
out:
	free(block[0]);
	free(block[1]);
	free(src);
	free(pgt);
	return rc;
}
