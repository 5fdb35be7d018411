// SPDX-License-Identifier: GPL-2.0-only
/*
 * One run: validate the spec (everything, before anything runs), run the
 * workload in a child process, model time, report.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lab/switches.h"
#include "cli/cli.h"
#include "cli/options.h"
#include "cli/finding.h"
#include "hw/invariants.h"
#include "hw/cpu.h"
#include "hw/tlb.h"
#include "arch/arm64/api.h"
#include "kernel/backend.h"
#include "kernel/build.h"
#include "kernel/isolate.h"

int parse_size(const char *s, u64 *out)
{
	char *end;
	unsigned long long v;
	int shift = 0;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno == ERANGE)
		return -2;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	case 0: break;
	default: return -1;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v == 0)
		return -1;
	/* a size that does not fit in 64 bits is too large, never wrapped */
	if (v > (~0ULL >> shift))
		return -2;
	*out = v << shift;
	return 0;
}

static bool variant_ok(const char *list, const char *v)
{
	size_t n = strlen(v);

	for (const char *p = list; p; p = strchr(p, '|')) {
		if (*p == '|')
			p++;
		if (!strncmp(p, v, n) && (p[n] == '|' || !p[n]))
			return true;
	}
	return false;
}

void run_spec_defaults(struct run_spec *s, const struct workload *w)
{
	memset(s, 0, sizeof(*s));
	s->w = w;
	s->p.arch = "arm64";
	s->p.impl = "ref";
	s->p.size = w ? w->default_size : SZ_1G;
	s->p.folio_size = w ? w->default_folio_size : SZ_64K;
	s->p.nr_cpus = 2;
	s->p.seed = 1;
	s->p.policy = HW_POLICY_ACCESSED;
	s->p.tlb_entries = 1280; /* Neoverse N1-class L2 TLB */
	s->p.tlb_ways = 5;
	s->p.tlbi_range = false;
	s->p.hafdbs = true;
	/* only a workload that reads --lru runs an LRU choice; the others run classic */
	s->p.lru = w && (w->opts & RUN_OPT_LRU) ? "mglru" : NULL;
	s->p.nr_vcpus = w ? w->default_vcpus : 0;
	s->p.host_memory = w ? w->default_host_memory : 0;
	s->timeout_s = DEFAULT_TIMEOUT_S;
}

static const struct {
	unsigned int bit;
	const char *name;
} run_opt_names[] = {
	{ RUN_OPT_SIZE, "--size" },         { RUN_OPT_FOLIO_SIZE, "--folio-size" },
	{ RUN_OPT_PMD_MAPPED, "--pmd-mapped" }, { RUN_OPT_ITERATIONS, "--iterations" },
	{ RUN_OPT_VARIANT, "--variant" },   { RUN_OPT_LRU, "--lru" },
	{ RUN_OPT_RECLAIM, "--reclaim" },   { RUN_OPT_VCPUS, "--vcpus" },
	{ RUN_OPT_HOST_MEMORY, "--host-memory" }, { RUN_OPT_INTERLEAVE, "--interleave" },
	{ RUN_OPT_FIRST_SEQUENCE, "--first-sequence" }, { RUN_OPT_MINIMISE, "--minimise" },
};

/* "--size, --folio-size" for the options in mask. */
static void opt_list(unsigned int mask, char *buf, size_t n)
{
	buf[0] = 0;
	for (unsigned int i = 0; i < ARRAY_SIZE(run_opt_names); i++)
		if (mask & run_opt_names[i].bit)
			snprintf(buf + strlen(buf), n - strlen(buf), "%s%s", buf[0] ? ", " : "",
				 run_opt_names[i].name);
	if (!buf[0])
		snprintf(buf, n, "none");
}

int run_spec_validate(struct run_spec *s, char *err, size_t errlen)
{
	const struct workload *w = s->w;
	struct run_params *p = &s->p;
	const char *profile = s->profile[0] ? s->profile :
			      !strcmp(p->arch, "x86") ? (w->profile_x86 ? w->profile_x86 : "xeon-silver-4210r")
						      : (w->profile_arm64 ? w->profile_arm64 : "arm64-generic");
	u64 max_size = w->max_size ? w->max_size : 64ULL << 30;
	struct profile prof;
	char list[160];

	if (strcmp(p->arch, "arm64") && strcmp(p->arch, "x86")) {
		snprintf(err, errlen, "unknown arch '%s'; use --arch arm64 or --arch x86", p->arch);
		return -1;
	}
	if (w->arm64_only && strcmp(p->arch, "arm64")) {
		snprintf(err, errlen, "the %s workload models arm64 contpte; use --arch arm64", w->name);
		return -1;
	}
	if (p->nr_cpus < (w->min_cpus ? w->min_cpus : 1)) {
		snprintf(err, errlen, "workload %s drives %d CPUs; give --cpus %d or more", w->name,
			 w->min_cpus, w->min_cpus);
		return -1;
	}
	/* x86 has no contiguous bit, no range TLBI, and always manages A/D */
	if (!strcmp(p->arch, "x86") && (!p->hafdbs || p->tlbi_range || p->policy != HW_POLICY_ACCESSED ||
					p->walkers || p->tlb_sticky || p->bbml2)) {
		snprintf(err, errlen, "%s does not apply to --arch x86 (x86 always sets A/D in hardware, "
			 "has no contiguous blocks and no range TLBI)",
			 !p->hafdbs ? "--no-hafdbs" : p->tlbi_range ? "--tlbi-range" :
			 p->walkers ? "--walkers" : p->tlb_sticky ? "--tlb sticky" :
			 p->bbml2 ? "--bbml2" : "--hw-policy");
		return -1;
	}
	if (p->walkers) {
		struct hw_config cfg;

		if (lab_parse_walkers(p, &cfg, err, errlen))
			return -1;
	}
	/* what the simulated TLB really has: a power-of-two number of sets */
	p->tlb_entries = hw_tlb_entries(p->tlb_entries, p->tlb_ways);
	for (unsigned int i = 0; i < ARRAY_SIZE(run_opt_names); i++) {
		if ((s->set & run_opt_names[i].bit) && !(w->opts & run_opt_names[i].bit)) {
			opt_list(w->opts, list, sizeof(list));
			snprintf(err, errlen, "%s does not apply to workload %s (it takes: %s)",
				 run_opt_names[i].name, w->name, list);
			return -1;
		}
	}
	if (p->size % PAGE_SIZE || p->size > max_size || !p->size) {
		snprintf(err, errlen, "--size must be a multiple of 4K, from 4K to %lluG (got %llu)",
			 (unsigned long long)(max_size >> 30), (unsigned long long)p->size);
		return -1;
	}
	if ((w->opts & RUN_OPT_VCPUS) && (p->nr_vcpus < 1 || p->nr_vcpus > 1024)) {
		snprintf(err, errlen, "--vcpus takes a number from 1 to 1024 (got %d)", p->nr_vcpus);
		return -1;
	}
	if ((w->opts & RUN_OPT_HOST_MEMORY) &&
	    (p->host_memory % PAGE_SIZE || p->host_memory < (16ULL << 20) ||
	     p->host_memory > (1ULL << 40))) {
		snprintf(err, errlen, "--host-memory must be a multiple of 4K from 16M to 1T (got %llu)",
			 (unsigned long long)p->host_memory);
		return -1;
	}
	if (p->folio_size < PAGE_SIZE || p->folio_size > SZ_2M ||
	    (p->folio_size & (p->folio_size - 1))) {
		snprintf(err, errlen, "--folio-size must be a power of two from 4K to 2M (got %llu)",
			 (unsigned long long)p->folio_size);
		return -1;
	}
	if (p->pmd_mapped && p->folio_size != SZ_2M) {
		snprintf(err, errlen, "--pmd-mapped needs --folio-size 2M");
		return -1;
	}
	if ((w->opts & RUN_OPT_SIZE) && (w->opts & RUN_OPT_FOLIO_SIZE) && p->size % p->folio_size) {
		snprintf(err, errlen, "--size must be a multiple of --folio-size");
		return -1;
	}
	/* what ran is what the JSON says: defaults made explicit */
	if (w->opts & RUN_OPT_ITERATIONS && !p->iterations)
		p->iterations = w->default_iterations;
	if (!(s->set & RUN_SET_TIMEOUT) && (w->opts & RUN_OPT_ITERATIONS))
		s->timeout_s = (unsigned int)min((u64)DEFAULT_TIMEOUT_S + p->iterations / 5,
						 (u64)7 * 24 * 3600);
	if (w->variants && !p->variant) {
		static char first[64];

		snprintf(first, sizeof(first), "%.*s", (int)strcspn(w->variants, "|"), w->variants);
		p->variant = first;
	}
	if (p->variant && (!w->variants || !variant_ok(w->variants, p->variant))) {
		snprintf(err, errlen, "workload %s has no variant '%s'%s%s", w->name, p->variant,
			 w->variants ? "; variants: " : "", w->variants ? w->variants : "");
		return -1;
	}
	if (w->opts & RUN_OPT_RECLAIM) {
		if (!p->reclaim)
			p->reclaim = ALIGN_DOWN(p->size / 10 * 8, PAGE_SIZE);
		if (p->reclaim > p->size || p->reclaim % PAGE_SIZE) {
			snprintf(err, errlen, "--reclaim must be a multiple of 4K no larger than --size");
			return -1;
		}
	}
	if ((w->opts & RUN_OPT_LRU) &&
	    (!p->lru || (strcmp(p->lru, "mglru") && strcmp(p->lru, "classic")))) {
		snprintf(err, errlen, "--lru takes mglru or classic");
		return -1;
	}
	if ((s->set & RUN_SET_PROFILE) && !s->profile[0]) {
		snprintf(err, errlen, "--profile needs a name; 'ptelab list' shows the profiles");
		return -1;
	}
	if (lab_profile_load(profile, &prof, err, errlen))
		return -1;
	if (prof.arch[0] && strcmp(prof.arch, p->arch)) {
		snprintf(err, errlen, "profile '%s' is for %s, not %s; pick one with --profile",
			 profile, prof.arch, p->arch);
		return -1;
	}
	if (profile != s->profile)
		snprintf(s->profile, sizeof(s->profile), "%s", profile);

	bool ref = !strcmp(p->impl, "ref");
	for (int i = 0; i < s->nr_without; i++) {
		if (lab_switch_index(s->without[i]) < 0) {
			snprintf(err, errlen, "unknown switch '%s' for --without; 'ptelab list' shows them",
				 s->without[i]);
			return -1;
		}
		if (!ref && lab_switch_ref_only(s->without[i])) {
			snprintf(err, errlen, "--without %s changes only the reference backend (ref); "
				 "%s runs its tree's own code", s->without[i], p->impl);
			return -1;
		}
	}
	if (!ref && lab_variant_ref_only(w->name, p->variant)) {
		snprintf(err, errlen, "variant '%s' of %s exists only in the reference backend (ref); "
			 "%s runs its tree's own code", p->variant, w->name, p->impl);
		return -1;
	}
	/* build and load before any run: a tree that does not compile is bad input */
	const struct arm64_backend *b = arm64_backend_by_name(p->impl, err, errlen);
	if (!b)
		return -1;
	/* on another arch a tree brings its core-mm only (the arch's PTE API is the lab's) */
	if (!ref && strcmp(p->arch, "arm64") && !kernel_backend_core(b)) {
		snprintf(err, errlen, "impl %s with --core ref is only its tree's arm64 contpte code; "
			 "use --arch arm64, or its own core-mm (--core tree) on %s", p->impl, p->arch);
		return -1;
	}
	return 0;
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

/* What a child run sends back. */
struct child_result {
	int rc;
	char err[512];
	struct run_out o;
};

/* In the child process: switches, the workload, its invariants. */
static void child_run(void *arg)
{
	const struct run_spec *s = arg;
	static struct child_result cr;
	struct rusage ru;
	u64 t0;

	static struct profile prof;
	char perr[256];
	struct run_params p = s->p;

	memset(&cr, 0, sizeof(cr));
	/* the profile was loaded and checked in the parent; a sim workload times itself with it */
	if (!lab_profile_load(s->profile, &prof, perr, sizeof(perr)))
		p.prof = &prof;
	lab_switches_for_run(s->w->name, s->p.variant, s->without, s->nr_without);
	/*
	 * The lab's own tests inject a bug into ptelab here, to see that it
	 * is reported loudly as ptelab's (exit 3), never as a finding or "ok".
	 */
	const char *inject = getenv("PTELAB_INJECT_LAB_BUG");
	if (inject && !strcmp(inject, "segv"))
		*(volatile int *)(uintptr_t)(inject[0] - 's' + 16) = 0;
	perf_attach(s->perf ? p.prof : NULL, s->w->measured);
	t0 = now_ns();
	cr.rc = s->w->run(&p, &cr.o.r, cr.err, sizeof(cr.err));
	cr.o.r.host_ns = now_ns() - t0;
	if (!cr.o.r.nr_perf)
		cr.o.r.nr_perf = perf_export(cr.o.r.perf, PERF_MAX_NODES);
	getrusage(RUSAGE_SELF, &ru);
	cr.o.r.peak_rss_kb = ru.ru_maxrss;
	cr.o.viol = hw_violations;
	isolate_send(&cr, sizeof(cr));
}

/* Runs s in a child; 0 with *rep (caller frees rep->payload), -1 with err. */
static int run_child(struct run_spec *s, struct isolate_report *rep, char *err, size_t errlen)
{
	/*
	 * The run's memory budget: the lab keeps about 60 bytes per simulated
	 * page (README's scaling figures); 4x that, plus 2 GiB for the rest,
	 * is never reached by a run that does not leak.
	 */
	u64 pages = max(s->p.size, s->p.host_memory) >> PAGE_SHIFT;

	isolate_set_memory_budget((2ULL << 30) + pages * 256);
	if (isolate_run(child_run, s, s->timeout_s, rep)) {
		snprintf(err, errlen, "cannot start a process for the run: %s", strerror(errno));
		return -1;
	}
	if (rep->outcome == ISOLATE_HOST_OOM) {
		snprintf(err, errlen, "%s", rep->message[0] ? rep->message : "the host ran out of memory");
		return -1;
	}
	if (rep->outcome == ISOLATE_KILLED) {
		snprintf(err, errlen, "the run of %s on %s was killed by %s from outside ptelab "
			 "(the host's OOM killer, or a user); it says nothing about the code",
			 s->w->name, s->p.impl, isolate_signal_name(rep->signo));
		return -1;
	}
	return 0;
}

int run_spec_execute(struct run_spec *s, struct run_out *o, char *err, size_t errlen)
{
	struct isolate_report rep;

	memset(o, 0, sizeof(*o));
	if (run_spec_validate(s, err, errlen) || lab_profile_load(s->profile, &o->prof, err, errlen))
		return -1;
	if (run_child(s, &rep, err, errlen))
		return -1;
	if (rep.outcome == ISOLATE_DONE && rep.payload_len == sizeof(struct child_result)) {
		struct child_result *cr = rep.payload;
		struct profile prof = o->prof;

		if (cr->rc) {
			snprintf(err, errlen, "%s", cr->err);
			free(rep.payload);
			return -1;
		}
		*o = cr->o;
		o->prof = prof;
		free(rep.payload);
		o->modelled_ns = o->r.sim_timed ? o->r.sim_modelled_ns
						: profile_modelled_ns(&o->prof, &o->r.measured);
		o->ok = o->viol.total == 0;
		return 0;
	}
	free(rep.payload);
	finding_from_report(&rep, s->p.impl, s->timeout_s, &o->finding);
	o->ok = false;
	if (o->finding.in_kernel)
		return 0;
	/* not located in kernel code: the lab's own fault, or too small a watchdog */
	if (rep.outcome == ISOLATE_TIMEOUT) {
		snprintf(err, errlen, "run of %s on %s took longer than --timeout %u s (last in %s, "
			 "ptelab's code); give a larger --timeout", s->w->name, s->p.impl,
			 s->timeout_s, o->finding.function);
		return -1;
	}
	if (strcmp(s->p.impl, "ref")) {
		/*
		 * The kernel code may have corrupted ptelab's memory, or ptelab
		 * has a bug of its own: the same run on ref tells which.
		 */
		struct run_spec same = *s;
		struct isolate_report again;

		same.p.impl = "ref";
		if (run_child(&same, &again, err, errlen))
			return -1;
		free(again.payload);
		if (again.outcome == ISOLATE_DONE)
			return 0; /* only with this backend: its finding */
	}
	snprintf(err, errlen, "internal error, a bug in ptelab: %s%s", o->finding.summary,
		 strcmp(s->p.impl, "ref") ? " (the same run on ref fails too)" : "");
	return -2;
}

/* Single quotes unless the word is plainly safe. */
void cli_shell_word(char *buf, size_t len, const char *w)
{
	size_t n = strlen(buf);
	bool plain = *w != 0;

	for (const char *c = w; *c; c++)
		plain &= isalnum((unsigned char)*c) || strchr("-_./:,=+@%", *c);
	if (plain) {
		snprintf(buf + n, len - n, " %s", w);
		return;
	}
	snprintf(buf + n, len - n, " '");
	for (const char *c = w; *c; c++) {
		n = strlen(buf);
		if (*c == '\'')
			snprintf(buf + n, len - n, "'\\''");
		else
			snprintf(buf + n, len - n, "%c", *c);
	}
	n = strlen(buf);
	snprintf(buf + n, len - n, "'");
}

static const char *const policy_names[] = { "accessed", "first", "random", "adversarial" };

void run_spec_reproducer(const struct run_spec *s, char *buf, size_t len)
{
	const struct run_params *p = &s->p;
	char num[32];

	snprintf(buf, len, "ptelab run %s", s->w->name);
#define WORD(x) cli_shell_word(buf, len, (x))
#define NUM(opt, v)                                                     \
	do {                                                            \
		WORD(opt);                                              \
		snprintf(num, sizeof(num), "%llu", (unsigned long long)(v)); \
		WORD(num);                                              \
	} while (0)
	WORD("--arch");
	WORD(p->arch);
	WORD("--impl");
	WORD(p->impl);
	WORD("--profile");
	WORD(s->profile);
	if (s->w->opts & RUN_OPT_SIZE)
		NUM("--size", p->size);
	if (s->w->opts & RUN_OPT_FOLIO_SIZE)
		NUM("--folio-size", p->folio_size);
	if (p->pmd_mapped)
		WORD("--pmd-mapped");
	if (s->w->opts & RUN_OPT_ITERATIONS)
		NUM("--iterations", p->iterations);
	if (p->variant && (s->w->opts & RUN_OPT_VARIANT)) {
		WORD("--variant");
		WORD(p->variant);
	}
	if (s->w->opts & RUN_OPT_LRU) {
		WORD("--lru");
		WORD(p->lru);
	}
	if (s->w->opts & RUN_OPT_RECLAIM)
		NUM("--reclaim", p->reclaim);
	if (s->w->opts & RUN_OPT_VCPUS)
		NUM("--vcpus", p->nr_vcpus);
	if (s->w->opts & RUN_OPT_HOST_MEMORY)
		NUM("--host-memory", p->host_memory);
	if ((s->w->opts & RUN_OPT_INTERLEAVE) && p->interleave)
		NUM("--interleave", p->interleave);
	if ((s->w->opts & RUN_OPT_FIRST_SEQUENCE) && p->first_sequence)
		NUM("--first-sequence", p->first_sequence);
	if ((s->w->opts & RUN_OPT_MINIMISE) && p->minimise)
		WORD("--minimise");
	for (int i = 0; i < s->nr_without; i++) {
		WORD("--without");
		WORD(s->without[i]);
	}
	NUM("--seed", p->seed);
	NUM("--cpus", p->nr_cpus);
	WORD("--hw-policy");
	WORD(policy_names[p->policy]);
	NUM("--tlb-entries", p->tlb_entries);
	if (p->tlbi_range)
		WORD("--tlbi-range");
	if (!p->hafdbs)
		WORD("--no-hafdbs");
	if (p->walkers) {
		WORD("--walkers");
		WORD(p->walkers);
	}
	if (p->tlb_sticky) {
		WORD("--tlb");
		WORD("sticky");
	}
	if (p->bbml2)
		WORD("--bbml2");
	if (s->set & RUN_SET_TIMEOUT)
		NUM("--timeout", s->timeout_s);
	if (kernel_backends_sanitized() && strcmp(p->impl, "ref"))
		WORD("--sanitize");
	if (!kernel_backends_core_from_tree() && strcmp(p->impl, "ref")) {
		WORD("--core");
		WORD("ref");
	}
	/* a command cut short would run something else: say so instead */
	if (strlen(buf) + 1 >= len)
		snprintf(buf, len, "(no reproducer: the command is longer than %zu bytes)", len - 1);
#undef NUM
#undef WORD
}

static bool backend_name(const char *t)
{
	return !strcmp(t, "ref") || !strncmp(t, "linux-", 6) || !strncmp(t, "tree:", 5) ||
	       !strncmp(t, "git:", 4);
}

int split_impls(const char *list, char *buf, size_t buflen, const char **names, int max,
		char *err, size_t errlen)
{
	int n = 0;

	if (strlen(list) >= buflen) {
		snprintf(err, errlen, "--impl list is too long");
		return -1;
	}
	snprintf(buf, buflen, "%s", list);
	for (char *t = buf, *next; t; t = next) {
		next = strchr(t, ',');
		if (next)
			*next++ = 0;
		/* a comma inside a tree's path: what follows names no backend */
		if (n && !backend_name(t) && (!strncmp(names[n - 1], "tree:", 5) ||
					      !strncmp(names[n - 1], "git:", 4))) {
			t[-1] = ',';
			continue;
		}
		if (!*t) {
			snprintf(err, errlen, "--impl '%s' has an empty backend name; "
				 "use ref, linux-X.Y or tree:PATH, separated by commas", list);
			return -1;
		}
		if (n == max) {
			snprintf(err, errlen, "--impl names more than %d backends; split the comparison", max);
			return -1;
		}
		names[n++] = t;
	}
	return n;
}

/* Length of the valid UTF-8 sequence at s, or 0 if it is not one. */
static int utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;

	if (s[0] < 0x80)
		return 1;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string: escaped, and valid UTF-8 whatever bytes a path held. */
static void json_str(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	fputc('"', f);
	while (*s) {
		int n = utf8_len(s);

		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if (*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else if (n)
			fwrite(s, 1, (size_t)n, f);
		else
			fputs("\\ufffd", f); /* a byte that is not UTF-8 */
		s += n ? n : 1;
	}
	fputc('"', f);
}

void json_string(FILE *f, const char *str)
{
	json_str(f, str);
}

static void json_events(FILE *f, const struct hw_counters *c)
{
	fputc('{', f);
	for (int i = 0; i < NR_HW_EVENTS; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", hw_event_names[i],
			(unsigned long long)c->v[i]);
	fputc('}', f);
}

/* JSON has no NaN or infinity: a figure that is not a number is null. */
static void json_num(FILE *f, double v)
{
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else
		fputs("null", f);
}

static void json_finding(FILE *f, const struct run_spec *s, const struct run_out *o)
{
	const struct run_finding *fd = &o->finding;
	char repro[REPRODUCER_MAX];

	run_spec_reproducer(s, repro, sizeof(repro));
	fprintf(f, "{\"kind\": ");
	json_str(f, fd->kind);
	fprintf(f, ", \"in_kernel_code\": %s, \"signal\": ", fd->in_kernel ? "true" : "false");
	if (fd->signal[0])
		json_str(f, fd->signal);
	else
		fputs("null", f);
	if (fd->has_addr)
		fprintf(f, ", \"fault_address\": \"0x%lx\"", fd->fault_addr);
	if (!strcmp(fd->kind, "exit") || !strcmp(fd->kind, "lost"))
		fprintf(f, ", \"exit_status\": %d", fd->exit_status);
	fprintf(f, ", \"function\": ");
	json_str(f, fd->function);
	fprintf(f, ", \"file\": ");
	json_str(f, fd->file);
	fprintf(f, ", \"line\": %d, \"inside\": ", fd->line);
	json_str(f, fd->inner);
	if (fd->sanitizer[0]) {
		fprintf(f, ", \"sanitizer\": ");
		json_str(f, fd->sanitizer);
	}
	fprintf(f, ", \"seed\": %llu, \"summary\": ", (unsigned long long)s->p.seed);
	json_str(f, fd->summary);
	fprintf(f, ", \"reproducer\": ");
	json_str(f, repro);
	fputc('}', f);
}

/* "key": value, or null where the workload does not read the option. */
static void json_opt_u64(FILE *f, const char *sep, const char *key, bool applies, u64 v)
{
	fprintf(f, "%s\"%s\": ", sep, key);
	if (applies)
		fprintf(f, "%llu", (unsigned long long)v);
	else
		fputs("null", f);
}

/* ", \"<of>_<what>\": {name: share, ...}", or nothing for no rows */
static void json_shares(FILE *f, const char *of, const char *what,
			const struct run_profile_row *rows, int n)
{
	if (!n)
		return;
	fprintf(f, ", \"%s_%s\": {", of, what);
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, rows[i].name);
		fprintf(f, ": ");
		json_num(f, rows[i].share);
	}
	fprintf(f, "}");
}

static void json_opt_str(FILE *f, const char *key, bool applies, const char *v)
{
	fprintf(f, ", \"%s\": ", key);
	if (applies && v)
		json_str(f, v);
	else
		fputs("null", f);
}

void print_run_json(FILE *f, const struct run_spec *s, const struct run_out *o)
{
	const struct run_params *p = &s->p;
	unsigned int opts = s->w->opts;

	char prov[PATH_MAX + 512];

	/* the shape of this object: README's "Reading the JSON" documents each key of it */
	fprintf(f, "{\"schema\": %d, \"workload\": ", PTELAB_JSON_SCHEMA);
	json_str(f, s->w->name);
	fprintf(f, ", \"arch\": ");
	json_str(f, p->arch);
	fprintf(f, ", \"impl\": ");
	json_str(f, p->impl);
	/* provenance: which ptelab, asked what, ran which kernel code */
	kernel_backend_provenance(p->impl, prov, sizeof(prov));
	fprintf(f, ", \"backend\": %s, \"version\": ", prov);
	json_str(f, cli_version());
	fprintf(f, ", \"command\": ");
	json_str(f, cli_command_line);
	fprintf(f, ", \"profile\": ");
	json_str(f, s->profile);
	/* what ran: options a workload does not read are null */
	fprintf(f, ", \"params\": {");
	json_opt_u64(f, "", "size", opts & RUN_OPT_SIZE, p->size);
	json_opt_u64(f, ", ", "folio_size", opts & RUN_OPT_FOLIO_SIZE, p->folio_size);
	fprintf(f, ", \"pmd_mapped\": %s, \"cpus\": %d, \"seed\": %llu, \"hw_policy\": \"%s\", "
		   "\"tlb_entries\": %u, \"tlbi_range\": %s, \"hafdbs\": %s",
		p->pmd_mapped ? "true" : "false", p->nr_cpus, (unsigned long long)p->seed,
		policy_names[p->policy], p->tlb_entries, p->tlbi_range ? "true" : "false",
		p->hafdbs ? "true" : "false");
	fprintf(f, ", \"walkers\": ");
	if (p->walkers)
		json_str(f, p->walkers);
	else
		fprintf(f, "null");
	fprintf(f, ", \"tlb\": \"%s\", \"bbml2\": %s", p->tlb_sticky ? "sticky" : "rewalk",
		p->bbml2 ? "true" : "false");
	json_opt_u64(f, ", ", "iterations", opts & RUN_OPT_ITERATIONS, p->iterations);
	json_opt_str(f, "variant", p->variant != NULL, p->variant);
	json_opt_str(f, "lru", opts & RUN_OPT_LRU, p->lru);
	json_opt_u64(f, ", ", "reclaim", opts & RUN_OPT_RECLAIM, p->reclaim);
	json_opt_u64(f, ", ", "vcpus", opts & RUN_OPT_VCPUS, (u64)p->nr_vcpus);
	json_opt_u64(f, ", ", "host_memory", opts & RUN_OPT_HOST_MEMORY, p->host_memory);
	json_opt_u64(f, ", ", "interleave", opts & RUN_OPT_INTERLEAVE, p->interleave);
	json_opt_u64(f, ", ", "first_sequence", opts & RUN_OPT_FIRST_SEQUENCE, p->first_sequence);
	fprintf(f, ", \"timeout_s\": %u, \"without\": [", s->timeout_s);
	for (int i = 0; i < s->nr_without; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, s->without[i]);
	}
	fprintf(f, "]}, \"measured\": ");
	json_str(f, s->w->measured);
	if (o->derived_from[0]) {
		/* its events are another row's run, costed with this profile: no host time of its own */
		fprintf(f, ", \"derived_from\": ");
		json_str(f, o->derived_from);
	}
	if (o->finding.present) {
		/* no numbers from a run that did not finish */
		fprintf(f, ", \"events\": null, \"setup_events\": null, \"modelled_ns\": null, "
			   "\"host_ns\": null, \"host_phase_ns\": null, \"peak_rss_kb\": null, \"results\": null, \"finding\": ");
		json_finding(f, s, o);
		fprintf(f, ", \"invariants\": {\"ok\": false, \"counts\": {\"kernel_%s\": 1}, "
			   "\"violations\": [", o->finding.kind);
		json_str(f, o->finding.summary);
		fprintf(f, "]}}\n");
		return;
	}
	fprintf(f, ", \"events\": ");
	json_events(f, &o->r.measured);
	fprintf(f, ", \"setup_events\": ");
	json_events(f, &o->r.setup);
	fprintf(f, ", \"modelled_ns\": ");
	json_num(f, o->modelled_ns);
	fprintf(f, ", \"host_ns\": %llu, \"host_phase_ns\": %llu, \"peak_rss_kb\": %ld, ",
		(unsigned long long)o->r.host_ns, (unsigned long long)o->r.host_phase_ns,
		o->r.peak_rss_kb);
	if (o->r.ff_period)
		fprintf(f, "\"host_fast_forward\": {\"period\": %llu, \"skipped\": %llu}, ",
			(unsigned long long)o->r.ff_period, (unsigned long long)o->r.ff_skipped);
	fprintf(f, "\"results\": {");
	for (int i = 0; i < o->r.nr_extra; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, o->r.extra_name[i]);
		fprintf(f, ": ");
		json_num(f, o->r.extra_val[i]);
	}
	fprintf(f, "}");
	if (o->r.text[0]) {
		/* fuzz --minimise: the shrunk trace, a string per line */
		fprintf(f, ", \"trace\": ");
		json_lines(f, o->r.text);
	}
	/* perf report --children of one agent class: inclusive shares of its CPU time */
	json_shares(f, o->r.profile_of, "profile", o->r.profile, o->r.nr_profile);
	/* the same class on the call paths through one function (perf report -G's branch) */
	json_shares(f, o->r.branch_of, "branch", o->r.branch, o->r.nr_branch);
	json_perf(f, &o->r);
	fprintf(f, ", \"finding\": null, \"invariants\": {\"ok\": %s, \"counts\": {",
		o->ok ? "true" : "false");
	for (int i = 0, n = 0; i < NR_VIOL_KINDS; i++)
		if (o->viol.count[i])
			fprintf(f, "%s\"%s\": %llu", n++ ? ", " : "", hw_violation_names[i],
				(unsigned long long)o->viol.count[i]);
	fprintf(f, "}, \"known\": {");
	for (int i = 0, n = 0; i < NR_KNOWN_FINDINGS; i++)
		if (o->viol.known[i])
			fprintf(f, "%s\"%s\": %llu", n++ ? ", " : "", hw_known_findings[i].id,
				(unsigned long long)o->viol.known[i]);
	fprintf(f, "}, \"violations\": [");
	for (int i = 0; i < o->viol.kept; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, o->viol.msg[i]);
	}
	fprintf(f, "]}}\n");
}

void json_lines(FILE *f, const char *text)
{
	fprintf(f, "[");
	for (int i = 0; *text; i++) {
		size_t n = strcspn(text, "\n");
		char line[256];

		snprintf(line, sizeof(line), "%.*s", (int)min(n, sizeof(line) - 1), text);
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, line);
		text += n + (text[n] == '\n');
	}
	fprintf(f, "]");
}

void print_finding(FILE *f, const struct run_spec *s, const struct run_out *o)
{
	char repro[REPRODUCER_MAX];

	run_spec_reproducer(s, repro, sizeof(repro));
	fprintf(f, "FINDING: %s\n", o->finding.summary);
	fprintf(f, "  workload %s, seed %llu; reproduce with:\n    %s\n", s->w->name,
		(unsigned long long)s->p.seed, repro);
	if (!o->finding.in_kernel && strcmp(s->p.impl, "ref"))
		fprintf(f, "  not located in the kernel code: it may have corrupted ptelab's memory; "
			   "rerun with --sanitize\n");
}

void print_run_table(FILE *f, const struct run_spec *s, const struct run_out *o)
{
	fprintf(f, "workload %s  arch %s  impl %s  profile %s", s->w->name, s->p.arch, s->p.impl,
		s->profile);
	if (s->w->opts & RUN_OPT_SIZE)
		fprintf(f, "  size %llu", (unsigned long long)s->p.size);
	if (s->w->opts & RUN_OPT_FOLIO_SIZE)
		fprintf(f, "  folio %llu", (unsigned long long)s->p.folio_size);
	if (s->p.pmd_mapped)
		fprintf(f, " (PMD-mapped)");
	if (s->w->opts & RUN_OPT_ITERATIONS)
		fprintf(f, "  %s %llu", s->w->iterations_are, (unsigned long long)s->p.iterations);
	if (s->p.variant)
		fprintf(f, "  variant %s", s->p.variant);
	if (s->w->opts & RUN_OPT_LRU)
		fprintf(f, "  lru %s", s->p.lru);
	for (int i = 0; i < s->nr_without; i++)
		fprintf(f, "  --without %s", s->without[i]);
	fprintf(f, "\n\n");
	if (o->finding.present) {
		print_finding(f, s, o);
		return;
	}
	fprintf(f, "events of the measured phase (%s):\n", s->w->measured);
	for (int i = 0; i < NR_HW_EVENTS; i++)
		if (o->r.measured.v[i])
			fprintf(f, "  %-18s %14llu  %12.3f ms\n", hw_event_names[i],
				(unsigned long long)o->r.measured.v[i],
				o->r.measured.v[i] * o->prof.cost[i] / 1e6);
	fprintf(f, "\nmodelled time %.3f ms (profile %s%s)\n", o->modelled_ns / 1e6, o->prof.name,
		o->r.sim_timed ? "; discrete-event makespan, not the events' sum" : "");
	for (int i = 0; i < o->r.nr_extra; i++)
		fprintf(f, "%s %.17g\n", o->r.extra_name[i], o->r.extra_val[i]);
	if (o->r.nr_profile) {
		fprintf(f, "%s profile (inclusive share of its CPU time, as perf report --children):\n",
			o->r.profile_of);
		for (int i = 0; i < o->r.nr_profile; i++)
			fprintf(f, "  %6.2f%%  %s\n", 100 * o->r.profile[i].share, o->r.profile[i].name);
	}
	if (o->r.nr_branch) {
		fprintf(f, "%s branch (its share on the call paths through that function, as perf "
			"report -G shows them):\n", o->r.branch_of);
		for (int i = 0; i < o->r.nr_branch; i++)
			fprintf(f, "  %6.2f%%  %s\n", 100 * o->r.branch[i].share, o->r.branch[i].name);
	}
	if (o->r.text[0])
		fprintf(f, "%s", o->r.text);
	fprintf(f, "host time %.3f s (the measured phase %.3f s), peak memory %ld MiB\n",
		o->r.host_ns / 1e9, o->r.host_phase_ns / 1e9, o->r.peak_rss_kb / 1024);
	if (o->r.ff_period)
		fprintf(f, "fast-forward: the state repeated every %llu iterations; %llu skipped, "
			"their effects added\n", (unsigned long long)o->r.ff_period,
			(unsigned long long)o->r.ff_skipped);
	fprintf(f, "invariants: %s", o->ok ? "ok\n" : "VIOLATED\n");
	for (int i = 0; i < o->viol.kept; i++)
		fprintf(f, "  %s\n", o->viol.msg[i]);
	if (o->viol.total > (u64)o->viol.kept)
		fprintf(f, "  ... %llu in all\n", (unsigned long long)o->viol.total);
	for (int k = 0; k < NR_KNOWN_FINDINGS; k++)
		if (o->viol.known[k])
			fprintf(f, "known kernel finding %s, %llu times (not a violation): %s\n",
				hw_known_findings[k].id, (unsigned long long)o->viol.known[k],
				hw_known_findings[k].what);
}

/* One column's cell: "-" where the run ended in a finding. */
/*
 * One row: the first backend's value, then for each other one its value,
 * its difference from the first and their ratio, as perf diff shows a
 * baseline and deltas. A backend with a finding has no values ("-").
 */
static void diff_row(FILE *f, const char *name, const struct run_out *outs, int n,
		     const double *v, int prec)
{
	fprintf(f, "%-20s", name);
	for (int i = 0; i < n; i++) {
		if (outs[i].finding.present) {
			fprintf(f, " %12s", "-");
			if (i)
				fprintf(f, " %10s %7s", "-", "-");
			continue;
		}
		fprintf(f, " %12.*f", prec, v[i]);
		if (!i)
			continue;
		if (outs[0].finding.present) {
			fprintf(f, " %10s %7s", "-", "-");
			continue;
		}
		fprintf(f, " %+10.*f", prec, v[i] - v[0]);
		if (v[0] != 0)
			fprintf(f, " %7.3f", v[i] / v[0]);
		else
			fprintf(f, " %7s", v[i] == 0 ? "1.000" : "-");
	}
	fputc('\n', f);
}

void print_side_by_side(FILE *f, const struct run_spec *s, const char *const *impls,
			const struct run_out *outs, int n)
{
	const struct run_out *first = NULL;
	char label[MAX_IMPLS][16];
	bool legend = false;
	double v[MAX_IMPLS];

	fprintf(f, "workload %s  arch %s", s->w->name, s->p.arch);
	if (s->w->opts & RUN_OPT_SIZE)
		fprintf(f, "  size %llu", (unsigned long long)s->p.size);
	if (s->w->opts & RUN_OPT_FOLIO_SIZE)
		fprintf(f, "  folio %llu", (unsigned long long)s->p.folio_size);
	fprintf(f, "  (events of the measured phase: %s)\n\n", s->w->measured);
	/* names that do not fit a column become letters, spelled out above the table */
	for (int i = 0; i < n; i++)
		legend |= strlen(impls[i]) > 12;
	for (int i = 0; i < n; i++) {
		if (legend) {
			const struct arm64_backend *b;
			char err[256];

			snprintf(label[i], sizeof(label[i]), "%c", 'A' + i);
			b = arm64_backend_by_name(impls[i], err, sizeof(err));
			fprintf(f, "  %s  %s", label[i], impls[i]);
			if (b && b->version && strcmp(impls[i], "ref"))
				fprintf(f, " (kernel %s)", b->version);
			fputc('\n', f);
		} else {
			snprintf(label[i], sizeof(label[i]), "%s", impls[i]);
		}
	}
	if (legend)
		fputc('\n', f);
	for (int i = 0; i < n && !first; i++)
		if (!outs[i].finding.present)
			first = &outs[i];
	fprintf(f, "%-20s", "event");
	for (int i = 0; i < n; i++) {
		char d[32], r[32];

		fprintf(f, " %12s", label[i]);
		if (!i)
			continue;
		snprintf(d, sizeof(d), "%s-%s", label[i], label[0]);
		snprintf(r, sizeof(r), "%s/%s", label[i], label[0]);
		fprintf(f, " %10.10s %7.7s", legend || strlen(d) <= 10 ? d : "delta",
			legend || strlen(r) <= 7 ? r : "ratio");
	}
	fprintf(f, "\n");
	for (int e = 0; e < NR_HW_EVENTS; e++) {
		bool any = false;

		for (int i = 0; i < n; i++) {
			v[i] = (double)outs[i].r.measured.v[e];
			any |= outs[i].r.measured.v[e] != 0;
		}
		if (any)
			diff_row(f, hw_event_names[e], outs, n, v, 0);
	}
	for (int x = 0; first && x < first->r.nr_extra; x++) {
		for (int i = 0; i < n; i++)
			v[i] = outs[i].r.extra_val[x];
		diff_row(f, first->r.extra_name[x], outs, n, v, 0);
	}
	for (int i = 0; i < n; i++)
		v[i] = outs[i].modelled_ns / 1e6;
	diff_row(f, "modelled ms", outs, n, v, 3);
	fprintf(f, "%-20s", "invariants");
	for (int i = 0; i < n; i++) {
		fprintf(f, " %12s", outs[i].finding.present ? outs[i].finding.kind :
				    outs[i].ok ? "ok" : "VIOLATED");
		if (i && i < n - 1)
			fprintf(f, " %10s %7s", "", "");
	}
	fprintf(f, "\nprofile %s\n", s->profile);
	for (int i = 0; i < n; i++) {
		if (!outs[i].finding.present)
			continue;
		struct run_spec one = *s;

		one.p.impl = impls[i];
		fprintf(f, "\n");
		print_finding(f, &one, &outs[i]);
	}
}
