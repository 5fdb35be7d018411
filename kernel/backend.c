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

#include "arch/arm64/contpte.h"
#include "hw/cpu.h"
#include "hw/invariants.h"
#include "hw/profile.h"
#include "kernel/backend.h"

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

struct kernel_backend {
	struct contpte_ops ops;
	char name[PATH_MAX + 8];
	char version[32];
	void *handle;
	void (*real_try_fold)(struct mm_struct *, unsigned long, pte_t *, pte_t);
	void (*real_try_unfold)(struct mm_struct *, unsigned long, pte_t *, pte_t);
};

#define MAX_BACKENDS 16
static struct kernel_backend *loaded[MAX_BACKENDS];
static int nr_loaded;

static struct kernel_backend *current_kernel(void)
{
	for (int i = 0; i < nr_loaded; i++)
		if (&loaded[i]->ops == contpte_backend)
			return loaded[i];
	return NULL;
}

/*
 * The kernel file calls its own __contpte_try_unfold() (partial unfolds)
 * through the PLT: these definitions interpose, so every unfold and fold
 * is counted whichever path it takes, then run the backend's own code.
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
	mkcont_type = false;
	if (!read_file(path, &pgt)) {
		const char *m = strstr(pgt, "pte_t pte_mkcont(pte_t pte)");
		const char *e = m ? strstr(m, "\n}") : NULL;

		if (m && e) {
			const char *t = strstr(m, "PTE_TYPE_PAGE");
			mkcont_type = t && t < e;
		}
		free(pgt);
	}

	/* the object depends on the kernel file and on every shim header */
	static const char *const shim_files[] = {
		"kernel/shim/shim.h", "kernel/shim/include/linux/mm.h",
		"kernel/shim/include/linux/efi.h", "kernel/shim/include/linux/export.h",
		"kernel/shim/include/asm/tlbflush.h", "arch/pte_types.h",
		"arch/arm64/pgtable-hwdef.h", "arch/arm64/pte.h", "arch/arm64/raw.h",
		"arch/arm64/tlbflush.h", "arch/arm64/tlbflags.h", "mm/page.h", "mm/mm_types.h", "hw/events.h",
	};
	u64 h = fnv1a(0xcbf29ce484222325ULL, src);
	h = fnv1a(h, version);
	free(src);
	for (unsigned int i = 0; i < ARRAY_SIZE(shim_files); i++) {
		char *text = NULL;

		snprintf(path, sizeof(path), "%s/%s", lab_home(), shim_files[i]);
		if (read_file(path, &text)) {
			snprintf(err, errlen, "shim header %s is missing; reinstall ptelab", path);
			return -1;
		}
		h = fnv1a(h, text);
		free(text);
	}

	char safe[80];
	snprintf(safe, sizeof(safe), "%s", name);
	for (char *c = safe; *c; c++)
		if (!isalnum((unsigned char)*c) && *c != '.' && *c != '-')
			*c = '_';
	snprintf(path, sizeof(path), "%s/build/backends", lab_home());
	mkdir(path, 0777);
	snprintf(so_path, so_len, "%s/%.60s-%016llx.so", path, safe, (unsigned long long)h);
	if (!access(so_path, R_OK))
		return 0;

	char cmd[4 * PATH_MAX], log_path[PATH_MAX + 16], tmp[PATH_MAX + 16];
	/* per-process names: two runs may build the same backend at once */
	snprintf(log_path, sizeof(log_path), "%s.%d.log", so_path, (int)getpid());
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", so_path, (int)getpid());
	snprintf(cmd, sizeof(cmd),
		 "${CC:-cc} -std=gnu11 -O2 -fPIC -shared -w -DPTELAB_KVER=%d %s%s%s"
		 "-I'%s' -I'%s/kernel/shim/include' -include '%s/kernel/shim/shim.h' "
		 "-o '%s' '%s/arch/arm64/mm/contpte.c' >'%s' 2>&1",
		 (v << 16) + (p << 8) + (s < 0 ? 0 : s), tlbf ? "-DPTELAB_TLBF " : "",
		 batched ? "-DPTELAB_BATCHED_YOUNG " : "",
		 mkcont_type ? "-DPTELAB_MKCONT_TYPE_PAGE " : "", lab_home(), lab_home(),
		 lab_home(), tmp, tree, log_path);
	fprintf(stderr, "ptelab: building backend %s (kernel %s)...\n", name, version);
	int rc = system(cmd);
	if (rc != 0) {
		char *log = NULL, line[320] = "unknown error";

		if (!read_file(log_path, &log)) {
			first_error(log, line, sizeof(line));
			free(log);
		}
		snprintf(err, errlen, "contpte.c of kernel %s (%s) does not compile against the shim: %s",
			 version, tree, line);
		unlink(tmp);
		unlink(log_path);
		return -1;
	}
	unlink(log_path);
	if (rename(tmp, so_path)) {
		snprintf(err, errlen, "cannot write %s: %s", so_path, strerror(errno));
		return -1;
	}
	return 0;
}

#define SYM(field, symbol)                                        \
	do {                                                      \
		*(void **)&kb->ops.field = dlsym(handle, symbol); \
	} while (0)

static const struct contpte_ops *load_backend(const char *name, const char *so,
					      const char *version, char *err,
					      size_t errlen)
{
	void *handle = dlopen(so, RTLD_NOW | RTLD_LOCAL);
	struct kernel_backend *kb;

	if (!handle) {
		snprintf(err, errlen, "cannot load backend %s: %s", name, dlerror());
		return NULL;
	}
	kb = calloc(1, sizeof(*kb));
	snprintf(kb->name, sizeof(kb->name), "%s", name);
	snprintf(kb->version, sizeof(kb->version), "%s", version);
	kb->handle = handle;
	kb->ops.name = kb->name;
	kb->ops.version = kb->version;
	SYM(ptep_get, "contpte_ptep_get");
	SYM(ptep_get_lockless, "contpte_ptep_get_lockless");
	SYM(set_ptes, "contpte_set_ptes");
	SYM(clear_full_ptes, "contpte_clear_full_ptes");
	SYM(get_and_clear_full_ptes, "contpte_get_and_clear_full_ptes");
	SYM(ptep_test_and_clear_young, "contpte_ptep_test_and_clear_young");
	SYM(ptep_clear_flush_young, "contpte_ptep_clear_flush_young");
	SYM(test_and_clear_young_ptes, "contpte_test_and_clear_young_ptes");
	SYM(clear_flush_young_ptes, "contpte_clear_flush_young_ptes");
	SYM(wrprotect_ptes, "contpte_wrprotect_ptes");
	SYM(clear_young_dirty_ptes, "contpte_clear_young_dirty_ptes");
	SYM(ptep_set_access_flags, "contpte_ptep_set_access_flags");
	*(void **)&kb->real_try_fold = dlsym(handle, "__contpte_try_fold");
	*(void **)&kb->real_try_unfold = dlsym(handle, "__contpte_try_unfold");
	kb->ops.try_fold = __contpte_try_fold;
	kb->ops.try_unfold = __contpte_try_unfold;
	if (!kb->ops.ptep_get || !kb->ops.set_ptes || !kb->real_try_fold ||
	    !kb->real_try_unfold || !kb->ops.get_and_clear_full_ptes ||
	    !(kb->ops.ptep_test_and_clear_young || kb->ops.test_and_clear_young_ptes)) {
		snprintf(err, errlen, "backend %s (kernel %s) lacks the contpte functions ptelab needs",
			 name, version);
		dlclose(handle);
		free(kb);
		return NULL;
	}
	loaded[nr_loaded++] = kb;
	return &kb->ops;
}

const struct contpte_ops *contpte_backend_by_name(const char *impl, char *err,
						  size_t errlen)
{
	char tree[PATH_MAX + 64], so[PATH_MAX + 128], version[32];
	struct stat st;

	if (!strcmp(impl, "ref"))
		return &contpte_ref_ops;
	for (int i = 0; i < nr_loaded; i++)
		if (!strcmp(loaded[i]->name, impl))
			return &loaded[i]->ops;
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

int kernel_fetch(const char *version)
{
	char cmd[2 * PATH_MAX];

	for (const char *c = version; *c; c++) {
		if (!isdigit((unsigned char)*c) && *c != '.') {
			fprintf(stderr, "ptelab: error: bad kernel version '%s'; use e.g. 6.12\n", version);
			return 2;
		}
	}
	snprintf(cmd, sizeof(cmd), "bash '%s/kernel/fetch.sh' '%s' '%s/build' >&2", lab_home(),
		 version, lab_home());
	int rc = system(cmd);
	return rc == 0 ? 0 : 2;
}
