#!/bin/sh
# Regenerate the build system, then configure unless NOCONFIGURE is set.
set -e
srcdir=$(dirname "$0")
test -n "$srcdir" || srcdir=.
olddir=$(pwd)
cd "$srcdir"
autoreconf --force --install --verbose
cd "$olddir"
if test -z "$NOCONFIGURE"; then
  exec "$srcdir/configure" "$@"
fi
