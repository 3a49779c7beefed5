#!/usr/bin/env bash
# The overhead workload through promptfoo, side by side with evalog (embedded log). By hand, not in
# CI: it installs promptfoo (about 1.4 GB; `npm install` picks the version for this Node) into a
# temp folder outside the repo, deleted at the end (unless PROMPTFOO_DIR names an existing install).
#
#   bench/peer-promptfoo.sh                          # N=1000 K=16 LATENCY=0 REPS=3
#   N=10000 K=16 REPS=1 bench/peer-promptfoo.sh
#   PROMPTFOO_DIR=/tmp/pf bench/peer-promptfoo.sh    # reuse an install (a folder with node_modules/promptfoo)
#
# Workload (as bench/overhead.ts): N cases `Reply with exactly: answer-i` → `answer-i`, one call
# each, exact match (promptfoo: an `equals` assertion), K in flight, against one `evalog mock-server`
# (the scripted model, its own process) with LATENCY ms. Sides, interleaved, order rotated per rep:
#   promptfoo       eval --no-cache -o out.json (results also go to its database, as by default)
#   promptfoo-lean  the same with --no-write and PROMPTFOO_DISABLE_DEBUG_LOG=true (its leanest)
#   evalog          evalog run dataset --data cases.jsonl (embedded log, compiled like dist/)
# Each is timed by /usr/bin/time -v when present (wall, user+sys CPU, peak RSS), else by a node
# wrapper (wall; CPU and RSS of the child via process.resourceUsage is not available, so "-").
# promptfoo runs with its config dir in the temp folder, telemetry and update checks off.
set -euo pipefail

N=${N:-1000}
K=${K:-16}
LATENCY=${LATENCY:-0}
REPS=${REPS:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/evalog-peer-promptfoo-XXXXXX")
MOCK_PID=

cleanup() {
  if [ -n "$MOCK_PID" ]; then kill "$MOCK_PID" 2>/dev/null || true; wait "$MOCK_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "# bench/peer-promptfoo.sh  $(date -u +%Y-%m-%dT%H:%M:%SZ)  nproc=$(nproc)  node $(node -v)  load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# N=$N K=$K LATENCY=${LATENCY}ms REPS=$REPS  disk: $(df -h "$WORK" | awk 'NR==2 {print $4 " free on " $6}')"

if [ -n "${PROMPTFOO_DIR:-}" ]; then
  PF=$PROMPTFOO_DIR
else
  PF=$WORK/promptfoo
  mkdir -p "$PF"
  echo '{"name":"peer-promptfoo","private":true}' > "$PF/package.json"
  echo "installing promptfoo into $PF ..."
  (cd "$PF" && npm install promptfoo --no-audit --no-fund --loglevel=error >/dev/null)
fi
PROMPTFOO="$PF/node_modules/.bin/promptfoo"
echo "# promptfoo $(node -p "require('$PF/node_modules/promptfoo/package.json').version")"

# evalog, compiled to plain JavaScript (bench/support/build.ts), as an installed evalog runs.
EVALOG=$(cd "$ROOT" && npx tsx bench/support/build.ts | tail -1)

node "$EVALOG" mock-server --latency-ms "$LATENCY" > "$WORK/mock.out" 2>&1 &
MOCK_PID=$!
URL=
for _ in $(seq 1 200); do
  URL=$(grep -oE 'http://127\.0\.0\.1:[0-9]+[^ ]*' "$WORK/mock.out" | head -1 || true)
  [ -n "$URL" ] && break
  sleep 0.05
done
[ -n "$URL" ] || { echo "mock-server did not start:"; cat "$WORK/mock.out"; exit 1; }

node - "$WORK" "$N" "$URL" <<'EOF'
const [dir, n, url] = process.argv.slice(2);
const fs = require('node:fs');
const cases = [], tests = [];
for (let i = 0; i < Number(n); i += 1) {
  cases.push(JSON.stringify({ id: `case-${i}`, input: `Reply with exactly: answer-${i}`, expected: `answer-${i}` }));
  tests.push({ vars: { input: `Reply with exactly: answer-${i}` }, assert: [{ type: 'equals', value: `answer-${i}` }] });
}
fs.writeFileSync(`${dir}/cases.jsonl`, cases.join('\n') + '\n');
fs.writeFileSync(`${dir}/tests.json`, JSON.stringify(tests));
fs.writeFileSync(`${dir}/promptfooconfig.yaml`, [
  'description: evalog peer benchmark',
  'prompts:',
  "  - '{{input}}'",
  'providers:',
  '  - id: openai:chat:bench-model',
  '    config:',
  `      apiBaseUrl: ${url}`,
  '      apiKey: bench',
  'tests: file://tests.json',
  '',
].join('\n'));
EOF

export PROMPTFOO_CONFIG_DIR=$WORK/promptfoo-home PROMPTFOO_DISABLE_TELEMETRY=1 PROMPTFOO_DISABLE_UPDATE=1
export EVALOG_API_KEY=bench OPENAI_API_KEY=bench

# measure NAME CMD...: runs CMD, appends "NAME wall cpu rss_mb" to $WORK/results.
measure() {
  local name=$1; shift
  local t=$WORK/time.txt
  if [ -x /usr/bin/time ]; then
    local code=0
    /usr/bin/time -v -o "$t" "$@" > "$WORK/last.out" 2>&1 || code=$?
    if [ "$code" != 0 ]; then
      # promptfoo 0.121 can crash at exit in its debug-log file transport ("write after end") after
      # writing its results: that is reported, and the run counts if its output file is complete.
      echo "  ($name exited with $code: $(grep -m1 -oE 'write after end|Error[^:]*: [^ ]+( [^ ]+){0,6}' "$WORK/last.out" || tail -1 "$WORK/last.out"))"
      [ "$name" = evalog ] && { tail -20 "$WORK/last.out"; exit 1; }
    fi
    local wall cpu rss
    wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$t")
    cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { print u + s }' "$t")
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 / 1024 }' "$t")
  else
    local t0 t1
    t0=$(node -p 'performance.timeOrigin + performance.now()')
    "$@" > "$WORK/last.out" 2>&1 || echo "  ($name exited with $?)"
    t1=$(node -p 'performance.timeOrigin + performance.now()')
    wall=$(node -p "(($t1) - ($t0)) / 1000"); cpu=-; rss=-
  fi
  echo "$name $wall $cpu $rss" >> "$WORK/results"
  printf '  %-15s %8.2f s wall  %7.0f calls/s  %7s s cpu  %7s MB  load %s\n' "$name" "$wall" "$(node -p "$N / $wall")" "$cpu" "$rss" "$(cut -d' ' -f1 /proc/loadavg)"
}

passed_promptfoo() { [ -s "$1" ] && node -p "const r = require('$1'); (r.results.stats ?? r.results.results?.stats).successes" || echo 0; }
passed_evalog() { grep -c '"passed":true' "$1/rows.jsonl"; }

SIDES=(promptfoo promptfoo-lean evalog)
for rep in $(seq 1 "$REPS"); do
  for i in 0 1 2; do
    side=${SIDES[$(( (i + rep - 1) % 3 ))]}
    case $side in
      promptfoo)
        rm -f "$WORK/out.json"
        measure promptfoo "$PROMPTFOO" eval -c "$WORK/promptfooconfig.yaml" --no-cache -o "$WORK/out.json" -j "$K" --no-progress-bar --no-table
        ok=$(passed_promptfoo "$WORK/out.json") ;;
      promptfoo-lean)
        rm -f "$WORK/out.json"
        measure promptfoo-lean env PROMPTFOO_DISABLE_DEBUG_LOG=true "$PROMPTFOO" eval -c "$WORK/promptfooconfig.yaml" --no-cache --no-write -o "$WORK/out.json" -j "$K" --no-progress-bar --no-table
        ok=$(passed_promptfoo "$WORK/out.json") ;;
      evalog)
        rm -rf "$WORK/run"
        measure evalog node "$EVALOG" run dataset --data "$WORK/cases.jsonl" --out "$WORK/run" --concurrency "$K" --base-url "$URL" --model bench-model
        ok=$(passed_evalog "$WORK/run") ;;
    esac
    [ "$ok" = "$N" ] || { echo "$side: $ok of $N cases passed; the workload must pass every case"; exit 1; }
  done
done

echo
echo "medians of $REPS; load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
node - "$WORK/results" "$N" <<'EOF'
const [file, n] = process.argv.slice(2);
const rows = require('node:fs').readFileSync(file, 'utf8').trim().split('\n').map((l) => l.split(' '));
const med = (xs) => { const s = xs.filter((x) => !Number.isNaN(x)).sort((a, b) => a - b); if (!s.length) return NaN; const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
const sides = ['promptfoo', 'promptfoo-lean', 'evalog'];
const stat = (side, i) => med(rows.filter((r) => r[0] === side).map((r) => Number(r[i])));
const evalogRate = Number(n) / stat('evalog', 1);
console.log('| side | wall s | calls/s | CPU s | peak RSS MB | evalog calls/s ÷ side |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const s of sides) {
  const wall = stat(s, 1);
  console.log(`| ${s} | ${wall.toFixed(2)} | ${(Number(n) / wall).toFixed(0)} | ${stat(s, 2).toFixed(2)} | ${stat(s, 3).toFixed(0)} | ${s === 'evalog' ? '—' : (evalogRate / (Number(n) / wall)).toFixed(2)} |`);
}
EOF
