# python_with MODULES...: prints the first python (Debian's /usr/bin/python3 first: Debian's
# python3-* packages live beside it, and another python3 on PATH may hide it) that imports every
# module named; prints nothing when none does. Sourced by the tests of tests/cli.
python_with() {
    local candidate imports
    imports=$(printf 'import %s;' "$@")
    for candidate in /usr/bin/python3 python3; do
        if "$candidate" -c "$imports" 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
}
