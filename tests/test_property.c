// SPDX-License-Identifier: GPL-2.0-only
/*
 * Property tests: random sequences (workloads/fuzz.c) with the hardware
 * updating the accessed, a random or an adversarial entry of contiguous
 * blocks. Afterwards nothing is lost: every page stored to since it was
 * last cleaned reads dirty, no dirty state appears in a block nobody
 * stored to, and the oracle and TLB sweeps find no violation.
 */
#include "tests/ktap.h"
#include "tests/lab_test.h"
#include "workloads/fuzz.h"

static void run_many(const char *arch_name, enum hw_cont_policy pol, bool lifecycle)
{
	static const int orders[] = { 0, 2, 4, 6, 9 };

	for (unsigned int o = 0; o < ARRAY_SIZE(orders); o++) {
		for (int seq = 0; seq < 8; seq++) {
			struct run_params p = {
				.arch = arch_name, .impl = "ref", .nr_cpus = 2, .seed = 42,
				.policy = pol, .tlb_entries = 256, .tlb_ways = 4, .hafdbs = true,
			};
			char err[200];

			lab_switches_reset();
			if (lab_machine_setup(&p, FUZZ_PAGES * 2 + 8192, err, sizeof(err))) {
				printf("    # %s\n", err);
				ktap_failed_now = 1;
				return;
			}
			fuzz_sequence(0x9E3779B97F4A7C15ULL * (u64)(seq + 1) + (u64)o, orders[o], 3000,
				      lifecycle);
			mm_check_all_freed();
			EXPECT_EQ(hw_violations.total, 0);
			for (int i = 0; i < hw_violations.kept; i++)
				printf("    # order %d seq %d: %s\n", orders[o], seq, hw_violations.msg[i]);
			lab_machine_teardown();
		}
	}
}

static void test_arm64_accessed(void) { run_many("arm64", HW_POLICY_ACCESSED, false); }
static void test_arm64_random(void) { run_many("arm64", HW_POLICY_RANDOM, false); }
static void test_arm64_adversarial(void) { run_many("arm64", HW_POLICY_ADVERSARIAL, false); }
static void test_x86(void) { run_many("x86", HW_POLICY_ACCESSED, false); }
static void test_arm64_lifecycle(void) { run_many("arm64", HW_POLICY_RANDOM, true); }
static void test_x86_lifecycle(void) { run_many("x86", HW_POLICY_ACCESSED, true); }

static const struct ktap_case cases[] = {
	{ "arm64_policy_accessed", test_arm64_accessed },
	{ "arm64_policy_random", test_arm64_random },
	{ "arm64_policy_adversarial", test_arm64_adversarial },
	{ "x86", test_x86 },
	{ "arm64_lifecycle_ops", test_arm64_lifecycle },
	{ "x86_lifecycle_ops", test_x86_lifecycle },
};

int main(void)
{
	return ktap_run("property", cases, ARRAY_SIZE(cases));
}
