// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arm64/pgtable-hwdef.h"
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

/*
 * Duplicated definitions (quirks.h). Tokens: identifiers and numbers
 * whole, the two-character operators whole, any other character alone.
 */
#define TOK_MAX 64

static const char *const ops2[] = { "<<", ">>", "&&", "||", "==", "!=", "<=", ">=", "->",
				    "++", "--", "##", "+=", "-=", "|=", "&=", "^=", "*=", "/=" };

/* The next token at or after *p, before end; 0 at the end. */
static int next_token(const char **p, const char *end, char *tok)
{
	const char *s = *p;
	size_t n = 1;

	while (s < end && (isspace((unsigned char)*s) || (*s == '\\' && s + 1 < end && s[1] == '\n')))
		s++;
	if (s >= end)
		return 0;
	if (ident(*s)) {
		for (n = 0; s + n < end && ident(s[n]); n++)
			;
	} else {
		for (unsigned int i = 0; i < sizeof(ops2) / sizeof(ops2[0]); i++)
			if (s + 1 < end && s[0] == ops2[i][0] && s[1] == ops2[i][1])
				n = 2;
	}
	/* an overlong identifier is cut short in tok, skipped whole */
	memcpy(tok, s, n < TOK_MAX ? n : TOK_MAX - 1);
	tok[n < TOK_MAX ? n : TOK_MAX - 1] = 0;
	*p = s + n;
	return 1;
}

/* Append tok to out, parameters numbered; false if out is full. */
static bool put_token(char *out, size_t outlen, const char *tok, char params[][TOK_MAX], int nr_params)
{
	size_t len = strlen(out);
	char num[8];

	for (int i = 0; i < nr_params; i++)
		if (!strcmp(tok, params[i])) {
			snprintf(num, sizeof(num), "$%d", i + 1);
			tok = num;
		}
	if (len + strlen(tok) + 2 > outlen)
		return false;
	if (len)
		out[len++] = ' ';
	strcpy(out + len, tok);
	return true;
}

/* The end of the logical line at p: a newline not continued by a backslash. */
static const char *line_end(const char *p)
{
	for (; *p; p++)
		if (*p == '\n' && (p[-1] != '\\'))
			return p;
	return p;
}

/* The start of the logical line holding p. */
static const char *line_start(const char *code, const char *p)
{
	while (p > code && !(p[-1] == '\n' && (p - 1 == code || p[-2] != '\\')))
		p--;
	return p;
}

/* p (at name) is the name of a #define on its line */
static bool is_define(const char *code, const char *p)
{
	const char *s = line_start(code, p);

	while (s < p && isspace((unsigned char)*s))
		s++;
	if (*s++ != '#')
		return false;
	while (s < p && isspace((unsigned char)*s))
		s++;
	if (strncmp(s, "define", 6) || !isspace((unsigned char)s[6]))
		return false;
	for (s += 6; s < p; s++)
		if (!isspace((unsigned char)*s) && !(*s == '\\' && s[1] == '\n'))
			return false;
	return true;
}

/* from '(' at p: the matching ')', or NULL */
static const char *match_paren(const char *p, char open, char close)
{
	int depth = 0;

	for (; *p; p++) {
		if (*p == open)
			depth++;
		else if (*p == close && --depth == 0)
			return p;
	}
	return NULL;
}

/* The parameter names between the parentheses (a declaration's last identifier each). */
static int read_params(const char *open, const char *close, char params[][TOK_MAX], int max)
{
	const char *p = open + 1;
	char tok[TOK_MAX], last[TOK_MAX] = "";
	int n = 0, depth = 0;

	while (p < close && next_token(&p, close, tok)) {
		if (!strcmp(tok, "(") || !strcmp(tok, "["))
			depth++;
		else if (!strcmp(tok, ")") || !strcmp(tok, "]"))
			depth--;
		else if (!strcmp(tok, ",") && !depth) {
			if (n < max && last[0])
				strcpy(params[n++], last);
			last[0] = 0;
		} else if (!depth && ident(tok[0]) && !isdigit((unsigned char)tok[0]))
			strcpy(last, tok);
	}
	if (n < max && last[0] && strcmp(last, "void"))
		strcpy(params[n++], last);
	return n;
}

/* tokens of [from, to) into out, "{ return E ; }" read as "( E )" */
static bool put_body(char *out, size_t outlen, const char *from, const char *to,
		     char params[][TOK_MAX], int nr_params, bool function)
{
	char tok[TOK_MAX];
	const char *p = from;

	out[0] = 0;
	if (function) {
		const char *q = from;
		int semis = 0;
		char first[TOK_MAX] = "", second[TOK_MAX] = "";

		next_token(&q, to, first);
		next_token(&q, to, second);
		for (const char *c = from; c < to; c++)
			semis += *c == ';';
		if (!strcmp(first, "{") && !strcmp(second, "return") && semis == 1) {
			const char *semi = memchr(from, ';', (size_t)(to - from));

			if (!put_token(out, outlen, "(", params, 0))
				return false;
			for (p = q; next_token(&p, semi, tok);)
				if (!put_token(out, outlen, tok, params, nr_params))
					return false;
			return put_token(out, outlen, ")", params, 0);
		}
	}
	while (next_token(&p, to, tok))
		if (!put_token(out, outlen, tok, params, nr_params))
			return false;
	return true;
}

int kernel_definition(const char *code, const char *name, int nth, char *out, size_t outlen)
{
	size_t n = strlen(name);
	char params[8][TOK_MAX];

	for (const char *p = strstr(code, name); p; p = strstr(p + 1, name)) {
		if ((p > code && ident(p[-1])) || ident(p[n]))
			continue;
		if (is_define(code, p)) {
			const char *body = p + n, *end = line_end(p);
			int nr = 0;

			if (*body == '(') {
				const char *close = match_paren(body, '(', ')');

				if (!close || close > end)
					continue;
				nr = read_params(body, close, params, 8);
				body = close + 1;
			}
			if (nth-- > 0)
				continue;
			return put_body(out, outlen, body, end, params, nr, false) ? 1 : 0;
		}
		/* an inline function: name ( params ) { body } */
		const char *open = p + n;

		while (isspace((unsigned char)*open))
			open++;
		if (*open != '(')
			continue;
		const char *close = match_paren(open, '(', ')');
		if (!close)
			continue;
		const char *brace = close + 1;
		while (isspace((unsigned char)*brace))
			brace++;
		if (*brace != '{')
			continue;
		const char *end = match_paren(brace, '{', '}');
		if (!end)
			continue;
		int nr = read_params(open, close, params, 8);
		if (nth-- > 0)
			continue;
		return put_body(out, outlen, brace, end + 1, params, nr, true) ? 1 : 0;
	}
	return 0;
}

/*
 * A constant expression of the tree, for the configuration the lab
 * models (4K pages): numbers, the kernel's _AT/UL/ULL/BIT wrappers,
 * other object-like macros of the checked files, ( ) ~ ! - * / % + -
 * << >> & ^ |.
 */
struct eval {
	char tok[128][TOK_MAX];
	int n, i;
	const char *const *codes;
	int nr_codes, depth;
	bool ok;
	char *why;
	size_t whylen;
};

static const struct {
	const char *name;
	unsigned long long value;
} eval_config[] = {
	{ "PAGE_SHIFT", PAGE_SHIFT },
	{ "PAGE_SIZE", PAGE_SIZE },
	/* arch/arm64/Kconfig: ARM64_CONT_PTE_SHIFT is 4 with 4K pages */
	{ "CONFIG_ARM64_CONT_PTE_SHIFT", 4 },
};

static unsigned long long eval_or(struct eval *e);
static bool kernel_macro_value_depth(const char *const *codes, int nr_codes, const char *name,
				     unsigned long long *value, char *why, size_t whylen, int depth);

static const char *peek(struct eval *e)
{
	return e->i < e->n ? e->tok[e->i] : "";
}

static bool accept(struct eval *e, const char *t)
{
	if (strcmp(peek(e), t))
		return false;
	e->i++;
	return true;
}

static void fail(struct eval *e, const char *what)
{
	if (e->ok)
		snprintf(e->why, e->whylen, "%s", what);
	e->ok = false;
}

static unsigned long long eval_primary(struct eval *e)
{
	const char *t = peek(e);
	unsigned long long v = 0;

	if (accept(e, "(")) {
		v = eval_or(e);
		if (!accept(e, ")"))
			fail(e, "unbalanced parentheses");
		return v;
	}
	if (accept(e, "~"))
		return ~eval_primary(e);
	if (accept(e, "!"))
		return !eval_primary(e);
	if (accept(e, "-"))
		return -eval_primary(e);
	if (isdigit((unsigned char)t[0])) {
		char *end;

		v = strtoull(t, &end, 0);
		while (*end == 'u' || *end == 'U' || *end == 'l' || *end == 'L')
			end++;
		if (*end)
			fail(e, t);
		e->i++;
		return v;
	}
	if (!ident(t[0])) {
		fail(e, t[0] ? t : "an empty expression");
		return 0;
	}
	char name[TOK_MAX];

	snprintf(name, sizeof(name), "%s", t);
	e->i++;
	if (!strcmp(name, "_AT") || !strcmp(name, "_AC")) {
		/* _AT(type, x) is x; _AC(x, suffix) is x */
		bool at = name[2] == 'T';
		int depth = 0;

		if (!accept(e, "("))
			fail(e, name);
		if (at)
			for (; e->i < e->n && (depth || strcmp(peek(e), ",")); e->i++)
				depth += !strcmp(peek(e), "(") - !strcmp(peek(e), ")");
		if (at && !accept(e, ","))
			fail(e, name);
		v = eval_or(e);
		if (!at && accept(e, ","))
			e->i++;
		if (!accept(e, ")"))
			fail(e, name);
		return v;
	}
	if (!strcmp(name, "UL") || !strcmp(name, "ULL") || !strcmp(name, "_UL") ||
	    !strcmp(name, "_ULL") || !strcmp(name, "BIT") || !strcmp(name, "_BITUL") ||
	    !strcmp(name, "_BITULL") || !strcmp(name, "BIT_ULL")) {
		if (!accept(e, "("))
			fail(e, name);
		v = eval_or(e);
		if (!accept(e, ")"))
			fail(e, name);
		return name[0] == 'B' || name[1] == 'B' ? 1ULL << v : v;
	}
	for (unsigned int i = 0; i < sizeof(eval_config) / sizeof(eval_config[0]); i++)
		if (!strcmp(name, eval_config[i].name))
			return eval_config[i].value;
	if (e->depth > 16) {
		fail(e, "definitions nested too deep");
		return 0;
	}
	char why[200];

	if (!kernel_macro_value_depth(e->codes, e->nr_codes, name, &v, why, sizeof(why), e->depth + 1))
		fail(e, why);
	return v;
}

static unsigned long long eval_mul(struct eval *e)
{
	unsigned long long v = eval_primary(e), r;

	for (;;) {
		if (accept(e, "*")) {
			v *= eval_primary(e);
		} else if (accept(e, "/") || accept(e, "%")) {
			bool div = e->tok[e->i - 1][0] == '/';

			r = eval_primary(e);
			if (!r) {
				fail(e, "a division by zero");
				return 0;
			}
			v = div ? v / r : v % r;
		} else {
			return v;
		}
	}
}

static unsigned long long eval_add(struct eval *e)
{
	unsigned long long v = eval_mul(e);

	for (;;) {
		if (accept(e, "+"))
			v += eval_mul(e);
		else if (accept(e, "-"))
			v -= eval_mul(e);
		else
			return v;
	}
}

static unsigned long long eval_shift(struct eval *e)
{
	unsigned long long v = eval_add(e), r;

	for (;;) {
		bool left = accept(e, "<<");

		if (!left && !accept(e, ">>"))
			return v;
		r = eval_add(e);
		v = r >= 64 ? 0 : left ? v << r : v >> r;
	}
}

static unsigned long long eval_and(struct eval *e)
{
	unsigned long long v = eval_shift(e);

	while (accept(e, "&"))
		v &= eval_shift(e);
	return v;
}

static unsigned long long eval_xor(struct eval *e)
{
	unsigned long long v = eval_and(e);

	while (accept(e, "^"))
		v ^= eval_and(e);
	return v;
}

static unsigned long long eval_or(struct eval *e)
{
	unsigned long long v = eval_xor(e);

	while (accept(e, "|"))
		v |= eval_xor(e);
	return v;
}

static bool kernel_macro_value_depth(const char *const *codes, int nr_codes, const char *name,
				     unsigned long long *value, char *why, size_t whylen, int depth)
{
	static char body[4096];
	struct eval *e;
	bool ok;

	for (int c = 0; c < nr_codes; c++) {
		const char *p;

		if (!codes[c] || !kernel_definition(codes[c], name, 0, body, sizeof(body)))
			continue;
		if (strchr(body, '$')) {
			snprintf(why, whylen, "%s takes parameters", name);
			return false;
		}
		e = calloc(1, sizeof(*e));
		if (!e) {
			snprintf(why, whylen, "out of memory");
			return false;
		}
		p = body;
		while (e->n < 128 && next_token(&p, body + strlen(body), e->tok[e->n]))
			e->n++;
		e->codes = codes;
		e->nr_codes = nr_codes;
		e->depth = depth;
		e->ok = true;
		e->why = why;
		e->whylen = whylen;
		*value = eval_or(e);
		if (e->ok && e->i != e->n)
			fail(e, e->tok[e->i]);
		ok = e->ok;
		free(e);
		return ok;
	}
	snprintf(why, whylen, "%s is defined in none of the files read", name);
	return false;
}

bool kernel_macro_value(const char *const *codes, int nr_codes, const char *name,
			unsigned long long *value, char *why, size_t whylen)
{
	return kernel_macro_value_depth(codes, nr_codes, name, value, why, whylen, 0);
}

#define HWDEF "arch/arm64/include/asm/pgtable-hwdef.h"
#define PROT "arch/arm64/include/asm/pgtable-prot.h"
#define PGTABLE "arch/arm64/include/asm/pgtable.h"
#define GENERIC "include/linux/pgtable.h"
#define COPY_HWDEF "arch/arm64/pgtable-hwdef.h"
#define COPY_PTE "arch/arm64/pte.h"
#define COPY_DUP "kernel/shim/dup.h"

#define VALUE(n, f) { .name = #n, .file = f, .copy = COPY_HWDEF, .synced = "7.3", \
		      .is_value = true, .value = (n) }
#define BODY(n, f, c, b) { .name = #n, .file = f, .copy = c, .synced = "7.3", \
			   .forms = { b }, .form_seen = { "6.12 7.2 7.3" } }

/*
 * What kernel code compiled by the shim uses from ptelab's copies: the
 * contiguous-block geometry, the PTE bits, the pte_* helpers, and the
 * compiler/alignment macros of dup.h (their headers are not in fetched
 * trees; a whole tree's are checked). Not listed, on purpose: the
 * output-address width (ptelab models 48 bits, PTE_ADDR_LOW differs),
 * pte_pfn/pte_pgprot/READ_ONCE/try_cmpxchg (simplified, not copied).
 */
const struct kernel_dup kernel_dups[] = {
	VALUE(CONT_PTE_SHIFT, HWDEF),
	VALUE(CONT_PTES, HWDEF),
	VALUE(CONT_PTE_SIZE, HWDEF),
	VALUE(CONT_PTE_MASK, HWDEF),
	VALUE(PTE_VALID, HWDEF),
	VALUE(PTE_TYPE_PAGE, HWDEF),
	VALUE(PTE_USER, HWDEF),
	VALUE(PTE_RDONLY, HWDEF),
	VALUE(PTE_AF, HWDEF),
	VALUE(PTE_NG, HWDEF),
	VALUE(PTE_DBM, HWDEF),
	VALUE(PTE_CONT, HWDEF),
	VALUE(PTE_WRITE, PROT),
	VALUE(PTE_DIRTY, PROT),
	VALUE(PTE_SPECIAL, PROT),
	VALUE(PTE_PRESENT_INVALID, PROT),
	BODY(pte_none, PGTABLE, COPY_PTE, "( ! pte_val ( $1 ) )"),
	BODY(pte_valid, PGTABLE, COPY_PTE, "( ! ! ( pte_val ( $1 ) & PTE_VALID ) )"),
	BODY(pte_present_invalid, PGTABLE, COPY_PTE,
	     "( ( pte_val ( $1 ) & ( PTE_VALID | PTE_PRESENT_INVALID ) ) == PTE_PRESENT_INVALID )"),
	/* a macro until 7.2, an inline function in 7.3: the same expression */
	BODY(pte_present, PGTABLE, COPY_PTE, "( pte_valid ( $1 ) || pte_present_invalid ( $1 ) )"),
	BODY(pte_young, PGTABLE, COPY_PTE, "( ! ! ( pte_val ( $1 ) & PTE_AF ) )"),
	BODY(pte_special, PGTABLE, COPY_PTE, "( ! ! ( pte_val ( $1 ) & PTE_SPECIAL ) )"),
	BODY(pte_write, PGTABLE, COPY_PTE, "( ! ! ( pte_val ( $1 ) & PTE_WRITE ) )"),
	BODY(pte_rdonly, PGTABLE, COPY_PTE, "( ! ! ( pte_val ( $1 ) & PTE_RDONLY ) )"),
	BODY(pte_cont, PGTABLE, COPY_PTE, "( ! ! ( pte_val ( $1 ) & PTE_CONT ) )"),
	BODY(pte_hw_dirty, PGTABLE, COPY_PTE, "( pte_write ( $1 ) && ! pte_rdonly ( $1 ) )"),
	BODY(pte_sw_dirty, PGTABLE, COPY_PTE, "( ! ! ( pte_val ( $1 ) & PTE_DIRTY ) )"),
	BODY(pte_dirty, PGTABLE, COPY_PTE, "( pte_sw_dirty ( $1 ) || pte_hw_dirty ( $1 ) )"),
	BODY(pte_valid_cont, PGTABLE, COPY_PTE, "( pte_valid ( $1 ) && pte_cont ( $1 ) )"),
	BODY(pte_page, PGTABLE, COPY_PTE, "( pfn_to_page ( pte_pfn ( $1 ) ) )"),
	BODY(pte_mkold, PGTABLE, COPY_PTE, "( clear_pte_bit ( $1 , __pgprot ( PTE_AF ) ) )"),
	BODY(pte_mkyoung, PGTABLE, COPY_PTE, "( set_pte_bit ( $1 , __pgprot ( PTE_AF ) ) )"),
	BODY(pte_mkclean, PGTABLE, COPY_PTE,
	     "{ $1 = clear_pte_bit ( $1 , __pgprot ( PTE_DIRTY ) ) ; "
	     "$1 = set_pte_bit ( $1 , __pgprot ( PTE_RDONLY ) ) ; return $1 ; }"),
	BODY(pte_mkdirty, PGTABLE, COPY_PTE,
	     "{ $1 = set_pte_bit ( $1 , __pgprot ( PTE_DIRTY ) ) ; if ( pte_write ( $1 ) ) "
	     "$1 = clear_pte_bit ( $1 , __pgprot ( PTE_RDONLY ) ) ; return $1 ; }"),
	{
		.name = "pte_mkcont", .file = PGTABLE, .copy = COPY_PTE, .synced = "7.3",
		.forms = { "( set_pte_bit ( $1 , __pgprot ( PTE_CONT ) ) )",
			   /* the quirk -DPTELAB_MKCONT_TYPE_PAGE */
			   "{ $1 = set_pte_bit ( $1 , __pgprot ( PTE_CONT ) ) ; "
			   "return set_pte_bit ( $1 , __pgprot ( PTE_TYPE_PAGE ) ) ; }" },
		.form_seen = { "7.2 7.3", "6.12" },
	},
	BODY(pte_mknoncont, PGTABLE, COPY_PTE, "( clear_pte_bit ( $1 , __pgprot ( PTE_CONT ) ) )"),
	BODY(pte_advance_pfn, PGTABLE, COPY_PTE,
	     "( pfn_pte ( pte_pfn ( $1 ) + $2 , pte_pgprot ( $1 ) ) )"),
	BODY(pte_same, GENERIC, COPY_PTE, "( pte_val ( $1 ) == pte_val ( $2 ) )"),
	BODY(likely, "include/linux/compiler.h", COPY_DUP, "__builtin_expect ( ! ! ( $1 ) , 1 )"),
	BODY(unlikely, "include/linux/compiler.h", COPY_DUP, "__builtin_expect ( ! ! ( $1 ) , 0 )"),
	BODY(BIT, "include/vdso/bits.h", COPY_DUP, "( UL ( 1 ) << ( $1 ) )"),
	BODY(PTR_ALIGN, "include/linux/align.h", COPY_DUP,
	     "( ( typeof ( $1 ) ) ALIGN ( ( unsigned long ) ( $1 ) , ( $2 ) ) )"),
	BODY(PTR_ALIGN_DOWN, "include/linux/align.h", COPY_DUP,
	     "( ( typeof ( $1 ) ) ALIGN_DOWN ( ( unsigned long ) ( $1 ) , ( $2 ) ) )"),
};

const unsigned int nr_kernel_dups = sizeof(kernel_dups) / sizeof(kernel_dups[0]);

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET) &&
	    (buf = malloc((size_t)n + 1))) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = 0;
		}
	}
	fclose(f);
	return buf;
}

/* a value as the kernel would write it: small numbers in decimal, masks in hex */
static const char *num(unsigned long long v, char *buf, size_t len)
{
	snprintf(buf, len, v < 4096 ? "%llu" : "%#llx", v);
	return buf;
}

/* s, or its first n characters and "..." */
static const char *clip(const char *s, char *buf, size_t n)
{
	if (strlen(s) <= n)
		return s;
	snprintf(buf, n + 4, "%.*s...", (int)n, s);
	return buf;
}

int kernel_dups_check(const char *tree, char *err, size_t errlen)
{
	enum { MAX_FILES = 8 };
	const char *files[MAX_FILES];
	char *codes[MAX_FILES] = { NULL };
	int nr_files = 0, rc = 0;
	static char body[4096];

	/* every file once; the constants resolve names across all of them */
	for (unsigned int i = 0; i < nr_kernel_dups; i++) {
		int f;

		for (f = 0; f < nr_files && strcmp(files[f], kernel_dups[i].file); f++)
			;
		if (f == nr_files && nr_files < MAX_FILES) {
			char path[PATH_MAX + 64], *text;

			snprintf(path, sizeof(path), "%s/%s", tree, kernel_dups[i].file);
			files[nr_files] = kernel_dups[i].file;
			text = slurp(path);
			codes[nr_files++] = text ? code_only(text) : NULL;
			free(text);
		}
	}
	for (unsigned int i = 0; i < nr_kernel_dups && !rc; i++) {
		const struct kernel_dup *d = &kernel_dups[i];
		const char *code = NULL;
		char c1[128], c2[128];

		for (int f = 0; f < nr_files; f++)
			if (!strcmp(files[f], d->file))
				code = codes[f];
		if (!code)
			continue; /* the tree does not have the file */
		if (!kernel_definition(code, d->name, 0, body, sizeof(body))) {
			continue; /* nothing to disagree with (a partial tree) */
		} else if (d->is_value) {
			unsigned long long v;
			char why[200];

			if (!kernel_macro_value((const char *const *)codes, nr_files, d->name, &v, why,
						sizeof(why))) {
				snprintf(err, errlen, "%s: cannot read the value of %s (%s); ptelab's copy "
					 "in %s (in sync with %s) is %s", d->file, d->name, why, d->copy,
					 d->synced, num(d->value, c1, sizeof(c1)));
				rc = -1;
			} else if (v != d->value) {
				snprintf(err, errlen, "%s: %s is %s in this tree, but ptelab's copy in %s "
					 "(in sync with %s) is %s", d->file, d->name, num(v, c1, sizeof(c1)),
					 d->copy, d->synced, num(d->value, c2, sizeof(c2)));
				rc = -1;
			}
		} else {
			bool match = false;

			/* any of the tree's definitions (one per #if branch) in a known form */
			for (int nth = 0; !match && kernel_definition(code, d->name, nth, body, sizeof(body)); nth++)
				for (int k = 0; k < KERNEL_DUP_FORMS && !match; k++)
					match = d->forms[k] && !strcmp(body, d->forms[k]);
			if (!match) {
				/* say the first that is more than "#define name name" */
				for (int nth = 0; kernel_definition(code, d->name, nth, body, sizeof(body)) &&
						  !strcmp(body, d->name); nth++)
					;
				snprintf(err, errlen, "%s: %s is \"%s\" in this tree, but ptelab's copy in %s "
					 "(in sync with %s) follows \"%s\"", d->file, d->name,
					 clip(body, c1, 100), d->copy, d->synced, clip(d->forms[0], c2, 100));
				rc = -1;
			}
		}
	}
	for (int f = 0; f < nr_files; f++)
		free(codes[f]);
	return rc;
}
