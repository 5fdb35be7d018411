# SPDX-License-Identifier: GPL-2.0-only
# ptelab: `make` builds ./ptelab; `make check` builds the tests with ASan
# and UBSan and runs them (KTAP), then the Python tooling tests.

CC ?= cc
CFLAGS_COMMON := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wno-missing-field-initializers -Wno-format-truncation -I. -g
CFLAGS ?= -O2
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
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) $(LDFLAGS_EXE) -o $@ $^ $(LDLIBS)

$(B)/opt/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS) -c -o $@ $<

$(B)/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -O1 $(SAN) -c -o $@ $<

$(B)/san/tests/%: tests/%.c $(SAN_OBJS) $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) -O1 $(SAN) $(LDFLAGS_EXE) -o $@ $< $(SAN_OBJS) $(LDLIBS)

# The sanitized CLI, for the CLI tests.
$(B)/san/ptelab: $(SAN_OBJS) $(B)/san/cli/main.o
	$(CC) $(CFLAGS_COMMON) -O1 $(SAN) $(LDFLAGS_EXE) -o $@ $^ $(LDLIBS)

check: ptelab $(TEST_BINS) $(B)/san/ptelab
	@tests/run_all.sh $(TEST_BINS)

clean:
	rm -rf $(B) ptelab

# `ptelab --version`: the version and the git commit, rewritten only when they change
PTELAB_VERSION := 0.9
$(B)/version.h: FORCE
	@mkdir -p $(B)
	@c=$$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown); \
	if [ "$$c" != unknown ] && ! git diff --quiet HEAD -- 2>/dev/null; then c="$$c-dirty"; fi; \
	printf '#define PTELAB_VERSION "%s"\n#define PTELAB_COMMIT "%s"\n' "$(PTELAB_VERSION)" "$$c" > $@.tmp; \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi
$(B)/opt/cli/options.o $(B)/san/cli/options.o: $(B)/version.h
FORCE:

# the man page and the bash completion, made from the option tables (cli/options.c)
man: $(B)/ptelab.1
completion: $(B)/ptelab-completion.bash
$(B)/ptelab.1: ptelab
	./ptelab help --man > $@
$(B)/ptelab-completion.bash: ptelab
	./ptelab help --completion > $@

# issue 14's figures and targets, measured in one run (tools/bench.py)
bench: ptelab
	@python3 tools/bench.py

.PHONY: all check clean bench man completion FORCE
