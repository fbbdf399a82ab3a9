#!/bin/bash
# integration.sdk.install: `cmake --install` into a scratch prefix gives an SDK
# that stands on its own:
#   - every installed header compiles alone with -I<prefix>/include and
#     nothing from the source tree (mpi.h as C too);
#   - lazarus.pc (pkg-config) compiles, links and runs a program against
#     liblazarus; LazarusConfig.cmake is found by find_package (checked by the
#     examples' test);
#   - liblazarus exports only what cmake/liblazarus.map lists: no yaml-cpp,
#     libstdc++ or built-in descriptor symbol, and the framework API is there.
# usage: install_test.sh BUILD_DIR CXX CC
set -u
build=$1 cxx=$2 cc=$3
work=$(mktemp -d /tmp/lz-sdk-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail=0
bad() { echo "FAIL: $*"; fail=1; }

cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: install"; exit 1; }
for f in lib/cmake/Lazarus/LazarusConfig.cmake lib/cmake/Lazarus/LazarusConfigVersion.cmake \
         lib/cmake/Lazarus/LazarusAddComponent.cmake lib/pkgconfig/lazarus.pc lib/liblazarus.so.0 \
         libexec/lazarus/lazarus-component-check bin/lazarus include/lazarus/component.h \
         include/lazarus/frameworks/transport.h include/lazarus/datatype/op.h; do
  [ -e "$prefix/$f" ] || bad "$f not installed"
done

# Each header alone, from the prefix only: a header that leans on one
# included before it, or on the source tree, fails here.
n=0
cd "$prefix/include"
for h in $(find lazarus -name '*.h' | sort); do
  n=$((n + 1))
  if ! echo "#include <$h>" | "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -I"$prefix/include" -x c++ - > "$work/h.log" 2>&1; then
    bad "header $h does not compile alone:"; head -5 "$work/h.log"
  fi
done
echo "#include <mpi.h>" | "$cc" -fsyntax-only -I"$prefix/include" -x c - > "$work/h.log" 2>&1 || { bad "mpi.h (C)"; head -5 "$work/h.log"; }
echo "headers compiled alone: $n (+ mpi.h as C)"
[ "$n" -ge 20 ] || bad "only $n headers installed"

# pkg-config: compile, link and run against the installed library.
cat > "$work/pc.cpp" <<'CPP'
#include <cstdio>
#include "lazarus/frameworks/transport.h"
#include "lazarus/registry.h"
int main() {
  lz::Status s = lz::NotFound("probe");
  std::printf("transport interface %u, registry knows %u\n", lz::transport::kInterfaceVersion,
              lz::Registry::interface_version_of("transport"));
  return s.code() == lz::Code::kNotFound && lz::Registry::interface_version_of("transport") == lz::transport::kInterfaceVersion ? 0 : 1;
}
CPP
flags=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs lazarus) || bad "pkg-config lazarus"
echo "pkg-config: $flags"
"$cxx" "$work/pc.cpp" $flags -o "$work/pc" > "$work/pc.log" 2>&1 || { bad "pkg-config build"; cat "$work/pc.log"; }
"$work/pc" || bad "program built with pkg-config"
used=$(ldd "$work/pc" | awk '$1 == "liblazarus.so.0" { print $3 }')
[ -n "$used" ] && [ "$(readlink -f "$used")" = "$(readlink -f "$prefix/lib/liblazarus.so.0")" ] ||
  bad "pkg-config program does not use the installed liblazarus (it uses '$used')"

# The export list.
nm -D --defined-only "$prefix/lib/liblazarus.so.0" | awk '{print $3}' > "$work/syms"
echo "liblazarus dynamic symbols: $(wc -l < "$work/syms")"
c++filt < "$work/syms" > "$work/syms.dm"
leaks=$(grep -v -E '^(lz::|lz_datatype_s::|lz_op_s::|lz_mpi_|(typeinfo|typeinfo name|vtable|VTT|guard variable) for (lz::|lz_)|LAZARUS_0$)' "$work/syms.dm" | head -5)
[ -z "$leaks" ] || bad "symbols outside the export list: $leaks"
grep -q '^lz_component_' "$work/syms" && bad "built-in descriptors exported"
for s in 'lz::load_plugin(' 'lz::Registry::Registry()' 'lz::ParamStore::get_int(' 'lz_datatype_s::pack(' 'lz_op_s::apply('; do
  grep -qF "$s" "$work/syms.dm" || bad "missing export: $s"
done
[ $fail = 0 ] && echo "sdk install: ok"
exit $fail
