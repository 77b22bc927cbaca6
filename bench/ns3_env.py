"""What the side-by-side benches need of ns-3's own Python (bench/ns3_compare.py,
ns3_spatial.py, ns3_ac.py, ns3_ampdu_geo.py, ns3_bbr.py, ns3_fct.py): whether the one they
were given can run it, a worker process there that runs one simulation a request, and the
wired dumbbell the TCP benches share. ns-3 lives in a virtualenv
of its own (python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip install
ns3==3.44.post0)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import tempfile
from collections.abc import Callable

# A worker's answer to a request: one line on its stdout with this prefix (cppyy prints too).
RESULT = "NS3-RESULT "


def add_ns3_python_option(parser: argparse.ArgumentParser) -> None:
    """`--ns3-python`, by default $NS3_PYTHON, else /work/ns3venv's if there is one."""
    default = os.environ.get("NS3_PYTHON")
    if default is None and os.path.exists("/work/ns3venv/bin/python"):
        default = "/work/ns3venv/bin/python"
    parser.add_argument(
        "--ns3-python",
        default=default,
        help="a Python that imports ns (the ns3 package); default $NS3_PYTHON, else "
        "/work/ns3venv/bin/python",
    )


def parse_ns3_args(
    parser: argparse.ArgumentParser, bench: str, worker: Callable[[], None]
) -> argparse.Namespace | None:
    """The bench's options; None after running as the ns-3 worker (`--worker`, the process
    `Ns3Worker` starts) or after saying why ns-3 cannot run."""
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker()
        return None
    missing = ns3_available(args.ns3_python, "no --ns3-python given and no /work/ns3venv")
    if missing:
        print(f"{bench}: skipped, {missing} (ns-3 needs its own venv: see the docstring)")
        return None
    return args


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


class Ns3Worker:
    """A bench's ns-3 side: `script --worker` under ns-3's Python, one process for the whole
    run, one simulation a request (a JSON line with `settings` added); started again (once
    a request, after `primer` if given: cppyy's heap can break on a fresh worker's second
    run) if it dies. `figures` turns its answer and the request into the bench's figures."""

    def __init__(
        self,
        python: str,
        script: str,
        settings: dict,
        figures: Callable[[dict, dict], dict],
        primer: dict | None = None,
    ) -> None:
        self.python, self.script = python, script
        self.settings, self.figures, self.primer = settings, figures, primer
        self.restarts = 0
        self.start()

    def start(self) -> None:
        # cppyy's warnings while it loads ns-3 go here; shown if the worker fails.
        self.stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in close())
        self.process = subprocess.Popen(
            [self.python, self.script, "--worker"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=self.stderr, text=True
        )  # fmt: skip

    def ask(self, request: dict) -> dict | None:
        assert self.process.stdin and self.process.stdout
        try:
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except BrokenPipeError:
            return None
        for line in self.process.stdout:
            if line.startswith(RESULT):
                return json.loads(line[len(RESULT) :])
        return None

    def run(self, request: dict) -> dict:
        request = {**request, **self.settings}
        result = self.ask(request)
        if result is None:  # the worker died: once more with a new one
            errors = self.errors()
            self.close()
            self.restarts += 1
            print(f"  (ns-3's worker stopped; started again: {errors[-1:]})", flush=True)
            self.start()
            if self.primer is not None:
                self.ask({**self.settings, **self.primer})
            result = self.ask(request)
        if result is None:
            raise RuntimeError("the ns-3 worker stopped:\n" + "".join(self.errors()[-30:]))
        return self.figures(result, request)

    def errors(self) -> list[str]:
        self.stderr.seek(0)
        return [line for line in self.stderr if "Failed to materialize" not in line]

    def close(self) -> None:
        if self.process.stdin:
            with contextlib.suppress(BrokenPipeError):
                self.process.stdin.close()
        self.process.wait()
        self.stderr.close()


def dumbbell(ns, rate_bps: float, delay_ms: float, queue_packets: int) -> tuple:
    """Two ns-3 nodes joined by a point-to-point link of ``rate_bps`` and ``delay_ms`` with a
    one-packet device queue below a FifoQueueDisc of ``queue_packets`` (the DropTail queue
    both directions keep), the Internet stack and addresses in 10.1.1.0/24 (ns3_bbr.py,
    ns3_fct.py): (nodes, devices, qdiscs, interfaces)."""
    nodes = ns.NodeContainer()
    nodes.Create(2)
    link = ns.PointToPointHelper()
    link.SetDeviceAttribute("DataRate", ns.DataRateValue(ns.DataRate(round(rate_bps))))
    link.SetChannelAttribute("Delay", ns.TimeValue(ns.MilliSeconds(delay_ms)))
    link.SetQueue("ns3::DropTailQueue", "MaxSize", ns.QueueSizeValue(ns.QueueSize("1p")))
    devices = link.Install(nodes)
    ns.InternetStackHelper().Install(nodes)
    # Installed before the addresses, which would otherwise install FqCoDel.
    fifo = ns.TrafficControlHelper()
    fifo.SetRootQueueDisc(
        "ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{queue_packets}p"))
    )
    qdiscs = fifo.Install(devices)
    addresses = ns.Ipv4AddressHelper()
    addresses.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    return nodes, devices, qdiscs, addresses.Assign(devices)
