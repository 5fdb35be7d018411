// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building backends from trees: the dispatcher block is cut at its own
 * markers (nested conditionals kept), and version quirks are detected
 * from code, never from a comment or a string that mentions a name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hw/types.h"
#include "kernel/dispatch.h"
#include "kernel/quirks.h"
#include "tests/ktap.h"

static const struct kernel_quirk *quirk(const char *define)
{
	for (unsigned int i = 0; i < nr_kernel_quirks; i++)
		if (!strcmp(kernel_quirks[i].define, define))
			return &kernel_quirks[i];
	return NULL;
}

static bool detects(const char *define, const char *text)
{
	char *code = code_only(text);
	bool r = quirk(define)->present(code);

	free(code);
	return r;
}

static void test_comments_and_strings_do_not_count(void)
{
	char *code = code_only("/* tlbf_t */ int a; // tlbf_t\nconst char *s = \"tlbf_t\"; char c = 't';\n");

	EXPECT(!code_has_token(code, "tlbf_t"));
	EXPECT(code_has_token(code, "int"));
	EXPECT(strchr(code, '\n') != NULL); /* lines kept */
	free(code);
	EXPECT(!detects("-DPTELAB_TLBF", "/* one day: typedef int tlbf_t; */\n"));
	EXPECT(detects("-DPTELAB_TLBF", "typedef int tlbf_t;\n"));
	EXPECT(!detects("-DPTELAB_TLBF", "typedef int tlbf_t_old;\n")); /* whole tokens only */
}

static void test_mkcont_quirk_reads_the_body(void)
{
	EXPECT(detects("-DPTELAB_MKCONT_TYPE_PAGE",
		       "static inline pte_t pte_mkcont(pte_t pte)\n{\n\tpte = set(pte, PTE_CONT);\n"
		       "\treturn set(pte, PTE_TYPE_PAGE);\n}\n"));
	/* 7.x: the body does not; a neighbour does */
	EXPECT(!detects("-DPTELAB_MKCONT_TYPE_PAGE",
			"static inline pte_t pte_mkcont(pte_t pte)\n{\n\treturn set(pte, PTE_CONT);\n}\n"
			"static inline pte_t pte_mkpage(pte_t pte)\n{\n\treturn set(pte, PTE_TYPE_PAGE);\n}\n"));
	/* a call or a prototype first, the definition later */
	EXPECT(detects("-DPTELAB_MKCONT_TYPE_PAGE",
		       "pte_t pte_mkcont(pte_t pte);\nx = pte_mkcont(y);\n"
		       "pte_t pte_mkcont(pte_t pte)\n{ /* PTE_CONT */ return f(PTE_TYPE_PAGE); }\n"));
	EXPECT(!detects("-DPTELAB_MKCONT_TYPE_PAGE",
			"pte_t pte_mkcont(pte_t pte)\n{ /* not PTE_TYPE_PAGE */ return pte; }\n"));
}

static void test_block_split(void)
{
	const char *text =
		"int before;\n"
		"#ifdef CONFIG_ARM64_CONTPTE\n"
		"#if FOO\nint a;\n#else\nint b;\n#endif\n"
		"static inline int on(void) { return 1; }\n"
		"# else /* CONFIG_ARM64_CONTPTE */\n"
		"#define on() 0\n"
		"#endif /* CONFIG_ARM64_CONTPTE */\n"
		"int after;\n";
	char *cont, *nocont, missing[64];

	EXPECT_EQ(dispatch_block_split(text, "pgtable.h", &cont, &nocont, missing, sizeof(missing)), 0);
	EXPECT(strstr(cont, "#line 3 \"pgtable.h\"") == cont);
	EXPECT(strstr(cont, "#if FOO") && strstr(cont, "int b;") && strstr(cont, "on(void)"));
	EXPECT(!strstr(cont, "#define on()") && !strstr(cont, "before") && !strstr(cont, "after"));
	EXPECT(strstr(nocont, "#line 10 \"pgtable.h\"") == nocont);
	EXPECT(strstr(nocont, "#define on() 0") && !strstr(nocont, "on(void)"));
	free(cont);
	free(nocont);
}

static void test_block_markers_missing(void)
{
	char *cont, *nocont, missing[64];

	EXPECT_EQ(dispatch_block_split("int x;\n", "p", &cont, &nocont, missing, sizeof(missing)), -1);
	EXPECT(!strcmp(missing, "#ifdef CONFIG_ARM64_CONTPTE"));
	/* a nested #else is not the block's */
	EXPECT_EQ(dispatch_block_split("#ifdef CONFIG_ARM64_CONTPTE\n#if A\n#else\n#endif\n#endif\n", "p",
				       &cont, &nocont, missing, sizeof(missing)), -1);
	EXPECT(!strcmp(missing, "#else /* CONFIG_ARM64_CONTPTE */"));
	EXPECT_EQ(dispatch_block_split("#ifdef CONFIG_ARM64_CONTPTE\n#else\n", "p", &cont, &nocont,
				       missing, sizeof(missing)), -1);
	EXPECT(!strcmp(missing, "#endif /* CONFIG_ARM64_CONTPTE */"));
	/* CONFIG_ARM64_CONTPTE_FOO is another symbol */
	EXPECT_EQ(dispatch_block_split("#ifdef CONFIG_ARM64_CONTPTE_FOO\n#else\n#endif\n", "p", &cont,
				       &nocont, missing, sizeof(missing)), -1);
}

static void test_block_split_reads_code_not_comments(void)
{
	const char *text =
		"#ifdef CONFIG_ARM64_CONTPTE /* first: no #else, not the block */\n"
		"int x;\n"
		"#endif\n"
		"#ifdef CONFIG_ARM64_CONTPTE\n"
		"/*\n#endif\n#else\n*/\n"
		"static const char *s = \"#else\";\n"
		"int on;\n"
		"#else /* CONFIG_ARM64_CONTPTE */\n"
		"int off;\n"
		"#endif /* CONFIG_ARM64_CONTPTE */\n";
	char *cont, *nocont, missing[80];

	EXPECT_EQ(dispatch_block_split(text, "p", &cont, &nocont, missing, sizeof(missing)), 0);
	if (!ktap_failed_now) {
		EXPECT(strstr(cont, "int on;") && !strstr(cont, "int off;") && !strstr(cont, "int x;"));
		EXPECT(strstr(cont, "/*\n#endif\n#else\n*/")); /* the comment is kept as it was */
		EXPECT(strstr(nocont, "int off;") && !strstr(nocont, "int on;"));
		free(cont);
		free(nocont);
	}
	/* an #elif at the block's level cannot be cut into on/off */
	EXPECT_EQ(dispatch_block_split("#ifdef CONFIG_ARM64_CONTPTE\nint a;\n#elif X\nint b;\n#else\n"
				       "int c;\n#endif\n", "p", &cont, &nocont, missing, sizeof(missing)), -1);
	EXPECT(strstr(missing, "#elif") != NULL);
}

static bool def_is(const char *text, const char *name, int nth, const char *want)
{
	char *code = code_only(text), out[512];
	bool ok = kernel_definition(code, name, nth, out, sizeof(out)) && !strcmp(out, want);

	if (!ok)
		printf("    # %s: got \"%s\"\n", name, kernel_definition(code, name, nth, out, sizeof(out)) ? out : "(none)");
	free(code);
	return ok;
}

/* Definitions are read as tokens: spacing, comments and parameter names do not matter. */
static void test_dup_definitions_are_tokens(void)
{
	EXPECT(def_is("#define pte_valid(pte)\t\t(!!(pte_val(pte) & PTE_VALID)) /* v */\n",
		      "pte_valid", 0, "( ! ! ( pte_val ( $1 ) & PTE_VALID ) )"));
	EXPECT(def_is("#  define  pte_valid( p ) \\\n  ( !!(pte_val(p)&PTE_VALID) )\n",
		      "pte_valid", 0, "( ! ! ( pte_val ( $1 ) & PTE_VALID ) )"));
	/* a function that returns E reads as the macro ( E ) */
	EXPECT(def_is("static __always_inline bool pte_present(pte_t pte)\n{\n"
		      "\treturn pte_valid(pte) || pte_present_invalid(pte);\n}\n", "pte_present", 0,
		      "( pte_valid ( $1 ) || pte_present_invalid ( $1 ) )"));
	EXPECT(def_is("#define pte_present(pte) (pte_valid(pte) || pte_present_invalid(pte))\n",
		      "pte_present", 0, "( pte_valid ( $1 ) || pte_present_invalid ( $1 ) )"));
	/* uses, prototypes and comments are no definitions; the second #if branch is nth 1 */
	EXPECT(def_is("x = pte_same(a, b);\nint pte_same(pte_t a, pte_t b);\n"
		      "/* #define pte_same(a, b) 0 */\n"
		      "#ifdef X\n#define pte_same(a, b) 1\n#else\n"
		      "static inline int pte_same(pte_t pte_a, pte_t pte_b)\n"
		      "{\n\treturn pte_val(pte_a) == pte_val(pte_b);\n}\n#endif\n", "pte_same", 1,
		      "( pte_val ( $1 ) == pte_val ( $2 ) )"));
	EXPECT(def_is("#define PTE_CONT_X 1\n#define PTE_CONT\t(_AT(pteval_t, 1) << 52)\n", "PTE_CONT",
		      0, "( _AT ( pteval_t , 1 ) << 52 )"));
}

/* 1: read as want; 0: read as another value; -1: not read (why says so) */
static int value_is(const char *a, const char *b, const char *name, unsigned long long want)
{
	char *codes[2] = { code_only(a), code_only(b) }, why[200] = "";
	unsigned long long v = 0;
	int r = kernel_macro_value((const char *const *)codes, 2, name, &v, why, sizeof(why)) ?
		v == want : -1;

	if (r == 0)
		printf("    # %s: %llu\n", name, v);
	free(codes[0]);
	free(codes[1]);
	return r;
}

/* Constants are evaluated for 4K pages, across the files read. */
static void test_dup_values(void)
{
	const char *hwdef = "#define PTE_DBM\t\t(_AT(pteval_t, 1) << 51)\t/* DBM */\n"
			    "#define CONT_PTE_SHIFT\t(CONFIG_ARM64_CONT_PTE_SHIFT + PAGE_SHIFT)\n"
			    "#define CONT_PTES\t(1 << (CONT_PTE_SHIFT - PAGE_SHIFT))\n"
			    "#define CONT_PTE_MASK\t(~((CONT_PTES * PAGE_SIZE) - 1))\n"
			    "#define ODD\t(PTE_DBM | UL(3) | BIT(2) | sizeof(int))\n";
	const char *prot = "#define PTE_WRITE\t(PTE_DBM)\t /* same as DBM (51) */\n";

	EXPECT_EQ(value_is(hwdef, prot, "PTE_WRITE", 1ULL << 51), 1);
	EXPECT_EQ(value_is(hwdef, prot, "CONT_PTE_SHIFT", 16), 1);
	EXPECT_EQ(value_is(hwdef, prot, "CONT_PTES", 16), 1);
	EXPECT_EQ(value_is(hwdef, prot, "CONT_PTE_MASK", ~0xffffULL), 1);
	EXPECT_EQ(value_is(hwdef, prot, "ODD", 0), -1); /* sizeof: not read, said so */
	EXPECT_EQ(value_is(hwdef, prot, "MISSING", 0), -1);
}

/* The fetched trees agree with every copy; a changed one is named. */
static void test_dup_check_on_fetched_trees(void)
{
	static const char *const versions[] = { "6.12", "7.2", "7.3" };
	char tree[256], err[512];
	int checked = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(versions); i++) {
		snprintf(tree, sizeof(tree), "build/kernels/linux-%s/arch/arm64/include/asm/pgtable.h",
			 versions[i]);
		FILE *f = fopen(tree, "r");
		if (!f)
			continue;
		fclose(f);
		snprintf(tree, sizeof(tree), "build/kernels/linux-%s", versions[i]);
		err[0] = 0;
		EXPECT_EQ(kernel_dups_check(tree, err, sizeof(err)), 0);
		if (err[0])
			printf("    # %s: %s\n", versions[i], err);
		checked++;
	}
	if (!checked)
		ktap_skip_now = "no fetched kernel tree (run from the top of the tree)";
}

static const struct ktap_case cases[] = {
	{ "dispatch_block_split_reads_code_not_comments", test_block_split_reads_code_not_comments },
	{ "quirks_ignore_comments_and_strings", test_comments_and_strings_do_not_count },
	{ "mkcont_quirk_reads_the_body", test_mkcont_quirk_reads_the_body },
	{ "dispatch_block_split", test_block_split },
	{ "dispatch_block_markers_missing", test_block_markers_missing },
	{ "dup_definitions_are_tokens", test_dup_definitions_are_tokens },
	{ "dup_values", test_dup_values },
	{ "dup_check_on_fetched_trees", test_dup_check_on_fetched_trees },
};

int main(int argc, char **argv)
{
	return ktap_main(argc, argv, "kernel_build", cases, (int)ARRAY_SIZE(cases));
}
