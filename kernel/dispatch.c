// SPDX-License-Identifier: GPL-2.0-only
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/dispatch.h"

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
	char head[4200];
	int h = snprintf(head, sizeof(head), "#line %d \"%s\"\n", first_line, path);
	char *out = malloc((size_t)h + n + 2);

	if (!out)
		return NULL;
	memcpy(out, head, (size_t)h);
	memcpy(out + h, from, n);
	out[h + n] = '\n';
	out[h + n + 1] = 0;
	return out;
}

int dispatch_block_split(const char *text, const char *path, char **cont, char **nocont,
			 char *missing, size_t len)
{
	const char *start = NULL, *els = NULL, *end = NULL, *rest;
	int depth = 0, line = 0, start_line = 0, els_line = 0;

	*cont = *nocont = NULL;
	for (const char *p = text; *p && !end; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
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
		} else if (directive(p, "endif", NULL) && --depth == 0) {
			end = p;
		}
		if (!strchr(p, '\n'))
			break;
	}
	if (!start || !els || !end) {
		snprintf(missing, len, "%s", !start ? "#ifdef CONFIG_ARM64_CONTPTE" :
			 !els ? "#else /* CONFIG_ARM64_CONTPTE */" : "#endif /* CONFIG_ARM64_CONTPTE */");
		return -1;
	}
	*cont = part(path, start_line, start + 1, els);
	*nocont = part(path, els_line + 1, strchr(els, '\n') + 1, end);
	if (!*cont || !*nocont) {
		free(*cont);
		free(*nocont);
		snprintf(missing, len, "memory");
		return -1;
	}
	return 0;
}
