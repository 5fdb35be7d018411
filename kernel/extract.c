// SPDX-License-Identifier: GPL-2.0-only
/*
 * Extracting a tree's core-mm functions by name (kernel/extract.h). Each
 * file is read as code (comments and strings blanked, offsets kept, as
 * kernel/quirks.c reads trees) and cut into its top-level items: a
 * function definition ends at the brace that closes its body, a
 * declaration at its ';', a #define at its last continued line. The
 * #if/#elif/#else lines around an item are its context, emitted around
 * it again. From the roots, every identifier an item uses that names an
 * item of the files (and is not on the boundary) is taken too.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/extract.h"
#include "kernel/quirks.h"

enum item_kind { IT_MACRO, IT_TYPE, IT_VAR, IT_FUNC };

struct item {
	int file;
	size_t start, end, body; /* body: the '{' of a function */
	int line;
	char *ctx;               /* the #if lines around it, "" if none */
	int nr_ctx;              /* how many #endif close it */
	enum item_kind kind;
	char *names[64];         /* what it defines: "x", "struct x", enum constants */
	int nr_names;
	bool taken;
};

/* A name some item defines (or a boundary name: item -1), chained by hash. */
struct name_ref {
	const char *name;
	size_t len;
	int item;
	int next;
};

struct unit {
	const struct extract_req *req;
	char **code;             /* each file's text, comments and strings blanked */
	struct item *items;
	int nr_items, cap;
	/* every name of every item and of the boundary, by hash: take() is O(1) */
	struct name_ref *refs;
	int *bucket;             /* first ref of each bucket, -1: none */
	unsigned int nr_buckets;
};

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* A growing string. */
struct buf {
	char *s;
	size_t len, cap;
	bool oom;
};

static void bput(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 4096) + n;
		char *p = realloc(b->s, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

static void bprintf(struct buf *b, const char *fmt, ...)
{
	char tmp[1024];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		bput(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

static void add_name(struct item *it, const char *s, size_t n)
{
	if (it->nr_names < (int)(sizeof(it->names) / sizeof(it->names[0])))
		it->names[it->nr_names++] = strndup(s, n);
}

/* The identifier at p (p at its first character): its length. */
static size_t ident_len(const char *p)
{
	size_t n = 0;

	while (ident_char(p[n]))
		n++;
	return n;
}

/* Attribute-like macros written with parentheses before or after a declarator. */
static bool is_attribute(const char *s, size_t n)
{
	static const char *const attrs[] = {
		"__attribute__", "__attribute", "__printf", "__scanf", "__section", "__aligned",
		"__alloc_size", "__acquires", "__releases", "__must_hold", "__cond_acquires",
		"__cond_releases", "__no_sanitize_address", "__diagnose_as", "__malloc",
		"__assume_aligned", "typeof", "__typeof__", "__counted_by", NULL,
	};

	for (int i = 0; attrs[i]; i++)
		if (strlen(attrs[i]) == n && !strncmp(attrs[i], s, n))
			return true;
	return false;
}

/* Whether the text [s, e) starts with the keyword kw. */
static bool starts_with_word(const char *s, const char *e, const char *kw)
{
	size_t n = strlen(kw);

	while (s < e && isspace((unsigned char)*s))
		s++;
	return (size_t)(e - s) > n && !strncmp(s, kw, n) && !ident_char(s[n]);
}

static struct item *new_item(struct unit *u)
{
	if (u->nr_items == u->cap) {
		int cap = u->cap ? u->cap * 2 : 256;
		struct item *p = realloc(u->items, (size_t)cap * sizeof(*p));

		if (!p)
			return NULL;
		u->items = p;
		u->cap = cap;
	}
	memset(&u->items[u->nr_items], 0, sizeof(u->items[0]));
	return &u->items[u->nr_items++];
}

/* The names a type definition's text [s, e) defines: its tag, enum constants, typedef name. */
static void type_names(struct item *it, const char *s, const char *e, bool is_typedef)
{
	const char *brace = memchr(s, '{', (size_t)(e - s));

	/* the tag defined: "struct x {" (a tag merely mentioned defines nothing) */
	if (brace) {
		const char *q = brace, *w;

		while (q > s && isspace((unsigned char)q[-1]))
			q--;
		for (w = q; w > s && ident_char(w[-1]);)
			w--;
		const char *k = w;
		while (k > s && isspace((unsigned char)k[-1]))
			k--;
		static const char *const tags[] = { "struct", "union", "enum" };
		for (int t = 0; t < 3 && w < q; t++) {
			size_t n = strlen(tags[t]);

			if (k - s >= (long)n && !strncmp(k - n, tags[t], n) &&
			    (k - n == s || !ident_char(k[-(long)n - 1]))) {
				char tag[160];

				snprintf(tag, sizeof(tag), "%s %.*s", tags[t], (int)(q - w), w);
				add_name(it, tag, strlen(tag));
			}
		}
	}
	/* enum constants: the first identifier of each element */
	if (brace && starts_with_word(s, e, is_typedef ? "typedef" : "enum") &&
	    strstr(s, "enum") && strstr(s, "enum") < brace) {
		int depth = 0;
		bool want = true;

		for (const char *p = brace + 1; p < e; p++) {
			if (*p == '(' || *p == '{')
				depth++;
			else if (*p == ')' || *p == '}') {
				if (depth-- == 0)
					break;
			} else if (*p == ',' && depth == 0)
				want = true;
			else if (want && ident_char(*p) && !isdigit((unsigned char)*p)) {
				size_t n = ident_len(p);

				add_name(it, p, n);
				p += n - 1;
				want = false;
			}
		}
	}
	if (is_typedef) {
		/* the name: the identifier after "(*" of a function type, else the last one */
		const char *tail = brace ? brace : s, *best = NULL;
		int depth = 0;
		size_t blen = 0;

		if (brace) {
			for (const char *p = brace; p < e; p++) {
				if (*p == '{')
					depth++;
				else if (*p == '}' && --depth == 0) {
					tail = p + 1;
					break;
				}
			}
		}
		const char *star = strstr(tail, "(*"), *open = memchr(tail, '(', (size_t)(e - tail));
		if (star && star < e) {
			/* a pointer to a function type: typedef int (*name)(...) */
			const char *q = star + 2;

			while (isspace((unsigned char)*q))
				q++;
			best = q;
			blen = ident_len(q);
		} else if (open) {
			/* a function type: typedef int name(...) */
			const char *q = open;

			while (q > tail && isspace((unsigned char)q[-1]))
				q--;
			for (best = q; best > tail && ident_char(best[-1]);)
				best--;
			blen = (size_t)(q - best);
		} else {
			for (const char *p = tail; p < e; p++)
				if (ident_char(*p) && (p == tail || !ident_char(p[-1])) &&
				    !isdigit((unsigned char)*p)) {
					best = p;
					blen = ident_len(p);
				}
		}
		if (best && blen)
			add_name(it, best, blen);
	}
}

/*
 * A function definition's name: the first identifier before a '(' at the
 * top of its head [s, e) that is not an attribute.
 */
static void func_name(struct item *it, const char *s, const char *e)
{
	int depth = 0;

	for (const char *p = s; p < e; p++) {
		if (*p == '(') {
			if (depth++ == 0) {
				const char *q = p;

				while (q > s && isspace((unsigned char)q[-1]))
					q--;
				const char *w = q;
				while (w > s && ident_char(w[-1]))
					w--;
				if (w < q && !is_attribute(w, (size_t)(q - w))) {
					add_name(it, w, (size_t)(q - w));
					return;
				}
			}
		} else if (*p == ')') {
			depth--;
		}
	}
}

/* A variable definition's name: the identifier before its '=' or '[' or ';'. */
static void var_name(struct item *it, const char *s, const char *e)
{
	const char *stop = e;
	int depth = 0;

	for (const char *p = s; p < e; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (depth == 0 && (*p == '=' || *p == '[')) {
			stop = p;
			break;
		}
	}
	while (stop > s && !ident_char(stop[-1]))
		stop--;
	const char *w = stop;
	while (w > s && ident_char(w[-1]))
		w--;
	if (w < stop)
		add_name(it, w, (size_t)(stop - w));
}

/* Whether a file that gives only some names gives one of this item's. */
static bool wanted(const struct extract_file *f, const struct item *it)
{
	if (!f->only)
		return true;
	for (int k = 0; k < it->nr_names; k++)
		for (int i = 0; f->only[i]; i++)
			if (!strcmp(f->only[i], it->names[k]))
				return true;
	return false;
}

static void free_item(struct item *it)
{
	free(it->ctx);
	for (int k = 0; k < it->nr_names; k++)
		free(it->names[k]);
}

/* The preprocessor conditional stack: each level's lines so far. */
struct cond_level {
	char *lines;
};

static char *ctx_of(struct cond_level *lv, int depth)
{
	struct buf b = { 0 };

	bput(&b, "", 0);
	for (int i = 0; i < depth; i++)
		bput(&b, lv[i].lines, strlen(lv[i].lines));
	return b.s;
}

/* An offset's line, counted on from the last one asked (items come in order). */
struct line_cursor {
	size_t off;
	int line;
};

static int line_of(const char *text, size_t off, struct line_cursor *c)
{
	if (off < c->off)
		*c = (struct line_cursor){ 0, 1 };
	for (size_t i = c->off; i < off; i++)
		c->line += text[i] == '\n';
	c->off = off;
	return c->line;
}

/* Cuts one file into items. */
static int parse_file(struct unit *u, int f)
{
	const char *text = u->req->files[f].text, *code = u->code[f];
	size_t n = strlen(code), i = 0;
	struct cond_level lv[64];
	struct line_cursor lc = { 0, 1 };
	int depth = 0, rc = 0;

	while (i < n) {
		while (i < n && isspace((unsigned char)code[i]))
			i++;
		if (i >= n)
			break;
		if (code[i] == '#') {
			size_t s = i, e = i;

			while (e < n && !(code[e] == '\n' && code[e - 1] != '\\'))
				e++;
			const char *d = code + s + 1;
			while (*d == ' ' || *d == '\t')
				d++;
			size_t wl = ident_len(d);
			char *line = strndup(text + s, e - s);

			if ((wl == 2 && !strncmp(d, "if", 2)) || (wl == 5 && !strncmp(d, "ifdef", 5)) ||
			    (wl == 6 && !strncmp(d, "ifndef", 6))) {
				if (depth < 64) {
					struct buf b = { 0 };

					bput(&b, line, strlen(line));
					bput(&b, "\n", 1);
					lv[depth++].lines = b.s;
				}
			} else if ((wl == 4 && (!strncmp(d, "elif", 4) || !strncmp(d, "else", 4))) ||
				   (wl == 7 && !strncmp(d, "elifdef", 7)) ||
				   (wl == 8 && !strncmp(d, "elifndef", 8))) {
				if (depth > 0) {
					struct buf b = { lv[depth - 1].lines, strlen(lv[depth - 1].lines),
							 strlen(lv[depth - 1].lines) + 1, false };

					bput(&b, line, strlen(line));
					bput(&b, "\n", 1);
					lv[depth - 1].lines = b.s;
				}
			} else if (wl == 5 && !strncmp(d, "endif", 5)) {
				if (depth > 0)
					free(lv[--depth].lines);
			} else if (wl == 6 && !strncmp(d, "define", 6)) {
				struct item *it = new_item(u);
				const char *nm = d + 6;

				if (!it) {
					free(line);
					rc = -1;
					break;
				}
				while (*nm == ' ' || *nm == '\t')
					nm++;
				it->file = f;
				it->start = s;
				it->end = e;
				it->kind = IT_MACRO;
				it->line = line_of(text, s, &lc);
				it->ctx = ctx_of(lv, depth);
				it->nr_ctx = depth;
				add_name(it, nm, ident_len(nm));
				if (!wanted(&u->req->files[f], it)) {
					free_item(it);
					u->nr_items--;
				}
			}
			free(line);
			i = e;
			continue;
		}
		/* a declaration or a definition: up to its ';' or its body's '}' */
		size_t s = i, body = 0;
		int paren = 0, brace = 0;
		bool func = false, done = false;

		for (; i < n && !done; i++) {
			char c = code[i];

			if (c == '\n') {
				/* directive lines inside an item go with it, uncounted */
				size_t j = i + 1;

				while (j < n && (code[j] == ' ' || code[j] == '\t'))
					j++;
				if (j < n && code[j] == '#') {
					while (j < n && !(code[j] == '\n' && code[j - 1] != '\\'))
						j++;
					i = j - 1;
				}
				continue;
			}
			if (c == '(')
				paren++;
			else if (c == ')')
				paren--;
			else if (c == '{') {
				if (brace++ == 0 && paren == 0 && !body) {
					const char *hs = code + s, *he = code + i;
					bool paren_in = false, eq = false;
					int pd = 0;

					body = i;
					for (const char *p = hs; p < he; p++) {
						if (*p == '(')
							paren_in |= pd++ == 0;
						else if (*p == ')')
							pd--;
						else if (*p == '=' && pd == 0)
							eq = true;
					}
					func = paren_in && !eq && !starts_with_word(hs, he, "typedef");
				}
			} else if (c == '}') {
				if (--brace == 0 && func)
					done = true;
			} else if (c == ';' && paren == 0 && brace == 0) {
				done = true;
			}
		}
		size_t e = i;
		const char *cs = code + s, *ce = code + e;
		struct item it = { .file = f, .start = s, .end = e, .body = body };

		if (func) {
			it.kind = IT_FUNC;
			func_name(&it, cs, code + body);
		} else if (starts_with_word(cs, ce, "typedef")) {
			it.kind = IT_TYPE;
			type_names(&it, cs, ce, true);
		} else if (starts_with_word(cs, ce, "extern")) {
			continue;
		} else if (body && !memchr(cs, '=', (size_t)(code + body - cs)) &&
			   (starts_with_word(cs, ce, "struct") || starts_with_word(cs, ce, "union") ||
			    starts_with_word(cs, ce, "enum"))) {
			it.kind = IT_TYPE;
			type_names(&it, cs, ce, false);
		} else {
			/* a prototype or a macro call (EXPORT_SYMBOL): nothing to take */
			const char *eq = NULL;
			int pd = 0;
			bool call = false;

			for (const char *p = cs; p < ce; p++) {
				if (*p == '(' && pd++ == 0 && !eq)
					call = true;
				else if (*p == ')')
					pd--;
				else if (*p == '=' && pd == 0 && !eq)
					eq = p;
			}
			if (call && !eq)
				continue;
			it.kind = IT_VAR;
			var_name(&it, cs, ce);
		}
		if (!it.nr_names || !wanted(&u->req->files[f], &it)) {
			for (int k = 0; k < it.nr_names; k++)
				free(it.names[k]);
			continue;
		}
		struct item *slot = new_item(u);
		if (!slot) {
			rc = -1;
			break;
		}
		it.line = line_of(text, s, &lc);
		it.ctx = ctx_of(lv, depth);
		it.nr_ctx = depth;
		*slot = it;
	}
	while (depth > 0)
		free(lv[--depth].lines);
	return rc;
}

static unsigned int name_hash(const char *s, size_t n)
{
	unsigned int h = 2166136261u; /* FNV-1a */

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void index_name(struct unit *u, int *nr_refs, const char *name, int item)
{
	unsigned int b = name_hash(name, strlen(name)) & (u->nr_buckets - 1);

	u->refs[*nr_refs] = (struct name_ref){ name, strlen(name), item, u->bucket[b] };
	u->bucket[b] = (*nr_refs)++;
}

/* The names of every item and of the boundary, hashed (after every file is parsed). */
static int index_names(struct unit *u)
{
	int nr = u->req->nr_boundary, nr_refs = 0;

	for (int i = 0; i < u->nr_items; i++)
		nr += u->items[i].nr_names;
	for (u->nr_buckets = 64; u->nr_buckets < 2 * (unsigned int)nr;)
		u->nr_buckets *= 2;
	u->refs = malloc((size_t)(nr + 1) * sizeof(*u->refs));
	u->bucket = malloc(u->nr_buckets * sizeof(*u->bucket));
	if (!u->refs || !u->bucket)
		return -1;
	memset(u->bucket, 0xff, u->nr_buckets * sizeof(*u->bucket));
	for (int i = 0; i < u->req->nr_boundary; i++)
		index_name(u, &nr_refs, u->req->boundary[i], -1);
	/* in reverse, so that each chain lists a name's items in file order */
	for (int i = u->nr_items - 1; i >= 0; i--)
		for (int k = u->items[i].nr_names - 1; k >= 0; k--)
			index_name(u, &nr_refs, u->items[i].names[k], i);
	return 0;
}

static int first_ref(const struct unit *u, const char *s, size_t n)
{
	return u->bucket[name_hash(s, n) & (u->nr_buckets - 1)];
}

static bool ref_is(const struct name_ref *r, const char *s, size_t n)
{
	return r->len == n && !memcmp(r->name, s, n);
}

static bool on_boundary(const struct unit *u, const char *s, size_t n)
{
	for (int r = first_ref(u, s, n); r >= 0; r = u->refs[r].next)
		if (u->refs[r].item < 0 && ref_is(&u->refs[r], s, n))
			return true;
	return false;
}

/* Takes every untaken item that defines name (each #if branch's). */
static void take(struct unit *u, const char *s, size_t n, int *work, int *nr_work)
{
	for (int r = first_ref(u, s, n); r >= 0; r = u->refs[r].next) {
		struct item *it;

		if (u->refs[r].item < 0 || !ref_is(&u->refs[r], s, n))
			continue;
		it = &u->items[u->refs[r].item];
		if (!it->taken) {
			it->taken = true;
			work[(*nr_work)++] = u->refs[r].item;
		}
	}
}

/* Every identifier an item uses (not a member after . or ->) that names an item. */
static void take_uses(struct unit *u, const struct item *it, int *work, int *nr_work)
{
	const char *code = u->code[it->file];

	for (size_t p = it->start; p < it->end;) {
		if (!ident_char(code[p]) || isdigit((unsigned char)code[p])) {
			p++;
			continue;
		}
		size_t len = ident_len(code + p);
		size_t q = p;

		while (q > it->start && isspace((unsigned char)code[q - 1]))
			q--;
		bool member = q > it->start && (code[q - 1] == '.' ||
						 (q > it->start + 1 && code[q - 1] == '>' &&
						  code[q - 2] == '-'));
		if (!member && !on_boundary(u, code + p, len)) {
			if ((len == 6 && !strncmp(code + p, "struct", 6)) ||
			    (len == 5 && !strncmp(code + p, "union", 5)) ||
			    (len == 4 && !strncmp(code + p, "enum", 4))) {
				size_t t = p + len;

				while (isspace((unsigned char)code[t]))
					t++;
				size_t tl = ident_len(code + t);
				if (tl && !on_boundary(u, code + t, tl)) {
					char tag[160];

					snprintf(tag, sizeof(tag), "%.*s %.*s", (int)len, code + p, (int)tl,
						 code + t);
					take(u, tag, strlen(tag), work, nr_work);
				}
				p = t + tl;
				continue;
			}
			take(u, code + p, len, work, nr_work);
		}
		p += len;
	}
}

/* Whether a function's header (its code, up to the body) says inline. */
static bool declared_inline(const struct unit *u, const struct item *it)
{
	const char *code = u->code[it->file];

	for (size_t p = it->start; p < it->body;) {
		size_t q = p;

		while (q < it->body && (isalnum((unsigned char)code[q]) || code[q] == '_'))
			q++;
		if (q == p) {
			p++;
			continue;
		}
		if ((q - p == 6 && !strncmp(code + p, "inline", 6)) ||
		    (q - p == 8 && !strncmp(code + p, "__inline", 8)) ||
		    (q - p == 10 && !strncmp(code + p, "__inline__", 10)) ||
		    (q - p == 15 && !strncmp(code + p, "__always_inline", 15)))
			return true;
		p = q;
	}
	return false;
}

static void emit_item(struct buf *b, const struct unit *u, const struct item *it, bool proto)
{
	const struct extract_file *f = &u->req->files[it->file];

	bput(b, it->ctx, strlen(it->ctx));
	if (it->kind == IT_FUNC && u->req->inline_attr && declared_inline(u, it))
		bprintf(b, "%s\n", u->req->inline_attr);
	bprintf(b, "#line %d \"", it->line);
	/* the path as a C string: quotes, backslashes and newlines escaped */
	for (const char *c = f->path; *c; c++) {
		if (*c == '"' || *c == '\\')
			bput(b, "\\", 1);
		if (*c == '\n')
			bput(b, "\\n", 2);
		else
			bput(b, c, 1);
	}
	bput(b, "\"\n", 2);
	if (proto) {
		bput(b, f->text + it->start, it->body - it->start);
		bput(b, ";\n", 2);
	} else {
		bput(b, f->text + it->start, it->end - it->start);
		bput(b, "\n", 1);
	}
	for (int k = 0; k < it->nr_ctx; k++)
		bput(b, "#endif\n", 7);
}

static bool plain_name(const char *s)
{
	return !strchr(s, ' ');
}

char *kernel_extract(const struct extract_req *req, int *nr_items, char *err, size_t errlen)
{
	struct unit u = { .req = req };
	struct buf out = { 0 };
	int *work = NULL, nr_work = 0, taken = 0;
	char *ret = NULL;

	u.code = calloc((size_t)req->nr_files, sizeof(*u.code));
	if (!u.code)
		goto oom;
	for (int f = 0; f < req->nr_files; f++) {
		u.code[f] = code_only(req->files[f].text);
		if (!u.code[f] || parse_file(&u, f))
			goto oom;
	}
	work = malloc((size_t)(u.nr_items + 1) * sizeof(*work));
	if (!work || index_names(&u))
		goto oom;
	for (int r = 0; r < req->nr_roots; r++) {
		const char *root = req->roots[r];
		bool func = false;

		take(&u, root, strlen(root), work, &nr_work);
		for (int x = first_ref(&u, root, strlen(root)); x >= 0; x = u.refs[x].next)
			func |= u.refs[x].item >= 0 && ref_is(&u.refs[x], root, strlen(root)) &&
				u.items[u.refs[x].item].kind == IT_FUNC;
		if (!func) {
			struct buf files = { 0 };

			for (int f = 0; f < req->nr_files; f++)
				bprintf(&files, "%s%s", f ? ", " : "", req->files[f].name);
			snprintf(err, errlen, "%s is not defined in %s", root, files.s ? files.s : "no file");
			free(files.s);
			goto out;
		}
	}
	for (int w = 0; w < nr_work; w++)
		take_uses(&u, &u.items[work[w]], work, &nr_work);

	bprintf(&out, "/* extracted by ptelab: %d definitions */\n", nr_work);
	/* the tree's names win inside the unit: renamed, or redefined */
	for (int i = 0; i < u.nr_items; i++) {
		const struct item *it = &u.items[i];

		if (!it->taken)
			continue;
		taken++;
		for (int k = 0; k < it->nr_names; k++) {
			const char *nm = it->names[k];

			if (it->kind == IT_MACRO) {
				bprintf(&out, "#undef %s\n", nm);
			} else {
				const char *tag = plain_name(nm) ? nm : strchr(nm, ' ') + 1;

				bprintf(&out, "#undef %s\n#define %s __ptelab_tree_%s\n", tag, tag, tag);
			}
		}
	}
	/* macros and types, then prototypes, variables and functions: each in file order */
	for (int pass = 0; pass < 4; pass++)
		for (int i = 0; i < u.nr_items; i++) {
			const struct item *it = &u.items[i];

			if (!it->taken)
				continue;
			if ((pass == 0 && (it->kind == IT_MACRO || it->kind == IT_TYPE)) ||
			    (pass == 2 && it->kind == IT_VAR) || (pass == 3 && it->kind == IT_FUNC))
				emit_item(&out, &u, it, false);
			else if (pass == 1 && it->kind == IT_FUNC)
				emit_item(&out, &u, it, true);
		}
	if (req->fn_table) {
		bprintf(&out, "static %s[] = {\n", req->fn_table);
		for (int i = 0; i < u.nr_items; i++) {
			const struct item *it = &u.items[i];

			if (!it->taken || it->kind != IT_FUNC)
				continue;
			bput(&out, it->ctx, strlen(it->ctx));
			bprintf(&out, "\t{ (void *)%s, \"%s\" },\n", it->names[0], it->names[0]);
			for (int k = 0; k < it->nr_ctx; k++)
				bput(&out, "#endif\n", 7);
		}
		bprintf(&out, "\t{ 0 }\n};\n");
	}
	if (out.oom)
		goto oom;
	ret = out.s;
	out.s = NULL;
	if (nr_items)
		*nr_items = taken;
	goto out;
oom:
	snprintf(err, errlen, "out of memory extracting core-mm functions");
out:
	free(out.s);
	free(work);
	free(u.refs);
	free(u.bucket);
	for (int i = 0; i < u.nr_items; i++)
		free_item(&u.items[i]);
	free(u.items);
	for (int f = 0; u.code && f < req->nr_files; f++)
		free(u.code[f]);
	free(u.code);
	return ret;
}

bool kernel_extract_has(const char *unit, const char *name)
{
	char want[256];

	/* every taken name is #undef'd at the top, on a line of its own */
	snprintf(want, sizeof(want), "\n#undef %s\n", name);
	return strstr(unit, want) != NULL;
}
