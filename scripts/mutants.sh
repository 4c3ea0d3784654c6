#!/usr/bin/env bash
# Mutation testing of lift's soundness core with cargo-mutants (`cargo install
# cargo-mutants`): a seeded random sample of the mutants of one area, each built with the
# `mutants` profile (release optimisations, incremental, no debug info) and tested by the
# area's test binaries. A mutant the tests do not catch is either equivalent (exclude it
# in .cargo/mutants.toml, with the reason) or a missing test.
#
#   scripts/mutants.sh [--area core|decide|term|torch|check] [--seed N] [--count N]
#                      [--offset K] [--files "src/decide/canon/cases.rs ..."]
#                      [--tests "decide_cases decide_mutants ..."]
#                      [--in-diff FILE] [--in-place] [--list] [-- CARGO_MUTANTS_ARGS...]
#
# --area    which files (default core: src/term/, src/decide/, src/torch/, src/check/,
#           and src/verify/, src/simplify/ once they exist)
# --seed    the sample's seed (default 21); the sample is the first COUNT mutants of the
#           area's list (`cargo mutants --list`) shuffled by Python's random.Random(SEED),
#           from position OFFSET, so runs with offsets 0, COUNT, 2·COUNT... are disjoint
#           shards of one seeded sample
# --count   how many (default 60: about 30 minutes on 2 cores at ~30 s a mutant)
# --files   only these files or folders (within the area's tests)
# --tests   the test binaries run against each mutant (default: the area's)
# --in-diff test only the mutants in code a diff touches (`git diff main > d.diff`), no
#           sampling
# --in-place mutate this tree itself (restored afterwards; do not edit it meanwhile),
#           reusing target/ instead of building a copy's dependencies first. Stop it
#           with Ctrl-C only; after an interrupted run `touch` the mutated file (or
#           `cargo clean -p lift`): the restored source can be older than a build of
#           the mutant, and cargo then keeps testing the mutant. Never run two
#           --in-place runs in one tree.
# --list    print the sample and stop
#
# The results go to target/mutants-out/<area>-<seed>-<offset>/mutants.out (caught.txt,
# missed.txt, timeout.txt, unviable.txt); a summary line is printed at the end. Record
# runs in benchmarks/RESULTS.md ("Mutation testing"), each missed mutant judged.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null || { echo "needs cargo-mutants: cargo install cargo-mutants" >&2; exit 2; }

area=core seed=21 count=60 offset=0 tests="" diff="" list=0 in_place=0 only=""
while [ $# -gt 0 ]; do
    case "$1" in
        --area) area=$2; shift 2 ;;
        --seed) seed=$2; shift 2 ;;
        --count) count=$2; shift 2 ;;
        --offset) offset=$2; shift 2 ;;
        --tests) tests=$2; shift 2 ;;
        --files) only=$2; shift 2 ;;
        --in-diff) diff=$2; shift 2 ;;
        --list) list=1; shift ;;
        --in-place) in_place=1; shift ;;
        --) shift; break ;;
        *) echo "unknown option $1 (see the head of $0)" >&2; exit 2 ;;
    esac
done

decide_tests="decide_cases decide_mutants decide_identities decide_normalize decide_premises decide_props term_rules term_props term_ieee term_round"
torch_tests="torch_spec torch_fixtures check check_float_types"
files=()
case "$area" in
    core)
        files=(src/term/ src/decide/ src/torch/ src/check/ src/verify/ src/simplify/)
        default_tests="$decide_tests $torch_tests" ;;
    decide | term)
        files=(src/term/ src/decide/); default_tests="$decide_tests" ;;
    torch | check)
        files=(src/torch/ src/check/); default_tests="$torch_tests" ;;
    *) echo "unknown area $area" >&2; exit 2 ;;
esac
tests=${tests:-$default_tests}
if [ -n "$only" ]; then read -r -a files <<<"$only"; fi

args=(--profile mutants --timeout 180 --baseline skip --no-shuffle)
if [ "$in_place" = 1 ]; then
    args+=(--in-place)
else
    # One build directory; its dependencies built once and kept between runs
    # (cargo-mutants builds in a copy of the tree).
    export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target/mutants-build}"
    args+=(--jobs 1)
fi
for f in "${files[@]}"; do
    if [ -d "$f" ]; then args+=(--file "$f**"); elif [ -e "$f" ]; then args+=(--file "$f"); fi
done
for t in $tests; do args+=(--cargo-arg "--test=$t"); done
label=$area
[ -n "$only" ] && label=$(echo "$only" | tr ' /' '_-' | tr -d .)
out="target/mutants-out/$label-$seed-$offset"

if [ -n "$diff" ]; then
    out="target/mutants-out/$label-diff"
    mkdir -p "$out"
    exec cargo mutants "${args[@]}" --in-diff "$diff" --output "$out" "$@"
fi

# The seeded sample, as one anchored regex over the mutants' names.
list_file=$(mktemp)
trap 'rm -f "$list_file"' EXIT
cargo mutants "${args[@]}" --list "$@" >"$list_file"
re=$(python3 - "$list_file" "$seed" "$count" "$offset" "$list" <<'EOF'
import random, re, sys
path, seed, count, offset, show = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "1"
names = [l.rstrip("\n") for l in open(path) if l.strip()]
random.Random(seed).shuffle(names)
sample = names[offset:offset + count]
print(f"{len(names)} mutants, sample of {len(sample)} (seed {seed}, offset {offset})", file=sys.stderr)
if show:
    print("\n".join(sample), file=sys.stderr)
print("|".join("^" + re.escape(n) + "$" for n in sample))
EOF
)
[ "$list" = 1 ] && exit 0
[ -n "$re" ] || { echo "empty sample" >&2; exit 2; }
mkdir -p "$out"
status=0
cargo mutants "${args[@]}" --re "$re" --output "$out" "$@" || status=$?
# cargo-mutants exits 2 when some mutant is missed, 3 on timeouts: summarise either way.
m="$out/mutants.out"
n() { if [ -f "$m/$1.txt" ]; then grep -c . "$m/$1.txt" || true; else echo 0; fi; }
caught=$(n caught) missed=$(n missed) timeout=$(n timeout) unviable=$(n unviable)
echo "seed $seed offset $offset: caught $caught, missed $missed, timeout $timeout, unviable $unviable" \
    "($((100 * (caught + timeout) / (caught + missed + timeout > 0 ? caught + missed + timeout : 1)))% of the viable caught)"
[ "$missed" = 0 ] || { echo "missed:"; cat "$m/missed.txt"; }
exit $status
