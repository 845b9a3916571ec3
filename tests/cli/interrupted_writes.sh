#!/usr/bin/env bash
# A write cut short by SIGTERM leaves no OUT.tmp-* file, and stale temporaries of a
# dead writer are removed by the next write into their folder.
set -euo pipefail
cli=${SEPAL_CLI:?set SEPAL_CLI to the sepal-cli binary}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$cli" demo --events 2000000 --out "$tmp/big.fcs" >/dev/null

# kill_during_write SIGNAL OUT: starts convert, waits for its temporary, sends SIGNAL.
kill_during_write() {
    local signal=$1 out=$2
    "$cli" convert "$tmp/big.fcs" "$out" &
    local pid=$! seen=0
    for _ in $(seq 1 2000); do
        if compgen -G "$out.tmp-*" >/dev/null; then seen=1; break; fi
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.005
    done
    [ "$seen" = 1 ] || fail "convert to $out finished before its temporary was seen"
    kill -s "$signal" "$pid"
    local status=0
    wait "$pid" || status=$?
    [ "$status" -ne 0 ] || fail "convert ended well after SIG$signal"
    [ ! -e "$out" ] || fail "$out exists after SIG$signal"
    if compgen -G "$tmp/*.tmp-*" >/dev/null; then fail "left behind: $(ls "$tmp")"; fi
}
kill_during_write TERM "$tmp/out.csv"


# A temporary of a writer that no longer runs goes on the next write into the folder.
printf 'half' >"$tmp/old.csv.tmp-999999999-AbC123"
"$cli" demo --events 100 --out "$tmp/small.csv" >/dev/null
[ ! -e "$tmp/old.csv.tmp-999999999-AbC123" ] || fail "a stale temporary was kept"
echo "ok"
