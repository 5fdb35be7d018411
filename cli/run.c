// SPDX-License-Identifier: GPL-2.0-only
/* One run: validate the spec, run the workload, model time, report. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "arch/switches.h"
#include "cli/cli.h"
#include "hw/invariants.h"

int parse_size(const char *s, u64 *out)
{
	char *end;
	unsigned long long v;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	v = strtoull(s, &end, 10);
	switch (toupper((unsigned char)*end)) {
	case 'K': v <<= 10; end++; break;
	case 'M': v <<= 20; end++; break;
	case 'G': v <<= 30; end++; break;
	case 'T': v <<= 40; end++; break;
	case 0: break;
	default: return -1;
	}
	if (*end == 'B' || *end == 'b')
		end++;
	if (*end || v == 0)
		return -1;
	*out = v;
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
	s->p.lru = "mglru";
}

static u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (u64)ts.tv_sec * 1000000000ULL + (u64)ts.tv_nsec;
}

int run_spec_execute(const struct run_spec *s, struct run_out *o, char *err,
		     size_t errlen)
{
	const char *profile = s->profile[0] ? s->profile :
			      !strcmp(s->p.arch, "x86") ? "xeon-silver-4210r" : "arm64-generic";
	struct run_params p = s->p;
	u64 t0;

	memset(o, 0, sizeof(*o));
	if (strcmp(p.arch, "arm64") && strcmp(p.arch, "x86")) {
		snprintf(err, errlen, "unknown arch '%s'; use --arch arm64 or --arch x86", p.arch);
		return -1;
	}
	if (p.size % PAGE_SIZE || p.size > (64ULL << 30)) {
		snprintf(err, errlen, "--size must be a multiple of 4K and at most 64G (got %llu)",
			 (unsigned long long)p.size);
		return -1;
	}
	if (p.folio_size < PAGE_SIZE || p.folio_size > SZ_2M ||
	    (p.folio_size & (p.folio_size - 1))) {
		snprintf(err, errlen, "--folio-size must be a power of two from 4K to 2M (got %llu)",
			 (unsigned long long)p.folio_size);
		return -1;
	}
	if (p.pmd_mapped && p.folio_size != SZ_2M) {
		snprintf(err, errlen, "--pmd-mapped needs --folio-size 2M");
		return -1;
	}
	if (p.size % p.folio_size) {
		snprintf(err, errlen, "--size must be a multiple of --folio-size");
		return -1;
	}
	if (p.variant && (!s->w->variants || !variant_ok(s->w->variants, p.variant))) {
		snprintf(err, errlen, "workload %s has no variant '%s'%s%s", s->w->name, p.variant,
			 s->w->variants ? "; variants: " : "", s->w->variants ? s->w->variants : "");
		return -1;
	}
	if (profile_load(profile, &o->prof, err, errlen))
		return -1;
	if (o->prof.arch[0] && strcmp(o->prof.arch, p.arch)) {
		snprintf(err, errlen, "profile '%s' is for %s, not %s; pick one with --profile",
			 profile, o->prof.arch, p.arch);
		return -1;
	}
	lab_switches_reset();
	for (int i = 0; i < s->nr_without; i++) {
		if (lab_switch_off(s->without[i]) < 0) {
			snprintf(err, errlen, "unknown switch '%s' for --without; 'ptelab list' shows them",
				 s->without[i]);
			return -1;
		}
	}
	t0 = now_ns();
	if (s->w->run(&p, &o->r, err, errlen))
		return -1;
	o->r.host_ns = now_ns() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	o->r.peak_rss_kb = ru.ru_maxrss;
	o->modelled_ns = profile_modelled_ns(&o->prof, &o->r.measured);
	o->ok = hw_violations.total == 0;
	return 0;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_events(FILE *f, const struct hw_counters *c)
{
	fputc('{', f);
	for (int i = 0; i < NR_HW_EVENTS; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", hw_event_names[i],
			(unsigned long long)c->v[i]);
	fputc('}', f);
}

static const char *const policy_names[] = { "accessed", "first", "random", "adversarial" };

void print_run_json(FILE *f, const struct run_spec *s, const struct run_out *o)
{
	fprintf(f, "{\"workload\": ");
	json_str(f, s->w->name);
	fprintf(f, ", \"arch\": ");
	json_str(f, s->p.arch);
	fprintf(f, ", \"impl\": ");
	json_str(f, s->p.impl);
	fprintf(f, ", \"profile\": ");
	json_str(f, o->prof.name);
	fprintf(f, ", \"params\": {\"size\": %llu, \"folio_size\": %llu, \"pmd_mapped\": %s, "
		   "\"cpus\": %d, \"seed\": %llu, \"hw_policy\": \"%s\", \"tlb_entries\": %u, "
		   "\"tlbi_range\": %s, \"hafdbs\": %s, \"iterations\": %llu, \"variant\": \"%s\", "
		   "\"lru\": \"%s\", \"reclaim\": %llu, \"without\": [",
		(unsigned long long)s->p.size, (unsigned long long)s->p.folio_size,
		s->p.pmd_mapped ? "true" : "false", s->p.nr_cpus,
		(unsigned long long)s->p.seed, policy_names[s->p.policy], s->p.tlb_entries,
		s->p.tlbi_range ? "true" : "false", s->p.hafdbs ? "true" : "false",
		(unsigned long long)s->p.iterations, s->p.variant ? s->p.variant : "",
		s->p.lru, (unsigned long long)s->p.reclaim);
	for (int i = 0; i < s->nr_without; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, s->without[i]);
	}
	fprintf(f, "]}, \"measured\": ");
	json_str(f, s->w->measured);
	fprintf(f, ", \"events\": ");
	json_events(f, &o->r.measured);
	fprintf(f, ", \"setup_events\": ");
	json_events(f, &o->r.setup);
	fprintf(f, ", \"modelled_ns\": %.1f, \"host_ns\": %llu, \"peak_rss_kb\": %ld, \"results\": {",
		o->modelled_ns, (unsigned long long)o->r.host_ns, o->r.peak_rss_kb);
	for (int i = 0; i < o->r.nr_extra; i++)
		fprintf(f, "%s\"%s\": %.17g", i ? ", " : "", o->r.extra_name[i], o->r.extra_val[i]);
	fprintf(f, "}, \"invariants\": {\"ok\": %s, \"counts\": {", o->ok ? "true" : "false");
	for (int i = 0, n = 0; i < NR_VIOL_KINDS; i++)
		if (hw_violations.count[i])
			fprintf(f, "%s\"%s\": %llu", n++ ? ", " : "", hw_violation_names[i],
				(unsigned long long)hw_violations.count[i]);
	fprintf(f, "}, \"violations\": [");
	for (int i = 0; i < hw_violations.kept; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_str(f, hw_violations.msg[i]);
	}
	fprintf(f, "]}}\n");
}

void print_run_table(FILE *f, const struct run_spec *s, const struct run_out *o)
{
	fprintf(f, "workload %s  arch %s  impl %s  profile %s  size %llu  folio %llu%s",
		s->w->name, s->p.arch, s->p.impl, o->prof.name,
		(unsigned long long)s->p.size, (unsigned long long)s->p.folio_size,
		s->p.pmd_mapped ? " (PMD-mapped)" : "");
	for (int i = 0; i < s->nr_without; i++)
		fprintf(f, "  --without %s", s->without[i]);
	fprintf(f, "\n\nevents of the measured phase (%s):\n", s->w->measured);
	for (int i = 0; i < NR_HW_EVENTS; i++)
		if (o->r.measured.v[i])
			fprintf(f, "  %-18s %14llu  %12.3f ms\n", hw_event_names[i],
				(unsigned long long)o->r.measured.v[i],
				o->r.measured.v[i] * o->prof.cost[i] / 1e6);
	fprintf(f, "\nmodelled time %.3f ms (profile %s)\n", o->modelled_ns / 1e6, o->prof.name);
	for (int i = 0; i < o->r.nr_extra; i++)
		fprintf(f, "%s %.17g\n", o->r.extra_name[i], o->r.extra_val[i]);
	fprintf(f, "host time %.3f s, peak memory %ld MiB\n", o->r.host_ns / 1e9,
		o->r.peak_rss_kb / 1024);
	fprintf(f, "invariants: %s", o->ok ? "ok\n" : "VIOLATED\n");
	for (int i = 0; i < hw_violations.kept; i++)
		fprintf(f, "  %s\n", hw_violations.msg[i]);
	if (hw_violations.total > (u64)hw_violations.kept)
		fprintf(f, "  ... %llu in all\n", (unsigned long long)hw_violations.total);
}

void print_side_by_side(FILE *f, const struct run_spec *s, const char *const *impls,
			const struct run_out *outs, int n)
{
	fprintf(f, "workload %s  arch %s  size %llu  folio %llu  (events of the measured phase: %s)\n\n",
		s->w->name, s->p.arch, (unsigned long long)s->p.size,
		(unsigned long long)s->p.folio_size, s->w->measured);
	fprintf(f, "%-20s", "event");
	for (int i = 0; i < n; i++)
		fprintf(f, " %16.16s", impls[i]);
	fprintf(f, "\n");
	for (int e = 0; e < NR_HW_EVENTS; e++) {
		bool any = false;

		for (int i = 0; i < n; i++)
			any |= outs[i].r.measured.v[e] != 0;
		if (!any)
			continue;
		fprintf(f, "%-20s", hw_event_names[e]);
		for (int i = 0; i < n; i++)
			fprintf(f, " %16llu", (unsigned long long)outs[i].r.measured.v[e]);
		fprintf(f, "\n");
	}
	for (int x = 0; x < outs[0].r.nr_extra; x++) {
		fprintf(f, "%-20s", outs[0].r.extra_name[x]);
		for (int i = 0; i < n; i++)
			fprintf(f, " %16.6g", outs[i].r.extra_val[x]);
		fprintf(f, "\n");
	}
	fprintf(f, "%-20s", "modelled ms");
	for (int i = 0; i < n; i++)
		fprintf(f, " %16.3f", outs[i].modelled_ns / 1e6);
	fprintf(f, "\n%-20s", "invariants");
	for (int i = 0; i < n; i++)
		fprintf(f, " %16s", outs[i].ok ? "ok" : "VIOLATED");
	fprintf(f, "\nprofile %s\n", outs[0].prof.name);
}
