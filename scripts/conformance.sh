#!/usr/bin/env bash
# The external conformance check: public third-party tools, not converge's own code, judge
# converge and its sandbox against the public API documents in ../shared/reference/.
#
#   1. schemathesis (PyPI), an OpenAPI fuzzer, sends schema-generated requests to
#      `converge sandbox serve` and checks every answer against the document.
#   2. prism (npm @stoplight/prism-cli), a validating proxy, sits between the converge binary and
#      the sandbox while converge runs plan, apply, plan, drift, export and preview; every request
#      and answer that does not match the document is reported.
#
# It prints the violations both tools found. It is not part of `cargo test` or CI (it needs
# Python and Node); it installs its tools when they are missing, into target/conformance-tools
# (override with CONVERGE_CONFORMANCE_TOOLS). CONFORMANCE.md records its last results.
#
#   scripts/conformance.sh            # everything
#   FUZZ_EXAMPLES=20 scripts/conformance.sh   # cases per operation for the fuzzer (default 25)
#   CONVERGE_BIN=/path/to/converge scripts/conformance.sh   # judge another build
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
REFERENCE=${CONVERGE_REFERENCE:-$ROOT/../shared/reference}
TOOLS=${CONVERGE_CONFORMANCE_TOOLS:-$ROOT/target/conformance-tools}
EXAMPLES=${FUZZ_EXAMPLES:-25}
ORG=7d3f6a2e-0c1b-4e5f-9a8b-1c2d3e4f5a6b
SERVICE=1c7d8c62-0b0f-4f0e-9b2e-6a3c8a3b7e11
BASIC="Basic $(printf 'sandbox-key:sandbox-secret' | base64)"
BEARER="Bearer sandbox-token"

for document in cloud-api.openapi.json observability-api.openapi.json; do
  if [ ! -f "$REFERENCE/$document" ]; then
    echo "conformance: $REFERENCE/$document not found (set CONVERGE_REFERENCE)" >&2
    exit 1
  fi
done

# --- tools ---------------------------------------------------------------------------------
need_apt=()
command -v python3 >/dev/null 2>&1 || need_apt+=(python3)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || need_apt+=(python3-venv)
command -v node >/dev/null 2>&1 || need_apt+=(nodejs)
command -v npm >/dev/null 2>&1 || need_apt+=(npm)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "conformance: installing ${need_apt[*]} with apt-get" >&2
  if [ "$(id -u)" != 0 ]; then
    echo "conformance: apt-get needs root; install ${need_apt[*]} and run again" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
mkdir -p "$TOOLS"
ST=$TOOLS/venv/bin/schemathesis
if [ ! -x "$ST" ]; then
  echo "conformance: installing schemathesis into $TOOLS/venv" >&2
  python3 -m venv "$TOOLS/venv"
  "$TOOLS/venv/bin/pip" install -q 'schemathesis>=4,<5'
fi
PRISM=$TOOLS/node/node_modules/.bin/prism
if [ ! -x "$PRISM" ]; then
  echo "conformance: installing @stoplight/prism-cli into $TOOLS/node" >&2
  npm install --silent --no-fund --no-audit --prefix "$TOOLS/node" '@stoplight/prism-cli@5' >/dev/null
fi

# CONVERGE_BIN runs another build (an older one, to compare); by default the working tree's.
if [ -n "${CONVERGE_BIN:-}" ]; then
  CONVERGE=$CONVERGE_BIN
else
  cargo build --quiet
  CONVERGE=$ROOT/target/debug/converge
fi

WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_for() { # url
  for _ in $(seq 1 150); do
    if curl -s -o /dev/null "$1" 2>/dev/null || python3 -c "import urllib.request,sys; urllib.request.urlopen(sys.argv[1])" "$1" >/dev/null 2>&1; then
      return 0
    fi
    sleep 0.2
  done
  echo "conformance: $1 did not come up" >&2
  return 1
}

start_sandbox() { # name -> sets SANDBOX_URL
  local port
  port=$(free_port)
  # The documents checked here are the contract's: the sandbox answers in that generation.
  "$CONVERGE" sandbox serve --port "$port" --rate-limit off --generation contract \
    --state "$WORK/$1.json" >"$WORK/$1.log" 2>&1 &
  PIDS+=($!)
  SANDBOX_URL=http://127.0.0.1:$port
  wait_for "$SANDBOX_URL/_sandbox/requests"
}

# --- 1. the fuzzer against the sandbox -----------------------------------------------------
echo
echo "== schemathesis: schema-generated requests to the sandbox, answers checked"
start_sandbox fuzz
# The documents' `servers` use variables (`{base_url}`) the fuzzer cannot fill: copies without.
for document in cloud-api.openapi.json observability-api.openapi.json; do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["servers"]=[{"url": "/"}]; json.dump(d, open(sys.argv[2], "w"))' \
    "$REFERENCE/$document" "$WORK/$document"
done
fuzz() { # document auth-header report
  # Path parameters pinned to the demo world so requests reach its objects; everything else is
  # generated from the document. Only checks about the answers are run: the sandbox may refuse
  # what the real API refuses.
  "$ST" run "$WORK/$1" \
    --url "$SANDBOX_URL" \
    --header "Authorization: $2" \
    --checks status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance \
    --max-examples "$EXAMPLES" \
    --phases examples,fuzzing \
    --mode positive \
    --suppress-health-check all \
    --no-color \
    --seed 1 \
    >"$WORK/$3" 2>&1 || true
}
cat >"$WORK/schemathesis.toml" <<EOF
[parameters]
"path.organizationId" = "$ORG"
"path.serviceId" = "$SERVICE"
EOF
(cd "$WORK" && fuzz cloud-api.openapi.json "$BASIC" fuzz-cloud.txt)
(cd "$WORK" && fuzz observability-api.openapi.json "$BEARER" fuzz-observability.txt)
for report in fuzz-cloud.txt fuzz-observability.txt; do
  echo "-- $report"
  # Each failure (operation, check, status received) and the summary; no reproduction commands.
  sed -n '/^=* FAILURES/,/^=* \(WARNINGS\|SUMMARY\)/p' "$WORK/$report" \
    | grep -E '^[_ ]*[A-Z]+ /|^- |Received:|Documented:|must|not valid' | head -120 || true
  sed -n '/^=* SUMMARY/,$p' "$WORK/$report" | grep -E 'Tested|ST[0-9]+|generated|⚠' || true
done

# --- 2. the validating proxy between the binary and the sandbox ----------------------------
echo
echo "== prism: converge through a validating proxy (plan, apply, plan, drift, export, preview)"
start_sandbox proxy
CLOUD_PORT=$(free_port)
OBS_PORT=$(free_port)
"$PRISM" proxy "$REFERENCE/cloud-api.openapi.json" "$SANDBOX_URL" --port "$CLOUD_PORT" \
  --errors=false >"$WORK/prism-cloud.log" 2>&1 &
PIDS+=($!)
"$PRISM" proxy "$REFERENCE/observability-api.openapi.json" "$SANDBOX_URL" --port "$OBS_PORT" \
  --errors=false >"$WORK/prism-observability.log" 2>&1 &
PIDS+=($!)
for port in "$CLOUD_PORT" "$OBS_PORT"; do
  for _ in $(seq 1 150); do
    grep -q "Prism is listening" "$WORK"/prism-*.log 2>/dev/null && \
      python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',int(sys.argv[1])),1)" "$port" 2>/dev/null && break
    sleep 0.2
  done
done

cat >"$WORK/obs.yaml" <<'EOF'
version: 1
organization: ${env:CONVERGE_ORG_ID}
observability:
  url: ${env:CONVERGE_OBSERVABILITY_URL}
  token: ${env:CONVERGE_OBS_TOKEN}
stacks:
  obs:
    api: observability
    dashboards:
      api-health:
        name: API health
        tiles:
          - name: Requests
            x: 0
            y: 0
            w: 6
            h: 4
            series:
              - type: time
                source: Logs
                aggFn: count
                where: "service:api"
                whereLanguage: lucene
    alerts:
      busy:
        name: API busy
        dashboard: api-health
        tile: Requests
        threshold: 400
        thresholdType: above
        interval: 5m
        channel: { type: webhook, webhookId: 65f5e4a3b9e77c001a789012 }
EOF
export CONVERGE_CLOUD_URL=http://127.0.0.1:$CLOUD_PORT
export CONVERGE_OBSERVABILITY_URL=http://127.0.0.1:$OBS_PORT
export CONVERGE_ORG_ID=$ORG CONVERGE_KEY_ID=sandbox-key CONVERGE_KEY_SECRET=sandbox-secret
export CONVERGE_OBS_TOKEN=sandbox-token NO_COLOR=1
export CONVERGE_CLOUD_RATE_LIMIT=1000/1s CONVERGE_OBSERVABILITY_RATE_LIMIT=1000/1s
step() {
  echo "-- converge $*"
  local code=0
  "$CONVERGE" "$@" >"$WORK/step.out" 2>"$WORK/step.err" || code=$?
  echo "   exit $code"
  if [ "$code" = 1 ]; then sed 's/^/   | /' "$WORK/step.err" | head -20; fi
}
step plan examples/quickstart.yaml
step apply examples/quickstart.yaml --yes
step plan examples/quickstart.yaml --detailed-exitcode
step drift examples/quickstart.yaml
step plan "$WORK/obs.yaml"
step apply "$WORK/obs.yaml" --yes
step plan "$WORK/obs.yaml" --check-queries
step export --service "$SERVICE" --stack "$SERVICE" --observability
step preview alert.obs.busy "$WORK/obs.yaml" --end 2026-11-21T06:00:00Z
sleep 1

for api in cloud observability; do
  log=$WORK/prism-$api.log
  requests=$(grep -c '\[HTTP SERVER\].*Request received' "$log" || true)
  echo "-- prism ($api document): $requests requests proxied"
  # Prism writes one line per violation after "Request/Response did not pass the validation".
  grep -E 'Violation|did not pass|\[VALIDATOR\]|error' "$log" \
    | sed -E 's/\x1b\[[0-9;]*m//g; s/^.*\] (\S+ )?//' \
    | sort | uniq -c | sort -rn | head -60 || true
done
echo
echo "Logs of this run were in $WORK (removed on exit); set KEEP=1 to keep them."
if [ "${KEEP:-}" = 1 ]; then trap - EXIT; for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done; echo "kept: $WORK"; fi
