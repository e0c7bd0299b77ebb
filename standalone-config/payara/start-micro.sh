#!/usr/bin/env bash
# Starts Payara Micro 6 (Java 17+) or 7 (Java 21+) with Trigger Outbox: the PostgreSQL driver on
# the server's class path, post-boot-commands.asadmin (pool, JDBC resource, realm), the WAR.
#
#   standalone-config/payara/start-micro.sh PAYARA_MICRO_JAR WAR [more Payara Micro options]
#
# Reads DB_URL, DB_USER, DB_PASSWORD (DB_POOL_MAX, default 40), OUTBOX_KEYFILE (users, from
# add-user.sh), POSTGRESQL_JAR (default target/jdbc/postgresql.jar, left by ./mvnw package) and
# HTTP_PORT (default 8080). outbox.* settings: environment (OUTBOX_DISPATCH_BATCH_SIZE=500) or
# JAVA_OPTS (-Doutbox.dispatch.batch-size=500).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
micro=${1:?usage: start-micro.sh PAYARA_MICRO_JAR WAR [options]}
war=${2:?usage: start-micro.sh PAYARA_MICRO_JAR WAR [options]}
shift 2
driver=${POSTGRESQL_JAR:-$here/../../target/jdbc/postgresql.jar}
: "${DB_URL:?set DB_URL (jdbc:postgresql://host:5432/outbox)}" "${DB_USER:?set DB_USER}" "${DB_PASSWORD:?set DB_PASSWORD}"
: "${OUTBOX_KEYFILE:?set OUTBOX_KEYFILE (the users file add-user.sh writes)}"
[ -f "$OUTBOX_KEYFILE" ] || { echo "trigger-outbox: no users yet: run $here/add-user.sh -f $OUTBOX_KEYFILE ..." >&2; exit 1; }
[ -f "$driver" ] || { echo "trigger-outbox: PostgreSQL driver not found at $driver (run ./mvnw package, or set POSTGRESQL_JAR)" >&2; exit 1; }
export DB_POOL_MAX=${DB_POOL_MAX:-40}
# Micro writes its configuration, with the resolved database password, into its runtime directory:
# a private one (mode 700), removed when Micro stops
root=$(mktemp -d "${TMPDIR:-/tmp}/trigger-outbox-micro.XXXXXX")
trap 'rm -rf "$root"' EXIT
trap 'kill -TERM "$pid" 2>/dev/null' TERM INT
# shellcheck disable=SC2086 # JAVA_OPTS is a list of options
java ${JAVA_OPTS:-} -jar "$micro" --nocluster --rootdir "$root/runtime" --port "${HTTP_PORT:-8080}" \
  --addlibs "$driver" --postbootcommandfile "$here/post-boot-commands.asadmin" --deploy "$war" "$@" &
pid=$!
set +e
wait "$pid"; status=$?
# a signal interrupted the first wait: wait for Micro's own shutdown
kill -0 "$pid" 2>/dev/null && { wait "$pid"; status=$?; }
exit "$status"
