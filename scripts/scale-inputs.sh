#!/bin/sh
# Writes the generated configs of the scale figures in BENCHMARKS.md ("Validation at scale")
# into DIR (default target/scale-inputs), then times `converge validate` on each with
# /usr/bin/time: wall seconds, user seconds and peak memory.
#
#   scripts/scale-inputs.sh [DIR] [CONVERGE]      # CONVERGE defaults to target/release/converge
set -eu
dir=${1:-target/scale-inputs}
converge=${2:-target/release/converge}
mkdir -p "$dir"
head='version: 1\norganization: 7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b\n'

# One mapping of 80,000 keys (services with an id each).
{ printf "${head}services:\n"
  seq 0 79999 | awk '{printf "  s%d:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-%012d\n", $1, $1}'
} > "$dir/keys-80000.yaml"

# 40,000 dashboards with a tile each, and an alert on each.
{ printf "${head}services:\n  a:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11\nstacks:\n  prod:\n    service: a\n    dashboards:\n"
  seq 0 39999 | awk '{printf "      d%d:\n        name: D %d\n        tiles: [{name: T, x: 0, y: 0, w: 1, h: 1, series: [{type: time, aggFn: count}]}]\n", $1, $1}'
  printf "    alerts:\n"
  seq 0 39999 | awk '{printf "      a%d:\n        name: A %d\n        dashboard: d%d\n        tile: T\n        threshold: 1\n        thresholdType: above\n        interval: 5m\n        channel: {type: webhook, webhookId: w}\n", $1, $1, $1}'
} > "$dir/dashboards-40000.yaml"

# 20,000 errors, each shown with its snippet.
{ printf "${head}services:\n"
  seq 0 19999 | awk '{printf "  s%d:\n    id: 1c7d8c62-0b0f-4f0e-9b2e-%012d\n    scaling: {numReplicas: 99}\n", $1, $1}'
} > "$dir/errors-20000.yaml"

# An alias bomb of long strings: 50 KB of text, then five levels of ten aliases each.
{ printf 's: &s "%s"\n' "$(head -c 50000 /dev/zero | tr '\0' x)"
  below=s
  for level in 1 2 3 4 5; do
    printf 'l%d: &l%d [*%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s, *%s]\n' \
      $level $level $below $below $below $below $below $below $below $below $below $below
    below=l$level
  done
} > "$dir/alias-bomb.yaml"

for file in keys-80000 dashboards-40000 errors-20000 alias-bomb; do
  # A 4 GB address-space limit keeps a regression from taking the machine.
  ( ulimit -v 4000000
    /usr/bin/time -f "$file: %e s wall, %U s user, %M KB peak, exit %x" \
      "$converge" validate "$dir/$file.yaml" > /dev/null 2> "$dir/$file.err" ) || true
  grep -h "terminated by signal" "$dir/$file.err" || true
  tail -n 1 "$dir/$file.err"
done
