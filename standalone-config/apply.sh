#!/usr/bin/env bash
# Configures a WildFly 39 installation for Trigger Outbox, offline (embedded CLI, no running server needed).
#
#   standalone-config/apply.sh JBOSS_HOME [SERVER_CONFIG]        (SERVER_CONFIG defaults to standalone.xml)
#
# POSTGRESQL_JAR names the JDBC driver jar; by default target/jdbc/postgresql.jar, which `./mvnw package` leaves.
# With APPLY_ONCE=true a server already configured by this script is left as it is.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
jboss_home=${1:?usage: apply.sh JBOSS_HOME [SERVER_CONFIG]}
server_config=${2:-standalone.xml}
driver=${POSTGRESQL_JAR:-$here/../target/jdbc/postgresql.jar}
marker="$jboss_home/standalone/configuration/.trigger-outbox-$server_config"

if [ "${APPLY_ONCE:-false}" = true ] && [ -f "$marker" ]; then
  echo "trigger-outbox: $jboss_home ($server_config) is already configured"
  exit 0
fi
[ -f "$driver" ] || { echo "trigger-outbox: PostgreSQL driver not found at $driver (set POSTGRESQL_JAR)" >&2; exit 1; }

script=$(mktemp)
trap 'rm -f "$script"' EXIT
{
  echo "embed-server --std-out=discard --server-config=$server_config"
  echo "set postgresqlJar=$(cd "$(dirname "$driver")" && pwd)/$(basename "$driver")"
  cat "$here/outbox-add.cli"
  echo "stop-embedded-server"
} > "$script"
"$jboss_home/bin/jboss-cli.sh" --file="$script"
touch "$marker"
echo "trigger-outbox: configured $jboss_home ($server_config)"
