// SPDX-License-Identifier: GPL-2.0-only
/*
 * Building backends from trees: the dispatcher block is cut at its own
 * markers (nested conditionals kept), and version quirks are detected
 * from code, never from a comment or a string that mentions a name.
 */
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

static const struct ktap_case cases[] = {
	{ "dispatch_block_split_reads_code_not_comments", test_block_split_reads_code_not_comments },
	{ "quirks_ignore_comments_and_strings", test_comments_and_strings_do_not_count },
	{ "mkcont_quirk_reads_the_body", test_mkcont_quirk_reads_the_body },
	{ "dispatch_block_split", test_block_split },
	{ "dispatch_block_markers_missing", test_block_markers_missing },
};

int main(void)
{
	return ktap_run("kernel_build", cases, ARRAY_SIZE(cases));
}
