#!/usr/bin/env bash
# apply refuses a file whose channels carry other markers than the model was trained on (a flow
# panel reuses its fluorochromes for other antibodies), naming each difference, and writes
# nothing for it; the same panel applies, and a model written before the markers were kept is
# applied as before.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" demo --events 3000 --seed 1 --out "$tmp/panel.fcs" >/dev/null
# The same file with CD3 and CD4 relabelled CD7 and CD5 ($PnS of the same channels).
python3 - "$tmp/panel.fcs" "$tmp/other.fcs" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
other = data.replace(b'$P10S/CD3/', b'$P10S/CD7/').replace(b'$P11S/CD4/', b'$P11S/CD5/')
assert other != data and len(other) == len(data), "the demo's CD3 and CD4 channels moved"
open(sys.argv[2], 'wb').write(other)
PY
"$cli" embed "$tmp/panel.fcs" --metaclusters 6 --model "$tmp/m.json" --out "$tmp/y.csv" --quiet
python3 -c "import json, sys; m = json.load(open(sys.argv[1])); assert 'CD3' in m['column_markers'], m.get('column_markers')" "$tmp/m.json" ||
    fail "the model does not keep its columns' markers"

if "$cli" apply --model "$tmp/m.json" "$tmp/other.fcs" --out-dir "$tmp/other" 2>"$tmp/err"; then
    fail "a file of another panel was applied"
fi
grep -q "other.fcs: the panel differs from the model's (Pr141Di is CD3 in the model and CD7 here; Nd142Di is CD4 in the model and CD5 here)" "$tmp/err" ||
    fail "the refusal does not name the differences: $(cat "$tmp/err")"
[ ! -e "$tmp/other/other.csv" ] || fail "a table was written for the refused file"
echo "refused: $(grep -o 'the panel differs[^)]*)' "$tmp/err")"

# embed refuses samples of two panels too (both went into one column each, CD3 beside CD7),
# naming the differences and the files, unless the user vouches for the markers.
if "$cli" embed "$tmp/panel.fcs" "$tmp/other.fcs" --out "$tmp/both.csv" 2>"$tmp/err2"; then
    fail "embed took samples of two panels"
fi
grep -q "the samples' panels differ (Pr141Di is CD3 in panel.fcs and CD7 in other.fcs; Nd142Di is CD4 in panel.fcs and CD5 in other.fcs)" "$tmp/err2" ||
    fail "embed's refusal does not name the differences: $(cat "$tmp/err2")"
[ ! -e "$tmp/both.csv" ] || fail "embed wrote a table for samples of two panels"
"$cli" embed "$tmp/panel.fcs" "$tmp/other.fcs" --out "$tmp/both.csv" --accept-other-markers \
    --quiet || fail "--accept-other-markers still refused the samples"

# The user may vouch for the markers: a warning naming them, and the file applied.
"$cli" apply --model "$tmp/m.json" "$tmp/other.fcs" --out-dir "$tmp/vouched" \
    --accept-other-markers 2>"$tmp/warn" || fail "--accept-other-markers still refused the file"
grep -q "warning (--accept-other-markers): .*Pr141Di is CD3 in the model and CD7 here" "$tmp/warn" ||
    fail "no warning naming the differences: $(cat "$tmp/warn")"
[ -s "$tmp/vouched/other.csv" ] || fail "--accept-other-markers wrote no table"
"$cli" apply --model "$tmp/m.json" "$tmp/panel.fcs" --out-dir "$tmp/same" --quiet ||
    fail "the model's own panel was refused"
# A model without the markers (written before they were kept) is applied as before.
python3 -c "import json, sys; m = json.load(open(sys.argv[1])); del m['column_markers']; json.dump(m, open(sys.argv[2], 'w'))" \
    "$tmp/m.json" "$tmp/old.json"
"$cli" apply --model "$tmp/old.json" "$tmp/other.fcs" --out-dir "$tmp/old" --quiet ||
    fail "a model without markers was refused"
echo "the same panel and a model without markers applied"

# A state marker (medians, the heatmap, differential state) of another antibody is refused too.
"$cli" demo --cohort "$tmp/cohort" --events 2000 >/dev/null
python3 - "$tmp/cohort/P1_stim.fcs" "$tmp/state.fcs" <<'PY'
import sys
data = open(sys.argv[1], 'rb').read()
other = data.replace(b'S/IFNg/', b'S/IL17/')
assert other != data and len(other) == len(data), "the cohort's IFNg channel moved"
open(sys.argv[2], 'wb').write(other)
PY
"$cli" embed "$tmp/cohort/P1_stim.fcs" --metaclusters 6 --model "$tmp/mc.json" --out "$tmp/yc.csv" \
    --quiet
if "$cli" apply --model "$tmp/mc.json" "$tmp/state.fcs" --out-dir "$tmp/state" 2>"$tmp/err"; then
    fail "a file whose state marker differs was applied"
fi
grep -q "Yb171Di is IFNg in the model and IL17 here" "$tmp/err" ||
    fail "the refusal does not name the state marker: $(cat "$tmp/err")"
echo "a state marker of another antibody refused"
