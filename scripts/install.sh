#!/usr/bin/env bash
# Installs Cardinal for running as a service: the two executables, the SQL (migrations and code files) where
# `cardinal migrate` finds them without a checkout, the systemd units (with the installed paths filled in) and
# the example configuration. `make install` builds the release binaries and calls this; a test calls it on the
# debug build.
#
# Variables (the Makefile passes its own of the same names):
#   BIN_DIR     folder holding the built `cardinal` and `cardinald` (required; `swift build -c release --show-bin-path`)
#   PREFIX      installation prefix, default /usr/local
#   DESTDIR     staging root prepended to every path written (packaging, tests); the units still name PREFIX
#   BINDIR      default $PREFIX/bin
#   DATADIR     default $PREFIX/share (SQL in $DATADIR/cardinal/migrations and code)
#   UNITDIR     default $PREFIX/lib/systemd/system (systemd reads /usr/local/lib/systemd/system too)
#   SYSCONFDIR  default /etc (the units read $SYSCONFDIR/cardinal/cardinald.env and cardinal.env)
#
# `cardinal migrate` looks for ../share/cardinal/migrations next to its own folder, so BINDIR and DATADIR must
# stay siblings under one prefix, or the units and operators must pass --migrations-dir / CARDINAL_MIGRATIONS_DIR.
set -euo pipefail

repository=$(cd "$(dirname "$0")/.." && pwd)
: "${BIN_DIR:?set BIN_DIR to the folder of the built cardinal and cardinald (swift build -c release --show-bin-path)}"
PREFIX=${PREFIX:-/usr/local}
DESTDIR=${DESTDIR:-}
BINDIR=${BINDIR:-$PREFIX/bin}
DATADIR=${DATADIR:-$PREFIX/share}
UNITDIR=${UNITDIR:-$PREFIX/lib/systemd/system}
SYSCONFDIR=${SYSCONFDIR:-/etc}

for name in cardinal cardinald; do
    if [[ ! -x "$BIN_DIR/$name" ]]; then
        echo "install: $BIN_DIR/$name is missing; build first (make install builds the release)" >&2
        exit 1
    fi
done

echo "install: binaries, SQL and units under ${DESTDIR}${PREFIX}" >&2
install -d "$DESTDIR$BINDIR" "$DESTDIR$DATADIR/cardinal/migrations" "$DESTDIR$DATADIR/cardinal/code" "$DESTDIR$UNITDIR"
install -m 0755 "$BIN_DIR/cardinal" "$BIN_DIR/cardinald" "$DESTDIR$BINDIR/"

# The installed SQL is exactly this release's: a migration left from an older install would be applied (or
# fail its checksum) as if it belonged to this one, and a code file left behind would be applied with the rest.
rm -f "$DESTDIR$DATADIR/cardinal/migrations/"*.sql "$DESTDIR$DATADIR/cardinal/code/"*.sql
install -m 0644 "$repository"/SQL/migrations/*.sql "$DESTDIR$DATADIR/cardinal/migrations/"
install -m 0644 "$repository"/SQL/code/*.sql "$DESTDIR$DATADIR/cardinal/code/"
install -m 0644 "$repository"/scripts/systemd/*.env.example "$DESTDIR$DATADIR/cardinal/"

# Units name the installed paths (without DESTDIR): systemd needs absolute paths and has no search path.
for template in "$repository"/scripts/systemd/*.in; do
    unit=$(basename "$template" .in)
    sed -e "s|@BINDIR@|$BINDIR|g" -e "s|@DATADIR@|$DATADIR|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" \
        "$template" >"$DESTDIR$UNITDIR/$unit.tmp"
    chmod 0644 "$DESTDIR$UNITDIR/$unit.tmp"
    mv "$DESTDIR$UNITDIR/$unit.tmp" "$DESTDIR$UNITDIR/$unit"
done

if [[ -z "$DESTDIR" && -d /run/systemd/system ]]; then
    echo "install: done; run 'systemctl daemon-reload', then see README.md (Operations) to configure and start" >&2
fi
