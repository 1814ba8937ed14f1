# bench/find-hutch.sh: sourced by profile.sh and steps.sh. find_hutch NAME
# sets hutch (HUTCH, else hutch on PATH, else /tmp/b/hutch) and helper
# (HUTCH_EXEC, else hutch-exec beside hutch, else the path built into
# hutch), exports HUTCH_EXEC, and exits 1 with NAME's words without both.
find_hutch() {
	if [ -n "${HUTCH:-}" ]; then
		hutch=$HUTCH
	elif command -v hutch >/dev/null 2>&1; then
		hutch=$(command -v hutch)
	else
		hutch=/tmp/b/hutch
	fi
	if [ -z "${HUTCH_EXEC:-}" ] && [ -x "$(dirname "$hutch")/hutch-exec" ]; then
		HUTCH_EXEC=$(dirname "$hutch")/hutch-exec
	fi
	helper=${HUTCH_EXEC:-}
	if [ -z "$helper" ] && [ -r "$hutch" ]; then
		helper=$(grep -ao '/[[:alnum:]_./+-]*/hutch-exec' "$hutch" 2>/dev/null | head -n 1 || true)
	fi
	if [ ! -x "$hutch" ] || [ -z "$helper" ] || [ ! -x "$helper" ]; then
		printf '%s\n' "$1: need hutch and hutch-exec (HUTCH=$hutch HUTCH_EXEC=${helper:-?})" >&2
		exit 1
	fi
	export HUTCH_EXEC="$helper"
}
