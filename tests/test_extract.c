// SPDX-License-Identifier: GPL-2.0-only
/*
 * Extracting core-mm functions by name (kernel/extract.c): the closure of
 * a root over same-file definitions, the boundary left to the lab, #if
 * contexts kept around what is taken, names renamed so the tree's win,
 * and what is not a use (comments, strings, members) taking nothing.
 */
#include <stdlib.h>
#include <string.h>

#include "hw/types.h"
#include "kernel/extract.h"
#include "tests/ktap.h"

static const char helper_c[] =
	"/* zap_helper: a comment that names unused_fn */\n"
	"#include <linux/mm.h>\n"
	"#define NR_BATCH 16\n"
	"typedef int __bitwise fpb_t;\n"
	"typedef int filter_fn_t(struct page *p);\n"
	"struct zap_details {\n\tint flags;\n};\n"
	"enum zap_kind { ZAP_ANON, ZAP_FILE = (1 << 2), ZAP_NR };\n"
	"static int unused_fn(void)\n{\n\treturn 1;\n}\n"
	"static int not_taken(void) { return 0; }\n"
	"#ifdef CONFIG_A\n"
	"static inline int leaf(int x) { return x + 1; }\n"
	"#else\n"
	"static inline int leaf(int x) { return x; }\n"
	"#endif\n"
	"static int boundary_fn(int x) { return unused_fn() + x; }\n"
	"static __always_inline int middle(struct zap_details *d, fpb_t f)\n"
	"{\n\tconst char *s = \"not_taken()\";\n\treturn leaf(d->flags) + NR_BATCH + ZAP_FILE + f;\n}\n"
	"int root_fn(struct zap_details *d)\n"
	"{\n\t/* not_taken() */\n\tint not_taken_either = d->flags;\n"
	"\treturn middle(d, 0) + boundary_fn(1) + not_taken_either;\n}\n"
	"EXPORT_SYMBOL(root_fn);\n";

static char *extract(const char *text, const char *root, const char *const *boundary,
		     int nr_boundary, int *nr, char *err, size_t errlen)
{
	struct extract_file f = { "mm/helper.c", "/tree/mm/helper.c", text, NULL };
	const char *roots[] = { root };
	struct extract_req r = { &f, 1, roots, 1, boundary, nr_boundary };

	return kernel_extract(&r, nr, err, errlen);
}

static void test_closure_over_same_file_helpers(void)
{
	const char *boundary[] = { "boundary_fn" };
	char err[256];
	int nr = 0;
	char *u = extract(helper_c, "root_fn", boundary, 1, &nr, err, sizeof(err));

	EXPECT(u != NULL);
	if (!u)
		return;
	EXPECT(kernel_extract_has(u, "root_fn"));
	EXPECT(kernel_extract_has(u, "middle"));
	EXPECT(kernel_extract_has(u, "leaf"));
	EXPECT(kernel_extract_has(u, "NR_BATCH"));
	EXPECT(kernel_extract_has(u, "fpb_t"));
	EXPECT(kernel_extract_has(u, "zap_details"));   /* the struct's tag */
	EXPECT(kernel_extract_has(u, "ZAP_FILE"));      /* an enum constant */
	/* the boundary, and what only the boundary uses, stay out */
	EXPECT(!kernel_extract_has(u, "boundary_fn"));
	EXPECT(!kernel_extract_has(u, "unused_fn"));
	/* comments, strings, locals and members are not uses */
	EXPECT(!kernel_extract_has(u, "not_taken"));
	EXPECT(!kernel_extract_has(u, "flags"));
	/* root, middle, both leafs, the macro, typedef, struct, enum */
	EXPECT_EQ(nr, 8);
	free(u);
}

static void test_if_context_and_line_kept(void)
{
	char err[256];
	char *u = extract(helper_c, "root_fn", NULL, 0, NULL, err, sizeof(err));

	EXPECT(u != NULL);
	if (!u)
		return;
	/* each branch of leaf() inside its conditional, the #else one as such */
	EXPECT(strstr(u, "#ifdef CONFIG_A\n#line 16 \"/tree/mm/helper.c\"\n"
			 "static inline int leaf(int x) { return x + 1; }\n#endif\n") != NULL);
	EXPECT(strstr(u, "#ifdef CONFIG_A\n#else\n#line 18 \"/tree/mm/helper.c\"\n"
			 "static inline int leaf(int x) { return x; }\n#endif\n") != NULL);
	/* a prototype of every function ahead of the bodies */
	char *proto = strstr(u, "int root_fn(struct zap_details *d)\n;");
	char *body = strstr(u, "int root_fn(struct zap_details *d)\n{");
	EXPECT(proto && body && proto < body);
	/* the tree's names win: renamed, or (macros) undefined first */
	EXPECT(strstr(u, "#define root_fn __ptelab_tree_root_fn\n") != NULL);
	EXPECT(strstr(u, "#undef NR_BATCH\n") != NULL);
	/* the EXPORT_SYMBOL line is not a definition */
	EXPECT(!strstr(u, "EXPORT_SYMBOL"));
	free(u);
}

static void test_typedef_names(void)
{
	char err[256];
	const char text[] = "typedef int filter_fn_t(struct page *p);\n"
			    "typedef void (*cb_t)(int a);\n"
			    "typedef struct { int a; } anon_t;\n"
			    "int root(filter_fn_t *f, cb_t c, anon_t a) { return 0; }\n";
	char *u = extract(text, "root", NULL, 0, NULL, err, sizeof(err));

	EXPECT(u != NULL);
	if (!u)
		return;
	EXPECT(kernel_extract_has(u, "filter_fn_t"));
	EXPECT(kernel_extract_has(u, "cb_t"));
	EXPECT(kernel_extract_has(u, "anon_t"));
	/* a parameter name or a tag merely mentioned defines nothing */
	EXPECT(!kernel_extract_has(u, "p"));
	EXPECT(!kernel_extract_has(u, "page"));
	free(u);
}

static void test_only_named_definitions(void)
{
	const char hdr[] = "struct zap_details { int a; };\nstruct other { int b; };\n"
			   "static inline int helper(void) { return 1; }\n";
	const char src[] = "int root(struct zap_details *d, struct other *o) { return helper(); }\n";
	const char *only[] = { "struct zap_details", NULL };
	struct extract_file f[2] = { { "include/linux/mm.h", "/t/mm.h", hdr, only },
				     { "mm/memory.c", "/t/memory.c", src, NULL } };
	const char *roots[] = { "root" };
	struct extract_req r = { f, 2, roots, 1, NULL, 0 };
	char err[256];
	char *u = kernel_extract(&r, NULL, err, sizeof(err));

	EXPECT(u != NULL);
	if (!u)
		return;
	EXPECT(kernel_extract_has(u, "zap_details"));
	EXPECT(!kernel_extract_has(u, "other"));
	EXPECT(!kernel_extract_has(u, "helper"));
	/* headers first: the struct comes before the function using it */
	EXPECT(strstr(u, "struct zap_details { int a; };") < strstr(u, "int root("));
	free(u);
}

static void test_missing_root_is_one_line(void)
{
	char err[256] = "";
	char *u = extract(helper_c, "zap_pte_range", NULL, 0, NULL, err, sizeof(err));

	EXPECT(u == NULL);
	EXPECT(strstr(err, "zap_pte_range is not defined in mm/helper.c") != NULL);
	EXPECT(!strchr(err, '\n'));
	free(u);
	/* a prototype alone is not a definition */
	u = extract("int zap_pte_range(int a);\n", "zap_pte_range", NULL, 0, NULL, err, sizeof(err));
	EXPECT(u == NULL);
	free(u);
}

static void test_function_head_attributes(void)
{
	char err[256];
	const char text[] = "static __printf(2, 3) void log_it(int a, const char *f, ...) { }\n"
			    "static void locked(int *l) __acquires(l)\n{\n\tlog_it(1, 0);\n}\n"
			    "int root(void) { locked(0); return 0; }\n";
	char *u = extract(text, "root", NULL, 0, NULL, err, sizeof(err));

	EXPECT(u != NULL);
	if (!u)
		return;
	EXPECT(kernel_extract_has(u, "locked"));
	EXPECT(kernel_extract_has(u, "log_it"));
	EXPECT(!kernel_extract_has(u, "__printf"));
	EXPECT(!kernel_extract_has(u, "__acquires"));
	free(u);
}

int main(int argc, char **argv)
{
	static const struct ktap_case cases[] = {
		{ "closure_over_same_file_helpers", test_closure_over_same_file_helpers },
		{ "if_context_and_line_kept", test_if_context_and_line_kept },
		{ "typedef_names", test_typedef_names },
		{ "only_named_definitions", test_only_named_definitions },
		{ "missing_root_is_one_line", test_missing_root_is_one_line },
		{ "function_head_attributes", test_function_head_attributes },
	};

	return ktap_main(argc, argv, "extract", cases, (int)ARRAY_SIZE(cases));
}
