#!/usr/bin/env bash
# Peak anonymous memory of `ralph qa` when no quote is found byte for byte: a generated document
# of SIZE_MB (filler lines, with a contract in the middle whose words are separated by double
# spaces), scripted generator and judge models answering with three single-spaced quotes, so
# every quote matches at the whitespace level only. Samples RssAnon from /proc every 5 ms (the
# mapped document is file-backed and not counted), and reports the wall time.
#
# Usage: bench/qa_memory.sh [RALPH_BINARY] [SIZE_MB]     (defaults: build/ralph, 1024)
set -euo pipefail

ralph=$(realpath "${1:-build/ralph}")
size_mb=${2:-1024}
[[ -x $ralph ]] || { echo "qa_memory.sh: no executable at $ralph (build first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/ralph-qa-memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
export HOME=$work/home XDG_CONFIG_HOME=$work/home/.config
mkdir -p "$HOME" "$work/ws"

python3 - "$work" "$size_mb" <<'PY'
import json, sys
work, size = sys.argv[1], int(sys.argv[2]) << 20
answer = {"answer": ["Either party may end the agreement with ninety days' notice.",
                     "The landlord may end it at once after two months of unpaid rent.",
                     "The deposit comes back within thirty days."],
          "evidence": ["Either party may terminate this Agreement with ninety days' written notice.",
                       "The landlord may terminate immediately if rent is unpaid for two months.",
                       "The tenant's deposit is returned within thirty days"]}
json.dump({"model": "gen", "turns": [{"text": json.dumps(answer)}]}, open(f"{work}/gen.json", "w"))
json.dump({"model": "judge", "turns": [{"text": json.dumps({"ok": True, "issues": []})}]},
          open(f"{work}/judge.json", "w"))
contract = (b"Termination.  Either party  may terminate this  Agreement with ninety days'  written notice.\n"
            b"The tenant's deposit  is returned within  thirty days after the lease ends.\n"
            b"The landlord may  terminate immediately if rent  is unpaid for two months.\n")
filler = b"".join(b"lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod %08d\n" % i
                  for i in range(10000))
with open(f"{work}/doc.txt", "wb") as out:
    written, placed = 0, False
    while written < size:
        if not placed and written >= size // 2:
            out.write(contract); written += len(contract); placed = True
        piece = filler[:size - written]
        out.write(piece); written += len(piece)
PY

start=$EPOCHREALTIME
"$ralph" qa --doc "$work/doc.txt" --query "What are the termination conditions?" \
  --model "scripted/$work/gen.json" --judge "scripted/$work/judge.json" --workspace "$work/ws" \
  --no-store --max-iterations 1 --quiet >"$work/out" 2>"$work/err" &
pid=$!
peak=0
while value=$(awk '/RssAnon/ { print $2 }' "/proc/$pid/status" 2>/dev/null) && [[ -n $value ]]; do
  ((value > peak)) && peak=$value
  sleep 0.005
done
status=0
wait "$pid" || status=$?
end=$EPOCHREALTIME
matched=$(grep -c "whitespace match" "$work/out" || true)
printf 'document %d MB: exit %d, %d quotes matched at whitespace, peak RssAnon %d kB, %.2f s\n' \
  "$size_mb" "$status" "$matched" "$peak" "$(((${end/[.,]/} - ${start/[.,]/}) / 1000))e-3"
