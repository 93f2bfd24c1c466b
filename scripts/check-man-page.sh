#!/usr/bin/env bash
# Checks of the man page scripts/man-page.sh makes (ctest runs both when go-md2man is found).
# Usage: check-man-page.sh render MAN_PAGE
#          man(1) formats it at 80 columns without a warning (a table too wide, a request troff
#          does not know, a character it cannot draw); prints the warnings and exits 1 if any.
#        check-man-page.sh flags MAN_PAGE RALPH
#          its OPTIONS section names every flag of `ralph [COMMAND [SUBCOMMAND]] --help` and no
#          flag ralph does not have; prints the difference and exits 1 if any.
set -euo pipefail

render() {
  local warnings
  warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$1" 2>&1 >/dev/null)
  if [[ -n $warnings ]]; then
    printf '%s: man --warnings at 80 columns:\n%s\n' "$1" "$warnings" >&2
    exit 1
  fi
}

# The commands ralph has, one per line ("", "run", ..., "sessions list", ...), from the
# "Subcommands:" lists of the help texts.
commands() {
  echo "$1"
  # shellcheck disable=SC2086 # the words of the command path
  "$ralph" $1 --help | awk '/^Subcommands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && !NF { on = 0 }' |
    while read -r sub; do commands "${1:+$1 }$sub"; done
}

# The flags of one help text: the option column of its "Options:" lines (-m, --model, ...).
help_flags() {
  # shellcheck disable=SC2086 # the words of the command path
  "$ralph" $1 --help | awk '/^Options:/ { on = 1; next } on && !NF { on = 0 } on && /^  -/ { print $1 }' |
    tr ',' '\n' | grep -E '^--?[A-Za-z]'
}

flags() {
  local man=$1 expected listed
  expected=$(commands "" | while read -r cmd; do help_flags "$cmd"; done | sort -u)
  # The terms of the OPTIONS section (the line after each .TP), roff fonts taken out.
  listed=$(awk '/^\.SH / { on = ($2 == "OPTIONS") } on && term { print; term = 0 } on && /^\.TP/ { term = 1 }' "$man" |
    sed -E 's/\\f[A-Z]//g; s/\\&//g; s/\\-/-/g' | grep -oE '(^|[ ,])--?[A-Za-z][A-Za-z0-9-]*' | tr -d ' ,' | sort -u)
  local missing extra
  missing=$(comm -23 <(echo "$expected") <(echo "$listed"))
  extra=$(comm -13 <(echo "$expected") <(echo "$listed"))
  if [[ -n $missing || -n $extra ]]; then
    [[ -z $missing ]] || printf 'flags of ralph --help not in the OPTIONS of %s:\n%s\n' "$man" "$missing" >&2
    [[ -z $extra ]] || printf 'flags in the OPTIONS of %s that ralph does not have:\n%s\n' "$man" "$extra" >&2
    exit 1
  fi
}

case ${1:-} in
  render) [[ $# -eq 2 ]] && render "$2" && exit 0 ;;
  flags) [[ $# -eq 3 ]] && ralph=$3 && flags "$2" && exit 0 ;;
esac
echo "usage: $0 render MAN_PAGE | flags MAN_PAGE RALPH" >&2
exit 2
