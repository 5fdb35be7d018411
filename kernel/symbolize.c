// SPDX-License-Identifier: GPL-2.0-only
#include <dlfcn.h>
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/backend.h"
#include "kernel/spawn.h"
#include "kernel/symbolize.h"

/* Trim a build path to the part a developer recognises. */
static void short_file(const char *path, char *out, size_t n)
{
	static const char *const tops[] = { "/arch/arm64/", "/arch/", "/mm/", "/hw/", "/kernel/",
					    "/workloads/", "/cli/", "/include/" };

	for (unsigned int i = 0; i < sizeof(tops) / sizeof(tops[0]); i++) {
		const char *p = strstr(path, tops[i]);

		if (p) {
			snprintf(out, n, "%s", p + 1);
			return;
		}
	}
	snprintf(out, n, "%s", path);
}

/* A tree's core-mm function is renamed inside its unit (kernel/extract.c): its own name. */
static void tree_name(char *function)
{
	if (!strncmp(function, "__ptelab_tree_", 14))
		memmove(function, function + 14, strlen(function + 14) + 1);
}

void symbolize(unsigned long addr, bool return_address, struct code_loc *loc)
{
	Dl_info info;
	char off[32], *argv[6], *text = NULL;

	memset(loc, 0, sizeof(*loc));
	snprintf(loc->function, sizeof(loc->function), "??");
	if (!addr || !dladdr((void *)addr, &info) || !info.dli_fname)
		return;
	snprintf(loc->object, sizeof(loc->object), "%s", info.dli_fname);
	if (info.dli_sname)
		snprintf(loc->function, sizeof(loc->function), "%s", info.dli_sname);
	loc->backend = kernel_backend_of_object(info.dli_fname, &loc->version);

	/* addr2line wants offsets into position-independent objects */
	unsigned long a = addr - (return_address ? 1 : 0);
	const Elf64_Ehdr *eh = info.dli_fbase;
	if (eh && eh->e_type == ET_DYN)
		a -= (unsigned long)info.dli_fbase;
	snprintf(off, sizeof(off), "0x%lx", a);
	argv[0] = "addr2line";
	argv[1] = "-f";
	argv[2] = "-e";
	argv[3] = loc->object;
	argv[4] = off;
	argv[5] = NULL;
	if (spawn_run(argv, SPAWN_CAPTURE_STDOUT, &text) != 0 || !text) {
		free(text);
		tree_name(loc->function);
		return;
	}
	char *nl = strchr(text, '\n');
	if (nl) {
		*nl = 0;
		if (strcmp(text, "??"))
			snprintf(loc->function, sizeof(loc->function), "%s", text);
		char *fl = nl + 1, *end = strchr(fl, '\n'), *colon;

		if (end)
			*end = 0;
		/* "path:line" or "path:line (discriminator N)" */
		char *sp = strchr(fl, ' ');
		if (sp)
			*sp = 0;
		colon = strrchr(fl, ':');
		if (colon && strncmp(fl, "??", 2)) {
			*colon = 0;
			loc->line = atoi(colon + 1);
			short_file(fl, loc->file, sizeof(loc->file));
		}
	}
	free(text);
	tree_name(loc->function);
}
