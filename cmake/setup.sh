#!/bin/sh
# Installs the Debian packages ridge builds, tests and benchmarks with
# (cmake/debian-packages.txt), only those that are missing. Needs root or sudo
# when something is missing; does nothing (and needs neither) otherwise.
set -eu
list="$(dirname "$0")/debian-packages.txt"
missing=""
for pkg in $(cat "$list"); do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
echo "ridge setup: installing$missing"
as_root=""
[ "$(id -u)" -ne 0 ] && as_root=sudo
$as_root apt-get update -qq
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends $missing
