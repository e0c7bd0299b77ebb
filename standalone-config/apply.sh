#!/usr/bin/env bash
# Configures a WildFly 39 installation for Trigger Outbox with outbox-add.cli.
#
#   standalone-config/apply.sh JBOSS_HOME [SERVER_CONFIG]     offline (embedded CLI, server stopped);
#                                                            SERVER_CONFIG defaults to standalone.xml
#   standalone-config/apply.sh --connect JBOSS_HOME          against the running server (then reload)
#
# POSTGRESQL_JAR names the JDBC driver jar; by default target/jdbc/postgresql.jar, which
# `./mvnw package` leaves. With APPLY_ONCE=true a server already configured by this script is left
# as it is. Database settings are not written here: the server reads DB_URL, DB_USER and
# DB_PASSWORD from its environment when it starts. With OUTBOX_OPENTELEMETRY=true it also applies
# opentelemetry-add.cli (spans to an OTLP collector, README "Tracing").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
connect=false
if [ "${1:-}" = "--connect" ]; then
  connect=true
  shift
fi
jboss_home=${1:?usage: apply.sh [--connect] JBOSS_HOME [SERVER_CONFIG]}
server_config=${2:-standalone.xml}
driver=${POSTGRESQL_JAR:-$here/../target/jdbc/postgresql.jar}
marker="$jboss_home/standalone/configuration/.trigger-outbox-$server_config"

if [ "$connect" = false ] && [ "${APPLY_ONCE:-false}" = true ] && [ -f "$marker" ]; then
  echo "trigger-outbox: $jboss_home ($server_config) is already configured"
  exit 0
fi
[ -f "$driver" ] || { echo "trigger-outbox: PostgreSQL driver not found at $driver (run ./mvnw package, or set POSTGRESQL_JAR)" >&2; exit 1; }

script=$(mktemp)
trap 'rm -f "$script"' EXIT
{
  [ "$connect" = true ] || echo "embed-server --std-out=discard --server-config=$server_config"
  echo "set postgresqlJar=$(cd "$(dirname "$driver")" && pwd)/$(basename "$driver")"
  if [ -d "$jboss_home/modules/org/postgresql/main" ]; then
    # a second server configuration of the same installation (standalone-full.xml) shares the module
    grep -v '^module add --name=org.postgresql' "$here/outbox-add.cli"
  else
    cat "$here/outbox-add.cli"
  fi
  if [ "${OUTBOX_OPENTELEMETRY:-false}" = true ]; then
    cat "$here/opentelemetry-add.cli"
  fi
  if [ "$connect" = true ]; then echo "reload"; else echo "stop-embedded-server"; fi
} > "$script"
if [ "$connect" = true ]; then
  "$jboss_home/bin/jboss-cli.sh" -c --file="$script"
else
  "$jboss_home/bin/jboss-cli.sh" --file="$script"
  touch "$marker"
fi
echo "trigger-outbox: configured $jboss_home ($server_config)"
