"""airtcp's BBR v1 side by side with ns-3's TcpBbr (the PyPI package `ns3`, 3.44), CUBIC in
both as the reference, in one run: one bulk TCP flow and a ping through one bottleneck.

The scenario (airtcp's crates/airtcp-sim/tests/bbr.rs): two hosts joined by one
point-to-point link of 10 Mbit/s and 20 ms each way (40 ms of base RTT), a DropTail queue of
1000 packets at the sender's end of it, one bulk TCP flow from 0 s (MSS 1448 with
timestamps: 1500-byte packets), and a ping (56 bytes of payload, 84-byte packets) every 100
ms from 10 s, 200 of them; `--seconds` (30) in all, measured from `--measure-from` (10); BBR
and CUBIC, each without loss and with `--loss` (1 %) of the packets lost at random on the
forward direction (data and pings; the ACKs' way is clean). Per (simulator, controller, loss):
goodput (application bytes received in the measurement, Mbit/s); the ping's RTT, median and
mean (pings that came back before the end), and the queueing delay, median and mean: the RTT
less an idle path's (40 ms plus two 84-byte serialisations, 40.13 ms); pings that did not
come back (tail drops, random loss, or still under way at the end); the largest bottleneck
queue (packets waiting, not the one on the wire) sampled every `--sample-ms` (10) ms in the
measurement, in both simulators the same way; tail drops at the bottleneck queue in the
measurement; the TCP sender's retransmissions, in the measurement and over the whole run;
simulated events; the wall time of the point (building and running it, each simulator in
its own process, after a short run of each that loads it: cppyy compiles ns-3's code on
first use), and the largest IP packet ns-3 sent, to show it is 1500 bytes.

airtcp: the linux profile (SACK, timestamps, RACK-TLP with PRR, initial window 10, min RTO
200 ms, delayed ACKs every second segment or 40 ms, 4 MiB send buffer, receive buffer
autotuned up to 6 MiB: a 3 MiB window), `congestion_control` "bbr" (which paces itself) or
"cubic" (RFC 9438 with HyStart++, no pacing); the link's `queue = 1000`, `loss` on its
`a_to_b` direction; ping as a `ping` flow; the queue from the run's queue series
(`simulation.sample_interval`), drops from its cumulative `drops` column; the measurement's
retransmissions are the run's less those of a run of the first `--measure-from` seconds
alone (the same events up to then).

ns-3: two nodes, a PointToPointHelper link (DataRate 10.0133 Mbit/s: ns-3's point-to-point
device adds a 2-byte PPP header to every packet, so 1500-byte IP packets leave at airtcp's
10 Mbit/s of IP; Delay 20 ms), the device's own DropTailQueue 1p (the one packet the device
holds next, as ns-3's tcp-bbr-example.cc), and a FifoQueueDisc of 1000 packets as each
device's root queue disc (installed before the addresses, which would otherwise install
FqCoDel): the queue disc is the buffer that fills, the device's queue stops it by flow
control when full, so the sender's side holds 1000 + 1 packets where airtcp's holds 1000;
queue occupancy counts both. TCP: TcpBbr or TcpCubic (ns3::TcpL4Protocol::SocketType),
SegmentSize 1448, Timestamp and Sack on (its defaults; ns-3 adds the 12 bytes of the
timestamp option on top of the segment: 1500-byte packets), WindowScaling on, InitialCwnd
10, MinRto 200 ms, DelAckCount 2 and DelAckTimeout 40 ms, SndBufSize 4 MiB, RcvBufSize 3 MiB
(the largest window airtcp's receiver offers), ns3::TcpSocketState::EnablePacing on for BBR
(TcpBbr turns it on itself if off) and off for CUBIC, PaceInitialWindow off (airtcp: the
first 10 segments unpaced too); BulkSendApplication (SendSize 1448) to a PacketSink from 0 s;
a Ping application (Size 56, Interval 100 ms, Count 200, from 10 s; its Rtt trace); loss: a
RateErrorModel (ERROR_UNIT_PACKET, ErrorRate `--loss`) as the receiving device's
ReceiveErrorModel, its random stream fixed (AssignStreams), so that its losses do not depend on
the runs before it in the worker; retransmissions from the socket's Retransmission trace;
RngRun = seed.

Where the two differ, by design of each simulator (not configurable to match):
- loss recovery: ns-3 3.44 has no RACK-TLP: three duplicate ACKs or SACK's RFC 6675
  scoreboard start a recovery, with its PRR (TcpPrrRecovery, its default) under CUBIC;
  airtcp's linux profile runs RACK-TLP (BBR needs it there);
- CUBIC: ns-3's TcpCubic is Linux's (HyStart with ACK trains and delay), airtcp's RFC 9438
  with HyStart++ (RFC 9406);
- TcpBbr is BBR v1 after Linux 4.x without the long-term bandwidth (policer) mode, with
  a cwnd budget of 3 segments for TSO (Linux, and airtcp: 3 x tso_segs_goal, 2 segments at
  10 Mbit/s) and its own ACK-aggregation estimate (in bytes, its epoch in whole seconds);
- ns-3's receive window is its buffer's free space from the start (no autotuning);
- ns-3's delivery-rate samples (TcpRateLinux) run above the link here: the highest count one
  ACK's segments more than the link can carry in their interval (72 segments in 84 ms, the
  time of 70, with an ACK every 2 segments; 68 in the time of 67 with one every segment), so
  TcpBbr's windowed maximum holds 9.93 Mbit/s of payload against the link's 9.65, its pacing
  (0.99 of that) exceeds the link, and its queue grows until cwnd (2 BDP) stops it: about one
  BDP (35 packets, 40 ms) where airtcp's stays under 15 packets.

ns-3 lives in its own virtualenv (python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip
install ns3==3.44.post0); this script runs there as a worker (`--worker`), one simulation
at a time. Without it, it prints a line and exits 0.

Run: python bench/ns3_bbr.py [--ns3-python PYTHON (default $NS3_PYTHON, else
/work/ns3venv/bin/python)] [--seconds 30] [--measure-from 10] [--loss 0.01]
[--controllers bbr cubic] [--seed 1] [--sample-ms 10]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from ns3_env import RESULT, Ns3Worker, add_ns3_python_option, dumbbell, parse_ns3_args

RATE_BPS = 10_000_000
DELAY_MS = 20
QUEUE = 1000
MSS = 1448
PING_PAYLOAD = 56
PING_BYTES = 20 + 8 + PING_PAYLOAD  # IPv4, ICMP echo, payload
PING_INTERVAL_MS = 100
# An idle path's ping RTT: the propagation both ways and the ping's serialisation both ways.
BASE_RTT_MS = 2 * DELAY_MS + 2 * PING_BYTES * 8 / RATE_BPS * 1e3
PPP_HEADER = 2  # ns-3's point-to-point devices add it to every packet
NS3_RATE_BPS = RATE_BPS * (1500 + PPP_HEADER) / 1500
CONTROLLERS = {"bbr": "ns3::TcpBbr", "cubic": "ns3::TcpCubic"}


# ---------------------------------------------------------------------------------------
# The ns-3 side: runs in the ns-3 virtualenv (`--worker`), requests on stdin, one JSON line
# each, answers on stdout prefixed with RESULT.

NS3_HELPERS = r"""
#include "ns3/config.h"
#include "ns3/packet-sink.h"
#include "ns3/ping.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include <algorithm>
#include <vector>

namespace airtcp_bbr {
using namespace ns3;

Time measureFrom;
std::vector<double> rttsMs;
std::vector<uint32_t> queueSamples;
uint64_t retransmissions = 0;
uint64_t measuredRetransmissions = 0;
uint32_t largestIpPacket = 0;
Ptr<QueueDisc> qdisc;
Ptr<Queue<Packet>> deviceQueue;

void PingRtt(uint16_t, Time rtt) { rttsMs.push_back(rtt.GetSeconds() * 1e3); }

void Retransmission(Ptr<const Packet>, const TcpHeader&, const Address&, const Address&,
                    Ptr<const TcpSocketBase>)
{
    ++retransmissions;
    if (Simulator::Now() >= measureFrom)
    {
        ++measuredRetransmissions;
    }
}

void PhyTxBegin(Ptr<const Packet> packet)
{
    // The PPP header's 2 bytes are on the packet by now.
    largestIpPacket = std::max(largestIpPacket, packet->GetSize() - 2);
}

// Packets waiting at the sender's end of the bottleneck: the queue disc's and the device's.
void SampleQueue(Time interval)
{
    queueSamples.push_back(qdisc->GetNPackets() + deviceQueue->GetNPackets());
    Simulator::Schedule(interval, &SampleQueue, interval);
}

void Setup(Ptr<Application> ping, Ptr<QueueDisc> bottleneck, Ptr<NetDevice> device,
           double measureFromS, double sampleS)
{
    measureFrom = Seconds(measureFromS);
    rttsMs.clear();
    queueSamples.clear();
    retransmissions = measuredRetransmissions = 0;
    largestIpPacket = 0;
    qdisc = bottleneck;
    auto p2p = DynamicCast<PointToPointNetDevice>(device);
    deviceQueue = p2p->GetQueue();
    ping->TraceConnectWithoutContext("Rtt", MakeCallback(&PingRtt));
    p2p->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&PhyTxBegin));
    Simulator::Schedule(measureFrom, &SampleQueue, Seconds(sampleS));
}

// Once the sender's socket exists (the bulk application has started).
void ConnectSocket()
{
    Config::ConnectWithoutContext("/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/Retransmission",
                                  MakeCallback(&Retransmission));
}

uint64_t TotalRx(Ptr<Application> sink) { return DynamicCast<PacketSink>(sink)->GetTotalRx(); }

uint64_t Drops() { return qdisc->GetStats().nTotalDroppedPackets; }

void Release()
{
    qdisc = nullptr;
    deviceQueue = nullptr;
}
}  // namespace airtcp_bbr
"""


def ns3_worker() -> None:
    from ns import ns

    ns.cppyy.cppdef(NS3_HELPERS)
    helpers = ns.cppyy.gbl.airtcp_bbr

    def run(request: dict) -> dict:
        started = time.perf_counter()
        seconds, measure_from = request["seconds"], request["measure_from"]
        bbr = request["controller"] == "bbr"
        ns.RngSeedManager.SetSeed(1)
        ns.RngSeedManager.SetRun(request["seed"])
        socket_type = ns.TypeId.LookupByName(CONTROLLERS[request["controller"]])
        defaults = {
            "ns3::TcpL4Protocol::SocketType": ns.TypeIdValue(socket_type),
            "ns3::TcpSocket::SegmentSize": ns.UintegerValue(MSS),
            "ns3::TcpSocket::InitialCwnd": ns.UintegerValue(10),
            "ns3::TcpSocket::DelAckCount": ns.UintegerValue(2),
            "ns3::TcpSocket::DelAckTimeout": ns.TimeValue(ns.MilliSeconds(40)),
            "ns3::TcpSocket::SndBufSize": ns.UintegerValue(4 << 20),
            "ns3::TcpSocket::RcvBufSize": ns.UintegerValue(3 << 20),
            "ns3::TcpSocketBase::MinRto": ns.TimeValue(ns.MilliSeconds(200)),
            "ns3::TcpSocketBase::Sack": ns.BooleanValue(True),
            "ns3::TcpSocketBase::Timestamp": ns.BooleanValue(True),
            "ns3::TcpSocketBase::WindowScaling": ns.BooleanValue(True),
            "ns3::TcpSocketState::EnablePacing": ns.BooleanValue(bbr),
            "ns3::TcpSocketState::PaceInitialWindow": ns.BooleanValue(False),
        }
        for name, value in defaults.items():
            ns.Config.SetDefault(name, value)

        nodes, devices, qdiscs, interfaces = dumbbell(ns, NS3_RATE_BPS, DELAY_MS, QUEUE)
        if request["loss"] > 0:
            errors = ns.CreateObject[ns.RateErrorModel]()
            errors.SetAttribute("ErrorRate", ns.DoubleValue(request["loss"]))
            errors.SetAttribute("ErrorUnit", ns.StringValue("ERROR_UNIT_PACKET"))
            # A fixed stream: the losses then do not depend on the runs before in the worker.
            errors.AssignStreams(1)
            devices.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(errors))

        sink = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9).ConvertTo()
        )
        sinks = sink.Install(nodes.Get(1))
        sinks.Start(ns.Seconds(0))
        remote = ns.InetSocketAddress(interfaces.GetAddress(1), 9).ConvertTo()
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", remote)
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(MSS))
        bulk.Install(nodes.Get(0)).Start(ns.Seconds(0))
        ping = ns.PingHelper(interfaces.GetAddress(1).ConvertTo())
        ping.SetAttribute("Interval", ns.TimeValue(ns.MilliSeconds(PING_INTERVAL_MS)))
        ping.SetAttribute("Size", ns.UintegerValue(PING_PAYLOAD))
        ping.SetAttribute("Count", ns.UintegerValue(request["pings"]))
        ping.SetAttribute("VerboseMode", ns.StringValue("Silent"))
        pings = ping.Install(nodes.Get(0))
        pings.Start(ns.Seconds(measure_from))
        helpers.Setup(pings.Get(0), qdiscs.Get(0), devices.Get(0), measure_from,
                      request["sample_ms"] / 1e3)  # fmt: skip

        ns.Simulator.Stop(ns.MilliSeconds(1))
        ns.Simulator.Run()
        helpers.ConnectSocket()
        ns.Simulator.Stop(ns.Seconds(measure_from) - ns.MilliSeconds(1))
        ns.Simulator.Run()
        rx_before, drops_before = helpers.TotalRx(sinks.Get(0)), helpers.Drops()
        ns.Simulator.Stop(ns.Seconds(seconds - measure_from))
        ns.Simulator.Run()
        received = helpers.TotalRx(sinks.Get(0)) - rx_before
        result = {
            "goodput_bps": received * 8 / (seconds - measure_from),
            "rtts_ms": list(helpers.rttsMs),
            "queue_max": max(helpers.queueSamples, default=0),
            "drops": helpers.Drops() - drops_before,
            "retransmissions": helpers.measuredRetransmissions,
            "retransmissions_all": helpers.retransmissions,
            "events": int(ns.Simulator.GetEventCount()),
            "largest_ip_packet": helpers.largestIpPacket,
        }
        helpers.Release()
        ns.Simulator.Destroy()
        result["wall_s"] = time.perf_counter() - started
        return result

    for line in sys.stdin:
        print(RESULT + json.dumps(run(json.loads(line))), flush=True)
    # cppyy's exit handlers sometimes crash after ns-3 has run (a double free): skip them.
    os._exit(0)


def ns3_figures(result: dict, request: dict) -> dict:
    """ns-3's answer as the table's figures."""
    return {**result, **ping_figures(result.pop("rtts_ms"), request["pings"])}


# ---------------------------------------------------------------------------------------
# The airtcp side.


def scenario(controller: str, loss: float, seconds: float, measure_from: float,
             pings: int, sample_ms: float) -> dict:  # fmt: skip
    link = {"a": "client", "b": "server", "rate": f"{RATE_BPS}bps", "delay": f"{DELAY_MS}ms",
            "queue": QUEUE, "a_to_b": {"loss": loss}}  # fmt: skip
    return {
        "simulation": {"name": "ns3-bbr", "duration": f"{seconds}s",
                       "measure_from": f"{measure_from}s", "sample_interval": f"{sample_ms}ms"},
        "tcp": {"profile": "linux", "congestion_control": controller},
        "links": [link],
        "flows": [{"name": "bulk", "src": "client", "dst": "server"},
                  {"name": "ping", "kind": "ping", "src": "client", "dst": "server",
                   "start": f"{measure_from}s", "count": pings,
                   "interval": f"{PING_INTERVAL_MS}ms", "payload": PING_PAYLOAD}],
    }  # fmt: skip


def airtcp_point(request: dict) -> dict:
    import airtcp

    point = scenario(request["controller"], request["loss"], request["seconds"],
                     request["measure_from"], request["pings"], request["sample_ms"])  # fmt: skip
    started = time.perf_counter()
    result = airtcp.run(point, seed=request["seed"])
    wall = time.perf_counter() - started
    summary = result.summary
    # The same run up to the measurement alone, without the ping (which starts then): its
    # retransmissions.
    warmup = {**point, "flows": point["flows"][:1],
              "simulation": {**point["simulation"], "duration": f"{request['measure_from']}s",
                             "measure_from": "0s"}}  # fmt: skip
    before = airtcp.run(warmup, seed=request["seed"], timeseries=False).summary
    queues = result.queues
    # The direction from the sender ("client→server").
    direction = next(d for d in queues["direction"].cat.categories if d.startswith("client"))
    forward = queues[queues["direction"] == direction]
    measured = forward[forward["time_s"] >= request["measure_from"] - 1e-9]
    bulk, ping = summary["flows"]
    probes = ping["probes"]
    rtts = [(back - sent) / 1e6 for sent, back in zip(probes["sent_ns"], probes["returned_ns"],
                                                      strict=True) if back is not None]  # fmt: skip
    return {
        "goodput_bps": bulk["goodput_bps"],
        **ping_figures(rtts, request["pings"]),
        "queue_max": int(measured["packets"].max()),
        "drops": int(measured["drops"].iloc[-1] - measured["drops"].iloc[0]),
        "retransmissions": bulk["retransmissions"] - before["flows"][0]["retransmissions"],
        "retransmissions_all": bulk["retransmissions"],
        "events": summary["events"],
        "wall_s": wall,
        "direction": direction,
    }


def ping_figures(rtts_ms: list[float], sent: int) -> dict:
    if not rtts_ms:
        nan = float("nan")
        return {"rtt_median": nan, "rtt_mean": nan, "q_median": nan, "q_mean": nan,
                "pings_lost": sent}  # fmt: skip
    median, mean = statistics.median(rtts_ms), statistics.fmean(rtts_ms)
    return {
        "rtt_median": median,
        "rtt_mean": mean,
        "q_median": median - BASE_RTT_MS,
        "q_mean": mean - BASE_RTT_MS,
        "pings_lost": sent - len(rtts_ms),
    }


# ---------------------------------------------------------------------------------------

COLUMNS = (  # heading, width, key, format
    ("Mbit/s", 7, "goodput_mbps", ".3f"),
    ("rtt med", 8, "rtt_median", ".1f"),
    ("rtt mean", 9, "rtt_mean", ".1f"),
    ("q med", 7, "q_median", ".1f"),
    ("q mean", 7, "q_mean", ".1f"),
    ("lost", 5, "pings_lost", "d"),
    ("max q", 6, "queue_max", "d"),
    ("drops", 6, "drops", "d"),
    ("retx", 6, "retransmissions", "d"),
    ("retx all", 9, "retransmissions_all", "d"),
    ("events", 10, "events", "d"),
    ("wall s", 7, "wall_s", ".2f"),
)


def row(simulator: str, controller: str, loss: float, figures: dict) -> str:
    figures = {**figures, "goodput_mbps": figures["goodput_bps"] / 1e6}
    cells = "".join(f"{figures[key]:>{width}{form}}" for _, width, key, form in COLUMNS)
    return f"{simulator:<7}{controller:<6}{loss * 100:>5g}%{cells}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_ns3_python_option(parser)
    parser.add_argument("--seconds", type=float, default=30.0, help="simulated, in all")
    parser.add_argument("--measure-from", type=float, default=10.0, help="s; pings from then")
    parser.add_argument("--loss", type=float, default=0.01, help="the lossy variant's loss")
    parser.add_argument("--controllers", nargs="+", choices=tuple(CONTROLLERS),
                        default=list(CONTROLLERS))  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--sample-ms", type=float, default=10.0, help="queue sampling")
    args = parse_ns3_args(parser, "ns3_bbr", ns3_worker)
    if args is None:
        return
    pings = int((args.seconds - args.measure_from) * 1e3 / PING_INTERVAL_MS)
    print(
        f"One bulk TCP flow and a ping every {PING_INTERVAL_MS} ms through 10 Mbit/s, "
        f"{DELAY_MS} ms each way, DropTail {QUEUE} packets; {args.seconds:g} s, measured from "
        f"{args.measure_from:g} s, seed {args.seed}. Mbit/s: goodput; rtt: the ping's RTT "
        f"(ms, median and mean of those that came back); q: the RTT less an idle path's "
        f"({BASE_RTT_MS:.2f} ms); lost: of {pings} pings; max q: the bottleneck's largest "
        f"queue (packets waiting) sampled every {args.sample_ms:g} ms; drops: at its tail; "
        "retx: retransmissions in the measurement, and over the run; wall s: the point's, "
        "built and run"
    )
    heading = "".join(f"{h:>{w}}" for h, w, _, _ in COLUMNS)
    print(f"{'sim':<7}{'cc':<6}{'loss':>6}{heading}", flush=True)
    ns3 = Ns3Worker(args.ns3_python, __file__, {}, ns3_figures)
    largest = set()
    try:
        # Load airtcp, and ns-3's code (cppyy compiles it on first use), before timing.
        primer = {"controller": "bbr", "loss": args.loss, "seconds": 2.0, "measure_from": 1.0,
                  "seed": args.seed, "pings": 10, "sample_ms": args.sample_ms}  # fmt: skip
        ns3.run(primer)
        airtcp_point(primer)
        for loss in (0.0, args.loss):
            for controller in args.controllers:
                request = {"controller": controller, "loss": loss, "seconds": args.seconds,
                           "measure_from": args.measure_from, "seed": args.seed,
                           "pings": pings, "sample_ms": args.sample_ms}  # fmt: skip
                peer = ns3.run(request)
                largest.add(peer["largest_ip_packet"])
                print(row("ns-3", controller, loss, peer), flush=True)
                own = airtcp_point(request)
                print(row("airtcp", controller, loss, own), flush=True)
    finally:
        ns3.close()
    print(
        f"ns-3 3.44 ({args.ns3_python}); worker restarts: {ns3.restarts}; the largest IP "
        f"packet ns-3 sent: {sorted(largest)} bytes; airtcp's queue: direction {own['direction']}"
    )


if __name__ == "__main__":
    main()
