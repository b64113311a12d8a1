#!/usr/bin/env bash
# GrowthBook's stats engine (gbstats, PyPI) in a virtualenv of its own, .build/gbstats/venv, for the tests that
# check the control report's statistics against it (Tests/GrowthBookComparisonTests). `make test` runs this
# first; it installs on first use and whenever the pinned version changes, and prints the interpreter's path.
# gbstats is pinned to the version the reference values were made with (Fixtures/stats-reference.json), and
# its own dependencies to versions with wheels for Debian 12's Python 3.11, so nothing is compiled.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
work="$repo/.build/gbstats"
version=0.8.0 numpy_version=1.26.4 scipy_version=1.13.1 pandas_version=1.5.3 pydantic_version=2.10.6
python="$work/venv/bin/python"

if [[ ! -x "$python" ]] || [[ "$("$python" -c 'import importlib.metadata as m; print(m.version("gbstats"))' 2>/dev/null)" != "$version" ]]; then
    echo "gbstats: installing gbstats $version into $work/venv" >&2
    mkdir -p "$work"
    # Debian's interpreter (python3-venv, from scripts/deps.sh) when there is one, so a pyenv shim on PATH
    # does not decide which Python the venv is built on.
    base=python3
    [[ -x /usr/bin/python3 ]] && base=/usr/bin/python3
    "$base" -m venv --clear "$work/venv"
    "$work/venv/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: \
        "gbstats==$version" "numpy==$numpy_version" "scipy==$scipy_version" "pandas==$pandas_version" \
        "pydantic==$pydantic_version"
fi
echo "$python"
