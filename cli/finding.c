// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a child run's end says about the code it ran: a crash, a hang, an
 * exit() or a sanitizer report, located at the innermost frame of kernel
 * code (function, file:line from the backend's debug info).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli/finding.h"
#include "kernel/symbolize.h"

/* Symbolized frames are few and each costs an addr2line: stop early. */
#define FRAMES_LOOKED_AT 24

/* "    #3 0x7f12abcd in fn file:line" lines of a sanitizer report. */
static int sanitizer_frames(const char *report, unsigned long *frames, int max)
{
	int n = 0;

	for (const char *p = report; p && *p && n < max; p = strchr(p, '\n')) {
		const char *hash;
		unsigned long a;

		/* the first stack only: "freed by" and "allocated by" come after a blank line */
		if (n && p[0] == '\n' && p[1] == '\n')
			break;
		while (*p == '\n' || *p == ' ')
			p++;
		hash = p;
		if (*hash != '#' || !strstr(hash, " 0x"))
			continue;
		a = strtoul(strstr(hash, " 0x") + 1, NULL, 16);
		if (a)
			frames[n++] = a;
	}
	return n;
}

/* "AddressSanitizer: heap-buffer-overflow" from the report's ERROR line. */
static void sanitizer_kind(const char *report, char *out, size_t n)
{
	const char *e = strstr(report, "ERROR: ");
	const char *end;

	if (!e) {
		snprintf(out, n, "sanitizer report");
		return;
	}
	e += 7;
	end = strstr(e, " on ");
	if (!end || strchr(e, '\n') < end)
		end = strchr(e, '\n');
	snprintf(out, n, "%.*s", end ? (int)(end - e) : (int)strlen(e), e);
}

static void where(char *out, size_t n, const struct code_loc *l)
{
	if (l->line)
		snprintf(out, n, "%s (%s:%d)", l->function, l->file, l->line);
	else
		snprintf(out, n, "%s", l->function);
}

void finding_from_report(const struct isolate_report *rep, const char *impl,
			 unsigned int timeout_s, struct run_finding *f)
{
	unsigned long frames[ISOLATE_MAX_FRAMES];
	int nr = rep->nr_frames;
	struct code_loc loc, kernel = { 0 }, innermost = { 0 };
	bool found = false;
	char what[200], at[400] = "", inner[340] = "";

	memset(f, 0, sizeof(*f));
	f->present = true;
	memcpy(frames, rep->frames, sizeof(frames));
	if (rep->sanitizer[0]) {
		nr = sanitizer_frames(rep->sanitizer, frames, ISOLATE_MAX_FRAMES);
		sanitizer_kind(rep->sanitizer, f->sanitizer, sizeof(f->sanitizer));
	}
	for (int i = 0; i < nr && i < FRAMES_LOOKED_AT && !found; i++) {
		/* sanitizer frames are already call sites; ours are return addresses */
		symbolize(frames[i], i > 0 && !rep->sanitizer[0], &loc);
		if (i == 0)
			innermost = loc;
		if (loc.backend) {
			kernel = loc;
			found = true;
		}
	}
	f->in_kernel = found;
	const struct code_loc *l = found ? &kernel : &innermost;
	snprintf(f->function, sizeof(f->function), "%s", l->function);
	snprintf(f->file, sizeof(f->file), "%s", l->file);
	f->line = l->line;
	if (nr > 0)
		where(at, sizeof(at), l);
	if (found && strcmp(innermost.function, kernel.function)) {
		where(inner, sizeof(inner), &innermost);
		snprintf(f->inner, sizeof(f->inner), "%s", inner);
	}

	switch (rep->outcome) {
	case ISOLATE_CRASH:
		if (rep->sanitizer[0]) {
			snprintf(f->kind, sizeof(f->kind), "sanitizer");
			snprintf(what, sizeof(what), "%s", f->sanitizer);
		} else {
			snprintf(f->kind, sizeof(f->kind), "crash");
			snprintf(f->signal, sizeof(f->signal), "%s", isolate_signal_name(rep->signo));
			f->has_addr = rep->has_addr;
			f->fault_addr = rep->fault_addr;
			if (rep->stack_overflow)
				snprintf(what, sizeof(what), "%s (stack overflow) at address 0x%lx", f->signal,
					 rep->fault_addr);
			else if (rep->has_addr)
				snprintf(what, sizeof(what), "%s at address 0x%lx", f->signal, rep->fault_addr);
			else
				snprintf(what, sizeof(what), "%s", f->signal);
		}
		break;
	case ISOLATE_TIMEOUT:
		snprintf(f->kind, sizeof(f->kind), "timeout");
		snprintf(what, sizeof(what), "timeout: no result after %u s (--timeout)", timeout_s);
		break;
	case ISOLATE_EXIT:
		snprintf(f->kind, sizeof(f->kind), "exit");
		f->exit_status = rep->exit_status;
		snprintf(what, sizeof(what), "exit(%d) called", rep->exit_status);
		break;
	default:
		snprintf(f->kind, sizeof(f->kind), "lost");
		f->exit_status = rep->exit_status;
		if (rep->signo)
			snprintf(what, sizeof(what), "killed by %s without a word",
				 isolate_signal_name(rep->signo));
		else
			snprintf(what, sizeof(what), "ended (status %d) without a result", rep->exit_status);
		break;
	}
	char who[300];

	if (found && kernel.version)
		snprintf(who, sizeof(who), "%s (kernel %s)", impl, kernel.version);
	else
		snprintf(who, sizeof(who), "%s", impl);
	/* exit() is called from the kernel code; what is inside it is libc */
	if (rep->outcome == ISOLATE_EXIT)
		inner[0] = f->inner[0] = 0;
	snprintf(f->summary, sizeof(f->summary), "%s: %s%s%s%s%s", who, what,
		 at[0] ? (rep->outcome == ISOLATE_TIMEOUT ? ", running " :
			  rep->outcome == ISOLATE_EXIT ? " from " : " in ") : "",
		 at, inner[0] ? ", inside " : "", inner);
	if (!found && nr > 0 && rep->outcome != ISOLATE_TIMEOUT)
		snprintf(f->summary + strlen(f->summary), sizeof(f->summary) - strlen(f->summary),
			 " (not in kernel code)");
}
