"""What the side-by-side benches need of ns-3's own Python (bench/ns3_compare.py,
ns3_spatial.py, ns3_ac.py): whether the one they were given can run it. ns-3 lives in a
virtualenv of its own (python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip install
ns3==3.44.post0); each bench runs its ns-3 side there as a worker."""

from __future__ import annotations

import os
import subprocess


def ns3_available(python: str | None, unset: str = "no --ns3-python given") -> str | None:
    """Why ns-3 cannot run under `python`, or None; `unset` says why there is none."""
    if python is None:
        return unset
    if not os.access(python, os.X_OK):
        return f"{python} is not an executable"
    probe = subprocess.run([python, "-c", "import importlib.util as u; "
                            "raise SystemExit(u.find_spec('ns') is None)"],
                           capture_output=True)  # fmt: skip
    if probe.returncode != 0:
        return f"the ns3 package is not importable by {python}"
    return None
