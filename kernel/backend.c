// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arch/arm64/api.h"
#include "arch/arm64/gather_memo.h"
#include "hw/cache.h"
#include "hw/cpu.h"
#include "hw/events.h"
#include "hw/host.h"
#include "hw/interleave.h"
#include "hw/invariants.h"
#include "hw/perf.h"
#include "hw/state.h"
#include "include/page.h"
#include "lab/paths.h"
#include "kernel/backend.h"
#include "kernel/build.h"
#include "kernel/git_tree.h"
#include "kernel/spawn.h"
#include "mm/core.h"

const char *const kernel_fetchable[] = { "6.12", "7.2", "7.3", NULL };

/* What contpte.c needs from the kernel that is not page-table code. */
struct mm_struct init_mm;

bool ptelab_hw_bbml2(void)
{
	return hw_machine.cfg.bbml2;
}

/* pmd_trans_huge_lock()'s lock in a tree's core-mm code (kernel/shim/core.h) */
spinlock_t ptelab_pmd_lock;

/* Kernel code reached what the lab does not model (kernel/shim/core.h). */
void ptelab_kernel_unsupported(const char *file, int line, const char *what)
{
	const char *base = strrchr(file, '/');

	hw_violation(VIOL_OTHER, "kernel code at %s:%d reached %s, which the lab does not model",
		     base ? base + 1 : file, line, what);
}

/* The tree's print_bad_pte(): a mapping whose folio's mapcount went negative. */
void ptelab_print_bad_pte(struct vm_area_struct *vma, unsigned long addr, pte_t pte,
			  struct page *page, const char *file, int line)
{
	const char *base = strrchr(file, '/');

	hw_violation(VIOL_MAPCOUNT, "BUG: Bad page map at %#lx (pte %#llx, pfn %#llx) from %s:%d: "
		     "its folio's mapcount went negative", addr, (unsigned long long)pte_val(pte),
		     (unsigned long long)page_to_pfn(page), base ? base + 1 : file, line);
}

static bool core_from_tree = true;

void kernel_backends_core(bool from_tree)
{
	core_from_tree = from_tree;
}

bool kernel_backends_core_from_tree(void)
{
	return core_from_tree;
}

void ptelab_kernel_warn(const char *file, int line, const char *cond)
{
	const char *base = strrchr(file, '/');

	hw_violation(VIOL_OTHER, "kernel WARN at %s:%d: %s", base ? base + 1 : file, line, cond);
}

/* A loaded kernel tree: the arm64 backend it provides and its real functions. */
struct kernel_backend {
	struct arm64_backend b; /* first: arm64_current_backend() points here */
	char name[PATH_MAX + 8];
	char version[32];
	char so_path[PATH_MAX + 128];
	void *handle;
	void (*real_try_fold)(struct mm_struct *, unsigned long, pte_t *, pte_t);
	void (*real_try_unfold)(struct mm_struct *, unsigned long, pte_t *, pte_t);
	pte_t (*real_ptep_get)(pte_t *, pte_t);
	pte_t (*real_ptep_get_lockless)(pte_t *);
	/* the tree's core-mm roots (NULL: --core ref), and their object */
	const struct mm_core_ops *core;
	void *core_handle;
	char core_so_path[PATH_MAX + 128];
};

#define MAX_BACKENDS 16
static struct kernel_backend *loaded[MAX_BACKENDS];
static int nr_loaded;

const struct mm_core_ops *kernel_backend_core(const struct arm64_backend *b)
{
	for (int i = 0; b && i < nr_loaded; i++)
		if (&loaded[i]->b == b)
			return loaded[i]->core;
	return NULL;
}

/* Kernel code called an interposed function: it is the current backend's. */
static struct kernel_backend *current_kernel(void)
{
	/* the last one found: runs select a backend once, its code calls here often */
	static const struct arm64_backend *last_b;
	static struct kernel_backend *last_kb;
	const struct arm64_backend *b = arm64_current_backend();

	if (b && b == last_b)
		return last_kb;
	for (int i = 0; i < nr_loaded; i++)
		if (&loaded[i]->b == b) {
			last_b = b;
			last_kb = loaded[i];
			return loaded[i];
		}
	hw_violation(VIOL_OTHER, "kernel code ran while backend %s was selected", b ? b->name : "none");
	return NULL;
}

/*
 * The tree's dispatchers and contpte.c call these through the PLT: the
 * definitions here interpose, count what the lab counts at that point
 * (folds, unfolds, gathers and the loads inside them), then run the
 * current backend's own code.
 */
void __contpte_try_unfold(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			  pte_t pte)
{
	struct kernel_backend *kb = current_kernel();

	hw_count(EV_unfold, 1);
	if (kb)
		kb->real_try_unfold(mm, addr, ptep, pte);
}

void __contpte_try_fold(struct mm_struct *mm, unsigned long addr, pte_t *ptep,
			pte_t pte)
{
	struct kernel_backend *kb = current_kernel();

	if (!kb)
		return;
	kb->real_try_fold(mm, addr, ptep, pte);
	/* it may decline; count only a block that is now contiguous */
	if (__atomic_load_n(&ptep->pte, __ATOMIC_RELAXED) & PTE_CONT)
		hw_count(EV_fold, 1);
}

/*
 * the tree's dirty/young tests, and the young/dirty bits it sets
 * (arch/arm64/pte.h counts both in its code): inside a gather, the bits
 * it tested and the ones it folded into its result (contpte_merge), as
 * its own loop ran them, racing agents included
 */
unsigned long ptelab_pte_bit_tests, ptelab_pte_bit_sets;

/* a gather's tests beyond one per entry it loaded (contpte_test) */
static u64 gather_extra_tests(unsigned long tests, u64 loads)
{
	return tests > loads ? tests - loads : 0;
}

/*
 * The loads and tests a gather of the tree's made itself: what the
 * counters moved by, less what gathers nested in it (a lockless reader
 * that interleaving ran at one of its loads) claimed for themselves.
 */
struct gather_mark {
	u64 reads, claimed_reads;
	unsigned long tests, claimed_tests;
	unsigned long sets, claimed_sets;
};

static u64 claimed_reads;
static unsigned long claimed_tests, claimed_sets;

/* counters read only as differences: accumulators (hw/state.h) */
static void __attribute__((constructor)) gather_counters_state(void)
{
	_Static_assert(sizeof(unsigned long) == sizeof(u64), "64-bit counters");
	hw_state_register(&ptelab_pte_bit_tests, sizeof(u64), HW_STATE_ACCUMULATES);
	hw_state_register(&ptelab_pte_bit_sets, sizeof(u64), HW_STATE_ACCUMULATES);
	hw_state_register(&claimed_reads, sizeof(u64), HW_STATE_ACCUMULATES);
	hw_state_register(&claimed_tests, sizeof(u64), HW_STATE_ACCUMULATES);
	hw_state_register(&claimed_sets, sizeof(u64), HW_STATE_ACCUMULATES);
}

static struct gather_mark gather_begin(void)
{
	return (struct gather_mark){ hw_events.v[EV_pte_read], claimed_reads, ptelab_pte_bit_tests,
				     claimed_tests, ptelab_pte_bit_sets, claimed_sets };
}

static void gather_own(const struct gather_mark *m, u64 *reads, unsigned long *tests,
		       unsigned long *sets)
{
	*reads = hw_events.v[EV_pte_read] - m->reads - (claimed_reads - m->claimed_reads);
	*tests = ptelab_pte_bit_tests - m->tests - (claimed_tests - m->claimed_tests);
	*sets = ptelab_pte_bit_sets - m->sets - (claimed_sets - m->claimed_sets);
	claimed_reads += *reads;
	claimed_tests += *tests;
	claimed_sets += *sets;
}

/*
 * The tree's gather, or its replay (arch/arm64/gather_memo.h): a replay
 * moves the counters by what the gather it repeats moved them by.
 */
static pte_t tree_ptep_get(struct kernel_backend *kb, pte_t *ptep, pte_t orig_pte)
{
	const pte_t *base = gather_memo_base(ptep);
	struct gather_memo_slot *memo = gather_memo_slot(base);
	const struct gather_memo_call *c;
	bool held;

	if (!memo)
		return kb->real_ptep_get(ptep, orig_pte);
	held = gather_memo_holds(memo, base, gather_memo_tree_impl((const void *)kb->real_ptep_get));
	if (held && (c = gather_memo_find(memo, (unsigned int)(ptep - base), orig_pte))) {
		ptelab_pte_bit_tests += c->tests;
		ptelab_pte_bit_sets += c->sets;
		return gather_memo_replay(base, c);
	}
	return gather_memo_run_tree(memo, held, kb->real_ptep_get, ptep, orig_pte,
				    &ptelab_pte_bit_tests, &ptelab_pte_bit_sets);
}

/*
 * Gathers are what S4 shortens: count them, the loads, folds and tests
 * inside them. The modelled perf profile sees the tree's own
 * contpte_ptep_get as a frame (S4's published share is of it).
 */
pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)
{
	PERF_FUNC();
	struct kernel_backend *kb = current_kernel();
	struct gather_mark m = gather_begin();
	pte_t pte = kb ? tree_ptep_get(kb, ptep, orig_pte) : orig_pte;
	unsigned long tests, sets;
	u64 reads;

	gather_own(&m, &reads, &tests, &sets);
	if (kb) {
		hw_count(EV_contpte_merge, sets);
		hw_count(EV_contpte_test, gather_extra_tests(tests, reads));
	}
	hw_count(EV_contpte_get, 1);
	hw_count(EV_contpte_get_read, reads);
	return pte;
}

pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	struct kernel_backend *kb = current_kernel();
	struct gather_mark m = gather_begin();
	pte_t pte = kb ? kb->real_ptep_get_lockless(orig_ptep) : __ptep_get(orig_ptep);
	unsigned long tests, sets;
	u64 reads;

	gather_own(&m, &reads, &tests, &sets);
	if (kb) {
		hw_count(EV_contpte_merge, sets);
		hw_count(EV_contpte_test, gather_extra_tests(tests, reads));
	}
	hw_count(EV_contpte_get, 1);
	hw_count(EV_contpte_get_read, reads);
	return pte;
}

#define SYM(field, symbol) (*(void **)&(field) = dlsym(handle, (symbol)))

static const struct arm64_backend *load_backend(const char *name, const char *so,
						const char *version, char *err,
						size_t errlen)
{
	void *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	struct kernel_backend *kb;

	if (!handle) {
		snprintf(err, errlen, "cannot load backend %s: %s", name, dlerror());
		return NULL;
	}
	kb = host_calloc(1, sizeof(*kb), "a kernel backend");
	snprintf(kb->name, sizeof(kb->name), "%s", name);
	snprintf(kb->version, sizeof(kb->version), "%s", version);
	snprintf(kb->so_path, sizeof(kb->so_path), "%s", so);
	kb->handle = handle;
	kb->b.name = kb->name;
	kb->b.version = kb->version;
	SYM(kb->b.api, "ptelab_arm64_api");
	SYM(kb->b.api_nocont, "ptelab_arm64_api_nocont");
	SYM(kb->real_try_fold, "__contpte_try_fold");
	SYM(kb->real_try_unfold, "__contpte_try_unfold");
	SYM(kb->real_ptep_get, "contpte_ptep_get");
	SYM(kb->real_ptep_get_lockless, "contpte_ptep_get_lockless");
	if (!kb->b.api || !kb->b.api_nocont || !kb->real_try_fold || !kb->real_try_unfold ||
	    !kb->real_ptep_get || !kb->real_ptep_get_lockless) {
		snprintf(err, errlen, "backend %s (kernel %s) lacks the contpte functions ptelab needs",
			 name, version);
		dlclose(handle);
		free(kb);
		return NULL;
	}
	loaded[nr_loaded++] = kb;
	return &kb->b;
}

/* The tree's core-mm roots, built and loaded beside its arch backend. */
static int load_core(struct kernel_backend *kb, const char *tree, char *err, size_t errlen)
{
	char so[PATH_MAX + 128];

	if (kernel_build_core(kb->name, tree, so, sizeof(so), err, errlen))
		return -1;
	snprintf(kb->core_so_path, sizeof(kb->core_so_path), "%s", so);
	kb->core_handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	if (!kb->core_handle) {
		snprintf(err, errlen, "cannot load the core-mm code of %s (kernel %s): %s; run its "
			 "arch code alone with --core ref", kb->name, kb->version, dlerror());
		return -1;
	}
	kb->core = dlsym(kb->core_handle, "ptelab_core_ops");
	if (!kb->core) {
		snprintf(err, errlen, "the core-mm code of %s (kernel %s) has no entry table",
			 kb->name, kb->version);
		dlclose(kb->core_handle);
		kb->core_handle = NULL;
		return -1;
	}
	return 0;
}

const struct arm64_backend *arm64_backend_by_name(const char *impl, char *err, size_t errlen)
{
	char tree[PATH_MAX + 64], so[PATH_MAX + 128], version[32];
	struct stat st;

	if (!strcmp(impl, "ref"))
		return &arm64_ref_backend;
	for (int i = 0; i < nr_loaded; i++)
		if (!strcmp(loaded[i]->name, impl))
			return &loaded[i]->b;
	if (nr_loaded == MAX_BACKENDS) {
		snprintf(err, errlen, "too many kernel backends in one run (at most %d)", MAX_BACKENDS);
		return NULL;
	}
	if (!strncmp(impl, "linux-", 6)) {
		snprintf(tree, sizeof(tree), "%s/kernels/%s", lab_state_dir(), impl);
		if (stat(tree, &st)) {
			snprintf(err, errlen, "kernel source %s is not fetched; run 'ptelab kernels fetch %s'",
				 impl, impl + 6);
			return NULL;
		}
	} else if (!strncmp(impl, "tree:", 5) && impl[5]) {
		snprintf(tree, sizeof(tree), "%s", impl + 5);
		if (stat(tree, &st) || !S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "kernel tree %s does not exist; give tree:PATH to a Linux source tree",
				 tree);
			return NULL;
		}
	} else if (!strncmp(impl, "git:", 4) && impl[4]) {
		char commit[41];

		if (git_tree_materialize(impl + 4, tree, sizeof(tree), commit, err, errlen))
			return NULL;
	} else {
		snprintf(err, errlen, "unknown impl '%s'; use ref, linux-X.Y, tree:PATH or "
			 "git:PATH@REV ('ptelab list' shows the backends)", impl);
		return NULL;
	}
	if (kernel_build_backend(impl, tree, so, sizeof(so), version, err, errlen))
		return NULL;
	const struct arm64_backend *b = load_backend(impl, so, version, err, errlen);
	if (b && core_from_tree && load_core(loaded[nr_loaded - 1], tree, err, errlen)) {
		/* unusable as asked: forget it, so a later lookup reports the same */
		struct kernel_backend *kb = loaded[--nr_loaded];

		dlclose(kb->handle);
		free(kb);
		return NULL;
	}
	return b;
}

int kernel_fetched(char names[][64], int max)
{
	return lab_list_dir("build/kernels", "linux-", "", names, max);
}

int kernel_fetch(const char *version, bool allow_unverified)
{
	char script[PATH_MAX + 32], build[PATH_MAX + 16];
	const char *c = version;
	int major = 0, minor = 0;

	/* MAJOR.MINOR exactly; fetch.sh would refuse too, but in its own words */
	while (isdigit((unsigned char)*c))
		c++, major++;
	if (*c == '.')
		for (c++; isdigit((unsigned char)*c); c++)
			minor++;
	if (*c || !major || !minor) {
		fprintf(stderr, "ptelab: error: bad kernel version '%s'; use MAJOR.MINOR, e.g. 6.12\n",
			version);
		return 2;
	}
	snprintf(script, sizeof(script), "%s/kernel/fetch.sh", lab_home());
	snprintf(build, sizeof(build), "%s", lab_state_dir());
	if (allow_unverified)
		setenv("PTELAB_ALLOW_UNVERIFIED", "1", 1);
	char *argv[] = { "bash", script, (char *)version, build, NULL };
	int rc = spawn_run(argv, SPAWN_STDOUT_TO_STDERR, NULL);
	if (rc < 0) {
		fprintf(stderr, "ptelab: error: cannot run bash for kernel/fetch.sh: %s\n", strerror(errno));
		return 2;
	}
	return rc == 0 ? 0 : 2;
}

const char *kernel_backend_of_object(const char *path, const char **version)
{
	/* its arch code's object, or its core-mm code's */
	for (int i = 0; path && i < nr_loaded; i++) {
		if (!strcmp(loaded[i]->so_path, path) || !strcmp(loaded[i]->core_so_path, path)) {
			if (version)
				*version = loaded[i]->version;
			return loaded[i]->name;
		}
	}
	return NULL;
}

/* one "key=value" line of a fetched tree's .ptelab-fetched stamp */
static void stamp_value(const char *tree, const char *key, char *out, size_t len)
{
	char path[PATH_MAX + 32], line[256];
	size_t klen = strlen(key);
	FILE *f;

	out[0] = 0;
	snprintf(path, sizeof(path), "%s/.ptelab-fetched", tree);
	f = fopen(path, "r");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == '=') {
			line[strcspn(line, "\n")] = 0;
			snprintf(out, len, "%s", line + klen + 1);
			break;
		}
	fclose(f);
}

/* the tree's git revision ("" if not a git work tree), "-dirty" if tracked files changed */
static void tree_git_revision(const char *tree, char *out, size_t len)
{
	char *rev = NULL, *status = NULL, *top = NULL, real[PATH_MAX];
	char *argv_top[] = { "git", "-C", (char *)tree, "rev-parse", "--show-toplevel", NULL };
	char *argv_rev[] = { "git", "-C", (char *)tree, "rev-parse", "--short=12", "HEAD", NULL };
	char *argv_st[] = { "git", "-C", (char *)tree, "status", "--porcelain",
			    "--untracked-files=no", NULL };

	out[0] = 0;
	/* only the tree's own repository: not one it merely sits inside */
	if (spawn_run(argv_top, SPAWN_CAPTURE_STDOUT, &top) || !top || !realpath(tree, real)) {
		free(top);
		return;
	}
	top[strcspn(top, "\n")] = 0;
	if (strcmp(top, real)) {
		free(top);
		return;
	}
	free(top);
	if (spawn_run(argv_rev, SPAWN_CAPTURE_STDOUT, &rev) || !rev || !*rev) {
		free(rev);
		return;
	}
	rev[strcspn(rev, "\n")] = 0;
	spawn_run(argv_st, SPAWN_CAPTURE_STDOUT, &status);
	snprintf(out, len, "%s%s", rev, status && *status ? "-dirty" : "");
	free(rev);
	free(status);
}

void kernel_backend_provenance(const char *impl, char *buf, size_t len)
{
	char err[256], a[128], b[128], tree[PATH_MAX + 64];
	const struct arm64_backend *be = arm64_backend_by_name(impl, err, sizeof(err));
	const char *kver = be && be->version ? be->version : "";
	/* whose core-mm code ran: the tree's (its roots), or ptelab's twin */
	char core[96];

	snprintf(core, sizeof(core), "\"core\": \"%s\", ",
		 kernel_backend_core(be) ? "tree" : "ref");

	if (!strcmp(impl, "ref")) {
		snprintf(buf, len, "{\"kind\": \"builtin\", %s\"kernel\": \"%s\"}", core, kver);
	} else if (!strncmp(impl, "linux-", 6)) {
		snprintf(tree, sizeof(tree), "%s/kernels/%s", lab_state_dir(), impl);
		stamp_value(tree, "package", a, sizeof(a));
		stamp_value(tree, "version", b, sizeof(b));
		snprintf(buf, len, "{\"kind\": \"fetched\", %s\"package\": \"%s\", "
			 "\"package_version\": \"%s\", \"kernel\": \"%s\"}", core, a, b, kver);
	} else if (!strncmp(impl, "git:", 4)) {
		char worktree[PATH_MAX], commit[41] = "";
		const char *at = strrchr(impl + 4, '@');
		size_t n;

		if (git_tree_materialize(impl + 4, worktree, sizeof(worktree), commit, err, sizeof(err)))
			commit[0] = 0;
		n = (size_t)snprintf(buf, len, "{\"kind\": \"git\", %s\"path\": \"", core);
		for (const char *c = impl + 4; *c && c != at && n + 8 < len; c++) {
			if (*c == '"' || *c == '\\')
				buf[n++] = '\\';
			if ((unsigned char)*c >= 0x20)
				buf[n++] = *c;
		}
		snprintf(buf + n, len - n, "\", \"rev\": \"%s\", \"commit\": \"%s\", \"kernel\": \"%s\"}",
			 at && at[1] && !strpbrk(at + 1, "\"\\") ? at + 1 : "HEAD", commit, kver);
	} else {
		const char *path = impl + 5;
		size_t n;

		tree_git_revision(path, a, sizeof(a));
		n = (size_t)snprintf(buf, len, "{\"kind\": \"tree\", %s\"path\": \"", core);
		/* the path as a JSON string: quotes and backslashes escaped, controls dropped */
		for (const char *c = path; *c && n + 8 < len; c++) {
			if (*c == '"' || *c == '\\')
				buf[n++] = '\\';
			if ((unsigned char)*c >= 0x20)
				buf[n++] = *c;
		}
		snprintf(buf + n, len - n, "\", \"git\": %s%s%s, \"kernel\": \"%s\"}", *a ? "\"" : "",
			 *a ? a : "null", *a ? "\"" : "", kver);
	}
}
