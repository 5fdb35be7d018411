/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Version quirks: what differs between kernel trees in ways the shim must
 * follow, each detected from what the tree's code declares (comments and
 * strings stripped first, so a comment mentioning a name does not count),
 * never from a version number.
 */
#ifndef PTELAB_KERNEL_QUIRKS_H
#define PTELAB_KERNEL_QUIRKS_H

#include <stdbool.h>
#include <stddef.h>

struct kernel_quirk {
	const char *define;  /* what the shim is built with when present */
	const char *file;    /* the tree file it is detected in */
	const char *detect;  /* how, in words */
	const char *changes; /* what it changes in the shim */
	bool (*present)(const char *code);
};

extern const struct kernel_quirk kernel_quirks[];
extern const unsigned int nr_kernel_quirks;

/*
 * Duplicated definitions: what the shim (kernel/shim/dup.h) and the arm64
 * layout it compiles kernel code against (arch/arm64/pgtable-hwdef.h,
 * pte.h) copy from the kernel, each checked at build time against the
 * tree's own definition, read as tokens from its code (comments and
 * strings stripped), so a tree that changed one is refused by name
 * rather than compiled against a stale copy. A constant is compared by
 * value (the tree's expression evaluated for 4K pages) with ptelab's
 * copy; a macro or inline function by its body, with its parameters
 * numbered ($1, $2, ...) and a function that only returns E read as
 * "( E )", against the kernel forms the copy is known to follow (any of
 * the tree's definitions, one per #if branch, may match). A file or a
 * definition the tree does not have (fetched trees keep only the files
 * the lab reads) is not checked: there is nothing to disagree with.
 */
#define KERNEL_DUP_FORMS 2

struct kernel_dup {
	const char *name;
	const char *file;    /* the tree file holding the kernel's definition */
	const char *copy;    /* where ptelab has its copy */
	const char *synced;  /* the kernel version the copy follows */
	bool is_value;       /* a constant: compared by value */
	unsigned long long value;                 /* ptelab's value */
	const char *forms[KERNEL_DUP_FORMS];      /* else the accepted bodies */
	const char *form_seen[KERNEL_DUP_FORMS];  /* the kernels each is from */
};

extern const struct kernel_dup kernel_dups[];
extern const unsigned int nr_kernel_dups;

/* 0, or -1 with one line in err naming the file and the definition the tree changed */
int kernel_dups_check(const char *tree, char *err, size_t errlen);

/*
 * The normalized definition of name in code (a #define's body, or an
 * inline function's), the nth one found (there may be one per #if
 * branch): 1 if found, with the tokens in out; 0 if there is no nth.
 */
int kernel_definition(const char *code, const char *name, int nth, char *out, size_t outlen);
/* The value of object-like macro name, looked up in codes[]; 0 if it could not be read. */
bool kernel_macro_value(const char *const *codes, int nr_codes, const char *name,
			unsigned long long *value, char *why, size_t whylen);

/* text with comments and string/char literals blanked (newlines kept); malloc'd */
char *code_only(const char *text);
/* identifier id appears in code as a whole token */
bool code_has_token(const char *code, const char *id);

#endif
