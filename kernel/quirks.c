// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/quirks.h"

char *code_only(const char *text)
{
	size_t n = strlen(text);
	char *out = malloc(n + 1);

	if (!out)
		return NULL;
	memcpy(out, text, n + 1);
	for (size_t i = 0; i < n; i++) {
		if (out[i] == '/' && out[i + 1] == '*') {
			for (; i < n && !(out[i] == '*' && out[i + 1] == '/'); i++)
				if (out[i] != '\n')
					out[i] = ' ';
			if (i < n)
				out[i] = out[i + 1] = ' ', i++;
		} else if (out[i] == '/' && out[i + 1] == '/') {
			for (; i < n && out[i] != '\n'; i++)
				out[i] = ' ';
		} else if (out[i] == '"' || out[i] == '\'') {
			char q = out[i];

			for (out[i++] = ' '; i < n && out[i] != q && out[i] != '\n'; i++) {
				if (out[i] == '\\' && i + 1 < n)
					out[i++] = ' ';
				out[i] = ' ';
			}
			if (i < n && out[i] == q)
				out[i] = ' ';
		}
	}
	return out;
}

static bool ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

bool code_has_token(const char *code, const char *id)
{
	size_t n = strlen(id);

	for (const char *p = strstr(code, id); p; p = strstr(p + 1, id))
		if ((p == code || !ident(p[-1])) && !ident(p[n]))
			return true;
	return false;
}

/* 7.x: __flush_tlb_range(vma, start, end, stride, level, tlbf_t flags) */
static bool has_tlbf(const char *code)
{
	return code_has_token(code, "tlbf_t");
}

/* 6.x: pte_mkcont() also sets PTE_TYPE_PAGE (in its body, not a neighbour's) */
static bool mkcont_sets_type(const char *code)
{
	for (const char *m = strstr(code, "pte_mkcont"); m; m = strstr(m + 1, "pte_mkcont")) {
		const char *open, *end;
		int depth = 0;

		if ((m > code && ident(m[-1])) || ident(m[10]))
			continue;
		/* the definition: a body opens before any ';' (calls and prototypes end first) */
		open = strpbrk(m, "{;");
		if (!open || *open != '{')
			continue;
		for (end = open; *end; end++) {
			if (*end == '{')
				depth++;
			else if (*end == '}' && --depth == 0)
				break;
		}
		for (const char *t = strstr(open, "PTE_TYPE_PAGE"); t && t < end;
		     t = strstr(t + 1, "PTE_TYPE_PAGE"))
			if (!ident(t[-1]) && !ident(t[13]))
				return true;
		return false;
	}
	return false;
}

const struct kernel_quirk kernel_quirks[] = {
	{
		.define = "-DPTELAB_TLBF",
		.file = "arch/arm64/include/asm/tlbflush.h",
		.detect = "the tree declares the type tlbf_t",
		.changes = "__flush_tlb_range() takes (stride, level, tlbf_t flags), not (stride, last_level, level)",
		.present = has_tlbf,
	},
	{
		.define = "-DPTELAB_MKCONT_TYPE_PAGE",
		.file = "arch/arm64/include/asm/pgtable.h",
		.detect = "the body of pte_mkcont() uses PTE_TYPE_PAGE",
		.changes = "pte_mkcont() also sets the page type bits (6.x)",
		.present = mkcont_sets_type,
	},
};

const unsigned int nr_kernel_quirks = sizeof(kernel_quirks) / sizeof(kernel_quirks[0]);
