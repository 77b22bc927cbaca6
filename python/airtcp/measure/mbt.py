"""Paper 002's Maximum Buffer Threshold (MBT): the smallest socket buffer past which TCP
throughput stops rising, per RTT; the exponential fit of the best throughput against RTT
(y = a e^(-b x), the paper's regression) and its prediction at an RTT left out of the fit;
and the step the paper leaves open, a buffer for a measured path with the sysctl and
setsockopt values that apply it.

Everything here takes throughputs per (RTT, buffer, run), so it serves the simulator's sweep
(`airtcp mbt`) and real stacks alike.

The MBT rule: a buffer has reached the plateau if no larger buffer is clearly better, that
is, for every larger buffer either its mean throughput is within ``tolerance`` (5 %) above
this one's, or Welch's one-sided t-test over the runs cannot say this one is lower (p >=
``alpha``, 0.05). The MBT is the smallest buffer that has reached it. The tolerance keeps
differences too small to matter (a deterministic simulator's runs can differ by a few kbit/s
with no variance to speak of) from moving the MBT; the test keeps noise from moving it the
other way; comparing with every larger buffer, not only the best one, keeps the luckiest
plateau point from pulling the MBT up. With the paper's Table 2 (5 ms: 80 KB 24.0, 96 KB
25.5, 128 KB 25.9 Mbit/s) the rule gives 96 KB, the paper's MBT.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

from ..scenario.units import parse_duration, parse_size

TOLERANCE = 0.05
ALPHA = 0.05


def parse_buffers(text: str) -> list[int]:
    """``16KiB..1MiB`` (doubling from the first to the last) or ``32KiB,64KiB,96KiB``."""
    if ".." in text:
        first, _, last = text.partition("..")
        low, high = parse_size(first), parse_size(last)
        if not 0 < low <= high:
            raise ValueError(f"expected a range from small to large, got {text!r}")
        sizes = [low]
        while sizes[-1] * 2 <= high:
            sizes.append(sizes[-1] * 2)
        if sizes[-1] != high:
            sizes.append(high)
        return sizes
    sizes = sorted({parse_size(part) for part in text.split(",") if part.strip()})
    if not sizes or sizes[0] <= 0:
        raise ValueError(f"expected positive sizes, got {text!r}")
    return sizes


def parse_rtts(text: str) -> list[int]:
    """``1,5,10,20,50ms``: the unit of the last applies to bare numbers before it."""
    parts = [part.strip() for part in text.split(",") if part.strip()]
    if not parts:
        raise ValueError("expected RTTs, e.g. 1,5,10,20,50ms")
    unit = parts[-1].lstrip("0123456789.")
    rtts = [parse_duration(p if p.lstrip("0123456789.") else p + unit) for p in parts]
    if any(r <= 0 for r in rtts):
        raise ValueError(f"RTTs must be positive, got {text!r}")
    return sorted(set(rtts))


@dataclass(frozen=True)
class Cell:
    buffer_bytes: int
    mean_bps: float
    max_bps: float
    runs: int
    # The smallest p-value of "this buffer is lower" against a larger buffer more than the
    # tolerance better (1 if there is none).
    p_lower: float
    reached: bool


@dataclass(frozen=True)
class Detection:
    mbt_bytes: int
    best_bytes: int
    best_mean_bps: float
    cells: list[Cell] = field(default_factory=list)


def _p_lower(sample: list[float], best: list[float]) -> float:
    """Welch's one-sided p-value that ``sample``'s mean is below ``best``'s."""
    from scipy import stats

    mean, best_mean = sum(sample) / len(sample), sum(best) / len(best)
    if len(sample) < 2 or len(best) < 2:
        return 1.0 if mean >= best_mean else 0.0
    spread = max(sample) - min(sample) + max(best) - min(best)
    if spread == 0:
        return 1.0 if mean >= best_mean else 0.0
    # From the samples' statistics: `ttest_ind` on the raw runs warns of "catastrophic
    # cancellation" whenever one sample's runs are all equal (a window-limited flow's
    # goodput often is), though its zero variance is exact and Welch's test well defined.
    result = stats.ttest_ind_from_stats(
        mean, statistics.stdev(sample), len(sample),
        best_mean, statistics.stdev(best), len(best),
        equal_var=False, alternative="less",
    )  # fmt: skip
    return float(result.pvalue)


def detect(
    runs_by_buffer: dict[int, list[float]], tolerance: float = TOLERANCE, alpha: float = ALPHA
) -> Detection:
    """The MBT of one RTT from each buffer's per-run throughputs."""
    if not runs_by_buffer or any(not runs for runs in runs_by_buffer.values()):
        raise ValueError("every buffer needs at least one run")
    means = {b: sum(r) / len(r) for b, r in runs_by_buffer.items()}
    best = max(sorted(means), key=lambda b: means[b])
    buffers = sorted(runs_by_buffer)
    cells = []
    for i, buffer in enumerate(buffers):
        runs = runs_by_buffer[buffer]
        better = [b for b in buffers[i + 1 :] if means[b] > (1 + tolerance) * means[buffer]]
        p = min((_p_lower(runs, runs_by_buffer[b]) for b in better), default=1.0)
        cells.append(Cell(buffer, means[buffer], max(runs), len(runs), p, p >= alpha))
    mbt = next(cell.buffer_bytes for cell in cells if cell.reached)
    return Detection(mbt, best, means[best], cells)


@dataclass(frozen=True)
class Fit:
    """y = a e^(-b x), x the RTT in ms, y in bit/s."""

    a_bps: float
    b_per_ms: float

    def predict(self, rtt_ms: float) -> float:
        return self.a_bps * math.exp(-self.b_per_ms * rtt_ms)


def fit_exponential(rtt_ms: list[float], throughput_bps: list[float]) -> Fit:
    """Least squares on ln y, as a spreadsheet's exponential trend line (the paper's)."""
    if len(rtt_ms) < 2 or len(set(rtt_ms)) < 2:
        raise ValueError("a fit needs at least two different RTTs")
    if any(y <= 0 for y in throughput_bps):
        raise ValueError("throughputs must be positive")
    n = len(rtt_ms)
    logs = [math.log(y) for y in throughput_bps]
    mean_x, mean_l = sum(rtt_ms) / n, sum(logs) / n
    sxx = sum((x - mean_x) ** 2 for x in rtt_ms)
    sxl = sum((x - mean_x) * (lg - mean_l) for x, lg in zip(rtt_ms, logs, strict=True))
    slope = sxl / sxx
    return Fit(math.exp(mean_l - slope * mean_x), -slope)


@dataclass(frozen=True)
class Recommendation:
    rtt_ms: float
    capacity_bps: float
    bdp_bytes: int
    overhead_bytes: int
    buffer_bytes: int
    sysctl: list[str]
    setsockopt: list[str]


def overhead(detections: dict[float, Detection]) -> int:
    """What the sweep needed beyond its own bandwidth-delay product: the largest
    MBT - best throughput x RTT over the RTTs (never negative)."""
    beyond = [d.mbt_bytes - d.best_mean_bps * rtt_ms / 8000 for rtt_ms, d in detections.items()]
    return max(0, round(max(beyond, default=0)))


def recommend(rtt_ms: float, capacity_bps: float, overhead_bytes: int) -> Recommendation:
    """A buffer for a path of ``rtt_ms`` and ``capacity_bps`` (measured with `airtcp
    measure`): its bandwidth-delay product plus the overhead the sweep measured, rounded up to
    4 KiB; and how to set it on Linux."""
    bdp = math.ceil(capacity_bps * rtt_ms / 8000)
    buffer = -(-(bdp + overhead_bytes) // 4096) * 4096
    sysctl = [
        # setsockopt is capped at these; the kernel then doubles the value for its overhead.
        f"sysctl -w net.core.rmem_max={buffer}",
        f"sysctl -w net.core.wmem_max={buffer}",
        # For sockets that do not set their buffers (autotuning): the largest buffer, of which
        # about half is window (tcp_adv_win_scale).
        f"sysctl -w net.ipv4.tcp_rmem='4096 131072 {2 * buffer}'",
        f"sysctl -w net.ipv4.tcp_wmem='4096 16384 {2 * buffer}'",
    ]
    setsockopt = [
        f"setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){{{buffer}}}, sizeof(int));",
        f"setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){{{buffer}}}, sizeof(int));",
        "  # before connect() or listen(): the window scale is fixed by the SYN",
        f"iperf3 -w {buffer}  # the same, for iperf3",
    ]
    return Recommendation(rtt_ms, capacity_bps, bdp, overhead_bytes, buffer, sysctl, setsockopt)
