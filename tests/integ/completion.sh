#!/bin/sh
# completion.sh: the bash completion script, loaded into bash and called as
# readline would call it, completes verbs, run options (read from the
# binary's --help), policy names, network modes, files after NAME= and the
# command after the options. Each case runs twice: with bash-completion's
# helpers loaded (as they are when the script is used) and in a bare bash.
# The script comes from $HUTCH_SRCDIR/contrib/bash-completion/hutch, else
# from next to this script; with HUTCH_INSTALLED=1, from the prefix of
# $HUTCH (PREFIX/share/bash-completion/completions/hutch) or the directory
# pkg-config names for bash-completion.
. "$(dirname "$0")/lib.sh"

script=
if [ "${HUTCH_INSTALLED:-0}" = 1 ]; then
	prefix=$(cd "$(dirname "$HUTCH")/.." && pwd)
	for c in "$prefix/share/bash-completion/completions/hutch" \
		"$(pkg-config --variable=completionsdir bash-completion 2>/dev/null)/hutch"; do
		[ -f "$c" ] && { script=$c; break; }
	done
else
	for c in "${HUTCH_SRCDIR:-$here/../..}/contrib/bash-completion/hutch" \
		"$here/../../contrib/bash-completion/hutch"; do
		[ -f "$c" ] && { script=$c; break; }
	done
fi
if [ -z "$script" ] || ! command -v bash >/dev/null 2>&1; then
	if [ -z "$script" ]; then
		skip "bash completion" "the completion script is not installed or not found"
	else
		skip "bash completion" "bash is not installed"
	fi
	tap_done
	exit
fi
diag "completion script: $script"

tap_tmpdir completion
mkdir "$tmp/subdir"
: >"$tmp/input.txt"
: >"$tmp/mine.json"
cd "$tmp" || exit 1 # file completion must not see the caller's directory

bc_main=
for f in /usr/share/bash-completion/bash_completion \
	"$(pkg-config --variable=prefix bash-completion 2>/dev/null)/share/bash-completion/bash_completion"; do
	[ -f "$f" ] && { bc_main=$f; break; }
done

# replies MODE WORD...: the replies for the last WORD (the one under the
# cursor), sorted, one a line. MODE is "bc" (bash-completion loaded) or
# "bare". Readline splits words at "=" and ":"; the callers pass them as
# separate words the way readline would, and COMP_LINE joins them back.
replies() {
	mode=$1
	shift
	bash --norc --noprofile -c '
		mode=$1 bc_main=$2 script=$3
		shift 3
		if [ "$mode" = bc ]; then
			. "$bc_main" || exit 1
		fi
		. "$script" || exit 1
		COMP_WORDS=("$@")
		COMP_CWORD=$(($# - 1))
		COMP_LINE=$(printf "%s" "$*" | sed -e "s/ \([=:]\) /\1/g" -e "s/ \([=:]\)\$/\1/")
		COMP_POINT=${#COMP_LINE}
		_hutch
		((${#COMPREPLY[@]})) && printf "%s\n" "${COMPREPLY[@]}"
		exit 0' bash "$mode" "$bc_main" "$script" "$@" 2>/dev/null | sort -u
}

# expect MODE "WANTED..." WORD...: every wanted reply is offered.
expect() {
	mode=$1 want=$2
	shift 2
	got=$(replies "$mode" "$@" | tr '\n' ' ')
	miss=
	for w in $want; do
		case " $got" in *" $w "*) ;; *) miss="$miss $w" ;; esac
	done
	line=$(printf '%s ' "$@" | sed "s|$tmp|TMP|g")
	if [ -z "$miss" ]; then
		ok "[$mode] '${line% }' offers $want"
	else
		not_ok "[$mode] '${line% }' offers $want (missing:$miss)"
		diag "got: $(printf '%s' "$got" | sed "s|$tmp|TMP|g")"
	fi
}

# expect_only MODE "WANTED..." WORD...: exactly these replies.
expect_only() {
	mode=$1 want=$2
	shift 2
	got=$(replies "$mode" "$@" | tr '\n' ' ')
	want_sorted=
	[ -n "$want" ] && want_sorted=$(printf '%s\n' $want | sort -u | tr '\n' ' ')
	line=$(printf '%s ' "$@" | sed "s|$tmp|TMP|g")
	if [ "$got" = "$want_sorted" ]; then
		ok "[$mode] '${line% }' offers exactly $want"
	else
		not_ok "[$mode] '${line% }' offers exactly $want"
		diag "got: $got"
	fi
}

modes=bare
if [ -n "$bc_main" ]; then
	modes="bc bare"
else
	diag "bash-completion is not installed: only the bare-bash fallback is tested"
fi

run_opts=$("$HUTCH" run --help | sed -n 's/^ \{1,\}\(-[a-z], \)\{0,1\}\(--[a-z-]*\).*/\2/p' | tr '\n' ' ')

for m in $modes; do
	expect_only "$m" "run" "$HUTCH" ru
	expect "$m" "run serve probe policy --help --version" "$HUTCH" ""
	expect_only "$m" "--timeout" "$HUTCH" run --ti
	expect "$m" "$run_opts" "$HUTCH" run --
	expect "$m" "default strict network" "$HUTCH" run --policy ""
	expect_only "$m" "strict" "$HUTCH" run --policy = st
	expect_only "$m" "none loopback host" "$HUTCH" run --network ""
	expect_only "$m" "list show check digest --help" "$HUTCH" policy ""
	expect "$m" "strict" "$HUTCH" policy show s
	expect "$m" "$tmp/mine.json $tmp/subdir" "$HUTCH" policy check "$tmp/"
	expect_only "$m" "$tmp/input.txt" "$HUTCH" run --input data = "$tmp/in"
	expect_only "$m" "$tmp/subdir" "$HUTCH" run --ro "$tmp/sub"
	expect_only "$m" "" "$HUTCH" run --rw "$tmp/subdir" : /da
	expect_only "$m" "" "$HUTCH" run --timeout ""
	expect "$m" "--policy --json" "$HUTCH" probe --
	expect_only "$m" "--socket" "$HUTCH" serve --so
	expect_only "$m" "debug" "$HUTCH" serve --log-level de
	expect "$m" "echo" "$HUTCH" run --timeout 5 --policy strict -- ech
	expect "$m" "echo" "$HUTCH" run --ro "$tmp" : /x --json ech
	# After the command, its words are the command's, never hutch's options.
	expect_only "$m" "" "$HUTCH" run --json true --ti
done

# Completing a relative command (an untrusted checkout's ./hutch) never
# runs it; an absolute path, as above, is the caller's deliberate choice.
printf '#!/bin/sh\ntouch "%s/ran"\n' "$tmp" >"$tmp/hutch"
chmod 755 "$tmp/hutch"
replies bare ./hutch run --ti >/dev/null
replies bare ./hutch policy show "" >/dev/null
check "completing ./hutch does not run ./hutch" test ! -e "$tmp/ran"
"$tmp/hutch"
check "control: that ./hutch leaves its marker when run" test -e "$tmp/ran"

tap_done
