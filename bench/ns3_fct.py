"""airtcp's flow completion times (FCT) of a Poisson short-flow workload side by side with
ns-3's (the PyPI package `ns3`, 3.44), the same flows in both, in one run.

The scenario is airtcp's built-in `short-flows` (docs/scenarios.md, "Workloads"): two hosts
joined by one link of 100 Mbit/s and 5 ms each way (10 ms of base RTT), a DropTail queue of
1000 packets at the client's end of it, and TCP flows from the client to the server whose
sizes follow the web search distribution (DCTCP_CDF, interpolated linearly between its
points as crates/airtcp-sim/src/workload.rs) and whose arrivals are a Poisson process
offering `--load` (0.6) of the link in payload (60 Mbit/s; 62.2 % of the link with the
headers of 1500-byte packets); `--seconds` (60) simulated, FCTs of the flows that arrived
from `--measure-from` (10 s); one run a seed of `--seeds` (1). airtcp takes no explicit
list of flows: its own workload draws them (a `tcp_workload` flow, `sizes = "web_search"`),
and ns-3 replays the sizes and arrival times of its run's flow records
(`flows[0].workload`), one BulkSendApplication (MaxBytes the size, SendSize 1448) started at
each arrival with a PacketSink of its own (port 10000 + its index) on the server.

Per size class (up to 100 kB, to 10 MB, above: python/airtcp/analysis/fct.py), over the seeds'
flows pooled: the flows that arrived in the measurement and how many completed; the mean,
median and 99th percentile (nearest rank) of their FCTs (ms; from the arrival to the
receiver having every byte, airtcp also the FIN, which ns-3 sends on the last segment), with
the 95 % interval of the mean across seeds (Student's t over the seeds' means; shown with
two seeds or more); the mean and median slowdown, FCT over the ideal size·8/C + base RTT
(C = 100 Mbit/s); and, the same for both, the mean slowdown of an M/G/1 processor-sharing
link, the ideal Dukkipati and McKeown (CCR 2006) hold congestion control to: a flow's FCT
is 1.5 RTT (the handshake and the data's way) + its bytes on the wire (payload ·
1500/1448) · 8 / (C · (1 - rho)), rho the offered load with headers, 0.622. Then, over the
flows that completed in both, how many took the same time to 0.1 ms, the median ratio of
ns-3's FCT to airtcp's, and airtcp's mean FCT less ns-3's with its 95 % interval over the
seeds (paired: the same flows, so tighter than the two means' intervals) per class; and per
simulator the segments the client sent, the retransmissions among them, the bottleneck's
tail drops, airtcp's RTOs, fast retransmits and rescue retransmissions, the events and the
wall time of the runs (each simulator in its own process, after a short run of each that
loads it). `--cc cubic` runs CUBIC instead (see below); `--seeds 1 2 3 4 5` gives the
intervals, `--seconds 600` a longer run; `--out FILE` writes every seed's flow records and
counters (JSON) with the settings; `--ns3-from FILE` takes ns-3's runs from such a file
instead of running ns-3 again (ns-3 is deterministic and replays airtcp's flows, which do
not depend on airtcp's TCP: after a change to airtcp's TCP only airtcp runs; refused unless
the settings and every seed's flows are the same). ns-3 takes about 5 s of wall time a
simulated second here (four fifths of it in TcpTxBuffer::GetPacketFromList, a walk along
its send buffer's list; perf), airtcp 5 ms.

TCP, the same in both and exactly matched where each simulator lets it be (`--cc reno`):
Linux's Reno (slow start by every segment an ACK covers, congestion avoidance one segment a
cwnd of segments acknowledged), SACK with RFC 6675's loss recovery (lost when three
segments are SACKed above; cwnd = ssthresh at once, the pipe paces the recovery, no PRR, no
RACK, no limited transmit), timestamps (MSS 1448 in 1500-byte packets), window scaling,
initial window 10 segments, RTO = max(200 ms, SRTT + 4 RTTVAR) with a 1 ms clock, initial
RTO 1 s (for the SYN), at most 60 s; delayed ACKs every second segment or after 40 ms; 4
MiB send and receive buffers (the receive window 4 MiB from the start, not autotuned); no
pacing, no ECN.
airtcp: the linux profile with `congestion_control = "newreno"`, `loss_recovery =
"rfc6675"`, `rto_floor = "total"`, `max_rto` 60 s, `receive_autotuning = false`,
`receive_buffer` 4 MiB (docs/tcp.md).
ns-3: ns3::TcpLinuxReno (TcpL4Protocol::SocketType), ns3::TcpClassicRecovery
(RecoveryType; its default is PRR), Sack and Timestamp on, SegmentSize 1448, InitialCwnd 10,
MinRto 200 ms, ClockGranularity 1 ms, ConnTimeout 1 s (its SYN timer; default 3 s),
DataRetries 15 (default 6: it would abort a flow after 6 timeouts, airtcp after 15),
LimitedTransmit off, DelAckCount 2, DelAckTimeout 40 ms, SndBufSize and RcvBufSize 4 MiB,
TcpNoDelay on (its default: airtcp's Nagle holds no segment here, its last short segment
going with the close); a PointToPointHelper link (DataRate 100.133 Mbit/s: ns-3's
point-to-point device adds a 2-byte PPP header, so 1500-byte IP packets leave at airtcp's
100 Mbit/s of IP; Delay 5 ms), its DropTailQueue 1p, and a FifoQueueDisc of 1000 packets as
each device's root queue disc (the buffer that fills; the device holds one packet more).
The client's packets are read as its IP sends them (Ipv4L3Protocol's Tx, before the
queue, as airtcp counts them) to count its segments (all, pure ACKs and SYNs too, as
airtcp's `packets_sent`) and retransmissions (data starting below the highest byte its flow
sent), and to check the first SYN's options (MSS, SACK permitted, timestamps, window scale)
and the largest IP packet.

Where the two differ, by design of each simulator (not configurable to match):
- ssthresh at a loss: ns-3's TcpLinuxReno halves cwnd (Linux), airtcp's rfc6675 path halves
  the flight (RFC 5681 eq. 4): the same while a flow has data to send, not at its tail;
- the RTT estimator: ns-3 takes every timestamp echo as a full sample (gains 1/8, 1/4),
  airtcp weighs each as one of the round trip's samples (RFC 7323 Appendix G), so its RTO
  follows a rising queue more slowly;
- a lost SYN: airtcp's data then starts with a 3 s RTO until an RTT sample (RFC 6298 §5.7);
- the first round trip: with flows alone on the link (`--load 0.05`) drops and
  retransmissions are the same in both, but ns-3's flows of 15 to 19 segments finish one
  packet time (0.12 ms) sooner, those of 29 and 30 a round later (7.8 ms), and most larger
  ones 1.2 ms later than airtcp's: ns-3's receiver acknowledges the first data segment at
  once (TcpSocketBase::ProcessSynRcvd sets its delayed-ACK count full, "to speed up the
  connection"), so its sender has 19 segments of cwnd after the first round, airtcp's 20
  (Linux acknowledges each of the first segments, up to 16: quickack); two of 7 and 8
  MB, whose slow start overflows the queue, 0.2 s later (their recoveries end differently).
`--cc cubic`: airtcp's RFC 9438 CUBIC and ns-3's TcpCubic (Linux's), both without HyStart
(airtcp's is HyStart++, ns-3's Linux's: not the same algorithm), the rest as above (airtcp's
ssthresh from the flight times 0.7, ns-3's from cwnd): a rougher match.

ns-3 lives in its own virtualenv (python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip
install ns3==3.44.post0); this script runs there as a worker (`--worker`), one simulation
at a time. Without it, it prints a line and exits 0.

Run: python bench/ns3_fct.py [--ns3-python PYTHON (default $NS3_PYTHON, else
/work/ns3venv/bin/python)] [--seconds 60] [--measure-from 10] [--seeds 1] [--load 0.6]
[--cc reno|cubic] [--out FILE] [--ns3-from FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from ns3_env import RESULT, Ns3Worker, add_ns3_python_option, dumbbell, parse_ns3_args

RATE_BPS = 100_000_000
DELAY_MS = 5
BASE_RTT_S = 2 * DELAY_MS / 1e3
QUEUE = 1000
MSS = 1448
PACKET = 1500  # the IP packet of a full segment: MSS, 12 bytes of timestamps, 40 of headers
BUFFER = 4 << 20
PPP_HEADER = 2  # ns-3's point-to-point devices add it to every packet
NS3_RATE_BPS = RATE_BPS * (PACKET + PPP_HEADER) / PACKET
FIRST_PORT = 10_000
# --cc: airtcp's congestion_control and ns-3's socket type.
CONTROLLERS = {"reno": ("newreno", "ns3::TcpLinuxReno"), "cubic": ("cubic", "ns3::TcpCubic")}
SAME_MS = 0.1  # two FCTs closer than this are the same


# ---------------------------------------------------------------------------------------
# The ns-3 side: runs in the ns-3 virtualenv (`--worker`), requests on stdin, one JSON line
# each, answers on stdout prefixed with RESULT.

NS3_HELPERS = r"""
#include "ns3/bulk-send-helper.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-option-rfc793.h"
#include "ns3/tcp-option-winscale.h"
#include <algorithm>
#include <map>
#include <vector>

namespace airtcp_fct {
using namespace ns3;

std::vector<uint64_t> sizes;
std::vector<uint64_t> received;
std::vector<int64_t> completedNs;  // -1 until the flow's last byte arrives
// Per flow (its sink's port): one past the highest byte sent.
std::map<uint16_t, SequenceNumber32> highest;
uint64_t segments = 0;
uint64_t retransmissions = 0;
uint32_t largestIpPacket = 0;
// The first SYN's options: MSS, SACK permitted, timestamps, window scale (-1: absent).
int synMss = -1, synSack = -1, synTimestamps = -1, synWindowScale = -1;
Ptr<QueueDisc> qdisc;

void Rx(uint32_t flow, Ptr<const Packet> packet, const Address&)
{
    received[flow] += packet->GetSize();
    if (completedNs[flow] < 0 && received[flow] >= sizes[flow])
    {
        completedNs[flow] = Simulator::Now().GetNanoSeconds();
    }
}

// Every packet the client's IP sends, before the queue (so also those the queue drops).
void ClientTx(Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
{
    Ptr<Packet> copy = packet->Copy();
    Ipv4Header ip;
    copy->RemoveHeader(ip);
    largestIpPacket = std::max(largestIpPacket, packet->GetSize());
    TcpHeader tcp;
    copy->RemoveHeader(tcp);
    if ((tcp.GetFlags() & TcpHeader::SYN) && synMss < 0)
    {
        auto mss = DynamicCast<const TcpOptionMSS>(tcp.GetOption(TcpOption::MSS));
        synMss = mss ? mss->GetMSS() : 0;
        synSack = tcp.HasOption(TcpOption::SACKPERMITTED);
        synTimestamps = tcp.HasOption(TcpOption::TS);
        auto scale = DynamicCast<const TcpOptionWinScale>(tcp.GetOption(TcpOption::WINSCALE));
        synWindowScale = scale ? scale->GetScale() : -1;
    }
    ++segments;
    uint32_t payload = copy->GetSize();
    if (payload == 0)
    {
        return;
    }
    SequenceNumber32 end = tcp.GetSequenceNumber() + payload;
    auto [sent, first] = highest.emplace(tcp.GetDestinationPort(), end);
    if (!first)
    {
        if (tcp.GetSequenceNumber() < sent->second)
        {
            ++retransmissions;
        }
        sent->second = std::max(sent->second, end);
    }
}

// Flow i: a sink on the server at firstPort + i, and a bulk sender of sizes[i] bytes on the
// client started at its arrival.
void Install(Ptr<Node> client, Ptr<Node> server, Ipv4Address serverAddress,
             const std::vector<uint64_t>& flowSizes, const std::vector<int64_t>& arrivalsNs,
             uint16_t firstPort, uint32_t sendSize, Ptr<QueueDisc> bottleneck)
{
    sizes = flowSizes;
    received.assign(sizes.size(), 0);
    completedNs.assign(sizes.size(), -1);
    highest.clear();
    segments = retransmissions = 0;
    largestIpPacket = 0;
    synMss = synSack = synTimestamps = synWindowScale = -1;
    qdisc = bottleneck;
    client->GetObject<Ipv4L3Protocol>()->TraceConnectWithoutContext("Tx", MakeCallback(&ClientTx));
    for (uint32_t i = 0; i < sizes.size(); ++i)
    {
        uint16_t port = firstPort + i;
        Address any = InetSocketAddress(Ipv4Address::GetAny(), port);
        ApplicationContainer sink = PacketSinkHelper("ns3::TcpSocketFactory", any).Install(server);
        sink.Start(Seconds(0));
        sink.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&Rx, i));
        Address remote = InetSocketAddress(serverAddress, port);
        BulkSendHelper bulk("ns3::TcpSocketFactory", remote);
        bulk.SetAttribute("MaxBytes", UintegerValue(sizes[i]));
        bulk.SetAttribute("SendSize", UintegerValue(sendSize));
        bulk.Install(client).Start(NanoSeconds(arrivalsNs[i]));
    }
}

uint64_t Drops() { return qdisc->GetStats().nTotalDroppedPackets; }

void Release() { qdisc = nullptr; }
}  // namespace airtcp_fct
"""


def ns3_worker() -> None:
    from ns import ns

    ns.cppyy.cppdef(NS3_HELPERS)
    helpers = ns.cppyy.gbl.airtcp_fct
    std = ns.cppyy.gbl.std

    def run(request: dict) -> dict:
        started = time.perf_counter()
        ns.RngSeedManager.SetSeed(1)
        ns.RngSeedManager.SetRun(request["seed"])
        controller = ns.TypeId.LookupByName(CONTROLLERS[request["cc"]][1])
        defaults = {
            "ns3::TcpL4Protocol::SocketType": ns.TypeIdValue(controller),
            # RFC 6675 without PRR (ns-3's default), as airtcp's rfc6675 recovery.
            "ns3::TcpL4Protocol::RecoveryType": ns.TypeIdValue(
                ns.TypeId.LookupByName("ns3::TcpClassicRecovery")
            ),
            "ns3::TcpSocket::SegmentSize": ns.UintegerValue(MSS),
            "ns3::TcpSocket::InitialCwnd": ns.UintegerValue(10),
            "ns3::TcpSocket::DelAckCount": ns.UintegerValue(2),
            "ns3::TcpSocket::DelAckTimeout": ns.TimeValue(ns.MilliSeconds(40)),
            "ns3::TcpSocket::SndBufSize": ns.UintegerValue(BUFFER),
            "ns3::TcpSocket::RcvBufSize": ns.UintegerValue(BUFFER),
            "ns3::TcpSocket::ConnTimeout": ns.TimeValue(ns.Seconds(1)),
            "ns3::TcpSocket::DataRetries": ns.UintegerValue(15),
            "ns3::TcpSocket::TcpNoDelay": ns.BooleanValue(True),
            "ns3::TcpSocketBase::MinRto": ns.TimeValue(ns.MilliSeconds(200)),
            "ns3::TcpSocketBase::ClockGranularity": ns.TimeValue(ns.MilliSeconds(1)),
            "ns3::TcpSocketBase::Sack": ns.BooleanValue(True),
            "ns3::TcpSocketBase::Timestamp": ns.BooleanValue(True),
            "ns3::TcpSocketBase::WindowScaling": ns.BooleanValue(True),
            "ns3::TcpSocketBase::LimitedTransmit": ns.BooleanValue(False),
            "ns3::TcpSocketState::EnablePacing": ns.BooleanValue(False),
            "ns3::TcpCubic::HyStart": ns.BooleanValue(False),
        }
        for name, value in defaults.items():
            ns.Config.SetDefault(name, value)

        nodes, _, qdiscs, interfaces = dumbbell(ns, NS3_RATE_BPS, DELAY_MS, QUEUE)
        helpers.Install(nodes.Get(0), nodes.Get(1), interfaces.GetAddress(1),
                        std.vector["uint64_t"](request["sizes"]),
                        std.vector["int64_t"](request["arrivals_ns"]), FIRST_PORT, MSS,
                        qdiscs.Get(0))  # fmt: skip

        ns.Simulator.Stop(ns.Seconds(request["seconds"]))
        ns.Simulator.Run()
        result = {
            "completed_ns": [None if t < 0 else int(t) for t in helpers.completedNs],
            "segments": int(helpers.segments),
            "retransmissions": int(helpers.retransmissions),
            "drops": int(helpers.Drops()),
            "events": int(ns.Simulator.GetEventCount()),
            "largest_ip_packet": int(helpers.largestIpPacket),
            "syn": {"mss": helpers.synMss, "sack": helpers.synSack,
                    "timestamps": helpers.synTimestamps, "wscale": helpers.synWindowScale},
        }  # fmt: skip
        helpers.Release()
        ns.Simulator.Destroy()
        result["wall_s"] = time.perf_counter() - started
        return result

    for line in sys.stdin:
        print(RESULT + json.dumps(run(json.loads(line))), flush=True)
    # cppyy's exit handlers sometimes crash after ns-3 has run (a double free): skip them.
    os._exit(0)


# ---------------------------------------------------------------------------------------
# The airtcp side.


def scenario(cc: str, load: float, seconds: float, measure_from: float) -> dict:
    congestion = CONTROLLERS[cc][0]
    tcp = {"profile": "linux", "congestion_control": congestion, "loss_recovery": "rfc6675",
           "rto_floor": "total", "max_rto": "60s", "receive_autotuning": False,
           "receive_buffer": BUFFER, "send_buffer": BUFFER}  # fmt: skip
    if cc == "cubic":
        tcp["congestion_params"] = {"hystart": False}
    return {
        "simulation": {"name": "ns3-fct", "duration": f"{seconds}s",
                       "measure_from": f"{measure_from}s"},
        "tcp": tcp,
        "links": [{"a": "client", "b": "server", "rate": f"{RATE_BPS}bps",
                   "delay": f"{DELAY_MS}ms", "queue": QUEUE}],
        "flows": [{"name": "web", "kind": "tcp_workload", "src": "client", "dst": "server",
                   "sizes": "web_search", "rate": f"{round(load * RATE_BPS)}bps"}],
    }  # fmt: skip


def airtcp_run(request: dict) -> dict:
    import airtcp

    point = scenario(request["cc"], request["load"], request["seconds"], request["measure_from"])
    started = time.perf_counter()
    result = airtcp.run(point, seed=request["seed"])
    wall = time.perf_counter() - started
    flow = result.summary["flows"][0]
    queues = result.queues
    forward = queues[queues["direction"].astype(str).str.startswith("client")]
    return {
        "workload": flow["workload"],
        "segments": flow["packets_sent"],
        "retransmissions": flow["retransmissions"],
        "timeouts": flow["timeouts"],
        "fast_retransmits": flow["fast_retransmits"],
        "rescue_retransmissions": flow["rescue_retransmissions"],
        "drops": int(forward["drops"].iloc[-1]),
        "events": result.summary["events"],
        "wall_s": wall,
    }


# ---------------------------------------------------------------------------------------
# The comparison.


def half_width(means: list[float]) -> float | None:
    """The 95 % Student-t interval's half-width over the seeds' means (airtcp's reports'
    own: `airtcp.experiments.report.confidence_interval`); None below two seeds (not shown)."""
    import numpy as np
    from airtcp.experiments.report import confidence_interval

    return confidence_interval(np.array(means))[1] if len(means) >= 2 else None


def ideal_s(size: int) -> float:
    return size * 8 / RATE_BPS + BASE_RTT_S


def ps_slowdown(size: int, load: float) -> float:
    """An M/G/1 processor-sharing link's FCT over the ideal: 1.5 RTT (the handshake and the
    data's one way) + the flow's bytes on the wire at the capacity the load leaves."""
    rho = load * PACKET / MSS
    wire_bits = size * PACKET / MSS * 8
    return (1.5 * BASE_RTT_S + wire_bits / (RATE_BPS * (1 - rho))) / ideal_s(size)


def class_figures(runs: list[dict], bounds: tuple[float, float], measure_from_ns: int,
                  load: float) -> dict:  # fmt: skip
    """A size class's figures over the seeds' runs of one simulator: each run is its
    workload records (`size_bytes`, `arrived_ns`, `completed_ns`)."""
    from airtcp.analysis.fct import nearest_rank

    lower, upper = bounds
    fcts, slowdowns, ps, seed_means, flows = [], [], [], [], 0
    for run in runs:
        times = []
        for size, arrived, completed in zip(run["size_bytes"], run["arrived_ns"],
                                            run["completed_ns"], strict=True):  # fmt: skip
            if arrived < measure_from_ns or not lower < size <= upper:
                continue
            flows += 1
            ps.append(ps_slowdown(size, load))
            if completed is not None:
                fct_s = (completed - arrived) / 1e9
                times.append(fct_s * 1e3)
                slowdowns.append(fct_s / ideal_s(size))
        fcts += times
        if times:
            seed_means.append(statistics.fmean(times))
    fcts.sort()
    slowdowns.sort()
    nan = float("nan")
    return {
        "flows": flows,
        "done": len(fcts),
        "mean": statistics.fmean(fcts) if fcts else nan,
        "ci": half_width(seed_means),
        "median": nearest_rank(fcts, 0.5) if fcts else nan,
        "p99": nearest_rank(fcts, 0.99) if fcts else nan,
        "sd_mean": statistics.fmean(slowdowns) if slowdowns else nan,
        "sd_median": nearest_rank(slowdowns, 0.5) if slowdowns else nan,
        "ps": statistics.fmean(ps) if ps else nan,
    }


def agreement(airtcp_runs: list[dict], ns3_runs: list[dict], bounds: tuple[float, float],
              measure_from_ns: int) -> dict:  # fmt: skip
    """Over a class's measured flows completed in both: how many, how many took the same
    time (to SAME_MS), the median of ns-3's FCT over airtcp's, and airtcp's mean FCT less
    ns-3's, averaged over the seeds, with its 95 % interval (paired: the same flows)."""
    lower, upper = bounds
    both = same = 0
    ratios, differences = [], []
    for own, peer in zip(airtcp_runs, ns3_runs, strict=True):
        seed = []
        for size, arrived, mine, theirs in zip(own["size_bytes"], own["arrived_ns"],
                                               own["completed_ns"], peer["completed_ns"],
                                               strict=True):  # fmt: skip
            if arrived < measure_from_ns or not lower < size <= upper:
                continue
            if mine is None or theirs is None:
                continue
            both += 1
            same += abs(mine - theirs) < SAME_MS * 1e6
            ratios.append((theirs - arrived) / (mine - arrived))
            seed.append((mine - theirs) / 1e6)
        if seed:
            differences.append(statistics.fmean(seed))
    nan = float("nan")
    return {
        "both": both,
        "same": same,
        "ratio": statistics.median(ratios) if ratios else nan,
        "difference": statistics.fmean(differences) if differences else nan,
        "half": half_width(differences),
    }


def row(label: str, simulator: str, figures: dict) -> str:
    ci = f"±{figures['ci']:.0f}" if figures["ci"] is not None else ""
    return (
        f"{label:<14}{simulator:<8}{figures['flows']:>6}{figures['done']:>6}"
        f"{figures['mean']:>9.1f}{ci:>7}{figures['median']:>9.1f}{figures['p99']:>9.0f}"
        f"{figures['sd_mean']:>8.2f}{figures['sd_median']:>8.2f}{figures['ps']:>7.2f}"
    )


def earlier_ns3_runs(path: str, settings: dict, seeds: list[int]) -> list[dict]:
    """ns-3's runs of `seeds` from an earlier `--out` file of the same settings."""
    try:
        with open(path) as file:
            earlier = json.load(file)
    except (OSError, ValueError) as error:
        raise SystemExit(f"--ns3-from {path}: cannot read it: {error}") from None
    if earlier.get("settings") != settings:
        raise SystemExit(f"--ns3-from {path}: its settings {earlier.get('settings')} are not "
                         f"these ({settings})")  # fmt: skip
    runs = dict(zip(earlier["seeds"], earlier["ns3"], strict=True))
    missing = [seed for seed in seeds if seed not in runs]
    if missing:
        raise SystemExit(f"--ns3-from {path}: no ns-3 run of seeds {missing}")
    return [runs[seed] for seed in seeds]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_ns3_python_option(parser)
    parser.add_argument("--seconds", type=float, default=60.0, help="simulated, each seed")
    parser.add_argument("--measure-from", type=float, default=10.0,
                        help="s; flows arriving earlier are left out (warm-up)")  # fmt: skip
    parser.add_argument("--seeds", type=int, nargs="+", default=[1])
    parser.add_argument("--load", type=float, default=0.6, help="offered, of the link")
    parser.add_argument("--cc", choices=tuple(CONTROLLERS), default="reno")
    parser.add_argument("--out", help="a JSON file for every seed's flows and counters")
    parser.add_argument("--ns3-from", metavar="FILE",
                        help="ns-3's runs from an earlier --out of the same settings")  # fmt: skip
    args = parse_ns3_args(parser, "ns3_fct", ns3_worker)
    if args is None:
        return
    from airtcp.analysis.fct import SIZE_CLASSES

    settings = {"cc": args.cc, "load": args.load, "seconds": args.seconds,
                "measure_from": args.measure_from}  # fmt: skip
    earlier = earlier_ns3_runs(args.ns3_from, settings, args.seeds) if args.ns3_from else None

    measure_from_ns = round(args.measure_from * 1e9)
    print(
        f"Web-search flows arriving as a Poisson process at {args.load:.0%} of 100 Mbit/s, "
        f"{DELAY_MS} ms each way, DropTail {QUEUE} packets; {args.cc}, {args.seconds:g} s "
        f"a seed, flows arriving from {args.measure_from:g} s, seeds {args.seeds} pooled; the "
        f"same flows in both. flows: arrived; done: completed; mean, median, p99: FCT (ms), "
        f"± the 95 % interval of the mean across seeds; sd: slowdown, FCT / (size·8/C + "
        f"{BASE_RTT_S * 1e3:g} ms), mean and median; PS: an M/G/1 processor-sharing link's "
        "mean slowdown",
        flush=True,
    )
    ns3 = Ns3Worker(args.ns3_python, __file__, {}, lambda result, _: result)
    own_runs, peer_runs = [], []
    try:
        # Load airtcp, and ns-3's code (cppyy compiles it on first use), before timing.
        primer = {**settings, "seconds": 3.0, "measure_from": 0.0, "seed": args.seeds[0]}
        first = airtcp_run(primer)
        if earlier is None:
            ns3.run({**primer, "sizes": first["workload"]["size_bytes"],
                     "arrivals_ns": first["workload"]["arrived_ns"]})  # fmt: skip
        for index, seed in enumerate(args.seeds):
            request = {**settings, "seed": seed}
            own = airtcp_run(request)
            workload = own["workload"]
            if workload["refused"]:
                raise RuntimeError(f"seed {seed}: airtcp refused {workload['refused']} flows")
            if earlier is None:
                peer = ns3.run({**request, "sizes": workload["size_bytes"],
                                "arrivals_ns": workload["arrived_ns"]})  # fmt: skip
            else:
                peer = earlier[index]
                for key in ("size_bytes", "arrived_ns"):
                    if peer["workload"][key] != workload[key]:
                        raise SystemExit(f"--ns3-from {args.ns3_from}: seed {seed}'s flows "
                                         "differ from airtcp's now; run ns-3 again")  # fmt: skip
            own_runs.append(own)
            replayed = {**workload, "completed_ns": peer["completed_ns"]}
            peer_runs.append({**peer, "workload": replayed})
            print(
                f"seed {seed}: {len(workload['size_bytes'])} flows; wall s: airtcp "
                f"{own['wall_s']:.2f}, ns-3 {peer['wall_s']:.1f}"
                + (f" (its run in {args.ns3_from})" if earlier else ""),
                flush=True,
            )
    finally:
        ns3.close()

    print(f"{'class':<14}{'sim':<8}{'flows':>6}{'done':>6}{'mean':>9}{'':>7}{'median':>9}"
          f"{'p99':>9}{'sd mean':>8}{'sd med':>8}{'PS':>7}")  # fmt: skip
    lower = 0.0
    for upper, label in SIZE_CLASSES:
        for simulator, runs in (("airtcp", own_runs), ("ns-3", peer_runs)):
            workloads = [run["workload"] for run in runs]
            figures = class_figures(workloads, (lower, upper), measure_from_ns, args.load)
            print(row(label, simulator, figures))
        lower = upper
    print(f"FCTs of the flows completed in both: the same to {SAME_MS} ms, the median of "
          "ns-3's over airtcp's, and airtcp's mean less ns-3's (± its 95 % interval over the "
          "seeds, paired)")  # fmt: skip
    lower = 0.0
    for upper, label in SIZE_CLASSES:
        pair = agreement([run["workload"] for run in own_runs],
                         [run["workload"] for run in peer_runs],
                         (lower, upper), measure_from_ns)  # fmt: skip
        half = f" ±{pair['half']:.1f}" if pair["half"] is not None else ""
        print(f"{label:<14}{pair['same']:>5} of {pair['both']:<5} the same; median ratio "
              f"{pair['ratio']:.3f}; airtcp - ns-3 {pair['difference']:.1f}{half} ms")  # fmt: skip
        lower = upper
    for simulator, runs in (("airtcp", own_runs), ("ns-3", peer_runs)):
        keys = ("segments", "retransmissions", "drops", "events", "wall_s")
        total = {key: sum(run[key] for run in runs) for key in keys}
        extra = ""
        if simulator == "airtcp":
            extra = (f", RTOs {sum(r['timeouts'] for r in runs)}, fast retransmits "
                     f"{sum(r['fast_retransmits'] for r in runs)}, rescue retransmissions "
                     f"{sum(r['rescue_retransmissions'] for r in runs)}")  # fmt: skip
        print(f"{simulator}: segments {total['segments']}, retransmissions "
              f"{total['retransmissions']}, tail drops {total['drops']}{extra}, events "
              f"{total['events']}, wall {total['wall_s']:.1f} s")  # fmt: skip
    if args.out:
        with open(args.out, "w") as out:
            json.dump({"settings": settings, "seeds": args.seeds, "airtcp": own_runs,
                       "ns3": peer_runs}, out)  # fmt: skip
    syns = {json.dumps(run["syn"]) for run in peer_runs}
    largest = sorted({run["largest_ip_packet"] for run in peer_runs})
    print(f"ns-3 3.44 ({args.ns3_python}); worker restarts: {ns3.restarts}; its first SYN's "
          f"options: {', '.join(syns)}; its largest IP packet: {largest} bytes")  # fmt: skip


if __name__ == "__main__":
    main()
