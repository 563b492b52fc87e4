#!/usr/bin/env bash
# Runs every benchmark behind BENCHMARKS.md (release builds), then the fault soak, and keeps each
# output in target/bench-results/<UTC time>/ with a summary of the figures at the end.
#
#   scripts/bench.sh                 # everything (about 10 minutes on 2 cores, once built)
#   scripts/bench.sh plan validate   # only these benches (names of benches/*.rs), no soak
#   QUICK=1 scripts/bench.sh         # shorter criterion runs (1 s warm-up, 3 s measurement)
#
# Peak memory: in-process benches read VmHWM from /proc/self/status; the benches that run the
# converge binary wrap it in /usr/bin/time when it exists.
set -euo pipefail
cd "$(dirname "$0")/.."

all=(validate plan sandbox transport plan_live apply scoped)
benches=("$@")
soak=0
if [ ${#benches[@]} -eq 0 ]; then
    benches=("${all[@]}")
    soak=1
fi
criterion_args=()
if [ "${QUICK:-0}" = 1 ]; then
    criterion_args=(--warm-up-time 1 --measurement-time 3)
fi

out="target/bench-results/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
{
    echo "date (UTC): $(date -u '+%Y-%m-%d %H:%M')"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "cores (nproc): $(nproc)"
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
    echo "memory: $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)"
    echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "rustc: $(rustc -V)"
} | tee "$out/machine.txt"

cargo bench --no-run 2>&1 | tail -n 3

for bench in "${benches[@]}"; do
    echo "== cargo bench --bench $bench"
    case "$bench" in
        plan_live) cargo bench --bench "$bench" 2>&1 | tee "$out/$bench.txt" ;;
        *) cargo bench --bench "$bench" -- "${criterion_args[@]}" 2>&1 | tee "$out/$bench.txt" ;;
    esac
done

if [ "$soak" = 1 ]; then
    echo "== cargo test --test it soak:: (debug build)"
    start=$(date +%s)
    cargo test --test it soak:: -- --ignored --nocapture 2>&1 | tee "$out/soak.txt"
    echo "soak wall time: $(($(date +%s) - start)) s" | tee -a "$out/soak.txt"
fi

echo
echo "== summary ($out)"
for file in "$out"/*.txt; do
    name=$(basename "$file" .txt)
    [ "$name" = machine ] && continue
    awk -v bench="$name" '
        /^Benchmarking|^Found|^Gnuplot|^Warning|^ +[0-9]+ \(/ { next }
        /(time|thrpt): +\[[^0-9]*[0-9.]+%/ { next }
        /time: +\[/ { sub(/^ +/, ""); print bench ": " (last == "" ? "" : last "  ") $0; last = ""; next }
        /thrpt: +\[/ { sub(/^ +/, ""); print bench ":   " $0; next }
        /peak memory|requests|wall time|floor|request rate|one request per object|test result|soak|rendered size|pacing|generated config|apply 100/ {
            print bench ": " $0; next
        }
        /^[^ ]/ { last = $0 }
    ' "$file"
done | tee "$out/summary.txt"
