# Helpers of the cr=app test scripts (sourced): $T is the test's directory,
# $REF the uninterrupted run's result.
fail() { echo "FAIL: $*"; for f in "$T"/*.out; do [ -f "$f" ] && { echo "--- $f"; tail -30 "$f"; }; done; exit 1; }
result_of() { grep -o 'sum=[0-9.]* hash=[0-9a-f]*' "$1" | tail -1; }
store_dir() { ls -d "$T"/store/*/ 2>/dev/null | head -1; }
same_as_ref() {  # file what
  local got
  got=$(result_of "$1")
  [ "$got" = "$REF" ] || fail "$2: result '$got', uninterrupted run '$REF'"
}
