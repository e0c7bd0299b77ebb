#!/usr/bin/env bash
# Adds (or replaces) a Trigger Outbox user in the Payara file-realm key file that
# post-boot-commands.asadmin points the realm at ($OUTBOX_KEYFILE); the counterpart of WildFly's
# `add-user.sh -a`. Groups become roles (outbox-admin, outbox-producer) and scope producers (app:UUID).
#
#   standalone-config/payara/add-user.sh [-f KEYFILE] -u USER [-p PASSWORD] -g GROUP[,GROUP...]
#
# Without -p the password is read from standard input. KEYFILE defaults to $OUTBOX_KEYFILE.
# Needs a JDK 17+ `java` on the PATH (runs KeyfileUser.java from source).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
keyfile=${OUTBOX_KEYFILE:-}
user='' password='' groups=''
while getopts "f:u:p:g:" opt; do
  case $opt in
    f) keyfile=$OPTARG ;;
    u) user=$OPTARG ;;
    p) password=$OPTARG ;;
    g) groups=$OPTARG ;;
    *) echo "usage: $0 [-f KEYFILE] -u USER [-p PASSWORD] -g GROUP[,GROUP...]" >&2; exit 2 ;;
  esac
done
[ -n "$keyfile" ] && [ -n "$user" ] && [ -n "$groups" ] || {
  echo "usage: $0 [-f KEYFILE] -u USER [-p PASSWORD] -g GROUP[,GROUP...]   (KEYFILE defaults to \$OUTBOX_KEYFILE)" >&2; exit 2; }
if [ -z "$password" ]; then
  [ -t 0 ] && { read -r -s -p "password for $user: " password; echo >&2; } || read -r password
fi
printf '%s' "$password" | java "$here/KeyfileUser.java" "$keyfile" "$user" "$groups"
chmod 600 "$keyfile"
echo "trigger-outbox: $user ($groups) in $keyfile"
