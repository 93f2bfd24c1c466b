#!/usr/bin/env bash
# The layer rule: the code of a layer (src/<layer>/ and include/ralph/<layer>/) includes only its
# own headers and those of the layers that src/<layer>/README.md lists in backticks (`core/`) on
# its "May include:" line(s); src/main.cpp includes ralph/cli/ only. The READMEs are the rule,
# this script holds the code to them (the layer order is in docs/design.md, "Layers").
# Each use case under src/app/ is a layer of its own, `app/<name>/`, and `app/` in a README allows
# them all. Two rules hold whatever a README says: nothing below the front door includes `cli/`,
# and no use case includes another.
# An include names a layer as "ralph/<layer>/..." (public) or "<layer>/..." (private header).
# Usage: check-layers.sh [ROOT]   prints one line per violation, exits 1 if any (ROOT: the repo)
#        check-layers.sh --self-test   runs it on a small tree with bad includes, then fixed
# shellcheck disable=SC2016 # the backticks in quotes are meant literally
set -uo pipefail

# Lines "file num path" for each #include "path" in the given files and folders.
includes() {
  grep -rnHE --include='*.h' --include='*.cpp' '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$@" 2>/dev/null |
    sed -nE 's/^([^:]+):([0-9]+):[^"]*"([^"]+)".*/\1 \2 \3/p' | sort -k1,1 -k2,2n
}

check() (
  cd "$1" || exit 2
  bad=0 layers=" "
  for dir in src/*/ src/app/*/; do
    dir=${dir%/}
    [[ -d $dir && $dir != src/app ]] && layers+="${dir#src/} "
  done
  for layer in $layers; do
    readme=src/$layer/README.md
    if [[ ! -f $readme ]]; then echo "src/$layer/: no README.md saying what $layer/ may include"; bad=1; continue; fi
    if ! grep -q '^May include:' "$readme"; then echo "$readme: no 'May include:' line"; bad=1; continue; fi
    # The "May include:" paragraph, up to a blank line or "Must never"; its `name/` words.
    allowed=" $(awk '/^May include:/ { on = 1 }
      on { if (!NF) exit; stop = sub(/Must never.*/, ""); print; if (stop) exit }' "$readme" |
      grep -o '`[A-Za-z0-9_/-]*/`' | tr -d '`' | sed 's#/$##' | tr '\n' ' ')"
    while read -r file num inc; do
      name=${inc#ralph/}
      if [[ $name == app/* ]]; then rest=${name#app/}; name=app/${rest%%/*}; else name=${name%%/*}; fi
      if [[ $name == cli && $layer != cli && $layers == *" cli "* ]]; then
        echo "$file:$num: $layer/ includes cli/ ($inc); only the front door is cli/"; bad=1; continue
      fi
      if [[ $layer == app/* && $name == app/* && $name != "$layer" ]]; then
        echo "$file:$num: $layer/ includes $name/ ($inc); a use case never includes another"; bad=1
        continue
      fi
      [[ $name == app/* && $allowed == *" app "* ]] && continue
      [[ $layers == *" $name "* && $name != "$layer" && $allowed != *" $name "* ]] || continue
      echo "$file:$num: $layer/ includes $name/ ($inc), which $readme does not allow"; bad=1
    done < <(includes "src/$layer" "include/ralph/$layer")
  done
  if [[ -f src/main.cpp ]]; then
    while read -r file num inc; do
      [[ $inc == ralph/cli/* ]] && continue
      echo "$file:$num: src/main.cpp includes $inc; it may include ralph/cli/ only"; bad=1
    done < <(includes src/main.cpp)
  fi
  exit $bad
)

self_test() {
  tmp=$(mktemp -d) || exit 2 # global, for the EXIT trap
  trap 'rm -rf "$tmp"' EXIT
  put() { mkdir -p "$(dirname "$tmp/$1")" && printf '%s\n' "${@:2}" >"$tmp/$1"; } # file, its lines
  expect() { # exit code, output (a glob), what the case is
    local out rc
    out=$(check "$tmp"); rc=$?
    # shellcheck disable=SC2053 # $2 is a glob
    [[ $rc == "$1" && $out == $2 ]] || { printf 'self-test, %s: exit %s, output:\n%s\n' "$3" "$rc" "$out"; exit 1; }
  }
  # core's "Must never" is on its "May include:" line; store's list is wrapped and names `cli/`,
  # which no README can allow; only names in backticks count.
  put src/core/README.md 'May include: the standard library, not store/. Must never include: `store/`.'
  put src/store/README.md 'May include: the standard library,' '`core/`, `cli/` and fmt.' '' 'Used by `cli/`.'
  put src/cli/README.md 'May include: `core/`, `store/`.'
  put include/ralph/core/a.h '#include <string>' '#include "ralph/store/s.h"' '#include "c.h"'
  put src/store/s.cpp '#include "ralph/store/s.h"' '#include "ralph/core/a.h"' '#include "core/p.h"' \
    '#include "cli/x.h"' '#include "t.h"'
  put src/main.cpp '#include "ralph/cli/app.h"' '#include "ralph/store/s.h"'
  # Use cases: one may not include another (public or private header), cli may include them all.
  put src/app/batch/README.md 'May include: `store/`, `core/`, `app/`, `cli/`.'
  put src/app/chat/README.md 'May include: `store/`, `core/`.'
  put src/app/batch/b.cpp '#include "ralph/app/batch/b.h"' '#include "ralph/app/chat/c.h"' \
    '#include "app/chat/p.h"' '#include "ralph/store/s.h"'
  put src/cli/c.cpp '#include "ralph/app/batch/b.h"' '#include "app/chat/p.h"'
  put src/cli/README.md 'May include: `app/`, `core/`, `store/`.'
  expect 1 'include/ralph/core/a.h:2: core/ includes store/ (ralph/store/s.h), which src/core/README.md does not allow
src/store/s.cpp:4: store/ includes cli/ (cli/x.h); only the front door is cli/
src/app/batch/b.cpp:2: app/batch/ includes app/chat/ (ralph/app/chat/c.h); a use case never includes another
src/app/batch/b.cpp:3: app/batch/ includes app/chat/ (app/chat/p.h); a use case never includes another
src/main.cpp:2: src/main.cpp includes ralph/store/s.h; it may include ralph/cli/ only' 'five bad includes'
  sed -i 2d "$tmp/include/ralph/core/a.h" "$tmp/src/main.cpp" && sed -i 4d "$tmp/src/store/s.cpp"
  sed -i 2,3d "$tmp/src/app/batch/b.cpp"
  expect 0 '' 'no bad include'
  rm "$tmp/src/store/README.md" "$tmp/src/app/chat/README.md" && put src/cli/README.md 'No rule here.'
  expect 1 "src/cli/README.md: no 'May include:' line
src/store/: no README.md saying what store/ may include
src/app/chat/: no README.md saying what app/chat/ may include" 'READMEs missing'
  echo "check-layers self-test passed"
}

if [[ ${1:-} == --self-test ]]; then self_test; else check "${1:-$(dirname "$0")/..}"; fi
