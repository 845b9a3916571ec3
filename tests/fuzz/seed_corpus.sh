#!/usr/bin/env bash
# Fills DIR with seed inputs for fuzz target NAME: real files from ../shared/data and data/.
set -euo pipefail
name=$1
dir=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
shared=$root/../shared/data
extra=$'\x01'  # a second pattern (none: matches no file)
case "$name" in
    fuzz_fcs*) pattern='*.fcs' ;;
    fuzz_gates*) pattern='*.xml' extra='*.wsp' ;;
    fuzz_csv*) pattern='*.csv' ;;
    fuzz_json*) pattern='*.json' ;;
    *) pattern='*' ;;
esac
count=0
for base in "$shared" "$root/data" "$root/tests/fuzz/seeds"; do
    [ -d "$base" ] || continue
    while IFS= read -r -d '' f; do
        # Large files slow the fuzzer without adding structure: keep their first megabyte.
        head -c 1048576 "$f" >"$dir/seed_$count"
        count=$((count + 1))
    done < <(find "$base" \( -iname "$pattern" -o -iname "$extra" \) -type f -print0)
done
[ -d "$shared" ] || echo "seed_corpus: ../shared/data is absent; fuzzing $name from the project's own seeds only"
exit 0
