#!/usr/bin/env sh
# What the tests need beyond npm: nats-server (the JetStream tests), Debian's chromium (the
# viewer's browser tests) and python3 (the Python example agent), from Debian's packages.
# As root it runs apt-get directly; as a user it asks sudo, and only for apt-get.
set -eu
missing=""
command -v nats-server >/dev/null 2>&1 || missing="$missing nats-server"
[ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
[ -n "$missing" ] || exit 0
if [ "$(id -u)" = 0 ]; then as_root=""; else as_root="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$as_root apt-get update -qq
# shellcheck disable=SC2086 # the package names are words
$as_root apt-get install -y -qq $missing
