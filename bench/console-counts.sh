#!/usr/bin/env bash
# What one console refresh costs the database: the overview's statements before the shared counts (commit a8a8978:
# stats, activity, two breakdowns) against one snapshot of this checkout's Counts (the live counts and the unsettled minutes of
# history), on the schema's migrations and bench/sql/console-counts-data.sql, three runs each.
# Usage: bench/console-counts.sh [psql connection options]   (default: -h 127.0.0.1 -U postgres)
set -euo pipefail
cd "$(dirname "$0")/.."
conn=("${@:--h 127.0.0.1 -U postgres}")
read -r -a conn <<<"${conn[*]}"
work=$(mktemp -d)
psql "${conn[@]}" -qc "DROP DATABASE IF EXISTS console_counts" -c "CREATE DATABASE console_counts"
for f in app/src/main/resources/db/migration/V*.sql; do psql "${conn[@]}" -d console_counts -q -v ON_ERROR_STOP=1 -f "$f"; done
psql "${conn[@]}" -d console_counts -q -f bench/sql/console-counts-data.sql
python3 - "$work" <<'PY'
import re, subprocess, sys
work = sys.argv[1]
def blocks(rev, path):
    text = open(path).read() if rev is None else subprocess.check_output(['git', 'show', f'{rev}:{path}']).decode()
    return [re.sub(r'--[^\n]*', '', q).rstrip() for q in re.findall(r'"""\n(.*?)"""', text, re.S)]
stats = blocks('a8a8978', 'src/main/java/dev/triggeroutbox/console/control/Stats.java')[0]
per, breakdown = blocks('a8a8978', 'src/main/java/dev/triggeroutbox/console/control/Activity.java')[:2]
before = [stats, per.replace('make_interval(mins => ?)', 'make_interval(mins => 59)')] + [
    breakdown.replace('%1$s', c).replace('LIMIT ?', 'LIMIT 20') for c in ('source_kind', 'app_id')]
live, history = blocks(None, 'app/src/main/java/dev/triggeroutbox/console/control/Counts.java')[:2]
history = history.replace('? - interval', 'now() - interval')
after = [live, history.replace('to_timestamp(? * 60)', "date_trunc('minute', now()) - interval '1 minute'")]
first = [live, history.replace('to_timestamp(? * 60)', "date_trunc('minute', now()) - interval '180 minutes'")]
for name, qs in (('before', before), ('after', after), ('after-first', first)):
    open(f'{work}/{name}.sql', 'w').write(''.join(q.rstrip(';') + ';\n' for q in qs))
PY
for name in before after after-first; do
  for i in 1 2 3; do
    start=$(date +%s%N); psql "${conn[@]}" -d console_counts -q -o /dev/null -f "$work/$name.sql"; end=$(date +%s%N)
    echo "$name run $i: $(( (end - start) / 1000000 )) ms"
  done
done
psql "${conn[@]}" -qc "DROP DATABASE console_counts"
rm -rf "$work"
