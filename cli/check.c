// SPDX-License-Identifier: GPL-2.0-only
/*
 * ptelab check: random sequences on several machines (walkers with and
 * without hardware access/dirty management, an SMMU, a TLB that keeps
 * read-only entries until invalidated, BBML2, other agents acting inside
 * kernel operations) against every hardware policy for the
 * contiguous-block updates and several folio sizes, on one or more
 * backends (a kernel tree with a patch: --impl tree:PATH). Exit 1 if any
 * invariant or postcondition was violated, or if the sequences never
 * called one of the PTE operations a backend exports.
 *
 * The work is units of a few sequences of one configuration, numbered
 * round-robin over the configurations (so a time budget covers them all
 * evenly) and run by --jobs worker processes, each unit in its own child
 * (kernel code may crash or hang). --shard K/N runs the units numbered
 * K-1 modulo N: N shards on N machines do what one run would
 * (tools/campaign.py). Every failing configuration gets a reproducer of
 * its first failing sequence and that sequence shrunk to a few
 * operations (fuzz --minimise).
 */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arch/pte_op_calls.h"
#include "cli/cli.h"
#include "hw/invariants.h"
#include "kernel/build.h"
#include "workloads/explore.h"

/* The machines every backend is checked on (arm64; x86 runs the first). */
static const struct check_machine {
	const char *name;
	bool hafdbs, sticky, bbml2;
	const char *walkers;
	u32 interleave;
} machines[] = {
	{ "hafdbs", true, false, false, NULL, 0 },
	{ "sticky+race", true, true, false, NULL, 8 },
	{ "mixed+smmu", true, true, false, "cpu1=none,smmu=ha+nohint", 8 },
	{ "bbml2+race", true, false, true, NULL, 8 },
	{ "sw-af+race", false, true, false, "smmu=none", 8 },
};

#define CHECK_CONFIGS (4 * 4 * ARRAY_SIZE(machines))

static int impl_of(const char *const *names, int nr, const char *impl)
{
	for (int i = 0; i < nr; i++)
		if (names[i] == impl || !strcmp(names[i], impl))
			return i;
	return 0;
}

/* Sequences per unit of work (fuzz); explore: one scenario. */
#define UNIT_SEQS 8
static u64 unit_seqs = UNIT_SEQS;
/* Failing configurations whose first failing sequence is minimised. */
#define MINIMISE_ROWS 8

/* What a worker sends back for one unit. */
struct unit_result {
	u64 unit;
	int rc;                 /* run_spec_execute's: 0, -1 error, -2 internal error */
	bool ok;
	u64 sequences, ops, viol_total;
	double seconds;         /* CPU time of the unit: its worker's and the children it waited for */
	double failing;         /* the first failing sequence, -1: none (or a finding) */
	u64 first_sequence;
	bool finding;
	char kind[24];
	char msg[768];
	u64 calls[NR_PTE_OPS][2];
	u64 counts[NR_VIOL_KINDS];
	u64 known[NR_KNOWN_FINDINGS];
	char known_msg[160];
	char err[512];
};

/* What the campaign knows of one configuration. */
struct row {
	u64 units;               /* units of work that ran (their sequences below) */
	u64 sequences, ops, viol_total;
	bool failed;
	double failing;          /* smallest first failing sequence seen */
	u64 fail_first, fail_count; /* the failing unit (for findings without a sequence) */
	bool finding;
	char kind[24];
	char msg[768];
	u64 counts[NR_VIOL_KINDS];
	u64 known[NR_KNOWN_FINDINGS];
	char known_msg[160];
	char trace[6144];
};

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double extra(const struct run_out *o, const char *name)
{
	for (int k = 0; k < o->r.nr_extra; k++)
		if (!strcmp(o->r.extra_name[k], name))
			return o->r.extra_val[k];
	return 0;
}

static bool full_io(int fd, void *buf, size_t n, bool wr)
{
	char *p = buf;

	while (n) {
		ssize_t k = wr ? write(fd, p, n) : read(fd, p, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

/* Unit u: configuration u % nr, sequences from (u / nr) * unit_seqs. */
static void unit_spec(const struct run_spec *specs, int nr, u64 seqs, u64 u, struct run_spec *s)
{
	u64 j = u / (u64)nr;

	*s = specs[u % (u64)nr];
	s->p.first_sequence = j * unit_seqs;
	s->p.iterations = min(unit_seqs, seqs - j * unit_seqs);
	s->set |= RUN_OPT_FIRST_SEQUENCE;
}

/*
 * CPU seconds of this process and of the children it has waited for: a
 * unit's cost whatever else the machine runs (wall time on a loaded
 * machine overstates it, and ops/s per core with it).
 */
static double cpu_now_s(void)
{
	struct rusage self, kids;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	return (double)(self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
			kids.ru_stime.tv_sec) +
	       (double)(self.ru_utime.tv_usec + self.ru_stime.tv_usec + kids.ru_utime.tv_usec +
			kids.ru_stime.tv_usec) / 1e6;
}

static void run_unit(const struct run_spec *specs, int nr, u64 seqs, u64 u, struct unit_result *ur)
{
	struct run_spec s;
	struct run_out *o = calloc(1, sizeof(*o));
	double t0 = cpu_now_s();

	memset(ur, 0, sizeof(*ur));
	ur->unit = u;
	unit_spec(specs, nr, seqs, u, &s);
	ur->first_sequence = s.p.first_sequence;
	if (!o) {
		ur->rc = -1;
		snprintf(ur->err, sizeof(ur->err), "out of host memory");
		return;
	}
	ur->rc = run_spec_execute(&s, o, ur->err, sizeof(ur->err));
	ur->seconds = cpu_now_s() - t0;
	if (!ur->rc) {
		ur->ok = o->ok;
		ur->sequences = s.p.iterations;
		ur->ops = (u64)extra(o, "operations");
		ur->viol_total = o->viol.total;
		memcpy(ur->counts, o->viol.count, sizeof(ur->counts));
		memcpy(ur->known, o->viol.known, sizeof(ur->known));
		snprintf(ur->known_msg, sizeof(ur->known_msg), "%s", o->viol.known_msg);
		ur->failing = o->finding.present ? -1 : extra(o, "first_failing_sequence");
		ur->finding = o->finding.present;
		if (o->finding.present) {
			snprintf(ur->kind, sizeof(ur->kind), "%s", o->finding.kind);
			snprintf(ur->msg, sizeof(ur->msg), "%s", o->finding.summary);
		} else if (o->viol.kept) {
			for (int k = 0; k < NR_VIOL_KINDS; k++)
				if (o->viol.count[k] && !ur->kind[0])
					snprintf(ur->kind, sizeof(ur->kind), "%s", hw_violation_names[k]);
			snprintf(ur->msg, sizeof(ur->msg), "%s", o->viol.msg[0]);
		}
		for (int k = 0; k < o->r.nr_extra; k++)
			for (int op = 0; op < NR_PTE_OPS; op++)
				for (int c = 0; c < 2; c++)
					if (!strcmp(o->r.extra_name[k], pte_op_result_keys[op][c]))
						ur->calls[op][c] += (u64)o->r.extra_val[k];
	}
	free(o);
}

struct worker {
	pid_t pid;
	int cmd, res;   /* parent's ends */
	bool busy;
};

static int worker_start(struct worker *w, const struct run_spec *specs, int nr, u64 seqs)
{
	int cmd[2], res[2];

	if (pipe(cmd) || pipe(res))
		return -1;
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0)
		return -1;
	if (w->pid == 0) {
		u64 u;
		struct unit_result ur;

		close(cmd[1]);
		close(res[0]);
		while (full_io(cmd[0], &u, sizeof(u), false) && u != ~0ULL) {
			run_unit(specs, nr, seqs, u, &ur);
			if (!full_io(res[1], &ur, sizeof(ur), true))
				break;
		}
		_exit(0);
	}
	close(cmd[0]);
	close(res[1]);
	w->cmd = cmd[1];
	w->res = res[0];
	w->busy = false;
	return 0;
}

/* The next unit of this shard, or ~0 when the campaign is over. */
static u64 next_unit(u64 *next, u64 total, u64 shard_k, u64 shard_n)
{
	while (*next < total && *next % shard_n != shard_k)
		(*next)++;
	return *next < total ? (*next)++ : ~0ULL;
}

/*
 * How many of configuration c's units this shard was to run: every one of
 * its per_config units that falls to the shard; with a time budget alone
 * (no end to the units) at least one, if any falls to the shard.
 */
static u64 units_owed(u64 c, u64 nr_specs, u64 per_config, bool endless, u64 shard_k, u64 shard_n)
{
	u64 n = 0;

	for (u64 i = 0; i < (endless ? shard_n : per_config); i++)
		if ((c + i * nr_specs) % shard_n == shard_k && (n++, endless))
			break;
	return n;
}

static void row_add(struct row *r, const struct unit_result *ur)
{
	r->units++;
	r->sequences += ur->sequences;
	r->ops += ur->ops;
	r->viol_total += ur->viol_total;
	for (int k = 0; k < NR_VIOL_KINDS; k++)
		r->counts[k] += ur->counts[k];
	for (int k = 0; k < NR_KNOWN_FINDINGS; k++)
		r->known[k] += ur->known[k];
	if (ur->known_msg[0] && !r->known_msg[0])
		snprintf(r->known_msg, sizeof(r->known_msg), "%s", ur->known_msg);
	if (ur->ok)
		return;
	/* keep the earliest failure: the same one whatever the jobs and shards */
	if (r->failed && (ur->finding ? (double)ur->first_sequence : ur->failing) >=
			 (r->finding ? (double)r->fail_first : r->failing))
		return;
	r->failed = true;
	r->finding = ur->finding;
	r->failing = ur->failing;
	r->fail_first = ur->first_sequence;
	r->fail_count = ur->sequences;
	snprintf(r->kind, sizeof(r->kind), "%s", ur->kind);
	snprintf(r->msg, sizeof(r->msg), "%s", ur->msg);
}

/* The spec that reruns a row's first failure: one sequence when it is known. */
static void row_repro_spec(const struct run_spec *spec, const struct row *r, struct run_spec *s)
{
	*s = *spec;
	s->set |= RUN_OPT_FIRST_SEQUENCE;
	if (!r->finding && r->failing >= 0) {
		s->p.first_sequence = (u64)r->failing;
		s->p.iterations = 1;
	} else {
		s->p.first_sequence = r->fail_first;
		s->p.iterations = r->fail_count;
	}
}

static int parse_shard(const char *v, u64 *k, u64 *n)
{
	char *end;

	errno = 0;
	*k = strtoull(v, &end, 10);
	if (end == v || *end != '/' || !isdigit((unsigned char)end[1]))
		return -1;
	*n = strtoull(end + 1, &end, 10);
	return *end || errno || *n < 1 || *k < 1 || *k > *n ? -1 : 0;
}

static int check_main(int argc, char **argv)
{
	static const char *const policies[] = { "accessed", "first", "random", "adversarial" };
	static const u64 folios[] = { 16UL << 10, SZ_64K, 256UL << 10, SZ_2M };
	/* explore: the policies that differ most, folios smaller than, one and four blocks */
	static const unsigned int explore_policies[] = { HW_POLICY_ACCESSED, HW_POLICY_ADVERSARIAL };
	static const u64 explore_folios[] = { SZ_64K, 16UL << 10, 256UL << 10 };
	static struct run_spec specs[MAX_IMPLS * CHECK_CONFIGS];
	static unsigned int machine_of[MAX_IMPLS * CHECK_CONFIGS];
	static struct row rows[MAX_IMPLS * CHECK_CONFIGS];
	static u64 calls[MAX_IMPLS][NR_PTE_OPS][2];
	const char *impls = "ref", *arch_name = "arm64", *diff = NULL;
	bool impl_set = false, campaign_set = false;
	u64 seqs = 8, seed = 1, timeout = DEFAULT_TIMEOUT_S, budget_s = 0, shard_k = 0, shard_n = 1;
	long jobs = sysconf(_SC_NPROCESSORS_ONLN);
	bool timeout_set = false, seqs_set = false, json = false, explore = false, first = false;
	int bad = 0, nr_specs = 0, rc = 0;
	char err[512];

	for (int i = 0; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char *end;

		if (!strcmp(a, "--json")) {
			json = true;
			continue;
		}
		if (!strcmp(a, "--explore")) {
			explore = true;
			continue;
		}
		if (!strcmp(a, "--first")) {
			first = true;
			continue;
		}
		if (!strcmp(a, "--sanitize"))
			continue; /* handled in main */
		if (!v || strncmp(a, "--", 2)) {
			fprintf(stderr, "ptelab: error: check takes --impl, --arch, --explore, --diff A,B, "
					"--sequences, --seed, --time, --jobs, --shard K/N, --timeout, --sanitize, --core, "
					"--first, --bisect, --json\n");
			return 2;
		}
		i++;
		if (!strcmp(a, "--core"))
			continue; /* handled in main */
		if (!strcmp(a, "--impl")) {
			impls = v;
			impl_set = true;
		} else if (!strcmp(a, "--diff")) {
			diff = v;
		} else if (!strcmp(a, "--arch")) {
			arch_name = v;
		} else if (!strcmp(a, "--shard")) {
			if (parse_shard(v, &shard_k, &shard_n)) {
				fprintf(stderr, "ptelab: error: --shard takes K/N with 1 <= K <= N (this "
					"run does the K-th of N disjoint parts of the campaign)\n");
				return 2;
			}
			shard_k--;
			campaign_set = true;
		} else if (!strcmp(a, "--sequences") || !strcmp(a, "--seed") || !strcmp(a, "--timeout") ||
			   !strcmp(a, "--time") || !strcmp(a, "--jobs")) {
			u64 n;

			errno = 0;
			n = strtoull(v, &end, 10);
			if (*end || !*v || !isdigit((unsigned char)*v) || errno == ERANGE ||
			    (!strcmp(a, "--sequences") && n < 1) ||
			    (!strcmp(a, "--jobs") && (n < 1 || n > 1024)) ||
			    (!strcmp(a, "--time") && (n < 1 || n > 366 * 24 * 3600)) ||
			    (!strcmp(a, "--timeout") && n > 7 * 24 * 3600)) {
				fprintf(stderr, "ptelab: error: %s takes %s\n", a,
					!strcmp(a, "--sequences") ? "a positive number (per configuration)" :
					!strcmp(a, "--seed") ? "a non-negative number" :
					!strcmp(a, "--jobs") ? "a number of worker processes from 1 to 1024" :
					!strcmp(a, "--time") ? "seconds from 1 to a year (no new work after that)" :
					"seconds, 0 for none (at most a week)");
				return 2;
			}
			if (!strcmp(a, "--sequences"))
				seqs = n, seqs_set = true;
			else if (!strcmp(a, "--seed"))
				seed = n;
			else if (!strcmp(a, "--time"))
				budget_s = n, campaign_set = true;
			else if (!strcmp(a, "--jobs"))
				jobs = (long)n, campaign_set = true;
			else
				timeout = n, timeout_set = true;
		} else {
			fprintf(stderr, "ptelab: error: unknown option '%s' for check\n", a);
			return 2;
		}
	}
	if (diff) {
		if (impl_set || explore || campaign_set || first) {
			fprintf(stderr, "ptelab: error: --diff A,B names the two backends itself and runs "
				"on one core: drop --impl, --explore, --first, --time, --jobs and --shard\n");
			return 2;
		}
		return cmd_check_diff(diff, arch_name, seqs, seed, timeout, timeout_set, json);
	}
	if (jobs < 1)
		jobs = 1;
	/* a time budget alone: as many sequences as fit */
	if (budget_s && !seqs_set)
		seqs = ~0ULL / 2;
	/* explore: a unit is one scenario of the catalogue, all of it by default */
	if (explore) {
		unit_seqs = 1;
		if (!seqs_set || seqs > explore_nr_scenarios)
			seqs = explore_nr_scenarios;
	}
	unsigned int nr_pol = explore ? ARRAY_SIZE(explore_policies) : ARRAY_SIZE(policies);
	unsigned int nr_fol = explore ? ARRAY_SIZE(explore_folios) : ARRAY_SIZE(folios);

	char list[4096];
	const char *names[MAX_IMPLS];
	int nr = split_impls(impls, list, sizeof(list), names, MAX_IMPLS, err, sizeof(err));
	bool x86 = !strcmp(arch_name, "x86");

	if (nr < 0) {
		fprintf(stderr, "ptelab: error: %s\n", err);
		return 2;
	}
	/* every configuration is checked (and every backend built) first */
	for (int i = 0; i < nr; i++) {
		for (unsigned int m = 0; m < ARRAY_SIZE(machines); m++) {
			for (unsigned int p = 0; p < nr_pol; p++) {
				for (unsigned int f = 0; f < nr_fol; f++) {
					struct run_spec *s = &specs[nr_specs];

					machine_of[nr_specs++] = m;
					run_spec_defaults(s, workload_by_name(explore ? "explore" : "fuzz"));
					s->p.impl = names[i];
					s->p.arch = arch_name;
					s->p.iterations = unit_seqs;
					s->p.seed = seed;
					s->p.folio_size = explore ? explore_folios[f] : folios[f];
					s->p.policy = (enum hw_cont_policy)(explore ? explore_policies[p] : p);
					if (!x86) {
						s->p.hafdbs = machines[m].hafdbs;
						s->p.tlb_sticky = machines[m].sticky;
						s->p.bbml2 = machines[m].bbml2;
						s->p.walkers = machines[m].walkers;
					}
					/* explore places its own actions, one per run */
					s->p.interleave = explore ? 0 : machines[m].interleave;
					if (s->p.interleave)
						s->set |= RUN_OPT_INTERLEAVE;
					s->timeout_s = (unsigned int)timeout;
					if (timeout_set)
						s->set |= RUN_SET_TIMEOUT;
					if (run_spec_validate(s, err, sizeof(err))) {
						fprintf(stderr, "ptelab: error: %s\n", err);
						return 2;
					}
					/* one folio size and policy is enough without contiguous blocks */
					if (x86)
						break;
				}
				if (x86)
					break;
			}
			/* x86: the plain machine, and other CPUs acting inside operations */
			if (x86 && m == 1)
				break;
		}
	}

	/* the campaign: units to workers as they come free */
	u64 per_config = (seqs + unit_seqs - 1) / unit_seqs;
	u64 total = per_config > ~0ULL / (u64)nr_specs ? ~0ULL - 1 : per_config * (u64)nr_specs;
	u64 next = 0, done = 0, ops = 0, nseqs = 0, findings = 0;
	double start = now_s(), cpu_s = 0, last_progress = start;
	struct worker *ws = calloc((size_t)jobs, sizeof(*ws));
	struct pollfd *pfd = calloc((size_t)jobs, sizeof(*pfd));
	bool stopping = false, tty = isatty(2);
	int busy = 0;

	if (!ws || !pfd) {
		fprintf(stderr, "ptelab: error: out of host memory\n");
		return 2;
	}
	/* a worker that died must be an error to report, not a signal that kills check */
	signal(SIGPIPE, SIG_IGN);
	for (long j = 0; j < jobs; j++) {
		if (worker_start(&ws[j], specs, nr_specs, seqs)) {
			fprintf(stderr, "ptelab: error: cannot start worker processes: %s\n", strerror(errno));
			return 2;
		}
	}
	for (;;) {
		/* hand out work */
		for (long j = 0; j < jobs; j++) {
			if (ws[j].busy || ws[j].cmd < 0)
				continue;
			u64 u = stopping || (budget_s && now_s() - start >= (double)budget_s) ? ~0ULL :
				next_unit(&next, total, shard_k, shard_n);

			if (!full_io(ws[j].cmd, &u, sizeof(u), true) || u == ~0ULL) {
				close(ws[j].cmd);
				ws[j].cmd = -1;
				continue;
			}
			ws[j].busy = true;
			busy++;
		}
		if (!busy)
			break;
		for (long j = 0; j < jobs; j++) {
			pfd[j].fd = ws[j].busy ? ws[j].res : -1;
			pfd[j].events = POLLIN;
			pfd[j].revents = 0;
		}
		if (poll(pfd, (nfds_t)jobs, -1) < 0 && errno != EINTR)
			break;
		for (long j = 0; j < jobs; j++) {
			struct unit_result ur;

			if (!ws[j].busy || !(pfd[j].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ws[j].busy = false;
			busy--;
			if (!full_io(ws[j].res, &ur, sizeof(ur), false)) {
				fprintf(stderr, "ptelab: internal error, a bug in ptelab: a check worker died\n");
				rc = 3;
				stopping = true;
				continue;
			}
			if (ur.rc) {
				if (!rc)
					fprintf(stderr, "ptelab: %s%s\n", ur.rc == -2 ? "" : "error: ", ur.err);
				rc = rc ? rc : ur.rc == -2 ? 3 : 2;
				stopping = true;
				continue;
			}
			int c = (int)(ur.unit % (u64)nr_specs);

			findings += !ur.ok && !rows[c].failed;
			row_add(&rows[c], &ur);
			/* --first: the verdict is known; what is running finishes, nothing starts */
			if (first && !ur.ok)
				stopping = true;
			for (int op = 0; op < NR_PTE_OPS; op++)
				for (int k = 0; k < 2; k++)
					calls[impl_of(names, nr, specs[c].p.impl)][op][k] += ur.calls[op][k];
			done++;
			ops += ur.ops;
			nseqs += ur.sequences;
			cpu_s += ur.seconds;
		}
		if (now_s() - last_progress > (tty ? 0.2 : 10)) {
			/* this shard's share of the units, and the time they suggest is left */
			u64 mine = budget_s && !seqs_set ? 0 : (total + shard_n - 1 - shard_k) / shard_n;
			double el = now_s() - start;
			char eta[48] = "";

			if (mine && done && done < mine)
				snprintf(eta, sizeof(eta), ", about %.0f s to go",
					 el * (double)(mine - done) / (double)done);
			last_progress = now_s();
			fprintf(stderr, "%scheck: [%llu/%s%llu units] %llu %s, %llu %s, %llu failing "
				"configurations, %.0f s%s%s", tty ? "\r" : "", (unsigned long long)done,
				mine ? "" : "~", (unsigned long long)(mine ? mine : done),
				(unsigned long long)nseqs, explore ? "scenarios" : "sequences",
				(unsigned long long)ops, explore ? "runs" : "operations",
				(unsigned long long)findings, el, eta, tty ? "" : "\n");
		}
	}
	if (tty)
		fprintf(stderr, "\n");
	for (long j = 0; j < jobs; j++) {
		if (ws[j].cmd >= 0)
			close(ws[j].cmd);
		close(ws[j].res);
		waitpid(ws[j].pid, NULL, 0);
	}
	free(ws);
	free(pfd);
	if (rc)
		return rc;
	double wall = now_s() - start;

	/* each failing configuration: its first failing sequence, shrunk (not with --first) */
	for (int i = 0, minimised = 0; !first && i < nr_specs && minimised < MINIMISE_ROWS; i++) {
		struct run_spec s;
		struct run_out *o;

		if (!rows[i].failed || rows[i].finding || rows[i].failing < 0)
			continue;
		o = calloc(1, sizeof(*o));
		row_repro_spec(&specs[i], &rows[i], &s);
		s.p.minimise = true;
		s.set |= RUN_OPT_MINIMISE;
		if (o && !run_spec_execute(&s, o, err, sizeof(err)))
			snprintf(rows[i].trace, sizeof(rows[i].trace), "%s", o->r.text);
		free(o);
		minimised++;
	}

	/* the impl column as wide as the longest name (a tree's path), whole */
	int iw = 4;

	for (int i = 0; i < nr; i++)
		iw = max(iw, (int)strlen(names[i]));
	if (!json)
		printf("%-*s %-12s %-12s %8s %10s %s\n", iw, "impl", "machine", "hw policy", "folio",
		       "violations", "first one");
	for (int i = 0; i < nr_specs; i++) {
		struct run_spec *s = &specs[i], rs;
		struct row *r = &rows[i];
		char repro[REPRODUCER_MAX];

		bad |= r->failed;
		row_repro_spec(s, r, &rs);
		run_spec_reproducer(&rs, repro, sizeof(repro));
		if (json) {
			printf("{\"row\": {\"impl\": ");
			json_string(stdout, s->p.impl);
			printf(", \"machine\": \"%s\", \"policy\": \"%s\", \"folio_size\": %llu, "
			       "\"ran\": %s, \"sequences\": %llu, \"ops\": %llu, \"violations\": %llu, "
			       "\"first\": ",
			       machines[machine_of[i]].name, policies[s->p.policy],
			       (unsigned long long)s->p.folio_size, r->units ? "true" : "false",
			       (unsigned long long)r->sequences,
			       (unsigned long long)r->ops, (unsigned long long)r->viol_total);
			json_string(stdout, r->msg);
			printf(", \"kind\": ");
			json_string(stdout, r->kind);
			printf(", \"counts\": {");
			for (int k = 0, n = 0; k < NR_VIOL_KINDS; k++)
				if (r->counts[k])
					printf("%s\"%s\": %llu", n++ ? ", " : "", hw_violation_names[k],
					       (unsigned long long)r->counts[k]);
			printf("}, \"known\": {");
			for (int k = 0, n = 0; k < NR_KNOWN_FINDINGS; k++)
				if (r->known[k])
					printf("%s\"%s\": %llu", n++ ? ", " : "", hw_known_findings[k].id,
					       (unsigned long long)r->known[k]);
			printf("}, \"finding\": %s, \"reproducer\": ", r->finding ? "true" : "false");
			if (r->failed)
				json_string(stdout, repro);
			else
				printf("null");
			printf(", \"trace\": ");
			if (r->trace[0])
				json_lines(stdout, r->trace);
			else
				printf("null");
			printf("}}\n");
			continue;
		}
		char count[24];

		if (r->finding)
			snprintf(count, sizeof(count), "%s", r->kind);
		else if (!r->units)
			snprintf(count, sizeof(count), "not run");
		else
			snprintf(count, sizeof(count), "%llu", (unsigned long long)r->viol_total);
		printf("%-*s %-12s %-12s %7lluK %10s %s\n", iw, s->p.impl, machines[machine_of[i]].name,
		       policies[s->p.policy], (unsigned long long)(s->p.folio_size >> 10), count, r->msg);
		for (int k = 0; k < NR_KNOWN_FINDINGS; k++)
			if (r->known[k])
				printf("%-*s known kernel finding %s: %llu (%s)\n", iw, "", hw_known_findings[k].id,
				       (unsigned long long)r->known[k],
				       strchr(r->known_msg, ' ') ? strchr(r->known_msg, ' ') + 1 : r->known_msg);
		if (r->failed) {
			printf("%-*s reproduce: %s\n", iw, "", repro);
			if (r->trace[0]) {
				const char *t = r->trace;

				while (*t) {
					size_t n = strcspn(t, "\n");

					printf("%-*s %.*s\n", iw, "", (int)n, t);
					t += n + (t[n] == '\n');
				}
			}
		}
		if (r->finding)
			fprintf(stderr, "ptelab: FINDING: %s\n", r->msg);
	}
	/* coverage: every exported op reached, on contiguous entries too where they exist */
	bool all_called = true;

	for (int i = 0; i < nr; i++) {
		bool missed = false;

		if (!json)
			printf("\n%s: calls per PTE operation (on a contiguous entry)\n", names[i]);
		for (int op = 0; op < NR_PTE_OPS; op++) {
			u64 all = calls[i][op][0], cont = calls[i][op][1];

			if (!json)
				printf("  %-28s %12llu (%llu)\n", pte_op_names[op], (unsigned long long)all,
				       (unsigned long long)cont);
			if (!all) {
				fprintf(stderr, "ptelab: %s: the sequences never called %s: check is blind "
					"to it\n", names[i], pte_op_names[op]);
				missed = true;
			}
		}
		all_called &= !missed;
		if (json) {
			printf("{\"coverage\": {\"impl\": ");
			json_string(stdout, names[i]);
			printf(", \"calls\": {");
			for (int op = 0; op < NR_PTE_OPS; op++)
				printf("%s\"%s\": [%llu, %llu]", op ? ", " : "", pte_op_names[op],
				       (unsigned long long)calls[i][op][0],
				       (unsigned long long)calls[i][op][1]);
			printf("}, \"all_called\": %s}}\n", missed ? "false" : "true");
		}
	}
	/*
	 * A verdict covers only what ran: configurations whose units did not
	 * all run (the --time budget ran out first) and operations never called
	 * make it "incomplete" (exit 4), never "clean"; a violation found is
	 * still one (exit 1).
	 */
	int not_run = 0;

	for (int i = 0; i < nr_specs; i++)
		not_run += rows[i].units < units_owed((u64)i, (u64)nr_specs, per_config,
						      budget_s && !seqs_set, shard_k, shard_n);
	bool incomplete = not_run || !all_called;
	const char *verdict = bad ? "violated" : incomplete ? "incomplete" : "clean";
	double per_core = cpu_s > 0 ? (double)ops / cpu_s : 0;

	/* known kernel findings (hw/invariants.h): reported, not violations */
	u64 known[NR_KNOWN_FINDINGS] = { 0 }, known_rows[NR_KNOWN_FINDINGS] = { 0 };

	for (int i = 0; i < nr_specs; i++)
		for (int k = 0; k < NR_KNOWN_FINDINGS; k++) {
			known[k] += rows[i].known[k];
			known_rows[k] += rows[i].known[k] > 0;
		}
	if (json) {
		printf("{\"summary\": {\"schema\": %d, \"ops\": %llu, \"sequences\": %llu, \"units\": %llu, "
		       "\"seconds\": %.3f, \"cpu_seconds\": %.3f, \"jobs\": %ld, "
		       "\"ops_per_s_per_core\": %.0f, \"shard\": \"%llu/%llu\", \"findings\": [",
		       PTELAB_JSON_SCHEMA, (unsigned long long)ops, (unsigned long long)nseqs,
		       (unsigned long long)done, wall, cpu_s, jobs, per_core, (unsigned long long)shard_k + 1,
		       (unsigned long long)shard_n);
		for (int i = 0, n = 0; i < nr_specs; i++) {
			struct run_spec rs;
			char repro[REPRODUCER_MAX];

			if (!rows[i].failed)
				continue;
			row_repro_spec(&specs[i], &rows[i], &rs);
			run_spec_reproducer(&rs, repro, sizeof(repro));
			printf("%s{\"impl\": ", n++ ? ", " : "");
			json_string(stdout, specs[i].p.impl);
			printf(", \"machine\": \"%s\", \"policy\": \"%s\", \"folio_size\": %llu, \"kind\": ",
			       machines[machine_of[i]].name, policies[specs[i].p.policy],
			       (unsigned long long)specs[i].p.folio_size);
			json_string(stdout, rows[i].kind);
			printf(", \"message\": ");
			json_string(stdout, rows[i].msg);
			printf(", \"reproducer\": ");
			json_string(stdout, repro);
			printf(", \"trace\": ");
			if (rows[i].trace[0])
				json_lines(stdout, rows[i].trace);
			else
				printf("null");
			printf("}");
		}
		printf("], \"known_findings\": {");
		for (int k = 0, n = 0; k < NR_KNOWN_FINDINGS; k++) {
			if (!known[k])
				continue;
			printf("%s\"%s\": {\"occurrences\": %llu, \"configurations\": %llu, \"what\": ",
			       n++ ? ", " : "", hw_known_findings[k].id, (unsigned long long)known[k],
			       (unsigned long long)known_rows[k]);
			json_string(stdout, hw_known_findings[k].what);
			printf("}");
		}
		printf("}, \"all_called\": %s, \"configurations_not_run\": %d, \"verdict\": \"%s\", "
		       "\"ok\": %s}}\n", all_called ? "true" : "false", not_run, verdict,
		       bad || incomplete ? "false" : "true");
	} else {
		printf("\n%llu %s, %llu %s in %.1f s on %ld jobs: %.0f %s/s per core\n",
		       (unsigned long long)nseqs, explore ? "scenarios" : "sequences",
		       (unsigned long long)ops, explore ? "runs" : "operations", wall, jobs, per_core,
		       explore ? "runs" : "operations");
		for (int k = 0; k < NR_KNOWN_FINDINGS; k++)
			if (known[k])
				printf("known kernel finding %s, %llu times in %llu configurations (not a "
				       "violation of the code under test): %s\n", hw_known_findings[k].id,
				       (unsigned long long)known[k], (unsigned long long)known_rows[k],
				       hw_known_findings[k].what);
		if (bad)
			printf("invariants VIOLATED\n");
		if (not_run)
			printf("%s%d of %d configurations did not run all their work (%s): their "
			       "rows say \"not run\" or cover less\n", bad ? "" : "INCOMPLETE: ",
			       not_run, nr_specs, first && bad ? "--first stopped at the first failing "
			       "one" : "the --time budget ran out");
		if (!all_called)
			printf("%ssome operations were never called: check is blind to them\n",
			       bad || not_run ? "" : "INCOMPLETE: ");
		if (!bad && !incomplete)
			printf("all invariants held\n");
	}
	return bad ? 1 : incomplete ? 4 : 0;
}

/*
 * git bisect run's exit codes (--bisect): 0 good, 1 bad, 125 skip (a
 * revision whose code cannot be built or extracted, or a verdict that
 * did not cover everything), above 127 stop (bad input: the bisection
 * itself is wrong).
 */
int cmd_check(int argc, char **argv)
{
	bool bisect = false;
	int n = 0, rc;

	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--bisect"))
			bisect = true;
		else
			argv[n++] = argv[i];
	}
	rc = check_main(n, argv);
	if (!bisect || rc == 0 || rc == 1)
		return rc;
	if (rc == 4 || (rc == 2 && kernel_tree_untestable)) {
		fprintf(stderr, "ptelab: check --bisect: this revision cannot be tested: skip (125)\n");
		return 125;
	}
	return 255;
}
