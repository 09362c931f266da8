#!/usr/bin/env bash
# Installing, as a user or a package would (never into the real system):
#   1. `cmake --install` into a fresh DESTDIR: the binaries, the man page, bash and zsh
#      completion are where Debian looks for them, and the installed binary runs the samples;
#   2. `cpack -G DEB` builds a .deb whose Depends (dpkg-shlibdeps) name the libraries it
#      links, whose files are those of 1 under /usr, and whose binary, extracted with
#      `dpkg-deb -x`, runs the samples;
#   3. `leasetrail version` names the commit, and a source tree that is no git checkout
#      configures with the commit "unknown".
# Usage: install-package.sh BUILD_DIR SAMPLES TMP CMAKE CPACK
set -euo pipefail
build=$(realpath "$1") samples=$(realpath "$2") tmp=$3 cmake=$4 cpack=$5
src=$(cd "$samples/.." && pwd)
rm -rf "$tmp" && mkdir -p "$tmp" && cd "$tmp"
tmp=$PWD

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
for tool in dpkg-deb dpkg-shlibdeps file gzip; do
	command -v $tool >/dev/null 2>&1 || fail "$tool is missing (apt-get install dpkg-dev file gzip)"
done

# Runs an installed leasetrail on the samples: ingest, nodes, the deleted node's timeline.
run_samples() { # BINARY WHAT
	"$1" version >version.out || fail "$2: version"
	grep -qE '^SQLite  3\.' version.out && grep -qE '^yajl    2\.' version.out &&
		grep -qE '^PCRE2   10\.' version.out || fail "$2: version lacks a library: $(cat version.out)"
	"$1" ingest -q --db "$2.db" "$samples/audit" "$samples/logs" >/dev/null || fail "$2: ingest"
	"$1" nodes --db "$2.db" >nodes.out || fail "$2: nodes"
	grep -q '^ip-10-0-241-171.ec2.internal  *re-created' nodes.out || fail "$2: nodes: $(cat nodes.out)"
	"$1" timeline --db "$2.db" ip-10-0-241-171.ec2.internal >timeline.out || fail "$2: timeline"
	grep -q NODE_DELETED timeline.out || fail "$2: timeline: $(cat timeline.out)"
}

# What an install holds, under PREFIX in ROOT.
check_tree() { # ROOT PREFIX WHAT
	local p=$1$2
	for f in bin/leasetrail bin/lt-gen; do
		[ -x "$p/$f" ] || fail "$3: no $2/$f"
	done
	for f in share/man/man1/leasetrail.1.gz share/bash-completion/completions/leasetrail \
		share/zsh/vendor-completions/_leasetrail share/doc/leasetrail/README.md; do
		[ -f "$p/$f" ] || fail "$3: no $2/$f"
	done
	zcat "$p/share/man/man1/leasetrail.1.gz" | cmp -s - "$src/docs/leasetrail.1" ||
		fail "$3: the installed man page is not docs/leasetrail.1"
	if command -v man >/dev/null 2>&1; then
		MANWIDTH=80 man -l "$p/share/man/man1/leasetrail.1.gz" >man.out 2>/dev/null || true
		grep -q 'leasetrail ingest' man.out || fail "$3: man cannot render the installed page"
	fi
	bash -n "$p/share/bash-completion/completions/leasetrail" || fail "$3: bash completion"
	readelf -d "$p/bin/leasetrail" >readelf.out
	grep -E 'R(UN)?PATH' readelf.out | grep -qF "$build" &&
		fail "$3: the installed binary still looks for libraries in the build tree"
	return 0
}

# 1. cmake --install into a fresh root.
DESTDIR=$tmp/root "$cmake" --install "$build" --prefix /usr/local >install.log ||
	fail "cmake --install: $(cat install.log)"
check_tree "$tmp/root" /usr/local "cmake --install"
run_samples "$tmp/root/usr/local/bin/leasetrail" installed

# 2. The .deb.
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >cpack.log 2>&1 ||
	fail "cpack: $(cat cpack.log)"
deb=$(ls "$tmp"/pkg/leasetrail_*.deb) || fail "cpack made no .deb: $(cat cpack.log)"
dpkg-deb -f "$deb" Package | grep -qx leasetrail || fail "the .deb's Package"
depends=$(dpkg-deb -f "$deb" Depends)
# every shared library the binary loads (the rest are linked in, LT_STATIC_DEPS) is a dependency
for so in $(readelf -d "$build/cli/leasetrail" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
	path=$(ldd "$build/cli/leasetrail" | awk -v so="$so" '$1 == so {print $3}')
	# /lib is /usr/lib (merged /usr): dpkg knows each file by the one path its package ships
	lib=$({ dpkg -S "$path" || dpkg -S "/usr$path" || dpkg -S "${path#/usr}"; } 2>/dev/null |
		head -1 | cut -d: -f1) || true
	[ -n "$lib" ] || fail "no package holds $so ($path)"
	grep -qE "(^|, )$lib( |,|$)" <<<"$depends" || fail "the .deb does not depend on $lib ($so): $depends"
done
dpkg-deb -x "$deb" "$tmp/deb" || fail "dpkg-deb -x"
check_tree "$tmp/deb" /usr ".deb"
run_samples "$tmp/deb/usr/bin/leasetrail" deb

# 3. The commit: from git at configure time, "unknown" without git.
commit=$(awk '$1 == "commit" { print $2 }' version.out)
[[ $commit =~ ^([0-9a-f]{12}|unknown)$ ]] || fail "version's commit: '$commit'"
if git -C "$src" rev-parse HEAD >/dev/null 2>&1; then
	git -C "$src" cat-file -e "$commit^{commit}" 2>/dev/null ||
		fail "version's commit $commit is not a commit of the source tree"
fi
"$cmake" -S "$src" -B "$tmp/nogit" -DGIT_EXECUTABLE=/bin/false -DBUILD_TESTING=OFF \
	>nogit.log 2>&1 || fail "configure without git: $(cat nogit.log)"
grep -rqF 'LT_COMMIT=\"unknown\"' "$tmp/nogit/cli/CMakeFiles/leasetrail.dir/flags.make" ||
	fail "without git the commit is not \"unknown\""

echo "e2e install: ok (cmake --install, .deb depending on: $depends; both run the samples)"
