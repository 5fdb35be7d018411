#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/fetch.sh VERSION [BUILD_DIR]
#
# Fetch the few Linux source files a contpte backend needs (arm64 contpte.c,
# its headers, and the core-mm callers for reading) from Debian's
# linux-source-VERSION package into BUILD_DIR/kernels/linux-VERSION/.
#
# Why Debian's .deb: the only network this project can count on is Debian's
# package archive, and linux-source-X.Y carries the whole upstream tree.
# Why a private apt setup: the host's apt configuration (/etc/apt, the
# system lists and caches) must never change, so every apt-get call below
# runs with -o options that point all of its state under BUILD_DIR/apt.
#
# Prints the destination directory on stdout, progress on stderr.  On
# failure it prints one line "ptelab: cannot fetch linux-source-VERSION:
# <reason>; <what to do>" and exits non-zero.  Already-fetched versions are
# skipped.
#
# Environment (all optional):
#   PTELAB_DEBIAN_MIRROR   mirror URL (default http://deb.debian.org/debian)
#   PTELAB_DEBIAN_SUITES   suites searched for linux-source-VERSION
#                          (default "bookworm-backports trixie-backports sid")
#   PTELAB_DEBIAN_KEYRING  trusted keyring (default the system's
#                          /usr/share/keyrings/debian-archive-keyring.gpg)
#   PTELAB_ALLOW_UNVERIFIED=1  when no keyring verifies a suite, read its
#                          package lists unsigned (apt's trusted=yes); off
#                          unless asked for (ptelab kernels fetch
#                          --allow-unverified)

set -euo pipefail

VERSION=${1:-}
PKG="linux-source-${VERSION}"

msg() { printf 'ptelab: %s\n' "$*" >&2; }

# The single failure line promised above: reason, then what to do.
die() {
	printf 'ptelab: cannot fetch %s: %s; %s\n' "$PKG" "$1" "$2" >&2
	exit 1
}

if [[ $# -lt 1 || $# -gt 2 || ! $VERSION =~ ^[0-9]+\.[0-9]+$ ]]; then
	PKG="linux-source-${VERSION:-?}"
	die "bad arguments '$*'" "usage: kernel/fetch.sh VERSION [BUILD_DIR], e.g. kernel/fetch.sh 6.12"
fi

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(dirname "$SCRIPT_DIR")
BUILD_DIR=${2:-$REPO_ROOT/build}
mkdir -p "$BUILD_DIR" 2>/dev/null ||
	die "cannot create build directory $BUILD_DIR" "pass a writable BUILD_DIR"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)

MIRROR=${PTELAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SUITES=${PTELAB_DEBIAN_SUITES:-bookworm-backports trixie-backports sid}
# Suites that carry debian-archive-keyring itself, newest first; only used
# when the host keyring cannot verify one of $SUITES (see bootstrap_keyring).
KEYRING_SUITES="sid trixie bookworm"
SYS_KEYRING=${PTELAB_DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

DEST="$BUILD_DIR/kernels/linux-$VERSION"
STAMP="$DEST/.ptelab-fetched"

# Files contpte.c and its dispatchers need, plus core-mm callers kept for
# reading.  All must exist in the tarball.
REQUIRED_FILES=(
	Makefile
	arch/arm64/mm/contpte.c
	arch/arm64/include/asm/pgtable.h
	arch/arm64/include/asm/pgtable-hwdef.h
	arch/arm64/include/asm/pgtable-prot.h
	arch/arm64/include/asm/tlbflush.h
	arch/arm64/include/asm/cpufeature.h
	include/linux/pgtable.h
	include/linux/mm.h
	mm/memory.c
	mm/rmap.c
	mm/internal.h
	mm/vmscan.c
	# the core-mm roots a backend runs from its tree (kernel/core_roots.c)
	mm/util.c
	mm/mlock.c
)
# Nice to have, for reading: licence text, pte types, tlb batching, the
# out-of-line __ptep_set_access_flags (fault.c), cydp_t/init_mm
# (mm_types.h), the core-mm files ptelab's mm/
# mirrors, and KVM's secondary-MMU aging (S3). Missing ones are only
# reported.
OPTIONAL_FILES=(
	COPYING
	LICENSES/preferred/GPL-2.0
	arch/arm64/include/asm/pgtable-types.h
	arch/arm64/include/asm/tlb.h
	arch/arm64/mm/hugetlbpage.c
	arch/arm64/mm/fault.c
	# modify_prot_start_ptes/modify_prot_commit_ptes (mprotect's batch)
	arch/arm64/mm/mmu.c
	include/linux/mm_types.h
	# core-mm ptelab mirrors (read to pin mm/ to a version)
	mm/madvise.c
	mm/mprotect.c
	mm/mremap.c
	mm/pagewalk.c
	mm/gup.c
	mm/mmap.c
	mm/mmu_gather.c
	mm/huge_memory.c
	mm/page_vma_mapped.c
	include/linux/pagewalk.h
	include/linux/rmap.h
	include/asm-generic/tlb.h
	# secondary-MMU aging (S3)
	include/linux/mmu_notifier.h
	mm/mmu_notifier.c
	virt/kvm/kvm_main.c
	arch/arm64/kvm/mmu.c
	arch/arm64/kvm/hyp/pgtable.c
	arch/x86/kvm/mmu/tdp_mmu.c
	arch/x86/kvm/mmu/mmu.c
	# KUnit's KTAP parser: make check's one document is checked with it
	tools/testing/kunit/kunit_parser.py
	tools/testing/kunit/kunit_printer.py
)

# Idempotence: a completed fetch leaves a stamp naming the file list it was
# made with; nothing to do while that list is unchanged.
FILES_ID=$(printf '%s\n' "${REQUIRED_FILES[@]}" "${OPTIONAL_FILES[@]}" | cksum | cut -d' ' -f1)
is_cached() {
	[[ -f $STAMP ]] && grep -qx "files=$FILES_ID" "$STAMP"
}
if is_cached; then
	msg "$PKG already fetched in $DEST"
	printf '%s\n' "$DEST"
	exit 0
fi

for tool in apt-get apt-cache dpkg-deb tar xz; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "'$tool' is not installed" "run this on a Debian-based host with apt, dpkg and xz-utils"
done

APT_DIR="$BUILD_DIR/apt"
LOG="$APT_DIR/apt.log"
mkdir -p "$APT_DIR/keyrings"

# Serialise concurrent runs sharing one BUILD_DIR: they share the apt state.
if command -v flock >/dev/null 2>&1; then
	exec 9>"$APT_DIR/fetch.lock"
	flock 9
	LOCKED=1
	if is_cached; then # another run fetched it while we waited
		msg "$PKG already fetched in $DEST"
		printf '%s\n' "$DEST"
		exit 0
	fi
fi

: >"$LOG"
# A fetch killed earlier (SIGKILL skips the EXIT trap) leaves its temporary
# directory; we hold the lock, so no other fetch is using one now.
if [[ ${LOCKED:-0} == 1 ]]; then
	for stale in "$BUILD_DIR"/.fetch-*; do
		if [[ -d $stale ]]; then
			rm -rf "$stale"
			msg "removed $(basename "$stale") left by an interrupted fetch"
		fi
	done
fi
TMP=$(mktemp -d "$BUILD_DIR/.fetch-$VERSION.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

# apt_opts ROOT: -o options that make apt-get/apt-cache use only ROOT for
# sources, trust, preferences, lists, caches and the (empty) dpkg status, so
# the system configuration and state are neither read for sources nor
# written.  apt.conf.d is still read so host proxy settings keep working.
apt_opts() {
	local r=$1
	APT_OPTS=(
		-o "Dir::Etc::SourceList=$r/sources.list"
		-o "Dir::Etc::SourceParts=$r/empty.d"
		-o "Dir::Etc::Trusted=$r/trusted.gpg"
		-o "Dir::Etc::TrustedParts=$r/empty.d"
		-o "Dir::Etc::Preferences=$r/preferences"
		-o "Dir::Etc::PreferencesParts=$r/empty.d"
		-o "Dir::State=$r/state"
		-o "Dir::State::Lists=$r/state/lists"
		-o "Dir::State::status=$r/state/status"
		-o "Dir::State::extended_states=$r/state/extended_states"
		-o "Dir::Cache=$r/cache"
		-o "Dir::Cache::Archives=$r/cache/archives"
		-o "Dir::Cache::pkgcache="
		-o "Dir::Cache::srcpkgcache="
		# Only the Packages index: no translations, Contents or AppStream.
		-o "Acquire::Languages=none"
		# The private dirs live under BUILD_DIR, which the _apt download
		# user may not be able to reach; download as the caller instead.
		-o "APT::Sandbox::User=$(id -un)"
		-q
	)
}

# write_sources ROOT OPTIONS SUITE...: one-line sources restricted to the
# Packages target of main.
write_sources() {
	local r=$1 opts=$2 s
	shift 2
	# empty.d stands for the *.d directories apt must not take from /etc.
	mkdir -p "$r/state/lists/partial" "$r/cache/archives/partial" "$r/empty.d"
	: >"$r/state/status"
	for s in "$@"; do
		printf 'deb [target=Packages %s] %s %s main\n' "$opts" "$MIRROR" "$s"
	done >"$r/sources.list"
}

# apt_update ROOT: refresh ROOT's lists from scratch (so an old verified
# InRelease cannot hide a failing one); set MISSING to the suites the mirror
# does not have and UNVERIFIED to those whose InRelease apt did not accept.
apt_update() {
	local r=$1 s
	apt_opts "$r"
	rm -rf "$r/state/lists"
	mkdir -p "$r/state/lists/partial"
	apt-get "${APT_OPTS[@]}" update >"$r/update.log" 2>&1 || true
	cat "$r/update.log" >>"$LOG"
	UNVERIFIED=() MISSING=()
	# The suite is the second-to-last field of each one-line source.
	# shellcheck disable=SC2013
	for s in $(awk '{print $(NF-1)}' "$r/sources.list"); do
		if compgen -G "$r/state/lists/*_dists_${s}_InRelease" >/dev/null; then
			continue
		elif grep -qF " $s Release' does not have a Release file" "$r/update.log"; then
			MISSING+=("$s")
		else
			UNVERIFIED+=("$s")
		fi
	done
}

# Keyrings apt may use: the host's archive keyring, plus a newer one
# bootstrapped earlier into BUILD_DIR/apt/keyrings.
PRIV_KEYRING="$APT_DIR/keyrings/debian-archive-keyring.pgp"
signed_by() {
	local k list=()
	for k in "$SYS_KEYRING" "$PRIV_KEYRING"; do
		[[ -s $k ]] && list+=("$k")
	done
	local IFS=,
	[[ ${#list[@]} -gt 0 ]] && printf 'signed-by=%s' "${list[*]}"
	return 0
}

# When the host keyring is too old for a suite (e.g. bookworm without the
# trixie or forky keys), fetch debian-archive-keyring from a suite the host
# keyring *does* verify, and keep its keyring under BUILD_DIR only; it is
# never installed system-wide.
bootstrap_keyring() {
	local r="$APT_DIR/keyring-bootstrap" sb d k
	sb=$(signed_by)
	[[ -n $sb ]] || return 1
	# shellcheck disable=SC2086
	write_sources "$r" "$sb" $KEYRING_SUITES
	apt_update "$r"
	[[ ${#UNVERIFIED[@]} -lt $(wc -w <<<"$KEYRING_SUITES") ]] || return 1
	d="$TMP/keyring"
	mkdir -p "$d"
	(cd "$d" && apt-get "${APT_OPTS[@]}" download debian-archive-keyring) >>"$LOG" 2>&1 ||
		return 1
	dpkg-deb -x "$d"/debian-archive-keyring_*.deb "$d/x" || return 1
	# Newer packages ship .pgp files with .gpg symlinks; take a regular file
	# so a symlink can never point back at the host's keyring.
	for k in "$d/x/usr/share/keyrings/debian-archive-keyring.pgp" \
		"$d/x/usr/share/keyrings/debian-archive-keyring.gpg"; do
		if [[ -f $k && ! -L $k ]]; then
			cp "$k" "$PRIV_KEYRING.new" && mv "$PRIV_KEYRING.new" "$PRIV_KEYRING"
			msg "using debian-archive-keyring $(basename "$d"/debian-archive-keyring_*.deb .deb | cut -d_ -f2) from BUILD_DIR/apt/keyrings"
			return 0
		fi
	done
	return 1
}

has_package() {
	apt-cache "${APT_OPTS[@]}" show "$PKG" >/dev/null 2>&1
}

available_versions() {
	apt-cache "${APT_OPTS[@]}" pkgnames linux-source- 2>/dev/null |
		sed -n 's/^linux-source-\([0-9][0-9.]*\)$/\1/p' | sort -V | tr '\n' ' ' | sed 's/ $//'
}

MAIN="$APT_DIR/main"
# shellcheck disable=SC2086
write_sources "$MAIN" "$(signed_by)" $SUITES
msg "updating private package lists ($SUITES) from $MIRROR"
apt_update "$MAIN"

if grep -qE 'Could not resolve|Could not connect|Failed to fetch|Temporary failure|Connection failed' "$LOG" &&
	[[ ${#UNVERIFIED[@]} -eq $(wc -w <<<"$SUITES") ]] &&
	! grep -qE 'NO_PUBKEY|EXPKEYSIG|KEYEXPIRED|not signed' "$LOG"; then
	die "cannot reach $MIRROR (details in $LOG)" "check the network or set PTELAB_DEBIAN_MIRROR"
fi

if [[ ${#UNVERIFIED[@]} -gt 0 ]] && ! has_package && [[ ! -s $PRIV_KEYRING ]]; then
	msg "host keyring cannot verify: ${UNVERIFIED[*]}; bootstrapping a newer debian-archive-keyring"
	main_unverified=("${UNVERIFIED[@]}") main_missing=("${MISSING[@]}")
	if bootstrap_keyring; then
		# shellcheck disable=SC2086
		write_sources "$MAIN" "$(signed_by)" $SUITES
		apt_update "$MAIN"
	else
		msg "could not bootstrap a newer keyring (details in $LOG)"
		# bootstrap_keyring's apt_update clobbered these; restore them.
		UNVERIFIED=("${main_unverified[@]}") MISSING=("${main_missing[@]}")
	fi
	apt_opts "$MAIN"
fi

if [[ ${#UNVERIFIED[@]} -gt 0 ]] && ! has_package; then
	# LAST RESORT, only when asked for: no keyring we can obtain verifies
	# these suites, and the package is not in any verified one.
	# trusted=yes makes apt accept them unsigned, so whoever controls the
	# network path could hand us any kernel source; only those suites get
	# it, and we say so loudly.
	if [[ ${PTELAB_ALLOW_UNVERIFIED:-0} != 1 ]]; then
		die "no available keyring verifies ${UNVERIFIED[*]} (details in $LOG)" \
			"install a newer debian-archive-keyring, or accept unsigned package lists with 'ptelab kernels fetch --allow-unverified $VERSION' (anyone on the network path could then substitute the source)"
	fi
	msg "WARNING: using UNVERIFIED (trusted=yes) package lists for: ${UNVERIFIED[*]}"
	{
		for s in $SUITES; do
			if [[ " ${UNVERIFIED[*]} " == *" $s "* ]]; then
				printf 'deb [target=Packages trusted=yes] %s %s main\n' "$MIRROR" "$s"
			else
				printf 'deb [target=Packages %s] %s %s main\n' "$(signed_by)" "$MIRROR" "$s"
			fi
		done
	} >"$MAIN/sources.list"
	apt_update "$MAIN"
fi

if ! has_package; then
	[[ ${#MISSING[@]} -eq 0 ]] || msg "note: $MIRROR has no suite ${MISSING[*]}"
	avail=$(available_versions)
	if [[ -n $avail ]]; then
		die "not found in $SUITES (available: $avail)" "pick one of the available versions"
	fi
	die "no package lists could be loaded (details in $LOG)" "check the network, PTELAB_DEBIAN_MIRROR and keyrings"
fi

pkgver=$(apt-cache "${APT_OPTS[@]}" policy "$PKG" 2>/dev/null | awk '/Candidate:/ {print $2}')
size=$(apt-cache "${APT_OPTS[@]}" show "$PKG=$pkgver" 2>/dev/null | awk '/^Size:/ {print $2; exit}')
msg "downloading $PKG $pkgver${size:+ ($((size >> 20)) MiB)}"
start=$SECONDS
(cd "$TMP" && apt-get "${APT_OPTS[@]}" download "$PKG") >>"$LOG" 2>&1 &
dl=$!
# progress: what has arrived so far, rewritten in place on a terminal,
# a line every 10 s in a log
tty=0
[[ -t 2 ]] && tty=1
shown=$SECONDS
while kill -0 "$dl" 2>/dev/null; do
	sleep 1
	got=$(find "$TMP" -maxdepth 2 -type f -printf '%s\n' 2>/dev/null | awk '{s += $1} END {print s + 0}')
	if ((tty)) || ((SECONDS - shown >= 10)); then
		shown=$SECONDS
		line="ptelab: downloaded $((got >> 20))${size:+/$((size >> 20))} MiB in $((SECONDS - start))s"
		if ((tty)); then printf '\r%s' "$line" >&2; else printf '%s\n' "$line" >&2; fi
	fi
done
((tty)) && printf '\n' >&2
wait "$dl" || die "download failed (details in $LOG)" "check the network and retry"
deb=$(compgen -G "$TMP/${PKG}_*.deb" | head -n1) ||
	die "apt-get download produced no .deb (details in $LOG)" "retry; report if it persists"
msg "downloaded $(du -h "$deb" | cut -f1) in $((SECONDS - start))s"

# The .deb holds one big usr/src/linux-source-VERSION.tar.xz; pull only
# that member out, then only the listed files out of it.
msg "unpacking the needed files"
inner="usr/src/$PKG.tar.xz"
dpkg-deb --fsys-tarfile "$deb" | tar -xf - -C "$TMP" "./$inner" 2>>"$LOG" ||
	die "$deb has no $inner" "the package layout changed; update kernel/fetch.sh"
rm -f "$deb"

STAGE="$TMP/tree"
mkdir -p "$STAGE"
members=()
for f in "${REQUIRED_FILES[@]}" "${OPTIONAL_FILES[@]}"; do
	members+=("$PKG/$f")
done
# tar exits non-zero if an optional member is absent; the checks below
# decide what really matters.
tar -xJf "$TMP/$inner" -C "$STAGE" --strip-components=1 "${members[@]}" 2>>"$LOG" || true
rm -f "$TMP/$inner"

for f in "${REQUIRED_FILES[@]}"; do
	[[ -f $STAGE/$f ]] ||
		die "$f is missing from the source tarball" "this version lacks contpte support; use 6.9 or newer"
done
for f in "${OPTIONAL_FILES[@]}"; do
	[[ -f $STAGE/$f ]] || msg "note: optional $f not in $PKG"
done

printf 'package=%s\nversion=%s\nfiles=%s\nfetched=%s\n' "$PKG" "$pkgver" "$FILES_ID" \
	"$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$STAGE/.ptelab-fetched"
# Publish atomically so a half-unpacked tree is never mistaken for a cache.
mkdir -p "$BUILD_DIR/kernels"
rm -rf "$DEST"
mv "$STAGE" "$DEST"
msg "$PKG $pkgver ready in $DEST (total $((SECONDS))s)"
printf '%s\n' "$DEST"
