// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dispatch.h"
#include "kernel/quirks.h"

/* A preprocessor line "# word ..." (spaces allowed around the #): its word. */
static bool directive(const char *line, const char *word, const char **rest)
{
	size_t n = strlen(word);

	while (*line == ' ' || *line == '\t')
		line++;
	if (*line++ != '#')
		return false;
	while (*line == ' ' || *line == '\t')
		line++;
	if (strncmp(line, word, n) || isalnum((unsigned char)line[n]) || line[n] == '_')
		return false;
	if (rest)
		*rest = line + n;
	return true;
}

static char *part(const char *path, int first_line, const char *from, const char *to)
{
	size_t n = (size_t)(to - from);
	char head[8500], quoted[8300];
	size_t q = 0;

	/* the path as a C string: a quote, backslash or newline in it escaped */
	for (const char *c = path; *c && q + 3 < sizeof(quoted); c++) {
		if (*c == '"' || *c == '\\')
			quoted[q++] = '\\';
		if (*c == '\n') {
			quoted[q++] = '\\';
			quoted[q++] = 'n';
		} else {
			quoted[q++] = *c;
		}
	}
	quoted[q] = 0;
	int h = snprintf(head, sizeof(head), "#line %d \"%s\"\n", first_line, quoted);
	char *out = malloc((size_t)h + n + 2);

	if (!out)
		return NULL;
	memcpy(out, head, (size_t)h);
	memcpy(out + h, from, n);
	out[h + n] = '\n';
	out[h + n + 1] = 0;
	return out;
}

/*
 * Directives are found in a copy with comments and strings blanked (same
 * offsets, code_only()), so a commented-out "#endif" or "#else" inside the
 * block is not taken for the block's; the parts are cut from the original.
 */
int dispatch_block_split(const char *text, const char *path, char **cont, char **nocont,
			 char *missing, size_t len)
{
	char *code = code_only(text);
	const char *start = NULL, *els = NULL, *end = NULL, *rest;
	int depth = 0, line = 0, start_line = 0, els_line = 0;
	bool elif = false;

	*cont = *nocont = NULL;
	if (!code) {
		snprintf(missing, len, "memory");
		return -1;
	}
	for (const char *p = code; *p && !end; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
		line++;
		if (!start) {
			if (directive(p, "ifdef", &rest)) {
				while (*rest == ' ' || *rest == '\t')
					rest++;
				if (!strncmp(rest, "CONFIG_ARM64_CONTPTE", 20) &&
				    !isalnum((unsigned char)rest[20]) && rest[20] != '_') {
					start = strchr(p, '\n');
					start_line = line + 1;
					depth = 1;
					els = NULL;
					elif = false;
				}
			}
			if (!start && !strchr(p, '\n'))
				break;
			continue;
		}
		if (directive(p, "if", NULL) || directive(p, "ifdef", NULL) || directive(p, "ifndef", NULL)) {
			depth++;
		} else if (depth == 1 && directive(p, "else", NULL)) {
			els = p;
			els_line = line;
		} else if (depth == 1 && directive(p, "elif", NULL)) {
			elif = true;
		} else if (directive(p, "endif", NULL) && --depth == 0) {
			if (els && !elif)
				end = p;
			else
				start = NULL; /* not the block: look for the next one */
		}
		if (!strchr(p, '\n'))
			break;
	}
	if (!start || !els || !end) {
		snprintf(missing, len, "%s", elif ? "#else (it has an #elif, which ptelab cannot cut)" :
			 !start && !start_line ? "#ifdef CONFIG_ARM64_CONTPTE" :
			 !els ? "#else /* CONFIG_ARM64_CONTPTE */" : "#endif /* CONFIG_ARM64_CONTPTE */");
		free(code);
		return -1;
	}
	/* the same offsets in the original text */
	const char *o_start = text + (start - code), *o_els = text + (els - code), *o_end = text + (end - code);
	free(code);
	*cont = part(path, start_line, o_start + 1, o_els);
	*nocont = part(path, els_line + 1, strchr(o_els, '\n') + 1, o_end);
	if (!*cont || !*nocont) {
		free(*cont);
		free(*nocont);
		snprintf(missing, len, "memory");
		return -1;
	}
	return 0;
}
