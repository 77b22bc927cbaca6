"""airtcp's Wi-Fi in space (positions, log-distance propagation, reception from SINR, each
radio's own carrier sense) side by side with ns-3 (the PyPI package `ns3`, 3.44), in one run.

Common PHY and channel, in both simulators: 802.11b (ns-3: WIFI_STANDARD_80211b, channel 1,
22 MHz), ConstantRateWifiManager with DataMode DsssRate{1,2,5_5,11}Mbps and ControlMode
DsssRate1Mbps, long preamble; YansWifiChannel with LogDistancePropagationLossModel (exponent
3, reference loss 46.6777 dB at 1 m: ns-3's defaults) and ConstantSpeedPropagationDelayModel;
TxPowerStart = TxPowerEnd = 16.0206 dBm; RxNoiseFigure 7 dB; ThresholdPreambleDetectionModel
(4 dB, -82 dBm, ns-3's default); CcaEdThreshold -62 dBm, and ns-3's CcaSensitivity -82 dBm for
the PPDUs its PHY does not receive (airtcp: `cca_sensitivity = "-82dBm"`); channel access as
ns-3 3.44's (airtcp: `dcf = "ns3"`: EIFS from the end of the frame received in error, with
304 us for the ACK; no backoff for a frame queued while its node owes an ACK; the CW after
a frame dropped at the retry limit; docs/radio.md), `--airtcp-standard` leaving airtcp's
standard CCA and DCF instead; no FrameCaptureModel; no queue disc
on the WLAN (a DropTail MAC queue of 50 packets, no MaxDelay); ns-3's default retry limit
(3.44: WifiMac::FrameRetryLimit = 7 attempts of a frame, RTS and data failures counted
together; WifiRemoteStationManager's MaxSsrc/MaxSlrc are obsolete and do nothing), airtcp's
short 7 / long 4; 1024-byte MSDUs (ns-3: packet sockets, LLC/SNAP 8 + 1016 bytes; airtcp:
UDP, LLC/SNAP 8 + IPv4 20 + UDP 8 + 988) offered at twice the channel's capacity (2 x rate /
n + 1 Mbit/s a station, as ns3_compare.py); 2 s warm-up, then measure. Stations never move.
Control frames: ns-3 sends an RTS at ControlMode and answers a frame (CTS, ACK) at the
highest rate of its BSS basic rate set not above it; airtcp sends RTS, CTS and ACK at the
highest mandatory DSSS rate (1, 2 Mbit/s) not above the data rate, capped at its
`basic_rate`. ns-3's basic set in an infrastructure BSS (1, 2) is {1, 2} Mbit/s (the
non-HR-DSSS mandatory rates), so its ACKs go at 2 Mbit/s after 2 and 11 Mbit/s data (1 after
1), its RTS and CTS at 1; airtcp's `basic_rate` is set to ns-3's ACK rate (2 Mbit/s at 2
Mbit/s and up), so its RTS and CTS go at 2 Mbit/s too (`--ns3-control-mode DsssRate2Mbps`
sends ns-3's at 2 as well; `--basic-rate 1` sends airtcp's ACKs at 1). In ns-3's adhoc MAC (3)
the basic set is every mandatory 802.11b rate, 5.5 and 11 Mbit/s included, so its ACKs go at
11 Mbit/s, which airtcp does not do (its ACKs there go at 2). The rates of ns-3's control
frames are printed. Signals under ns-3's RxSensitivity (-101 dBm) are not even interference
there (airtcp's cut-off is 20 dB under the noise floor, -113.6 dBm): none of these
configurations has a pair of nodes that far apart (200 m: -99.7 dBm).

1. Hidden pair: AP at (0,0,0), stations at (-40,0,0) and (40,0,0) (each hears the AP at
   -78.7 dBm, each other at -87.8 dBm: hidden), both uploading saturated to the AP, at 2 and
   11 Mbit/s, RTS/CTS off and on (ns-3: RtsCtsThreshold 65535, 0; airtcp: rts_threshold
   "off", 0), `--seconds` (20) measured.
2. Hidden groups (speed point): 20 stations, 10 on a 1 m grid of 5 x 2 around (-40,0,0)
   (x = -42..-38, y = -0.5, 0.5) and 10 around (40,0,0), all uploading saturated to the AP at
   the origin, 11 Mbit/s, RTS off, `--groups-seconds` (60) measured: the issue asks airtcp
   to be at least 100x faster than ns-3's event loop here.
3. Chain on one channel: nodes 0..n on the x axis 40 m apart (n = 1..4 hops), node 0 sending
   saturated UDP (1000-byte payload: 1036-byte MSDUs) to node n, each node forwarding to the
   next, 11 Mbit/s, RTS off, `--chain-seconds` (30) measured; the MSDU throughput received
   at node n. ns-3: AdhocWifiMac, InternetStack, one /24, host routes to node n via the
   next node, UdpClient (its 12-byte sequence header inside the 1000 bytes) to a UdpServer,
   ARP resolving each neighbour once before the measurement. airtcp: a BSS per hop, node i
   its AP and node i+1 its station, `channel = 1` on every WLAN (one radio per node: a relay
   sends and receives both hops' frames with one DCF). airtcp has no beacons or
   association, so ns-3's adhoc MAC (no beacons) is the closer match.

ns-3's BSSs (1, 2) are infrastructure ones as in ns3_compare.py: one beacon at 0 s, the next
67 s later, stations probing actively to associate during the warm-up.

Per point: each simulator's MSDU throughput over the measurement (and per flow, or per group
of stations, where there are two), the fraction of data frames that got no ACK (ns-3:
MacTxDataFailed / unicast data frames sent, from its PhyTxPsduBegin; airtcp:
radio.data_failures / data frames, the exchanges less the RTS that got no CTS) and the same
of RTS with RTS/CTS on (ns-3: MacTxRtsFailed / RTS sent; airtcp: radio.rts_failures /
exchanges), both over the whole run as airtcp's MAC counters count them, the events each
simulator ran (ns-3's Simulator::GetEventCount, airtcp's summary `events`, whole runs),
each simulator's wall time for the point (building and running it, in its own process:
ns-3 in a worker in its virtualenv, one process for the whole run, its code for both kinds
of point compiled by a short run first; airtcp through `airtcp.run` here) and their ratio,
and the same of its event loop alone (ns-3: the time in its Simulator::Run calls, warm-up and
measurement; airtcp: the summary's `wall_time_s`, the loop without reading, checking or
building the scenario) and their ratio, the figure the issue's 100x is about. ns-3 runs a
point once (0.1 to 10 s of loop); airtcp runs it `--airtcp-runs` times (5) and reports its
best times, its runs of a few ms being exposed to the machine's noise and a cold first run
(they must agree on every figure). The last line gives the least loop ratio.
`--verbose` adds ns-3's frames by kind and rate and its PHY receive-drop reasons.

ns-3 lives in its own virtualenv (python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip
install ns3==3.44.post0); this script runs there as a worker, one simulation at a time.
Without it, it prints a line and exits 0.

Run: python bench/ns3_spatial.py --ns3-python /work/ns3venv/bin/python [--only pair groups
chain] [--seconds 20] [--groups-seconds 60] [--chain-seconds 30] [--airtcp-runs 5]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from ns3_env import ns3_available

MSDU = 1024  # LLC/SNAP 8 + IPv4 20 + UDP 8 + 988 in airtcp; LLC/SNAP 8 + 1016 in ns-3
CHAIN_PAYLOAD = 1000
CHAIN_MSDU = 8 + 20 + 8 + CHAIN_PAYLOAD
WARMUP_S = 2.0
SPACING_M = 40.0
QUEUE = 50
MODES = {1: "DsssRate1Mbps", 2: "DsssRate2Mbps", 5.5: "DsssRate5_5Mbps", 11: "DsssRate11Mbps"}
RESULT = "NS3-RESULT "
# airtcp runs each point this many times and reports its best times (`--airtcp-runs`).
AIRTCP_RUNS = 5
# airtcp's [radio], ns-3's values above (airtcp's defaults too, set so that they stay).
RADIO = {
    "propagation": {"model": "log_distance", "exponent": 3.0, "reference_loss": "46.6777dB",
                    "reference_distance": 1.0},
    "tx_power": "16.0206dBm", "noise_figure": "7dB", "cca_threshold": "-62dBm",
    "preamble_threshold": "-82dBm", "preamble_snr": "4dB", "capture_margin": "off",
    "propagation_delay": True,
    # ns-3's CCA for PPDUs it does not receive and its channel access (--airtcp-standard: not).
    "cca_sensitivity": "-82dBm", "dcf": "ns3",
}  # fmt: skip


def pair_positions() -> list[tuple[str, float, float]]:
    return [("left", -SPACING_M, 0.0), ("right", SPACING_M, 0.0)]


def group_positions() -> list[tuple[str, float, float]]:
    """10 stations on a 5 x 2 grid of 1 m around (-40, 0), 10 around (40, 0)."""
    stations = []
    for side, centre in (("l", -SPACING_M), ("r", SPACING_M)):
        for k in range(10):
            stations.append((f"{side}{k}", centre + k % 5 - 2, k // 5 - 0.5))
    return stations


def offered_bps(rate_bps: float, n: int) -> int:
    """Twice the channel's capacity, as the Rust saturation tests and ns3_compare.py."""
    return int(2 * rate_bps / n + 1_000_000)


# ---------------------------------------------------------------------------------------
# The ns-3 side: runs in the ns-3 virtualenv (`--worker`), requests on stdin, one JSON line
# each, answers on stdout prefixed with RESULT.

NS3_HELPERS = r"""
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-phy.h"
#include "ns3/wifi-psdu.h"
#include "ns3/wifi-phy-common.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/packet-socket-address.h"
#include "ns3/simulator.h"
#include "ns3/config.h"
#include "ns3/node-list.h"
#include <map>
#include <sstream>

namespace airtcp_spatial {
using namespace ns3;

// Counts by name: frames put on the air by kind ("tx:data", "tx:rts", ...), their rates
// ("mode:ack:DsssRate2Mbps"), MAC failures ("data_failed", "rts_failed", and the final ones
// that drop a frame), MSDUs received by node ("rx:3"), PHY receive drops by reason.
std::map<std::string, uint64_t> counts;

uint32_t NodeOf(const std::string& context)
{
    return std::stoul(context.substr(10, context.find('/', 10) - 10));
}

void PhyTxPsdu(std::string context, WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    for (const auto& [id, psdu] : psdus)
    {
        const auto& header = psdu->GetHeader(0);
        std::string kind;
        if (header.IsData())
        {
            kind = header.GetAddr1().IsGroup() ? "group" : "data";
        }
        else if (header.IsRts())
        {
            kind = "rts";
        }
        else if (header.IsCts())
        {
            kind = "cts";
        }
        else if (header.IsAck())
        {
            kind = "ack";
        }
        else
        {
            kind = "other";
        }
        counts["tx:" + kind]++;
        counts["mode:" + kind + ":" + txVector.GetMode().GetUniqueName()]++;
    }
}

void DataFailed(Mac48Address) { counts["data_failed"]++; }
void RtsFailed(Mac48Address) { counts["rts_failed"]++; }
void FinalDataFailed(Mac48Address) { counts["data_dropped"]++; }
void FinalRtsFailed(Mac48Address) { counts["rts_dropped"]++; }

void RxDrop(Ptr<const Packet>, WifiPhyRxfailureReason reason)
{
    std::ostringstream os;
    os << "drop:" << reason;
    counts[os.str()]++;
}

// MSDUs a packet socket server gets, by the node that sent them.
std::map<Mac48Address, uint32_t> nodeOf;

void ServerRx(Ptr<const Packet>, const Address& from)
{
    auto sender = PacketSocketAddress::ConvertFrom(from).GetPhysicalAddress();
    auto mac = Mac48Address::ConvertFrom(sender);
    counts["rx:" + std::to_string(nodeOf[mac])]++;
}

void UdpRx(std::string context, Ptr<const Packet>)
{
    counts["rx:" + std::to_string(NodeOf(context))]++;
}

void Connect()
{
    counts.clear();
    nodeOf.clear();
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        auto node = NodeList::GetNode(i);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (auto wifi = DynamicCast<WifiNetDevice>(node->GetDevice(d)))
            {
                nodeOf[Mac48Address::ConvertFrom(wifi->GetAddress())] = i;
            }
        }
    }
    std::string dev = "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/";
    Config::Connect(dev + "Phy/PhyTxPsduBegin", MakeCallback(&PhyTxPsdu));
    Config::ConnectWithoutContext(dev + "Phy/PhyRxDrop", MakeCallback(&RxDrop));
    auto manager = dev + "RemoteStationManager/";
    Config::ConnectWithoutContext(manager + "MacTxDataFailed", MakeCallback(&DataFailed));
    Config::ConnectWithoutContext(manager + "MacTxRtsFailed", MakeCallback(&RtsFailed));
    Config::ConnectWithoutContext(manager + "MacTxFinalDataFailed",
                                  MakeCallback(&FinalDataFailed));
    Config::ConnectWithoutContext(manager + "MacTxFinalRtsFailed", MakeCallback(&FinalRtsFailed));
    // One of the two servers is there.
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/ApplicationList/*/$ns3::PacketSocketServer/Rx", MakeCallback(&ServerRx));
    Config::ConnectFailSafe("/NodeList/*/ApplicationList/*/$ns3::UdpServer/Rx",
                            MakeCallback(&UdpRx));
}

std::string Dump()
{
    std::ostringstream os;
    for (const auto& [name, count] : counts)
    {
        os << name << "=" << count << "\n";
    }
    return os.str();
}

std::string Unassociated()
{
    std::ostringstream os;
    for (uint32_t i = 0; i < NodeList::GetNNodes(); ++i)
    {
        auto device = DynamicCast<WifiNetDevice>(NodeList::GetNode(i)->GetDevice(0));
        auto sta = device ? DynamicCast<StaWifiMac>(device->GetMac()) : nullptr;
        if (sta && !sta->IsAssociated())
        {
            os << i << " ";
        }
    }
    return os.str();
}
}  // namespace airtcp_spatial
"""


def ns3_worker() -> None:
    from ns import ns

    ns.cppyy.cppdef(NS3_HELPERS)
    helpers = ns.cppyy.gbl.airtcp_spatial

    ns.Config.SetDefault("ns3::WifiRemoteStationManager::FragmentationThreshold",
                         ns.UintegerValue(65535))  # fmt: skip
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{QUEUE}p")))
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(1e6)))

    def counts() -> dict[str, int]:
        pairs = (line.split("=") for line in str(helpers.Dump()).splitlines())
        return {name: int(value) for name, value in pairs}

    def wifi_nodes(request: dict, positions: list[tuple[float, float]], adhoc: bool):
        """Nodes at `positions` (the first the AP of a BSS, unless `adhoc`) on one channel."""
        ns.RngSeedManager.SetSeed(1)
        ns.RngSeedManager.SetRun(request["seed"])
        threshold = 0 if request["rts"] else 65535
        ns.Config.SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold",
                             ns.UintegerValue(threshold))  # fmt: skip
        nodes = ns.NodeContainer()
        nodes.Create(len(positions))
        channel = ns.YansWifiChannelHelper()
        channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
        channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel", "Exponent",
                                   ns.DoubleValue(3.0), "ReferenceDistance", ns.DoubleValue(1.0),
                                   "ReferenceLoss", ns.DoubleValue(46.6777))  # fmt: skip
        phy = ns.YansWifiPhyHelper()
        phy.SetChannel(channel.Create())
        phy.Set("TxPowerStart", ns.DoubleValue(16.0206))
        phy.Set("TxPowerEnd", ns.DoubleValue(16.0206))
        phy.Set("RxNoiseFigure", ns.DoubleValue(7.0))
        phy.Set("CcaEdThreshold", ns.DoubleValue(-62.0))
        phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel", "Threshold",
                                      ns.DoubleValue(4.0), "MinimumRssi",
                                      ns.DoubleValue(-82.0))  # fmt: skip
        wifi = ns.WifiHelper()
        wifi.SetStandard(ns.WIFI_STANDARD_80211b)
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode",
                                     ns.StringValue(MODES[request["rate"]]), "ControlMode",
                                     ns.StringValue(request["control_mode"]))  # fmt: skip
        mac = ns.WifiMacHelper()
        devices = ns.NetDeviceContainer()
        if adhoc:
            mac.SetType("ns3::AdhocWifiMac")
            devices.Add(wifi.Install(phy, mac, nodes))
        else:
            ssid = ns.Ssid("airtcp")
            # One beacon at 0 s, the next 67 s later; stations probe actively to associate.
            mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid), "BeaconInterval",
                        ns.TimeValue(ns.MicroSeconds(65535 * 1024)), "EnableBeaconJitter",
                        ns.BooleanValue(False))  # fmt: skip
            devices.Add(wifi.Install(phy, mac, nodes.Get(0)))
            mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid), "ActiveProbing",
                        ns.BooleanValue(True))  # fmt: skip
            for i in range(1, len(positions)):
                devices.Add(wifi.Install(phy, mac, nodes.Get(i)))
        ns.WifiHelper.AssignStreams(devices, request["seed"])
        allocator = ns.ListPositionAllocator()
        for x, y in positions:
            allocator.Add(ns.Vector(x, y, 0))
        mobility = ns.MobilityHelper()
        mobility.SetPositionAllocator(allocator)
        mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel")
        mobility.Install(nodes)
        return nodes, devices

    def measure(request: dict, started: float) -> dict:
        """Runs the warm-up and the measurement; the counts of the measurement and of the
        whole run, and the time spent in Simulator::Run (the event loop) besides."""
        helpers.Connect()
        ns.Simulator.Stop(ns.Seconds(WARMUP_S))
        loop_started = time.perf_counter()
        ns.Simulator.Run()
        loop = time.perf_counter() - loop_started
        unassociated = str(helpers.Unassociated()).split()
        before = counts()
        ns.Simulator.Stop(ns.Seconds(request["seconds"]))
        loop_started = time.perf_counter()
        ns.Simulator.Run()
        loop += time.perf_counter() - loop_started
        after = counts()
        events = int(ns.Simulator.GetEventCount())
        ns.Simulator.Destroy()
        return {
            "counts": {k: v - before.get(k, 0) for k, v in after.items()},
            "totals": after,
            "unassociated": unassociated,
            "events": events,
            "wall_s": time.perf_counter() - started,
            "loop_s": loop,
        }

    def bss(request: dict) -> dict:
        started = time.perf_counter()
        stations = request["stations"]
        nodes, devices = wifi_nodes(request, [(0.0, 0.0), *stations], adhoc=False)
        ns.PacketSocketHelper().Install(nodes)
        n = len(stations)
        interval = 8 * (MSDU - 8) / offered_bps(request["rate"] * 1e6, n)
        server_address = ns.PacketSocketAddress()
        server_address.SetSingleDevice(devices.Get(0).GetIfIndex())
        server_address.SetProtocol(1)
        server = ns.CreateObject[ns.PacketSocketServer]()
        server.SetLocal(server_address)
        nodes.Get(0).AddApplication(server)
        for i in range(1, n + 1):
            address = ns.PacketSocketAddress()
            address.SetSingleDevice(devices.Get(i).GetIfIndex())
            address.SetPhysicalAddress(devices.Get(0).GetAddress())
            address.SetProtocol(1)
            client = ns.CreateObject[ns.PacketSocketClient]()
            client.SetRemote(address)
            client.SetAttribute("PacketSize", ns.UintegerValue(MSDU - 8))
            client.SetAttribute("MaxPackets", ns.UintegerValue(0))
            client.SetAttribute("Interval", ns.TimeValue(ns.Seconds(interval)))
            client.SetStartTime(ns.Seconds(0.5 + 0.5 * i / n))
            nodes.Get(i).AddApplication(client)
        return measure(request, started)

    def chain(request: dict) -> dict:
        started = time.perf_counter()
        hops = request["hops"]
        positions = [(SPACING_M * i, 0.0) for i in range(hops + 1)]
        nodes, devices = wifi_nodes(request, positions, adhoc=True)
        ns.InternetStackHelper().Install(nodes)
        addresses = ns.Ipv4AddressHelper()
        addresses.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
        interfaces = addresses.Assign(devices)
        # No queue disc on the WLAN (Assign installs FqCoDel): a DropTail MAC queue, as airtcp.
        ns.TrafficControlHelper().Uninstall(devices)
        routing = ns.Ipv4StaticRoutingHelper()
        last = interfaces.GetAddress(hops)
        for i in range(hops - 1):  # node i reaches node n through node i + 1
            table = routing.GetStaticRouting(nodes.Get(i).GetObject[ns.Ipv4]())
            table.AddHostRouteTo(last, interfaces.GetAddress(i + 1), 1)
        server = ns.UdpServerHelper(9)
        server.Install(nodes.Get(hops)).Start(ns.Seconds(0))
        client = ns.UdpClientHelper(last.ConvertTo(), 9)
        client.SetAttribute("MaxPackets", ns.UintegerValue(0))
        client.SetAttribute("PacketSize", ns.UintegerValue(CHAIN_PAYLOAD))
        interval = 8 * CHAIN_MSDU / offered_bps(request["rate"] * 1e6, 1)
        client.SetAttribute("Interval", ns.TimeValue(ns.Seconds(interval)))
        client.Install(nodes.Get(0)).Start(ns.Seconds(0.5))
        return measure(request, started)

    for line in sys.stdin:
        request = json.loads(line)
        handler = chain if request["kind"] == "chain" else bss
        print(RESULT + json.dumps(handler(request)), flush=True)
    # cppyy's exit handlers sometimes crash after ns-3 has run (a double free): skip them.
    os._exit(0)


class Ns3:
    """The ns-3 worker: one process for the whole run, one simulation at a time."""

    def __init__(self, python: str, control_mode: str) -> None:
        self.control_mode = control_mode
        # cppyy's warnings while it loads ns-3 go here; shown if the worker fails.
        self.stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in close())
        self.process = subprocess.Popen(
            [python, __file__, "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, text=True
        )  # fmt: skip

    def run(self, request: dict) -> dict:
        assert self.process.stdin and self.process.stdout
        request = {**request, "control_mode": self.control_mode}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(RESULT):
                return ns3_figures(json.loads(line[len(RESULT) :]), request)
        self.stderr.seek(0)
        errors = [line for line in self.stderr if "Failed to materialize" not in line]
        raise RuntimeError("the ns-3 worker stopped:\n" + "".join(errors[-30:]))

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait()
        self.stderr.close()


def ns3_figures(result: dict, request: dict) -> dict:
    """ns-3's counts as the figures the tables print."""
    counts, totals = result["counts"], result["totals"]
    seconds = request["seconds"]
    if request["kind"] == "chain":  # MSDUs node n's UdpServer got
        per_flow = [counts.get(f"rx:{request['hops']}", 0) * CHAIN_MSDU * 8 / seconds]
    else:  # MSDUs the AP's server got, by sender (stations are nodes 1..n)
        senders = range(1, len(request["stations"]) + 1)
        per_flow = [counts.get(f"rx:{i}", 0) * MSDU * 8 / seconds for i in senders]
    # Failures over the whole run, as airtcp's MAC counters count them.
    data, rts = totals.get("tx:data", 0), totals.get("tx:rts", 0)
    return {
        "throughput_bps": sum(per_flow),
        "per_flow_bps": per_flow,
        "data_failure": totals.get("data_failed", 0) / data if data else float("nan"),
        "rts_failure": totals.get("rts_failed", 0) / rts if rts else float("nan"),
        "modes": {k[5:]: v for k, v in totals.items() if k.startswith("mode:") and v},
        "rx_drops": {k[5:]: v for k, v in totals.items() if k.startswith("drop:") and v},
        "unassociated": result["unassociated"],
        "events": result["events"],
        "wall_s": result["wall_s"],
        "loop_s": result["loop_s"],
    }


# ---------------------------------------------------------------------------------------
# The airtcp side: scenarios in the user schema (docs/scenarios.md), run by `airtcp.run`.


def airtcp_basic_rate(rate: float, forced: float | None) -> int:
    """airtcp's basic rate: ns-3's ACK rate (its basic set is {1, 2} Mbit/s), or `forced`."""
    if forced is not None:
        return int(forced * 1e6)
    return 2_000_000 if rate >= 2 else 1_000_000


def airtcp_bss(stations, rate, rts, seconds, basic, seed) -> dict:
    names = [name for name, _, _ in stations]
    offered = offered_bps(rate * 1e6, len(stations))
    scenario = {
        "simulation": {"name": "ns3-spatial", "duration": f"{WARMUP_S + seconds}s",
                       "measure_from": f"{WARMUP_S}s"},
        "wlan": {"ap": "ap", "stations": names, "phy": "802.11b", "rate": f"{int(rate * 1e6)}bps",
                 "basic_rate": f"{basic}bps", "rts_threshold": 0 if rts else "off",
                 "queue": QUEUE},
        "radio": RADIO,
        "positions": {"ap": [0.0, 0.0], **{name: [x, y] for name, x, y in stations}},
        "flows": [{"name": name, "kind": "udp_cbr", "src": name, "dst": "ap",
                   "rate": f"{offered}bps", "payload": MSDU - 36} for name in names],
    }  # fmt: skip
    return airtcp_figures(scenario, seed, MSDU / (MSDU - 36))


def airtcp_chain(hops, rate, seconds, basic, seed) -> dict:
    nodes = [f"n{i}" for i in range(hops + 1)]
    scenario = {
        "simulation": {"name": "ns3-spatial-chain", "duration": f"{WARMUP_S + seconds}s",
                       "measure_from": f"{WARMUP_S}s"},
        "wlans": [{"ap": nodes[i], "stations": [nodes[i + 1]], "phy": "802.11b",
                   "rate": f"{int(rate * 1e6)}bps", "basic_rate": f"{basic}bps",
                   "rts_threshold": "off", "queue": QUEUE, "channel": 1}
                  for i in range(hops)],
        "radio": RADIO,
        "positions": {name: [SPACING_M * i, 0.0] for i, name in enumerate(nodes)},
        "flows": [{"name": "chain", "kind": "udp_cbr", "src": nodes[0], "dst": nodes[-1],
                   "rate": f"{offered_bps(rate * 1e6, 1)}bps", "payload": CHAIN_PAYLOAD}],
    }  # fmt: skip
    return airtcp_figures(scenario, seed, CHAIN_MSDU / CHAIN_PAYLOAD)


def airtcp_figures(scenario: dict, seed: int, msdu_per_payload: float) -> dict:
    """The figures of `scenario`'s run; its times the best of `AIRTCP_RUNS` runs (a run of
    a few ms is exposed to the machine's noise), which must agree on everything else."""
    import airtcp

    walls, loops, summaries = [], [], []
    for _ in range(AIRTCP_RUNS):
        started = time.perf_counter()
        summary = airtcp.run(scenario, seed=seed, timeseries=False).summary
        walls.append(time.perf_counter() - started)
        loops.append(summary.pop("wall_time_s"))  # the event loop's: no parsing or building
        summaries.append(summary)
    if any(other != summary for other in summaries):
        raise RuntimeError("airtcp's runs of one seed differ")
    per_flow = [flow["goodput_bps"] * msdu_per_payload for flow in summary["flows"]]
    wlans = summary["wlans"]
    attempts = sum(w["attempts"] for w in wlans)
    radio = {k: sum(w["radio"][k] for w in wlans) for k in ("data_failures", "rts_failures")}
    rts = scenario.get("wlan", {}).get("rts_threshold") == 0
    data = attempts - radio["rts_failures"]  # exchanges less those that ended at their RTS
    return {
        "throughput_bps": sum(per_flow),
        "per_flow_bps": per_flow,
        "data_failure": radio["data_failures"] / data if data else float("nan"),
        "rts_failure": radio["rts_failures"] / attempts if rts and attempts else float("nan"),
        "events": summary["events"],
        "wall_s": min(walls),
        "loop_s": min(loops),
    }


# ---------------------------------------------------------------------------------------


def columns(first: tuple[tuple[str, int, str], ...], flows: tuple[str, ...]):
    """The table's columns: `first`, then each simulator's throughput (and flows), failure
    fractions, events, wall and event-loop times."""
    per_flow = tuple((name, 7, ".3f") for name in flows)
    return (
        *first,
        ("ns-3", 7, ".3f"),
        *per_flow,
        ("airtcp", 7, ".3f"),
        *per_flow,
        ("a/ns3", 6, ".3f"),
        ("dfail3", 7, ".4f"),
        ("dfailA", 7, ".4f"),
        ("rfail3", 7, ".4f"),
        ("rfailA", 7, ".4f"),
        ("events3", 10, ".3g"),
        ("eventsA", 10, ".3g"),
        ("wall3", 6, ".2f"),
        ("wallA", 6, ".3f"),
        ("w3/wA", 5, ".0f"),
        ("loop3", 6, ".2f"),
        ("loopA", 7, ".4f"),
        ("l3/lA", 5, ".0f"),
    )


def row(cols, first: tuple, peer: dict, own: dict, flows: int) -> str:
    cells = (
        *first,
        peer["throughput_bps"] / 1e6,
        *(bps / 1e6 for bps in peer["per_flow_bps"][:flows]),
        own["throughput_bps"] / 1e6,
        *(bps / 1e6 for bps in own["per_flow_bps"][:flows]),
        own["throughput_bps"] / peer["throughput_bps"] if peer["throughput_bps"] else float("nan"),
        peer["data_failure"],
        own["data_failure"],
        peer["rts_failure"],
        own["rts_failure"],
        peer["events"],
        own["events"],
        peer["wall_s"],
        own["wall_s"],
        peer["wall_s"] / own["wall_s"],
        peer["loop_s"],
        own["loop_s"],
        peer["loop_s"] / own["loop_s"],
    )
    return " ".join(f"{c:>{w}{f}}" for c, (_, w, f) in zip(cells, cols, strict=True))


def header(cols) -> str:
    return " ".join(f"{heading:>{width}}" for heading, width, _ in cols)


def notes(peer: dict, verbose: bool) -> None:
    if peer.get("unassociated"):
        print(f"  ns-3: stations not associated after the warm-up: {peer['unassociated']}")
    if verbose:
        modes = " ".join(f"{k}={v}" for k, v in sorted(peer["modes"].items()))
        drops = " ".join(f"{k}={v}" for k, v in sorted(peer["rx_drops"].items()))
        print(f"  ns-3 frames by rate: {modes}\n  ns-3 PHY receive drops: {drops}")


def control_rates(peer: dict) -> str:
    """ns-3's ACK, CTS and RTS rates, from its frames."""
    rates = sorted(k for k in peer["modes"] if k.split(":")[0] in ("ack", "cts", "rts"))
    return ", ".join(f"{k} x{peer['modes'][k]}" for k in rates)


def group_flows(per_flow: list[float]) -> list[float]:
    half = len(per_flow) // 2
    return [sum(per_flow[:half]), sum(per_flow[half:])]


def main() -> None:
    global AIRTCP_RUNS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--ns3-python",
        default=os.environ.get("NS3_PYTHON"),
        help="a Python that imports ns (the ns3 package); default $NS3_PYTHON",
    )
    parser.add_argument("--only", nargs="+", choices=("pair", "groups", "chain"))
    parser.add_argument("--seconds", type=float, default=20.0, help="hidden pair, measured")
    parser.add_argument("--groups-seconds", type=float, default=60.0, help="hidden groups")
    parser.add_argument("--chain-seconds", type=float, default=30.0, help="chain")
    parser.add_argument("--hops", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--basic-rate",
        type=float,
        help="airtcp's basic rate, Mbit/s (default: ns-3's ACK rate, 2 at 2 Mbit/s and up)",
    )
    parser.add_argument(
        "--ns3-control-mode",
        default="DsssRate1Mbps",
        help="ns-3's ConstantRateWifiManager ControlMode, its RTS rate (DsssRate2Mbps: RTS and "
        "CTS at 2 Mbit/s, as airtcp's with basic_rate 2 Mbit/s)",
    )
    parser.add_argument(
        "--airtcp-standard",
        action="store_true",
        help="airtcp with its standard CCA (-62 dBm for missed preambles) and DCF, not ns-3's",
    )
    parser.add_argument(
        "--airtcp-runs",
        type=int,
        default=AIRTCP_RUNS,
        help="runs of each airtcp point, whose best wall and loop times are reported",
    )
    parser.add_argument("--verbose", action="store_true", help="ns-3's frames by rate, drops")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        ns3_worker()
        return
    missing = ns3_available(args.ns3_python)
    if missing:
        print(f"ns3_spatial: skipped, {missing} (ns-3 needs its own venv: see the docstring)")
        return
    only = set(args.only or ("pair", "groups", "chain"))
    AIRTCP_RUNS = max(1, args.airtcp_runs)
    if args.airtcp_standard:
        del RADIO["cca_sensitivity"], RADIO["dcf"]
    print(
        "MSDU throughput, Mbit/s (a/ns3: airtcp's over ns-3's); dfail: data frames without "
        "an ACK over data frames sent; rfail: the same of RTS; events: each simulator's "
        "(3: ns-3, A: airtcp); wall: s of a point (build and run), loop: s of its event "
        "loop alone (ns-3's Simulator::Run, airtcp's summary wall_time_s), and their ratios; "
        f"airtcp's times the best of {AIRTCP_RUNS} runs"
    )
    ns3 = Ns3(args.ns3_python, args.ns3_control_mode)
    control = {}
    loop_ratios = {}
    try:
        # Load airtcp, and ns-3's code for both kinds (cppyy compiles it on first use).
        airtcp_bss(pair_positions(), 11, False, 0.5, 2_000_000, 1)
        for warm in (
            {"kind": "bss", "stations": [[-SPACING_M, 0.0]]},
            {"kind": "chain", "hops": 2},
        ):
            ns3.run({**warm, "rate": 11, "rts": True, "seed": 1, "seconds": 0.1})
        if "pair" in only:
            cols = columns((("Mbit/s", 6, ""), ("RTS", 4, "")), ("left", "right"))
            print(f"\n1. Hidden pair, {args.seconds:g} s\n{header(cols)}", flush=True)
            for rate in (2, 11):
                for rts in (False, True):
                    stations = pair_positions()
                    request = {"kind": "bss", "stations": [[x, y] for _, x, y in stations],
                               "rate": rate, "rts": rts, "seed": args.seed,
                               "seconds": args.seconds}  # fmt: skip
                    peer = ns3.run(request)
                    basic = airtcp_basic_rate(rate, args.basic_rate)
                    own = airtcp_bss(stations, rate, rts, args.seconds, basic, args.seed)
                    first = (f"{rate:g}", "on" if rts else "off")
                    print(row(cols, first, peer, own, 2), flush=True)
                    notes(peer, args.verbose)
                    point = f"pair {rate:g} Mbit/s RTS {first[1]}"
                    control[point] = control_rates(peer)
                    loop_ratios[point] = peer["loop_s"] / own["loop_s"]
        if "groups" in only:
            cols = columns((("Mbit/s", 6, ""), ("RTS", 4, "")), ("left", "right"))
            seconds = args.groups_seconds
            print(f"\n2. Hidden groups, 2 x 10 stations, {seconds:g} s (left, right: each "
                  f"group's)\n{header(cols)}", flush=True)  # fmt: skip
            stations = group_positions()
            request = {"kind": "bss", "stations": [[x, y] for _, x, y in stations], "rate": 11,
                       "rts": False, "seed": args.seed, "seconds": seconds}  # fmt: skip
            peer = ns3.run(request)
            basic = airtcp_basic_rate(11, args.basic_rate)
            own = airtcp_bss(stations, 11, False, seconds, basic, args.seed)
            peer["per_flow_bps"] = group_flows(peer["per_flow_bps"])
            own["per_flow_bps"] = group_flows(own["per_flow_bps"])
            print(row(cols, ("11", "off"), peer, own, 2), flush=True)
            notes(peer, args.verbose)
            control["groups 11 Mbit/s"] = control_rates(peer)
            loop_ratios["groups 11 Mbit/s"] = peer["loop_s"] / own["loop_s"]
        if "chain" in only:
            cols = columns((("hops", 4, ""),), ())
            seconds = args.chain_seconds
            print(f"\n3. Chain, 11 Mbit/s, RTS off, {seconds:g} s, {CHAIN_MSDU}-byte MSDUs "
                  f"received at the last node\n{header(cols)}", flush=True)  # fmt: skip
            for hops in args.hops:
                request = {"kind": "chain", "hops": hops, "rate": 11, "rts": False,
                           "seed": args.seed, "seconds": seconds}  # fmt: skip
                peer = ns3.run(request)
                basic = airtcp_basic_rate(11, args.basic_rate)
                own = airtcp_chain(hops, 11, seconds, basic, args.seed)
                print(row(cols, (hops,), peer, own, 0), flush=True)
                notes(peer, args.verbose)
                control[f"chain {hops} hops"] = control_rates(peer)
                loop_ratios[f"chain {hops} hops"] = peer["loop_s"] / own["loop_s"]
    finally:
        ns3.close()
    print("\nns-3's control frames by rate (airtcp's basic rate: "
          f"{args.basic_rate or 'ns-3 ACK rate'}):")  # fmt: skip
    for point, rates in control.items():
        print(f"  {point}: {rates}")
    print(f"ns-3 3.44 ({args.ns3_python}), ControlMode {args.ns3_control_mode}")
    if loop_ratios:
        point = min(loop_ratios, key=loop_ratios.get)
        print(f"Event loops: airtcp's at least {loop_ratios[point]:.0f}x faster than ns-3's "
              f"(the least: {point})")  # fmt: skip


if __name__ == "__main__":
    main()
