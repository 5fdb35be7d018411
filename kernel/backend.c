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
#include "hw/cpu.h"
#include "hw/host.h"
#include "hw/invariants.h"
#include "hw/profile.h"
#include "kernel/backend.h"
#include "kernel/dispatch.h"
#include "kernel/spawn.h"

const char *const kernel_fetchable[] = { "6.12", "7.2", "7.3", NULL };

/* What contpte.c needs from the kernel that is not page-table code. */
struct mm_struct init_mm;

bool ptelab_hw_bbml2(void)
{
	return hw_machine.cfg.bbml2;
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
};

#define MAX_BACKENDS 16
static struct kernel_backend *loaded[MAX_BACKENDS];
static int nr_loaded;

static struct kernel_backend *current_kernel(void)
{
	const struct arm64_backend *b = arm64_current_backend();

	for (int i = 0; i < nr_loaded; i++)
		if (&loaded[i]->b == b)
			return loaded[i];
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

/* Gathers are what S4 shortens: count them and the loads inside them. */
pte_t contpte_ptep_get(pte_t *ptep, pte_t orig_pte)
{
	struct kernel_backend *kb = current_kernel();
	u64 reads = hw_events.v[EV_pte_read];
	pte_t pte = kb ? kb->real_ptep_get(ptep, orig_pte) : orig_pte;

	hw_count(EV_contpte_get, 1);
	hw_count(EV_contpte_get_read, hw_events.v[EV_pte_read] - reads);
	return pte;
}

pte_t contpte_ptep_get_lockless(pte_t *orig_ptep)
{
	struct kernel_backend *kb = current_kernel();
	u64 reads = hw_events.v[EV_pte_read];
	pte_t pte = kb ? kb->real_ptep_get_lockless(orig_ptep) : __ptep_get(orig_ptep);

	hw_count(EV_contpte_get, 1);
	hw_count(EV_contpte_get_read, hw_events.v[EV_pte_read] - reads);
	return pte;
}

static int read_file(const char *path, char **out)
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

static u64 fnv1a(u64 h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The first line of compiler output that says "error". */
static void first_error(const char *log, char *out, size_t n)
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

/* Every regular file under dir, in name order: paths and contents. */
static u64 hash_tree(u64 h, const char *dir)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);

	for (int i = 0; i < n; i++) {
		char path[PATH_MAX], *text = NULL;
		struct stat st;

		if (ents[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", dir, ents[i]->d_name);
			if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
				h = hash_tree(h, path);
			} else if (!read_file(path, &text)) {
				h = fnv1a(fnv1a(h, ents[i]->d_name), text);
				free(text);
			}
		}
		free(ents[i]);
	}
	if (n >= 0)
		free(ents);
	return h;
}

/*
 * Which compiler: its resolved path and the file's identity (inode, size,
 * mtime), so a different or upgraded compiler builds anew.
 */
static u64 compiler_identity(u64 h, const char *cc)
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
		return fnv1a(h, cc);
	snprintf(buf, sizeof(buf), "%s %llu %llu %lld", path, (unsigned long long)st.st_ino,
		 (unsigned long long)st.st_size, (long long)st.st_mtime);
	return fnv1a(h, buf);
}

static bool sanitize;

void kernel_backends_sanitize(bool on)
{
	sanitize = on;
}

bool kernel_backends_sanitized(void)
{
	return sanitize;
}

static int build_backend(const char *name, const char *tree, char *so_path,
			 size_t so_len, char *version, char *err, size_t errlen)
{
	char path[PATH_MAX + 64], *mk = NULL, *src = NULL, *pgt = NULL;
	int v, p, s;
	bool tlbf, batched, mkcont_type;

	snprintf(path, sizeof(path), "%s/Makefile", tree);
	if (read_file(path, &mk) || (v = makefile_int(mk, "VERSION")) < 0 ||
	    (p = makefile_int(mk, "PATCHLEVEL")) < 0) {
		free(mk);
		snprintf(err, errlen, "%s is not a kernel tree (no Makefile with VERSION and PATCHLEVEL); "
			 "give the top directory of a Linux source tree", tree);
		return -1;
	}
	s = makefile_int(mk, "SUBLEVEL");
	free(mk);
	snprintf(version, 32, "%d.%d.%d", v, p, s < 0 ? 0 : s);
	snprintf(path, sizeof(path), "%s/arch/arm64/mm/contpte.c", tree);
	if (read_file(path, &src)) {
		snprintf(err, errlen, "kernel %s at %s has no arch/arm64/mm/contpte.c (contpte arrived "
			 "in 6.9); use a tree from 6.9 on", version, tree);
		return -1;
	}
	/* per-version adaptation, detected from what the source declares */
	tlbf = strstr(src, "TLBF_") != NULL;
	batched = strstr(src, "contpte_test_and_clear_young_ptes") != NULL;
	snprintf(path, sizeof(path), "%s/arch/arm64/include/asm/pgtable.h", tree);
	if (read_file(path, &pgt)) {
		snprintf(err, errlen, "kernel %s at %s has no arch/arm64/include/asm/pgtable.h; "
			 "give a whole kernel tree", version, tree);
		free(src);
		return -1;
	}
	mkcont_type = false;
	{
		const char *m = strstr(pgt, "pte_t pte_mkcont(pte_t pte)");
		const char *e = m ? strstr(m, "\n}") : NULL;

		if (m && e) {
			const char *t = strstr(m, "PTE_TYPE_PAGE");
			mkcont_type = t && t < e;
		}
	}
	char *block[2], missing[64];
	if (dispatch_block_split(pgt, path, &block[0], &block[1], missing, sizeof(missing))) {
		snprintf(err, errlen, "%s of kernel %s has no '%s' marker around its dispatchers; "
			 "ptelab needs the CONFIG_ARM64_CONTPTE block (6.9 on)", path, version, missing);
		free(pgt);
		free(src);
		return -1;
	}

	/*
	 * The object depends on the kernel files and on every shim header (the
	 * lab headers the shim includes are listed; kernel/shim/ is hashed whole).
	 */
	static const char *const shim_files[] = {
		"arch/pte_types.h", "arch/arm64/api.h",
		"arch/arm64/pgtable-hwdef.h", "arch/arm64/pte.h", "arch/arm64/raw.h",
		"arch/arm64/tlbflush.h", "arch/arm64/tlbflags.h", "mm/page.h", "mm/mm_types.h", "hw/events.h",
	};
	u64 h = fnv1a(0xcbf29ce484222325ULL, src);
	h = fnv1a(fnv1a(h, version), pgt);
	free(src);
	free(pgt);
	int rc = -1;
	for (unsigned int i = 0; i < ARRAY_SIZE(shim_files); i++) {
		char *text = NULL;

		snprintf(path, sizeof(path), "%s/%s", lab_home(), shim_files[i]);
		if (read_file(path, &text)) {
			snprintf(err, errlen, "shim header %s is missing; reinstall ptelab", path);
			goto out;
		}
		h = fnv1a(h, text);
		free(text);
	}
	snprintf(path, sizeof(path), "%s/kernel/shim", lab_home());
	h = hash_tree(h, path);

	char safe[80];
	snprintf(safe, sizeof(safe), "%s", name);
	for (char *c = safe; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-')
			*c = '_';

	/*
	 * The compiler commands, as argument vectors: no shell ever sees the
	 * tree's path. $CC may hold words ("ccache gcc"), split at blanks only.
	 */
	char cc_buf[512], *argv[64], kver[48], inc_lab[PATH_MAX + 8], inc_shim[PATH_MAX + 32],
		shim_h[PATH_MAX + 32], src_path[PATH_MAX + 64], api_path[PATH_MAX + 32],
		tmp[PATH_MAX + 16], obj[3][PATH_MAX + 32], hdr[2][PATH_MAX + 32],
		hdr_def[2][PATH_MAX + 64];
	const char *cc = getenv("CC");
	int argc = spawn_split_words(cc && *cc ? cc : "cc", cc_buf, sizeof(cc_buf), argv, 8);
	char *const flags[] = { "-std=gnu11", "-O2", "-g", "-fPIC", "-w" };
	char *const asan_flags[] = { "-fsanitize=address", "-fno-omit-frame-pointer" };

	if (argc == 0) {
		snprintf(err, errlen, "$CC is empty; unset it or name a C compiler");
		goto out;
	}
	int cc_words = argc;
	for (unsigned int i = 0; i < ARRAY_SIZE(flags); i++)
		argv[argc++] = flags[i];
	for (unsigned int i = 0; sanitize && i < ARRAY_SIZE(asan_flags); i++)
		argv[argc++] = asan_flags[i];
	snprintf(kver, sizeof(kver), "-DPTELAB_KVER=%d", (v << 16) + (p << 8) + (s < 0 ? 0 : s));
	argv[argc++] = kver;
	if (tlbf)
		argv[argc++] = "-DPTELAB_TLBF";
	if (batched)
		argv[argc++] = "-DPTELAB_BATCHED_YOUNG";
	if (mkcont_type)
		argv[argc++] = "-DPTELAB_MKCONT_TYPE_PAGE";
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

	/* the cache key covers every input: the commands and the compiler too */
	for (int i = 0; i < argc; i++)
		h = fnv1a(fnv1a(h, argv[i]), "\x1f");
	/* every word of $CC that is a program: "ccache gcc" is ccache and gcc */
	for (int i = 0; i < cc_words; i++)
		if (argv[i][0] != '-')
			h = compiler_identity(h, argv[i]);

	snprintf(path, sizeof(path), "%s/build/backends", lab_home());
	mkdir(path, 0777);
	snprintf(so_path, so_len, "%s/%.60s%s-%016llx.so", path, safe, sanitize ? "-asan" : "",
		 (unsigned long long)h);
	if (!access(so_path, R_OK)) {
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
	for (int i = 0; i < 3; i++)
		snprintf(obj[i], sizeof(obj[i]), "%s.%d.%d.o", so_path, pid, i);
	fprintf(stderr, "ptelab: building backend %s (kernel %s)%s...\n", name, version,
		sanitize ? " with AddressSanitizer" : "");

	/* contpte.c and the tree's dispatchers (contpte on), the #else block (off) */
	struct { const char *src; int block; bool nocont; } units[3] = {
		{ src_path, 0, false }, { api_path, 0, false }, { api_path, 1, true },
	};
	char *log = NULL, line[320] = "unknown error";
	int r = 0;
	for (int u = 0; u < 3 && !r; u++) {
		argc = base;
		argv[argc++] = hdr_def[units[u].block];
		if (units[u].nocont)
			argv[argc++] = "-DPTELAB_API_NOCONT";
		argv[argc++] = "-c";
		argv[argc++] = (char *)units[u].src;
		argv[argc++] = "-o";
		argv[argc++] = obj[u];
		argv[argc] = NULL;
		free(log);
		log = NULL;
		r = spawn_run(argv, SPAWN_CAPTURE, &log);
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
	}
	for (int i = 0; i < 3; i++)
		unlink(obj[i]);
	for (int i = 0; i < 2; i++)
		unlink(hdr[i]);
	if (r != 0) {
		if (r < 0)
			snprintf(line, sizeof(line), "cannot run the compiler '%s': %s (set CC to a C compiler)",
				 argv[0], strerror(errno));
		else if (log)
			first_error(log, line, sizeof(line));
		free(log);
		snprintf(err, errlen, "contpte.c of kernel %s (%s) does not compile against the shim: %s",
			 version, tree, line);
		unlink(tmp);
		goto out;
	}
	free(log);
	if (rename(tmp, so_path)) {
		snprintf(err, errlen, "cannot write %s: %s", so_path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(block[0]);
	free(block[1]);
	return rc;
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
		snprintf(tree, sizeof(tree), "%s/build/kernels/%s", lab_home(), impl);
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
	} else {
		snprintf(err, errlen, "unknown impl '%s'; use ref, linux-X.Y or tree:PATH "
			 "('ptelab list' shows the backends)", impl);
		return NULL;
	}
	if (build_backend(impl, tree, so, sizeof(so), version, err, errlen))
		return NULL;
	return load_backend(impl, so, version, err, errlen);
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
	snprintf(build, sizeof(build), "%s/build", lab_home());
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
	for (int i = 0; path && i < nr_loaded; i++) {
		if (!strcmp(loaded[i]->so_path, path)) {
			if (version)
				*version = loaded[i]->version;
			return loaded[i]->name;
		}
	}
	return NULL;
}
