// SPDX-License-Identifier: GPL-2.0-only
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "hw/host.h"
#include "kernel/isolate.h"

/* Records on the pipe: a header, then len bytes. */
enum rec_type { REC_RESULT = 1, REC_CRASH, REC_SAMPLE, REC_EXIT, REC_SANITIZER, REC_HOST_OOM };

struct rec_hdr {
	uint32_t type, len;
};

struct rec_where {
	int signo, si_code, status;
	int nr;
	unsigned long addr, sp;
	unsigned long frames[ISOLATE_MAX_FRAMES];
};

/* The child exits with this after answering the watchdog's SIGUSR2. */
#define SAMPLE_EXIT 124

static int child_fd = -1;

/* Signal-safe: write(2) until done. */
static void write_all(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(child_fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		p += n;
		len -= (size_t)n;
	}
}

static void send_rec(enum rec_type type, const void *buf, size_t len)
{
	struct rec_hdr h = { type, (uint32_t)len };

	if (child_fd < 0)
		return;
	write_all(&h, sizeof(h));
	write_all(buf, len);
}

void isolate_send(const void *buf, size_t len)
{
	send_rec(REC_RESULT, buf, len);
}

static unsigned long context_pc(void *uc)
{
	ucontext_t *u = uc;

	if (!u)
		return 0;
#if defined(__x86_64__)
	return (unsigned long)u->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
	return (unsigned long)u->uc_mcontext.pc;
#else
	return 0;
#endif
}

static unsigned long context_sp(void *uc)
{
	ucontext_t *u = uc;

	if (!u)
		return 0;
#if defined(__x86_64__)
	return (unsigned long)u->uc_mcontext.gregs[REG_RSP];
#elif defined(__aarch64__)
	return (unsigned long)u->uc_mcontext.sp;
#else
	return 0;
#endif
}

/*
 * Where the child is: the interrupted PC first (when a signal gave one),
 * then the callers, without the handler's own frames.
 */
static void fill_frames(struct rec_where *w, unsigned long pc, int skip)
{
	void *bt[ISOLATE_MAX_FRAMES + 8];
	int n = backtrace(bt, ISOLATE_MAX_FRAMES + 8), from = skip;

	w->nr = 0;
	if (pc) {
		w->frames[w->nr++] = pc;
		for (int i = 0; i < n; i++) {
			if ((unsigned long)bt[i] == pc) {
				from = i + 1;
				break;
			}
		}
	}
	for (int i = from; i < n && w->nr < ISOLATE_MAX_FRAMES; i++)
		w->frames[w->nr++] = (unsigned long)bt[i];
}

static void on_signal(int signo, siginfo_t *si, void *uc)
{
	static volatile sig_atomic_t busy;
	struct rec_where w = { .signo = signo, .si_code = si ? si->si_code : 0 };
	sigset_t self;

	/* a fault inside this handler: give up at once */
	if (busy)
		_exit(128 + signo);
	busy = 1;
	/* backtrace() is not async-signal-safe: never let it hang the child */
	alarm(5);
	w.addr = si ? (unsigned long)si->si_addr : 0;
	w.sp = context_sp(uc);
	fill_frames(&w, context_pc(uc), 2);
	if (signo == SIGUSR2) {
		send_rec(REC_SAMPLE, &w, sizeof(w));
		_exit(SAMPLE_EXIT);
	}
	send_rec(REC_CRASH, &w, sizeof(w));
	/* die by the signal itself, so the parent sees it even without the record */
	signal(signo, SIG_DFL);
	sigemptyset(&self);
	sigaddset(&self, signo);
	sigprocmask(SIG_UNBLOCK, &self, NULL);
	raise(signo);
	_exit(128 + signo);
}

/* exit() called by code under test (ptelab's child uses _exit). */
static void on_exit_hook(int status, void *arg)
{
	struct rec_where w = { .status = status };

	(void)arg;
	fill_frames(&w, 0, 2);
	send_rec(REC_EXIT, &w, sizeof(w));
	fflush(stdout);
	_exit(status);
}

static void on_sanitizer_report(const char *report)
{
	size_t n = strlen(report);

	send_rec(REC_SANITIZER, report, n < 4000 ? n : 4000);
}

static void on_host_oom(const char *line)
{
	send_rec(REC_HOST_OOM, line, strlen(line));
}

/* What kernel code can do to itself; anything else came from outside. */
static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };

static bool is_fatal(int signo)
{
	for (unsigned int i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		if (fatal[i] == signo)
			return true;
	return false;
}

static unsigned long long mem_budget;

void isolate_set_memory_budget(unsigned long long bytes)
{
	mem_budget = bytes;
}

/* The child's address space: what it has now plus the run's budget. */
static void limit_memory(void)
{
	unsigned long long pages = 0;
	FILE *f;

	if (!mem_budget || dlsym(RTLD_DEFAULT, "__asan_init"))
		return;
	f = fopen("/proc/self/statm", "r");
	if (!f)
		return;
	if (fscanf(f, "%llu", &pages) == 1) {
		unsigned long long lim = pages * (unsigned long long)sysconf(_SC_PAGESIZE) + mem_budget;
		struct rlimit rl = { lim, lim };

		setrlimit(RLIMIT_AS, &rl);
	}
	fclose(f);
}

static void child_setup(int fd, pid_t parent)
{
	static char altstack[256 << 10]; /* unbounded recursion leaves no stack */
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;
	void (*set_report)(void (*)(const char *));

	child_fd = fd;
	/* a child never outlives ptelab, whatever ends it */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	/* whatever the code under test prints is not ptelab's output */
	dup2(2, 1);
	signal(SIGPIPE, SIG_IGN);
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	/* one record at a time: nothing but the handler's own alarm interrupts it */
	sigfillset(&sa.sa_mask);
	sigdelset(&sa.sa_mask, SIGALRM);
	for (unsigned int i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		sigaction(fatal[i], &sa, NULL);
	sigaction(SIGUSR2, &sa, NULL);
	on_exit(on_exit_hook, NULL);
	host_oom_set_reporter(on_host_oom);
	limit_memory();
	/* an AddressSanitizer runtime, when present, tells us what it found */
	*(void **)&set_report = dlsym(RTLD_DEFAULT, "__asan_set_error_report_callback");
	if (set_report)
		set_report(on_sanitizer_report);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Reads what is there until EOF; false when the deadline passed first. */
static bool read_until(int fd, char **buf, size_t *len, size_t *cap, double deadline)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int wait_ms = -1;

		if (deadline > 0) {
			double left = deadline - now_s();

			if (left <= 0)
				return false;
			wait_ms = (int)(left * 1000) + 1;
		}
		int r = poll(&p, 1, wait_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return false;
		if (*len + 65536 > *cap) {
			*cap = (*cap + 65536) * 2;
			*buf = host_realloc(*buf, *cap, "the result of a run");
		}
		ssize_t n = read(fd, *buf + *len, *cap - *len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return true;
		*len += (size_t)n;
	}
}

static void take_where(struct isolate_report *rep, const struct rec_where *w)
{
	rep->nr_frames = w->nr < 0 ? 0 : w->nr > ISOLATE_MAX_FRAMES ? ISOLATE_MAX_FRAMES : w->nr;
	memcpy(rep->frames, w->frames, sizeof(rep->frames[0]) * (size_t)rep->nr_frames);
}

int isolate_run(void (*fn)(void *arg), void *arg, unsigned int timeout_s,
		struct isolate_report *rep)
{
	int fds[2], status = 0;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	bool timed_out = false;
	pid_t pid, parent = getpid();

	memset(rep, 0, sizeof(*rep));
	if (pipe2(fds, O_CLOEXEC))
		return -1;
	/* buffered output would otherwise be written twice */
	fflush(stdout);
	fflush(stderr);
	/* load the unwinder now: backtrace() in a handler must not dlopen */
	void *warm[2];
	backtrace(warm, 2);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid == 0) {
		close(fds[0]);
		child_setup(fds[1], parent);
		fn(arg);
		fflush(stdout);
		_exit(0);
	}
	close(fds[1]);
	if (!read_until(fds[0], &buf, &len, &cap, timeout_s ? now_s() + timeout_s : 0)) {
		/* ask where it is, then make sure it is gone */
		timed_out = true;
		kill(pid, SIGUSR2);
		if (!read_until(fds[0], &buf, &len, &cap, now_s() + 3))
			kill(pid, SIGKILL);
	}
	close(fds[0]);
	/* the pipe is closed; a child that still does not end is ended */
	double reap_by = now_s() + 3;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			break;
		if (now_s() > reap_by) {
			kill(pid, SIGKILL);
			reap_by = now_s() + 3600;
		}
		usleep(2000);
	}

	bool got_result = false, got_crash = false, got_exit = false;
	for (size_t off = 0; off + sizeof(struct rec_hdr) <= len;) {
		struct rec_hdr h;

		memcpy(&h, buf + off, sizeof(h));
		off += sizeof(h);
		if (h.len > len - off)
			break; /* cut short by a crash mid-write */
		const char *body = buf + off;
		struct rec_where w;

		if ((h.type == REC_CRASH || h.type == REC_SAMPLE || h.type == REC_EXIT) &&
		    h.len == sizeof(w)) {
			memcpy(&w, body, sizeof(w));
			take_where(rep, &w);
			if (h.type == REC_CRASH) {
				got_crash = true;
				rep->signo = w.signo;
				rep->si_code = w.si_code;
				rep->fault_addr = w.addr;
				rep->has_addr = w.signo == SIGSEGV || w.signo == SIGBUS;
				/* a fault just below the stack pointer: the stack ran out */
				rep->stack_overflow = w.signo == SIGSEGV && w.sp &&
						      w.addr + (1UL << 16) > w.sp &&
						      w.addr < w.sp + (1UL << 16);
			} else if (h.type == REC_EXIT) {
				got_exit = true;
				rep->exit_status = w.status;
			}
		} else if (h.type == REC_HOST_OOM) {
			size_t n = h.len < sizeof(rep->message) - 1 ? h.len : sizeof(rep->message) - 1;

			memcpy(rep->message, body, n);
			rep->message[n] = 0;
		} else if (h.type == REC_SANITIZER) {
			size_t n = h.len < sizeof(rep->sanitizer) - 1 ? h.len : sizeof(rep->sanitizer) - 1;

			memcpy(rep->sanitizer, body, n);
			rep->sanitizer[n] = 0;
			got_crash = true;
		} else if (h.type == REC_RESULT && !got_result) {
			rep->payload = host_malloc(h.len ? h.len : 1, "the result of a run");
			memcpy(rep->payload, body, h.len);
			rep->payload_len = h.len;
			got_result = true;
		}
		off += h.len;
	}
	free(buf);

	if (WIFSIGNALED(status) && !rep->signo && !timed_out)
		rep->signo = WTERMSIG(status);
	rep->exit_status = got_exit ? rep->exit_status :
			   WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	if (timed_out)
		rep->outcome = ISOLATE_TIMEOUT;
	else if (got_crash)
		rep->outcome = ISOLATE_CRASH;
	else if (got_exit)
		rep->outcome = ISOLATE_EXIT;
	else if (got_result && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		rep->outcome = ISOLATE_DONE;
	else if (WIFEXITED(status) && WEXITSTATUS(status) == HOST_OOM_EXIT)
		rep->outcome = ISOLATE_HOST_OOM;
	else if (WIFSIGNALED(status) && is_fatal(WTERMSIG(status)))
		rep->outcome = ISOLATE_CRASH; /* died before its handler could speak */
	else if (WIFSIGNALED(status))
		rep->outcome = ISOLATE_KILLED; /* SIGKILL, SIGTERM, ...: not from the code */
	else
		rep->outcome = ISOLATE_LOST;
	if (rep->outcome != ISOLATE_DONE) {
		free(rep->payload);
		rep->payload = NULL;
		rep->payload_len = 0;
	}
	return 0;
}

const char *isolate_signal_name(int signo)
{
	static char buf[32];
	const char *abbrev = sigabbrev_np(signo);

	if (abbrev) {
		snprintf(buf, sizeof(buf), "SIG%s", abbrev);
		return buf;
	}
	snprintf(buf, sizeof(buf), "signal %d", signo);
	return buf;
}
