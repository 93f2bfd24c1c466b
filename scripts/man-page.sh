#!/usr/bin/env bash
# Builds the man page ralph(1) from the manual, so the two never say different things:
# docs/manual/ralph.1.md holds what only the man page has (NAME, SYNOPSIS, OPTIONS, FILES, ...)
# and a line "<!-- include PAGE as SECTION -->" where each page of the manual goes. The page's
# title becomes the man section SECTION, its own headings subsections, and a link its text (a
# link to a whole page: the section that page became). go-md2man (Debian's go-md2man 2.0.2) turns
# that into roff, and fixes follow for what it lacks: a text line starting with "." or "'" is
# escaped (troff would read it as a request), every table is made to fit 80 columns (go-md2man's
# columns are as wide as their longest cell), and lines are not justified or hyphenated.
# Usage: man-page.sh MANUAL_DIR VERSION OUT   (needs go-md2man, or GO_MD2MAN naming it; bash, awk)
set -euo pipefail
if [[ $# -ne 3 ]]; then
  echo "usage: $0 MANUAL_DIR VERSION OUT" >&2
  exit 2
fi
manual=$1 version=$2 out=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# ralph.1.md with every page put in: one markdown document in go-md2man's terms, where "#" and "##"
# are sections (.SH) and "###" subsections (.SS).
awk -v dir="$manual" -v version="$version" '
  # [text](target): the man section a page became, the text quoted for a part of a page, else the
  # text alone (a file of the source).
  function unlink(line,   out, link, text, target) {
    out = ""
    while (match(line, /\[[^]]*\]\([^)]*\)/)) {
      link = substr(line, RSTART, RLENGTH)
      text = link; sub(/\].*/, "", text); sub(/^\[/, "", text)
      target = link; sub(/^[^]]*\]\(/, "", target); sub(/\)$/, "", target)
      if (target in section_of) text = section_of[target]
      else if (target ~ /^[a-z0-9-]+\.md#/) text = "\"" text "\""
      out = out substr(line, 1, RSTART - 1) text
      line = substr(line, RSTART + RLENGTH)
    }
    return out line
  }
  function include(page, section,   path, line, fence, titled, n, prev) {
    path = dir "/" page
    print "# " section
    fence = 0; titled = 0; n = 0
    while ((getline line < path) > 0) {
      n++
      if (line ~ /^ *```/) fence = !fence
      if (!fence && line ~ /^#+ /) {
        if (!titled) { titled = 1; continue } # the page title: SECTION stands for it
        sub(/^#+ /, "### ", line)
      } else if (!fence) {
        line = unlink(line)
        # A list right under a paragraph line is a list to GitHub, but text to go-md2man.
        if (line ~ /^- / && prev != "" && prev !~ /^(- | )/) print ""
      }
      print line
      prev = line
    }
    close(path)
    if (n == 0) { print "man-page.sh: cannot read " path > "/dev/stderr"; exit 1 }
  }
  # ralph.1.md is read twice: first for the section each page becomes, then to write it out.
  /^<!-- include [^ ]+ as [^>]+ -->$/ {
    section = $0; sub(/^<!-- include [^ ]+ as /, "", section); sub(/ -->$/, "", section)
    if (FNR == NR) section_of[$3] = section
    else include($3, section)
    next
  }
  FNR == NR { next }
  comment || /^<!--/ { comment = ($0 !~ /-->/); next } # a comment for the page'"'"'s readers
  { gsub(/@VERSION@/, version); print }
' "$manual/ralph.1.md" "$manual/ralph.1.md" >"$tmp/ralph.1.md"

"${GO_MD2MAN:-go-md2man}" -in "$tmp/ralph.1.md" -out "$tmp/ralph.1"

# The fixes. A table is read into rows of cells (a cell is one field between tabs, or a T{ ... T}
# text block over several lines), then written again with column widths that fit 80 columns.
# go-md2man puts the tab after a text block on the next line ("T}", then "<tab>cell"), which tbl
# reads as a new row: a row goes on until it has as many cells as the format line has columns.
LC_ALL=C awk '
  BEGIN { print "'"'"'\\\" t" } # tells man(1) to run tbl
  function plain(s) { gsub(/\\f[A-Z]|\\f\(..|\\&/, "", s); return s }
  # Fields of a row between tabs; a last "T{" opens a text block.
  function read_fields(line,   n, parts, i) {
    n = split(line, parts, "\t")
    for (i = 1; i <= n; i++) {
      if (i == n && parts[i] == "T{") { block = ""; inblock = 1; return }
      cells[rows, ++ncell[rows]] = parts[i]
    }
  }
  function chars(s) { return length(s) - gsub(/[\200-\277]/, "", s) } # UTF-8 characters
  # Column widths within the 72 characters a table has at MANWIDTH=80 (3 more per column go to
  # borders and gaps): no column narrower than its longest word; a column that fits its share of
  # what is left keeps its width, the others share the rest and wrap. A table whose longest words
  # alone are wider is written as a list instead.
  function write_table(   r, c, n, i, words, text, nat, minw, need, fixed, left, share, changed, wrap, format) {
    need = 0
    for (c = 1; c <= ncols; c++) {
      nat[c] = 0; minw[c] = 0
      for (r = 1; r <= rows; r++) {
        text = plain(cells[r, c])
        if (chars(text) > nat[c]) nat[c] = chars(text)
        n = split(text, words, " ")
        for (i = 1; i <= n; i++) if (chars(words[i]) > minw[c]) minw[c] = chars(words[i])
      }
      need += minw[c]
    }
    if (need > 72 - 3 * ncols) { write_list(); return }
    do {
      changed = 0; left = 72 - 3 * ncols; n = 0
      for (c = 1; c <= ncols; c++) if (c in fixed) left -= fixed[c]; else n++
      if (n == 0) break
      share = int(left / n)
      for (c = 1; c <= ncols; c++) if (!(c in fixed) && minw[c] > share) { fixed[c] = minw[c]; changed = 1 }
      if (changed) continue
      for (c = 1; c <= ncols; c++) if (!(c in fixed) && nat[c] <= share) { fixed[c] = nat[c]; changed = 1 }
    } while (changed)
    format = ""
    for (c = 1; c <= ncols; c++) {
      if (!(c in fixed)) fixed[c] = share
      wrap[c] = (nat[c] > fixed[c])
      format = format (c > 1 ? " " : "") (wrap[c] ? "lw(" fixed[c] "n)" : "l")
    }
    print ".TS"
    print "allbox;"
    print format " ."
    for (r = 1; r <= rows; r++) {
      for (c = 1; c <= ncols; c++) {
        text = "\\&" cells[r, c] # a cell may start with "." too
        if (wrap[c]) text = "T{\n" text "\nT}"
        printf "%s%s", text, (c < ncols ? "\t" : "\n")
      }
    }
    print ".TE"
  }
  # Each row a tagged paragraph: the first cell, then "header: cell" for the others.
  function write_list(   r, c) {
    for (r = 2; r <= rows; r++) {
      print ".TP"
      print "\\&" cells[r, 1]
      for (c = 2; c <= ncols; c++) {
        if (c > 2) print ".br"
        print "\\&\\fI" plain(cells[1, c]) "\\fP: " cells[r, c]
      }
    }
  }
  intable == 0 && /^\.TS$/ { intable = 1; rows = 0; ncols = 0; split("", cells); split("", ncell); next }
  intable == 1 { if (!ncols && $0 !~ /;$/) ncols = split($0, format_cols, " "); if ($0 ~ /\.$/) intable = 2; next }
  intable == 2 && /^\.TE$/ { write_table(); intable = 0; next }
  intable == 2 && inblock {
    if ($0 !~ /^T}/) { block = block (block == "" ? "" : " ") $0; next }
    inblock = 0
    cells[rows, ++ncell[rows]] = block
    if ($0 ~ /^T}\t/) read_fields(substr($0, 4))
    next
  }
  intable == 2 {
    if (rows && ncell[rows] < ncols && $0 ~ /^\t/) { read_fields(substr($0, 2)); next }
    rows++; ncell[rows] = 0
    read_fields($0)
    next
  }
  # Ragged right, no hyphens: code words in narrow columns cannot be justified, and a path or a
  # flag split by a hyphen reads wrong (go-md2man puts its .nh before .TH, which turns it off).
  /^\.TH / { print; print ".ad l"; print ".nh"; next }
  # A text line that troff would read as a request; go-md2man escapes them in code blocks only.
  /^[.'"'"']/ && !/^\.(nh|TH|SH|SS|PP|RS|RE|nf|fi|TP|IP|TS|TE|br|sp|EX|EE)( |$)/ { $0 = "\\&" $0 }
  { print }
' "$tmp/ralph.1" >"$tmp/ralph.1.fixed"
mv "$tmp/ralph.1.fixed" "$out"
