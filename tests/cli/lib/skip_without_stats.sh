# skip_without_stats CLI: ends the test as skipped (exit 77, ctest's SKIP_RETURN_CODE) when the
# sepal-cli CLI was built without the statistics. Sourced by the tests of tests/cli.
skip_without_stats() {
    if ! "$1" stats --help >/dev/null 2>&1; then
        echo "SKIP: this sepal-cli was built without the statistics (Eigen or Boost.Math missing)"
        exit 77
    fi
}
