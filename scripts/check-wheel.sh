#!/usr/bin/env bash
# airtcp as a user installs it: builds the wheel, installs it (not editable) into a fresh
# virtualenv and runs the CLI from an empty temporary directory, far from the source tree,
# so that built-in scenarios, experiments and reproductions must come from the package.
set -euo pipefail
cd "$(dirname "$0")/.."
source_tree=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

.venv/bin/maturin build --release --quiet --out "$work/dist"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet "$work"/dist/airtcp-*.whl
mkdir "$work/run"
cd "$work/run"
airtcp="$work/venv/bin/airtcp"

installed=$("$work/venv/bin/python" -c 'import airtcp, pathlib; print(pathlib.Path(airtcp.__file__).parent)')
case "$installed" in
    "$source_tree"/*) echo "check-wheel: airtcp was imported from the source tree ($installed)" >&2; exit 1 ;;
esac
"$airtcp" --version | grep -q "^airtcp [0-9.]* (commit [0-9a-f]*)$"
"$airtcp" scenarios
"$airtcp" scenarios show ryu-upload > my-upload.toml
"$airtcp" validate my-upload.toml --set wlan.stations=4
"$airtcp" run wired-tcp --set simulation.duration=10s --out wired
test -s wired/timeseries.parquet
"$airtcp" sweep wired-buffer -j 2 -q --out sweep > /dev/null
"$airtcp" demo
test -s results/demo/report.html
echo "check-wheel: the installed wheel works from $work/run"
