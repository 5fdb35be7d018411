# SPDX-License-Identifier: GPL-2.0-only
# ptelab: `make` builds ./ptelab; `make check` builds the tests with ASan
# and UBSan and runs them (KTAP), then the Python tooling tests.

CC ?= cc
PREFIX ?= /usr/local
# Warnings fail the build only when asked (W=e; CI asks): a newer compiler's
# new warning must not stop a user's build.
WERROR := $(if $(filter e,$(W)),-Werror)
# Flags not every compiler knows (clang has no -Wformat-truncation; the
# kernel's own struct mmu_gather embeds a flexible-array struct, a GNU
# extension clang warns about)
cc-option = $(shell $(CC) -Werror $(1) -x c -c /dev/null -o /dev/null 2>/dev/null && echo $(1))
# -ffp-contract=off: no fused multiply-adds, so every compiler sums modelled time
# to the same last bit (GCC in C11 mode does not contract; clang would)
CFLAGS_COMMON := -std=c11 -D_GNU_SOURCE -ffp-contract=off -Wall -Wextra -Wshadow $(WERROR) -Wno-unused-parameter \
	-Wno-missing-field-initializers $(call cc-option,-Wno-format-truncation) \
	$(call cc-option,-Wno-gnu-variable-sized-type-not-at-end) -I. -g
CFLAGS ?= -O2
# kbuild-style quiet lines; V=1 prints every command in full
quiet = $(if $(filter 1,$(V)),,@printf '  %-8s %s\n' '$(1)' '$(2)';)
LDLIBS := -lm -ldl
# -rdynamic: kernel backends (shared objects) call the raw operations.
LDFLAGS_EXE := -rdynamic

LIB_SRCS := $(wildcard hw/*.c) $(wildcard arch/*.c) $(wildcard arch/arm64/*.c) \
	$(wildcard arch/x86/*.c) $(wildcard mm/*.c) $(wildcard lab/*.c) $(wildcard workloads/*.c) \
	$(wildcard kernel/*.c) $(wildcard sim/*.c) $(wildcard virt/*.c) \
	$(filter-out cli/main.c,$(wildcard cli/*.c))
HDRS := $(wildcard include/*.h hw/*.h arch/*.h arch/*/*.h mm/*.h lab/*.h workloads/*.h cli/*.h kernel/*.h sim/*.h virt/*.h tests/*.h)

B := build
OBJS := $(LIB_SRCS:%.c=$(B)/opt/%.o)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_OBJS := $(LIB_SRCS:%.c=$(B)/san/%.o)

TEST_SRCS := $(wildcard tests/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/%.c=$(B)/san/tests/%)

all: ptelab

ptelab: $(OBJS) $(B)/opt/cli/main.o
	$(call quiet,LD,$@)$(CC) $(CFLAGS_COMMON) $(CFLAGS) $(LDFLAGS_EXE) -o $@ $^ $(LDLIBS)

$(B)/opt/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CFLAGS_COMMON) $(CFLAGS) -c -o $@ $<

$(B)/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(call quiet,CC [san],$<)$(CC) $(CFLAGS_COMMON) -O1 $(SAN) -c -o $@ $<

$(B)/san/tests/%: tests/%.c $(SAN_OBJS) $(HDRS)
	@mkdir -p $(dir $@)
	$(call quiet,LD [san],$@)$(CC) $(CFLAGS_COMMON) -O1 $(SAN) $(LDFLAGS_EXE) -o $@ $< $(SAN_OBJS) $(LDLIBS)

# The sanitized CLI, for the CLI tests.
$(B)/san/ptelab: $(SAN_OBJS) $(B)/san/cli/main.o
	$(call quiet,LD [san],$@)$(CC) $(CFLAGS_COMMON) -O1 $(SAN) $(LDFLAGS_EXE) -o $@ $^ $(LDLIBS)

# The Python packages the tools' tests need (numpy/scipy for fit, Dask for
# campaigns), installed into build/pydeps where the tools look, unless the
# interpreter has them: the test command needs nothing installed by hand.
PYREQS := tools/requirements-fit.txt tools/requirements-campaign.txt
$(B)/pydeps.stamp: $(PYREQS)
	@mkdir -p $(B)
	@PYTHONPATH=$(B)/pydeps python3 -c 'import scipy.optimize, distributed' 2>/dev/null || \
		{ echo "  PIP      $(PYREQS) -> $(B)/pydeps"; \
		  python3 -m pip install --quiet --disable-pip-version-check --target $(B)/pydeps \
			$(foreach r,$(PYREQS),-r $(r)); } || \
		{ echo "make: cannot install $(PYREQS) into $(B)/pydeps (pip, network?)" >&2; exit 1; }
	@touch $@

# make check T=GLOB: only the suites whose name matches (tests/run_all.sh --only)
check: ptelab $(TEST_BINS) $(B)/san/ptelab $(B)/pydeps.stamp
	@tests/run_all.sh $(if $(T),--only '$(T)') $(TEST_BINS)

# the quick tier (issue 47): every C suite, the Python tests not marked slow
check-quick: ptelab $(TEST_BINS) $(B)/san/ptelab $(B)/pydeps.stamp
	@tests/run_all.sh --quick $(if $(T),--only '$(T)') $(TEST_BINS)

clean:
	rm -rf $(B) ptelab

# `ptelab --version`: the version and the git commit, rewritten only when they change
PTELAB_VERSION := 0.9
$(B)/version.h: FORCE
	@mkdir -p $(B)
	@c=$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown); \
	if [ "$$c" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then c="$$c-dirty"; fi; \
	printf '#define PTELAB_VERSION "%s"\n#define PTELAB_COMMIT "%s"\n#define PTELAB_DATADIR "%s"\n' \
		"$(PTELAB_VERSION)" "$$c" "$(PREFIX)/share/ptelab" > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(B)/opt/cli/options.o $(B)/san/cli/options.o $(B)/opt/lab/paths.o $(B)/san/lab/paths.o: $(B)/version.h
FORCE:

# the man page and the bash completion, made from the option tables (cli/options.c)
man: $(B)/ptelab.1
completion: $(B)/ptelab-completion.bash
$(B)/ptelab.1: ptelab
	./ptelab help --man > $@
$(B)/ptelab-completion.bash: ptelab
	./ptelab help --completion > $@

# make install PREFIX=/usr/local DESTDIR=: the binary; its data (profiles,
# published figures, tools) and what it builds kernel backends from (the
# shim and the lab's headers) under PREFIX/share/ptelab, where the binary
# looks (lab/paths.c); the man page and the bash completion.
SHARE := $(DESTDIR)$(PREFIX)/share/ptelab
install: ptelab $(B)/ptelab.1 $(B)/ptelab-completion.bash
	install -d $(DESTDIR)$(PREFIX)/bin $(SHARE)/profiles $(SHARE)/data $(SHARE)/tools \
		$(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 ptelab $(DESTDIR)$(PREFIX)/bin/ptelab
	install -m 644 profiles/*.prof $(SHARE)/profiles/
	install -m 644 data/* $(SHARE)/data/
	install -m 644 tools/*.py tools/*.txt $(SHARE)/tools/
	for f in $(filter-out tests/%,$(HDRS)) $$(find kernel/shim -type f); do \
		install -D -m 644 $$f $(SHARE)/$$f || exit 1; done
	install -m 755 kernel/fetch.sh $(SHARE)/kernel/fetch.sh
	install -m 644 $(B)/ptelab.1 $(DESTDIR)$(PREFIX)/share/man/man1/ptelab.1
	install -m 644 $(B)/ptelab-completion.bash \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/ptelab

# for clangd and other tools: how each file is compiled
compile_commands.json: FORCE
	@python3 -c 'import json, sys; print(json.dumps([{"directory": sys.argv[1], "file": f, \
		"command": sys.argv[2] + " -c -o build/opt/" + f[:-2] + ".o " + f} for f in sys.argv[3:]], \
		indent=1))' "$(CURDIR)" "$(CC) $(CFLAGS_COMMON) $(CFLAGS)" $(LIB_SRCS) cli/main.c > $@

# what users wait for, against issue 47's targets, measured in one run (tools/bench.py)
bench: ptelab
	@python3 tools/bench.py

.PHONY: all check check-quick clean bench man completion install FORCE
