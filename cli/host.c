// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptelab host WORKLOAD: the same workload shape on the running kernel.
 *
 * For each folio size, the per-size mTHP knob
 * (/sys/kernel/mm/transparent_hugepage/hugepages-<N>kB/enabled) is set to
 * "always" and every other size to "never" (when permitted; restored on
 * exit and on SIGINT/SIGTERM/SIGHUP), --size of anonymous memory is mapped
 * and written once per 4 KiB page, and the measured phase (munmap,
 * MADV_DONTNEED or fork) is timed with CLOCK_MONOTONIC. Best of --repeat.
 * The folios the kernel really allocated are read back from the per-size
 * stats (anon_fault_alloc, anon_fault_fallback), so a row never claims a
 * folio size the kernel did not give it. A 2 MiB folio is PTE-mapped by
 * default, as in S5 (a PMD mapping is split by an mprotect of its first
 * page and back): --pmd-mapped keeps the PMD.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/options.h"

#define HOST_MAX_SIZES 16
#define HOST_MAX_REPEAT 100

struct thp_knob {
	unsigned long kb;
	char path[256];
	char saved[16]; /* the word in brackets when ptelab started */
	bool changed;
};

static struct thp_knob knobs[HOST_MAX_SIZES];
static int nr_knobs;
static char thp_dir[200];

static const char *thp_root(void)
{
	const char *e = getenv("PTELAB_THP_DIR"); /* tests: a stand-in sysfs */

	return e && *e ? e : "/sys/kernel/mm/transparent_hugepage";
}

static int read_word(const char *path, char *word, size_t len)
{
	char buf[128], *l, *r;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	l = strchr(buf, '[');
	r = l ? strchr(l, ']') : NULL;
	if (!l || !r)
		return -1;
	*r = 0;
	snprintf(word, len, "%s", l + 1);
	return 0;
}

static int write_word(const char *path, const char *word)
{
	FILE *f = fopen(path, "w");
	int rc;

	if (!f)
		return -errno;
	rc = fputs(word, f) < 0 ? -errno : 0;
	if (fclose(f) && !rc)
		rc = -errno;
	return rc;
}

static int knob_cmp(const void *a, const void *b)
{
	const struct thp_knob *x = a, *y = b;

	return x->kb < y->kb ? -1 : x->kb > y->kb;
}

/* The per-size knobs of this kernel (none: a kernel without mTHP). */
static void thp_scan(void)
{
	DIR *d;
	struct dirent *e;

	snprintf(thp_dir, sizeof(thp_dir), "%s", thp_root());
	nr_knobs = 0;
	d = opendir(thp_dir);
	if (!d)
		return;
	while ((e = readdir(d)) && nr_knobs < HOST_MAX_SIZES) {
		unsigned long kb;
		char tail[8];
		struct thp_knob *k = &knobs[nr_knobs];

		if (sscanf(e->d_name, "hugepages-%lukB%7s", &kb, tail) != 1)
			continue;
		k->kb = kb;
		snprintf(k->path, sizeof(k->path), "%s/%s/enabled", thp_dir, e->d_name);
		if (read_word(k->path, k->saved, sizeof(k->saved)))
			continue;
		k->changed = false;
		nr_knobs++;
	}
	closedir(d);
	qsort(knobs, (size_t)nr_knobs, sizeof(knobs[0]), knob_cmp);
}

static void thp_restore(void)
{
	for (int i = 0; i < nr_knobs; i++)
		if (knobs[i].changed && !write_word(knobs[i].path, knobs[i].saved))
			knobs[i].changed = false;
}

static void thp_restore_signal(int sig)
{
	thp_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/*
 * Only the size measured is "always", every other one "never". Returns 0,
 * or -errno of the first knob that could not be written (nothing is
 * left changed then).
 */
static int thp_select(unsigned long kb, char *which, size_t len)
{
	for (int i = 0; i < nr_knobs; i++) {
		const char *want = knobs[i].kb == kb ? "always" : "never";
		char now[16];
		int rc;

		if (!read_word(knobs[i].path, now, sizeof(now)) && !strcmp(now, want))
			continue;
		rc = write_word(knobs[i].path, want);
		if (rc) {
			snprintf(which, len, "%s", knobs[i].path);
			thp_restore();
			return rc;
		}
		knobs[i].changed = true;
	}
	return 0;
}

static long long stat_read(unsigned long kb, const char *name)
{
	char path[300];
	long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/hugepages-%lukB/stats/%s", thp_dir, kb, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* kB of AnonHugePages (PMD-mapped THP) of the mapping holding addr. */
static long long anon_huge_kb(const void *addr)
{
	char line[512];
	long long kb = -1;
	bool in = false;
	FILE *f = fopen("/proc/self/smaps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, ' ') > strchr(line, '-'))
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
		else if (in && sscanf(line, "AnonHugePages: %lld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return kb;
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

enum host_workload { HOST_MUNMAP, HOST_MADVISE, HOST_FORK };

static const struct {
	const char *name, *phase, *help;
} host_workloads[] = {
	[HOST_MUNMAP] = { "munmap", "munmap", "S5's shape: map and write, then munmap (measured)" },
	[HOST_MADVISE] = { "madvise", "madvise(MADV_DONTNEED)",
			   "map and write, then MADV_DONTNEED the whole range (measured)" },
	[HOST_FORK] = { "fork", "fork", "map and write, then fork (the parent's fork(), measured)" },
};

struct host_row {
	u64 folio;
	u64 samples[HOST_MAX_REPEAT];
	int nr;
	u64 best, median, host_ns;
	long long folios, fallbacks; /* of the size measured, summed over the repeats; -1 unknown */
	long long pmd_kb;            /* the workload's AnonHugePages while mapped (last repeat) */
	const char *knob;            /* "set", "unchanged: ...", "none" */
	char knob_msg[300];
};

/* One repetition: map, write, (split PMDs), time the phase, unmap. */
static int host_once(enum host_workload w, u64 size, u64 folio, bool pmd_mapped,
		     struct host_row *row, char *err, size_t errlen)
{
	unsigned long kb = (unsigned long)(folio >> 10);
	long long a0 = stat_read(kb, "anon_fault_alloc"), f0 = stat_read(kb, "anon_fault_fallback");
	u64 len = size + SZ_2M, t0, t1;
	char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *p;

	if (raw == MAP_FAILED) {
		snprintf(err, errlen, "host: mmap of %llu bytes failed (%s); use a smaller --size",
			 (unsigned long long)len, strerror(errno));
		return -1;
	}
	/* 2 MiB aligned, and only the measured range left mapped */
	p = (char *)(((uintptr_t)raw + SZ_2M - 1) & ~(uintptr_t)(SZ_2M - 1));
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	if (raw + len > p + size)
		munmap(p + size, (size_t)(raw + len - (p + size)));
	if (folio >= SZ_2M)
		madvise(p, size, MADV_HUGEPAGE);
	for (u64 off = 0; off < size; off += 4096)
		p[off] = 1;
	if (folio == SZ_2M && !pmd_mapped) {
		/* __split_huge_pmd: the folio stays whole, mapped by 512 PTEs */
		for (u64 off = 0; off < size; off += SZ_2M) {
			mprotect(p + off, 4096, PROT_READ);
			mprotect(p + off, 4096, PROT_READ | PROT_WRITE);
		}
		/* or khugepaged may map them by PMD again before the munmap (a CI run saw it) */
		madvise(p, size, MADV_NOHUGEPAGE);
	}
	row->pmd_kb = anon_huge_kb(p);
	if (a0 >= 0) {
		long long a1 = stat_read(kb, "anon_fault_alloc"), f1 = stat_read(kb, "anon_fault_fallback");

		row->folios = (row->folios < 0 ? 0 : row->folios) + (a1 - a0);
		row->fallbacks = (row->fallbacks < 0 ? 0 : row->fallbacks) + (f1 - f0);
	}

	t0 = now_ns();
	switch (w) {
	case HOST_MUNMAP:
		if (munmap(p, size)) {
			snprintf(err, errlen, "host: munmap failed: %s", strerror(errno));
			return -1;
		}
		t1 = now_ns();
		break;
	case HOST_MADVISE:
		if (madvise(p, size, MADV_DONTNEED)) {
			snprintf(err, errlen, "host: madvise(MADV_DONTNEED) failed: %s", strerror(errno));
			return -1;
		}
		t1 = now_ns();
		munmap(p, size);
		break;
	case HOST_FORK: {
		pid_t pid;

		fflush(NULL);
		pid = fork();
		if (pid == 0)
			_exit(0);
		t1 = now_ns();
		if (pid < 0) {
			snprintf(err, errlen, "host: fork failed: %s", strerror(errno));
			munmap(p, size);
			return -1;
		}
		waitpid(pid, NULL, 0);
		munmap(p, size);
		break;
	}
	default:
		return -1;
	}
	row->samples[row->nr++] = t1 - t0;
	return 0;
}

static int u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static const char *arch_name(const struct utsname *u)
{
	return !strcmp(u->machine, "x86_64") ? "x86" :
	       !strcmp(u->machine, "aarch64") ? "arm64" : u->machine;
}

static void print_json(const struct host_row *r, enum host_workload w, u64 size, bool pmd,
		       int repeat, const struct utsname *u)
{
	printf("{\"workload\": \"%s\", \"mode\": \"host\", \"arch\": \"%s\", \"impl\": \"host\", "
	       "\"kernel\": ", host_workloads[w].name, arch_name(u));
	json_string(stdout, u->release);
	printf(", \"measured\": \"%s\", \"params\": {\"size\": %llu, \"folio_size\": %llu, "
	       "\"pmd_mapped\": %s, \"repeat\": %d}, \"host_phase_ns\": %llu, \"host_ns\": %llu, "
	       "\"results\": {\"best_ns\": %llu, \"median_ns\": %llu, \"ns_per_page\": %.3f, "
	       "\"folios\": %lld, \"folios_expected\": %llu, \"fallbacks\": %lld, "
	       "\"pmd_mapped_kb\": %lld, \"samples_ns\": [",
	       host_workloads[w].phase, (unsigned long long)size, (unsigned long long)r->folio,
	       pmd ? "true" : "false", repeat, (unsigned long long)r->best,
	       (unsigned long long)r->host_ns, (unsigned long long)r->best,
	       (unsigned long long)r->median, (double)r->best / (double)(size >> 12), r->folios,
	       (unsigned long long)(size / r->folio * (u64)repeat), r->fallbacks, r->pmd_kb);
	for (int i = 0; i < r->nr; i++)
		printf("%s%llu", i ? ", " : "", (unsigned long long)r->samples[i]);
	printf("], \"knob\": ");
	json_string(stdout, r->knob);
	printf("}, \"version\": ");
	json_string(stdout, cli_version());
	printf(", \"command\": ");
	json_string(stdout, cli_command_line);
	printf("}\n");
	fflush(stdout);
}

static int host_die(const char *msg)
{
	fprintf(stderr, "ptelab: error: %s\n", msg);
	return 2;
}

int cmd_host(int argc, char **argv)
{
	u64 size = SZ_1G, folios[HOST_MAX_SIZES];
	int nr_folios = 0, repeat = 5, w = -1;
	bool json = false, pmd = false, keep = false;
	struct utsname u;
	char err[400];

	if (argc < 1 || argv[0][0] == '-')
		return host_die("usage: ptelab host munmap|madvise|fork [OPTION]... "
				"('ptelab host --help' says more)");
	for (int i = 0; i < (int)ARRAY_SIZE(host_workloads); i++)
		if (!strcmp(argv[0], host_workloads[i].name))
			w = i;
	if (w < 0) {
		snprintf(err, sizeof(err), "unknown host workload '%s'; host mode runs munmap, "
			 "madvise and fork", argv[0]);
		return host_die(err);
	}
	thp_scan();
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(o, "--json")) {
			json = true;
		} else if (!strcmp(o, "--pmd-mapped")) {
			pmd = true;
		} else if (!strcmp(o, "--keep-setting")) {
			keep = true;
		} else if (!strcmp(o, "--size")) {
			i++;
			if (parse_size(v, &size) || size % SZ_2M || size > (64ULL << 30)) {
				snprintf(err, sizeof(err), "--size '%s': give a multiple of 2M up to 64G, "
					 "e.g. 1G", v);
				return host_die(err);
			}
		} else if (!strcmp(o, "--repeat")) {
			char *end;
			long n = strtol(v, &end, 10);

			i++;
			if (end == v || *end || n < 1 || n > HOST_MAX_REPEAT)
				return host_die("--repeat takes a count from 1 to 100");
			repeat = (int)n;
		} else if (!strcmp(o, "--folio-size")) {
			char list[200], *save = NULL;

			i++;
			snprintf(list, sizeof(list), "%s", v);
			for (char *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
				u64 fs;

				if (parse_size(t, &fs) || (fs & (fs - 1)) || fs < 4096 || fs > SZ_2M ||
				    nr_folios == HOST_MAX_SIZES) {
					snprintf(err, sizeof(err), "--folio-size '%s': give powers of two "
						 "from 4K to 2M, comma separated", t);
					return host_die(err);
				}
				folios[nr_folios++] = fs;
			}
		} else {
			snprintf(err, sizeof(err), "host: unexpected argument '%s'", o);
			return host_die(err);
		}
	}
	if (!nr_folios) {
		/* every size this kernel offers, up to PMD size */
		folios[nr_folios++] = 4096;
		for (int k = 0; k < nr_knobs && nr_folios < HOST_MAX_SIZES; k++)
			if (knobs[k].kb <= 2048)
				folios[nr_folios++] = (u64)knobs[k].kb << 10;
	}
	for (int f = 0; f < nr_folios; f++) {
		bool have = folios[f] == 4096;

		for (int k = 0; k < nr_knobs; k++)
			have |= (u64)knobs[k].kb << 10 == folios[f];
		if (!have) {
			char sizes[160] = "4K";
			size_t used = 2;

			for (int k = 0; k < nr_knobs; k++)
				used += (size_t)snprintf(sizes + used, sizeof(sizes) - used, ", %luK",
							 knobs[k].kb);
			snprintf(err, sizeof(err), "--folio-size %lluK: this kernel has no %s/hugepages-"
				 "%llukB (it offers %s); %s", (unsigned long long)(folios[f] >> 10),
				 thp_dir, (unsigned long long)(folios[f] >> 10), sizes,
				 nr_knobs ? "pick one of those" : "a kernel without mTHP measures 4K only");
			return host_die(err);
		}
		if (size % folios[f]) {
			snprintf(err, sizeof(err), "--size must be a multiple of every folio size");
			return host_die(err);
		}
	}
	uname(&u);
	atexit(thp_restore);
	signal(SIGINT, thp_restore_signal);
	signal(SIGTERM, thp_restore_signal);
	signal(SIGHUP, thp_restore_signal);

	static struct host_row rows[HOST_MAX_SIZES];
	bool tty = isatty(2);

	if (!json)
		printf("ptelab host %s: %llu MiB on Linux %s (%s), %s timed, best of %d\n",
		       host_workloads[w].name, (unsigned long long)(size >> 20), u.release,
		       arch_name(&u), host_workloads[w].phase, repeat);
	for (int f = 0; f < nr_folios; f++) {
		struct host_row *r = &rows[f];
		unsigned long kb = (unsigned long)(folios[f] >> 10);
		char which[256] = "";
		u64 t0 = now_ns();

		memset(r, 0, sizeof(*r));
		r->folio = folios[f];
		r->folios = r->fallbacks = -1;
		if (keep) {
			r->knob = "unchanged: --keep-setting";
		} else if (!nr_knobs) {
			r->knob = "none: no mTHP knobs";
		} else {
			int rc = thp_select(folios[f] == 4096 ? 0 : kb, which, sizeof(which));

			if (rc) {
				snprintf(r->knob_msg, sizeof(r->knob_msg), "unchanged: %s: %s", which,
					 strerror(-rc));
				r->knob = r->knob_msg;
				fprintf(stderr, "ptelab: note: cannot set %s (%s); measuring %lluK with the "
					"kernel's own mTHP setting (run as root to choose the folio size)\n",
					which, strerror(-rc), (unsigned long long)kb);
			} else {
				r->knob = "set";
			}
		}
		for (int i = 0; i < repeat; i++) {
			if (tty)
				fprintf(stderr, "\r[%d/%d] %luK, %d of %d ", f + 1, nr_folios, kb, i + 1,
					repeat);
			if (host_once((enum host_workload)w, size, folios[f], pmd, r, err, sizeof(err))) {
				thp_restore();
				return host_die(err);
			}
		}
		if (tty)
			fprintf(stderr, "\r%40s\r", "");
		/* 4K folios are small folios: none of any large size may have been made */
		if (folios[f] == 4096)
			r->folios = -1, r->fallbacks = -1;
		r->host_ns = now_ns() - t0;
		qsort(r->samples, (size_t)r->nr, sizeof(u64), u64_cmp);
		r->best = r->samples[0];
		r->median = r->samples[(r->nr - 1) / 2];
		if (json) {
			print_json(r, (enum host_workload)w, size, pmd, repeat, &u);
			continue;
		}
		if (f == 0)
			printf("%-7s %10s %10s %9s  %-26s %s\n", "folio", "best ms", "median ms",
			       "ns/page", "folios obtained", "knob");
		char got[64];
		u64 expect = size / folios[f] * (u64)repeat;

		if (folios[f] == 4096)
			snprintf(got, sizeof(got), "small folios");
		else if (r->folios < 0)
			snprintf(got, sizeof(got), "unknown (no stats)");
		else
			snprintf(got, sizeof(got), "%lld of %llu%s%s", r->folios,
				 (unsigned long long)expect, r->folios < (long long)expect ? " (SHORT)" : "",
				 folios[f] == SZ_2M ? (r->pmd_kb > 0 ? " PMD" : " PTE-mapped") : "");
		char label[16];

		snprintf(label, sizeof(label), "%luK", kb);
		printf("%-7s %10.3f %10.3f %9.1f  %-26s %s\n", label, (double)r->best / 1e6,
		       (double)r->median / 1e6, (double)r->best / (double)(size >> 12), got, r->knob);
	}
	thp_restore();
	return 0;
}
