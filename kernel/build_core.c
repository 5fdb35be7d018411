// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building a tree's core-mm unit: the roots of kernel/core_roots.c and
 * their same-file closure, extracted from the tree's mm/ files
 * (kernel/extract.c), followed by the entry table (kernel/shim/core_entry.c),
 * compiled against kernel/shim/core.h into one shared object under
 * build/backends, every symbol hidden but the entry's. Cached like the
 * arch backend: the name carries a hash of the unit's text, the commands
 * and the compiler; the compiler's dependency list says which of ptelab's
 * headers went in.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel/build.h"
#include "kernel/core_roots.h"
#include "kernel/extract.h"
#include "kernel/spawn.h"
#include "lab/paths.h"

/* Every root and boundary name of every root set, in one unit. */
static int core_names(const char **roots, int max_roots, const char **boundary, int max_boundary,
		      int *nr_boundary)
{
	int nr = 0;

	*nr_boundary = 0;
	for (unsigned int s = 0; s < nr_core_root_sets; s++) {
		const struct core_root_set *set = &core_root_sets[s];

		for (int i = 0; set->roots[i] && nr < max_roots; i++)
			roots[nr++] = set->roots[i];
		for (int i = 0; set->boundary[i].name && *nr_boundary < max_boundary; i++)
			boundary[(*nr_boundary)++] = set->boundary[i].name;
	}
	return nr;
}

/* The unit's text: the extracted definitions, then the entry. */
static char *core_unit(const char *tree, const char *version, char *err, size_t errlen)
{
	struct extract_file files[16];
	char *texts[16] = { NULL }, paths[16][PATH_MAX + 64];
	const char *roots[64], *boundary[256];
	int nr_boundary, nr_roots, nr_items;
	char *unit = NULL, *out = NULL;

	for (unsigned int f = 0; f < nr_core_files && f < 16; f++) {
		snprintf(paths[f], sizeof(paths[f]), "%s/%s", tree, core_files[f].path);
		if (kbuild_read_file(paths[f], &texts[f])) {
			kernel_tree_untestable = true;
			snprintf(err, errlen, "kernel %s at %s has no %s, which its core-mm roots are "
				 "taken from; give a whole kernel tree, or run its arch code alone "
				 "with --core ref", version, tree, core_files[f].path);
			goto out;
		}
		/*
		 * #line names the file as the tree does ("mm/memory.c"), not by
		 * where it is: trees whose core-mm text is the same (a copy of
		 * one whose arch code is patched, a mutant of contpte.c) share
		 * one object.
		 */
		files[f] = (struct extract_file){ core_files[f].path, core_files[f].path, texts[f],
						  core_files[f].only };
	}
	nr_roots = core_names(roots, 64, boundary, 256, &nr_boundary);
	/*
	 * -finstrument-functions instruments inlined functions too: the
	 * tree's inline helpers open no frame (perf shows inlined code in its
	 * caller), and their hooks cost nothing per PTE.
	 */
	struct extract_req req = { files, (int)nr_core_files, roots, nr_roots, boundary, nr_boundary,
				   "struct ptelab_core_fn ptelab_core_fns",
				   "__attribute__((no_instrument_function))" };
	char why[512];

	unit = kernel_extract(&req, &nr_items, why, sizeof(why));
	if (!unit) {
		kernel_tree_untestable = true;
		snprintf(err, errlen, "kernel %s at %s: %s, so ptelab cannot run its core-mm code; "
			 "run its arch code alone with --core ref", version, tree, why);
		goto out;
	}
	size_t n = strlen(unit) + PATH_MAX + 128;
	out = malloc(n);
	if (out)
		snprintf(out, n, "%s#line 1 \"%s/kernel/shim/core_entry.c\"\n"
			 "#include \"kernel/shim/core_entry.c\"\n", unit, lab_home());
	else
		snprintf(err, errlen, "out of memory building the core-mm unit");
out:
	free(unit);
	for (unsigned int f = 0; f < nr_core_files && f < 16; f++)
		free(texts[f]);
	return out;
}

/* Whether a compiler line is placed in one of the tree's files ("mm/memory.c:12:..."). */
static bool in_tree_file(const char *line)
{
	for (unsigned int f = 0; f < nr_core_files; f++) {
		size_t n = strlen(core_files[f].path);

		if (!strncmp(line, core_files[f].path, n) && line[n] == ':')
			return true;
	}
	return false;
}

/*
 * The compiler's first error as the tree's file sees it: the path as the
 * tree names it (the unit's #line says so), and the function it is in
 * (gcc's "In function" line before it, the unit's renaming undone).
 */
static void core_first_error(const char *log, char *out, size_t n)
{
	const char *e = strstr(log, ": error: "), *start, *fn = NULL;
	char func[128] = "";

	if (!e) {
		kbuild_first_error(log, out, n);
		return;
	}
	for (start = e; start > log && start[-1] != '\n';)
		start--;
	/* gcc's last context line before the error: a function, or the top level (none) */
	for (const char *p = log; (p = strstr(p, ": ")) && p < start; p++) {
		if (!strncmp(p, ": In function ", 14))
			fn = p + 14;
		else if (!strncmp(p, ": At top level:", 15))
			fn = NULL;
	}
	if (fn) {
		size_t k = 0;

		fn += strspn(fn, "'\xe2\x80\x98`");
		if (!strncmp(fn, "__ptelab_tree_", 14))
			fn += 14;
		while (k + 1 < sizeof(func) && (isalnum((unsigned char)fn[k]) || fn[k] == '_'))
			k++;
		snprintf(func, sizeof(func), " (in %.*s)", (int)k, fn);
	}
	const char *end = strchr(start, '\n'), *msg = e + 2, *loc = start;
	int loc_len = (int)(e - start);

	/*
	 * An error in a renamed name is placed at the unit's #define: the
	 * tree's own place is the "in expansion of macro" note that follows.
	 */
	if (!in_tree_file(start)) {
		const char *next = strstr(e + 1, ": error: ");

		for (const char *l = end; l && *l && (!next || l < next); l = strchr(l + 1, '\n')) {
			const char *line = l + 1, *note = strstr(line, ": note: in expansion of macro");
			const char *eol = strchr(line, '\n');

			if (note && (!eol || note < eol) && in_tree_file(line)) {
				loc = line;
				loc_len = (int)(note - line);
				break;
			}
		}
	}
	/* the message in the tree's names: the unit's renaming undone */
	char text[320];
	size_t k = 0;

	for (const char *c = msg; c < (end ? end : msg + strlen(msg)) && k + 1 < sizeof(text);) {
		if (!strncmp(c, "__ptelab_tree_", 14)) {
			c += 14;
			continue;
		}
		text[k++] = *c++;
	}
	text[k] = 0;
	snprintf(out, n, "%.*s: %.200s%s", loc_len > 120 ? 120 : loc_len, loc, text, func);
}

int kernel_build_core(const char *name, const char *tree, char *so_path, size_t so_len,
		      char *err, size_t errlen)
{
	char version[32], *unit;
	int v, p, s, rc = -1;

	if (kbuild_tree_version(tree, &v, &p, &s, version)) {
		snprintf(err, errlen, "%s is not a kernel tree (no Makefile with VERSION and PATCHLEVEL); "
			 "give the top directory of a Linux source tree", tree);
		return -1;
	}
	unit = core_unit(tree, version, err, errlen);
	if (!unit)
		return -1;

	char cc_buf[512], *argv[64], kver[48], krel[64], inc_lab[PATH_MAX + 8], excl[6 * PATH_MAX],
		shim_h[PATH_MAX + 32], src[PATH_MAX + 160], obj[PATH_MAX + 160], dep[PATH_MAX + 160],
		tmp[PATH_MAX + 160], log_path[PATH_MAX + 160], kept[PATH_MAX + 160],
		line[320] = "unknown error";
	const char *cc = getenv("CC");
	int argc = spawn_split_words(cc && *cc ? cc : "cc", cc_buf, sizeof(cc_buf), argv, 8);
	/*
	 * -fvisibility=hidden: the tree's non-static functions (folio_pte_batch,
	 * ...) bind inside the unit, never to ptelab's twins of the same name.
	 * Implicit declarations are errors: a symbol the shim lacks is named at
	 * build time, not at load. The kernel's default warnings (-Wall
	 * without unused-but-set-variable; the shim's macros drop arguments
	 * the tree computed for them): an unmodified 6.12, 7.2 or 7.3 gives none.
	 */
	char *const flags[] = { "-std=gnu11", "-O2", "-g", "-fPIC", "-fvisibility=hidden",
				"-Werror=implicit-function-declaration", "-Wall",
				"-Wno-unused-but-set-variable", "-Wno-unused-function",
				"-finstrument-functions" };
	bool san = kernel_backends_sanitized();

	if (argc == 0) {
		snprintf(err, errlen, "$CC is empty; unset it or name a C compiler");
		goto out;
	}
	int cc_words = argc;
	for (unsigned int i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		argv[argc++] = flags[i];
	if (san) {
		argv[argc++] = "-fsanitize=address";
		argv[argc++] = "-fno-omit-frame-pointer";
	}
	snprintf(kver, sizeof(kver), "-DPTELAB_KVER=%d", (v << 16) + (p << 8) + s);
	snprintf(krel, sizeof(krel), "-DPTELAB_KRELEASE=\"%s\"", version);
	/* the tree's functions open perf frames; ptelab's headers' own wrappers do */
	snprintf(excl, sizeof(excl), "-finstrument-functions-exclude-file-list=%s/arch/,%s/mm/,"
		 "%s/include/,%s/hw/,%s/kernel/shim/,/usr/", lab_home(), lab_home(), lab_home(),
		 lab_home(), lab_home());
	argv[argc++] = excl;
	snprintf(inc_lab, sizeof(inc_lab), "-I%s", lab_home());
	snprintf(shim_h, sizeof(shim_h), "%s/kernel/shim/core.h", lab_home());
	argv[argc++] = kver;
	argv[argc++] = krel;
	argv[argc++] = inc_lab;
	argv[argc++] = "-include";
	argv[argc++] = shim_h;

	/* named by its text, not by its tree: see core_unit() */
	u64 h = kbuild_hash(0xcbf29ce484222325ULL, unit);
	char stem[96];

	snprintf(stem, sizeof(stem), "core-%.40s%s", version, san ? "-asan" : "");
	if (kbuild_cached(h, argv, argc, cc_words, stem, so_path, so_len)) {
		rc = 0;
		goto out;
	}

	int pid = (int)getpid();
	snprintf(src, sizeof(src), "%s.%d.c", so_path, pid);
	snprintf(obj, sizeof(obj), "%s.%d.o", so_path, pid);
	snprintf(dep, sizeof(dep), "%s.%d.d", so_path, pid);
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", so_path, pid);
	FILE *f = fopen(src, "w");
	if (!f || fputs(unit, f) < 0 || fclose(f)) {
		snprintf(err, errlen, "cannot write %s: %s", src, strerror(errno));
		unlink(src);
		goto out;
	}
	fprintf(stderr, "ptelab: building the core-mm code of %s (kernel %s)%s...\n", name, version,
		san ? " with AddressSanitizer" : "");
	time_t started = time(NULL) - 1;
	char *log = NULL, *all_log = NULL, *deps = NULL;
	size_t all_len = 0, deps_len = 0;
	int r;

	argv[argc++] = "-MMD";
	argv[argc++] = "-MF";
	argv[argc++] = dep;
	argv[argc++] = "-c";
	argv[argc++] = src;
	argv[argc++] = "-o";
	argv[argc++] = obj;
	argv[argc] = NULL;
	r = spawn_run(argv, SPAWN_CAPTURE, &log);
	kbuild_log_append(&all_log, &all_len, "core-mm unit", log);
	kbuild_add_deps(dep, so_path, &deps, &deps_len);
	if (!r) {
		argc = cc_words;
		if (san)
			argv[argc++] = "-fsanitize=address";
		argv[argc++] = "-shared";
		argv[argc++] = "-o";
		argv[argc++] = tmp;
		argv[argc++] = obj;
		argv[argc] = NULL;
		free(log);
		log = NULL;
		r = spawn_run(argv, SPAWN_CAPTURE, &log);
		kbuild_log_append(&all_log, &all_len, "(link)", log);
	}
	kbuild_keep_log(so_path, all_log, log_path, sizeof(log_path));
	unlink(obj);
	unlink(dep);
	if (r != 0) {
		if (r < 0)
			snprintf(line, sizeof(line), "cannot run the compiler '%s': %s (set CC to a C compiler)",
				 argv[0], strerror(errno));
		else if (log)
			core_first_error(log, line, sizeof(line));
		/* the unit the log's lines refer to, kept beside it under the object's name */
		snprintf(kept, sizeof(kept), "%s.unit.c", so_path);
		rename(src, kept);
		kernel_tree_untestable = true;
		snprintf(err, errlen, "the core-mm code of kernel %s does not compile against the shim: "
			 "%s; run its arch code alone with --core ref (compiler log: %s)", version, line,
			 log_path);
		unlink(src);
		unlink(tmp);
		goto out_log;
	}
	unlink(src);
	if (kbuild_install(tmp, so_path, deps, started)) {
		snprintf(err, errlen, "cannot write %s: %s", so_path, strerror(errno));
		goto out_log;
	}
	rc = 0;
	/* the unit's #line names the tree's files relative to it */
	kbuild_report_warnings(name, NULL, all_log, log_path);
out_log:
	free(log);
	free(all_log);
	free(deps);
out:
	free(unit);
	return rc;
}
