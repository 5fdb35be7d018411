// SPDX-License-Identifier: GPL-2.0-only
/*
 * Fast-forward of a loop whose state repeats (lab/fast_forward.h): the
 * digest of ptelab's memory, less what hw/state.h registers, and the
 * skip of whole periods.
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hw/events.h"
#include "hw/perf.h"
#include "hw/state.h"
#include "hw/tlb.h"
#include "lab/fast_forward.h"
#include "lab/paths.h"

#if defined(__SANITIZE_ADDRESS__)
#define FF_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FF_SANITIZER 1
#endif
#endif

/* an anonymous mapping bigger than this is none of ptelab's: no digest, no skip */
#define FF_MAX_MAPPING (64ULL << 30)
#define FF_MAPS_MAX (1 << 18)

struct ff_digest {
	u64 a, b;
};

struct lab_ff_point {
	u64 done;
	struct ff_digest d;
	u64 acc[]; /* every accumulator word, in the registry's order */
};

static char ff_maps[FF_MAPS_MAX]; /* /proc/self/maps, read without the C library's heap */
static char ff_exe[PATH_MAX];
static char ff_state_dir[PATH_MAX]; /* lab_state_dir(), where kernel objects are built, with a '/' */

static void ff_mix(struct ff_digest *d, u64 v, uintptr_t where)
{
	u64 x = v ^ ((u64)where * 0x9E3779B97F4A7C15ULL);

	d->a = (d->a ^ x) * 0xff51afd7ed558ccdULL;
	d->a ^= d->a >> 32;
	d->b = (d->b + x) * 0xc4ceb9fe1a85ec53ULL;
	d->b ^= d->b >> 29;
}

/* The nonzero words of [lo, hi) (8-byte aligned), with their addresses. */
static void ff_hash(struct ff_digest *d, uintptr_t lo, uintptr_t hi)
{
	for (const u64 *w = (const u64 *)lo; w < (const u64 *)hi; w++)
		if (*w)
			ff_mix(d, *w, (uintptr_t)w);
}

/*
 * A mapping's words, less the registered ranges: each range shrunk to the
 * whole words inside it (its stray bytes are digested: a range can only
 * leave out too little, never state beside it).
 */
static void ff_hash_mapping(struct ff_digest *d, uintptr_t lo, uintptr_t hi)
{
	uintptr_t p = lo;

	for (int i = 0; i < hw_state_nr_ranges && p < hi; i++) {
		uintptr_t rlo = (hw_state_ranges[i].lo + 7) & ~(uintptr_t)7;
		uintptr_t rhi = hw_state_ranges[i].hi & ~(uintptr_t)7;

		if (rhi <= p || rlo >= rhi)
			continue;
		if (rlo >= hi)
			break;
		if (rlo > p)
			ff_hash(d, p, rlo);
		p = rhi;
	}
	if (p < hi)
		ff_hash(d, p, hi);
}

static bool ff_state_mapping(const char *perm, const char *path, uintptr_t lo, uintptr_t hi,
			     bool *refuse)
{
	if (strcmp(perm, "rw-p"))
		return false;
	if (!path[0]) {
		if (hi - lo > FF_MAX_MAPPING)
			*refuse = true;
		return true;
	}
	if (!strcmp(path, "[heap]") || !strcmp(path, ff_exe))
		return true;
	/*
	 * The kernel objects ptelab built (their data: the tree's statics)
	 * are state. [stack], [vvar] and the system's libraries are the
	 * host's: the C library's heap bookkeeping decides only where things
	 * are, and no result depends on an address (runs agree across ASLR).
	 */
	return !strncmp(path, ff_state_dir, strlen(ff_state_dir));
}

/* The state's digest; false if some of it cannot be read. */
static bool ff_digest(struct ff_digest *d)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t got;
	bool refuse = false;

	*d = (struct ff_digest){ 0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL };
	if (fd < 0)
		return false;
	while (len < sizeof(ff_maps) - 1 &&
	       (got = read(fd, ff_maps + len, sizeof(ff_maps) - 1 - len)) > 0)
		len += (size_t)got;
	close(fd);
	if (len == sizeof(ff_maps) - 1)
		return false;
	ff_maps[len] = 0;
	for (char *line = ff_maps, *next; *line; line = next) {
		unsigned long lo, hi;
		char perm[8] = "", path[PATH_MAX] = "";
		int n;

		/* one line at a time: a scanf space would skip a newline and read the next */
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else
			next = line + strlen(line);
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s%n", &lo, &hi, perm, &n) < 3)
			return false;
		sscanf(line + n, " %4095[^\n]", path);
		if (ff_state_mapping(perm, path, lo, hi, &refuse))
			ff_hash_mapping(d, lo, hi);
	}
	/* what is left out is part of what is compared */
	for (int i = 0; i < hw_state_nr_ranges; i++)
		ff_mix(d, hw_state_ranges[i].lo ^ (u64)hw_state_ranges[i].kind << 63,
		       hw_state_ranges[i].hi);
	/* the time the perf tree has yet to charge is the difference of two accumulators */
	if (perf_on)
		ff_mix(d, hw_cost_acc - perf_last_acc, 0);
	return !refuse;
}

/* Every accumulator word, in the registry's order, into p (a u64 *); i: the range. */
#define for_each_acc_word(p, i)                                                    \
	for (int i = 0; i < hw_state_nr_ranges; i++)                                \
		if (hw_state_ranges[i].kind == HW_STATE_ACCUMULATES)                \
			for (p = (u64 *)hw_state_ranges[i].lo; p < (u64 *)hw_state_ranges[i].hi; p++)

static size_t ff_acc_words(void)
{
	size_t n = 0;
	u64 *p;

	for_each_acc_word(p, i)
		n++;
	return n;
}

static size_t ff_point_size(const struct lab_ff *ff)
{
	return sizeof(struct lab_ff_point) + ff->acc_words * sizeof(u64);
}

static struct lab_ff_point *ff_point(struct lab_ff *ff, u64 done)
{
	return (struct lab_ff_point *)((char *)ff->ring + (done % FF_TRIES) * ff_point_size(ff));
}

void lab_ff_begin(struct lab_ff *ff, u64 total)
{
	const char *e = getenv("PTELAB_NO_FAST_FORWARD");
	ssize_t n;

	*ff = (struct lab_ff){ .total = total, .off = true };
#ifndef FF_SANITIZER
	if (e && *e && strcmp(e, "0"))
		return;
	n = readlink("/proc/self/exe", ff_exe, sizeof(ff_exe) - 1);
	if (n <= 0)
		return;
	ff_exe[n] = 0;
	if (!realpath(lab_state_dir(), ff_state_dir))
		return;
	strncat(ff_state_dir, "/", sizeof(ff_state_dir) - strlen(ff_state_dir) - 1);
	/* the history is the host's: mapped apart, left out of the digest */
	ff->acc_words = ff_acc_words();
	size_t bytes = FF_TRIES * ff_point_size(ff);
	void *ring = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (ring == MAP_FAILED)
		return;
	if (hw_state_register(ring, bytes, HW_STATE_HOST) ||
	    hw_state_register(ff_maps, sizeof(ff_maps), HW_STATE_HOST)) {
		hw_state_unregister(ring);
		munmap(ring, bytes);
		return;
	}
	ff->ring = ring;
	ff->off = false;
#else
	(void)e;
	(void)n;
#endif
}

u64 lab_ff_step(struct lab_ff *ff, u64 done)
{
	struct lab_ff_point *pt;
	u64 *w, *p;

	if (ff->off || done > FF_TRIES || done >= ff->total)
		return 0;
	if (ff_acc_words() != ff->acc_words) { /* a new accumulator: the history is not comparable */
		ff->off = true;
		return 0;
	}
	/* state written one way only: TLB stamps that differ where their order does not */
	hw_tlbs_canon();
	pt = ff_point(ff, done);
	if (!ff_digest(&pt->d)) {
		ff->off = true;
		return 0;
	}
	pt->done = done;
	w = pt->acc;
	for_each_acc_word(p, i)
		*w++ = *p;
	/* the nearest earlier iteration with the same state: the shortest period */
	for (u64 period = 1; period < FF_TRIES && period < done; period++) {
		const struct lab_ff_point *q = ff_point(ff, done - period);
		u64 k;

		if (q->done != done - period || q->d.a != pt->d.a || q->d.b != pt->d.b)
			continue;
		k = (ff->total - done) / period;
		ff->off = true;
		if (!k)
			return 0;
		/* k periods more: each adds to every accumulator what this one did */
		size_t j = 0;

		for_each_acc_word(p, i) {
			*p += k * (pt->acc[j] - q->acc[j]);
			j++;
		}
		ff->period = period;
		ff->skipped = k * period;
		return ff->skipped;
	}
	return 0;
}

void lab_ff_end(struct lab_ff *ff)
{
	if (!ff->ring)
		return;
	hw_state_unregister(ff->ring);
	munmap(ff->ring, FF_TRIES * ff_point_size(ff));
	ff->ring = NULL;
	ff->off = true;
}
