// SPDX-License-Identifier: GPL-2.0-only
/*
 * The yardstick of tools/bench.py: the least work S1's reclaim could do
 * on its PTEs, as a plain C loop over an array the size of S1's page
 * tables. Every PTE is set (a store, as the fault's set_ptes), then
 * young-tested and cleared (an atomic AND, as ptep_test_and_clear_young)
 * and finally cleared (an atomic exchange, as the unmap's
 * ptep_get_and_clear). No TLB, no folios, no LRU, no checks: ptelab's
 * time for the same PTEs divided by this loop's is the simulator's
 * overhead over bare memory traffic.
 *
 *     bench_loop NR_PTES    prints the best of 5 runs, in seconds
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PTE_AF (1ULL << 10)
#define PTE_VALID 1ULL

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0;
	double best = 1e30;
	uint64_t young = 0;
	uint64_t *pte;

	if (n <= 0) {
		fprintf(stderr, "usage: bench_loop NR_PTES\n");
		return 2;
	}
	pte = calloc((size_t)n, sizeof(*pte));
	if (!pte) {
		fprintf(stderr, "bench_loop: cannot allocate %ld PTEs\n", n);
		return 1;
	}
	for (int run = 0; run < 5; run++) {
		double t = now();

		for (long i = 0; i < n; i++)
			pte[i] = ((uint64_t)i << 12) | PTE_AF | PTE_VALID;
		for (long i = 0; i < n; i++)
			young += (__atomic_fetch_and(&pte[i], ~PTE_AF, __ATOMIC_RELAXED) & PTE_AF) != 0;
		for (long i = 0; i < n; i++)
			young += __atomic_exchange_n(&pte[i], 0, __ATOMIC_RELAXED) & 1;
		t = now() - t;
		if (t < best)
			best = t;
	}
	/* young keeps the loops from being optimised away */
	printf("%.6f %llu\n", best, (unsigned long long)young);
	free(pte);
	return 0;
}
