"""airtcp's 802.11 DCF side by side with ns-3 (the PyPI package `ns3`, 3.44), in one run.

Saturation: n = 5, 10, 20, 50 stations always holding a 1024-byte MSDU for the AP (no
RTS/CTS, 7 attempts a frame, no MSDU lifetime or sojourn limit, no channel errors), at
802.11g 54 and 6 Mbit/s and 802.11b 11 and 1 Mbit/s. Per point: ns-3's MSDU throughput at the
AP; airtcp's with `eifs_after_collision = false` (others wait DIFS after a collision, ns-3's
reading: its PHY detects no preamble at the 0 dB SINR of two equal frames) and with the
default (`true`, EIFS); the model of the standard's DCF (`airtcp bianchi --model mac
--difs-after-collision --retry-limit 6`); the ratios to ns-3; the collision probability of
an attempt in each simulator; and each simulator's wall time for the point (building and
running it, in its own process) with their ratio.

ns-3 is set up as its Bianchi validation, src/wifi/examples/wifi-bianchi.cc: a
ConstantRateWifiManager at the data rate, infrastructure BSS, stations 1 mm from the AP
(closer than the log-distance model's 1 m reference distance, so every frame reaches every
PHY with the same power: no channel errors, and two colliding frames meet at 0 dB SINR
everywhere; with stations 1 m away, those 2 m apart hear each other 6 dB weaker, and ns-3's
PHYs then detect some preambles in collisions and defer EIFS), packet sockets (LLC/SNAP 8 +
1016 bytes = 1024-byte MSDUs), queues without a sojourn limit (MaxDelay). It differs from
wifi-bianchi in: ns-3's default PHY (preamble detection at 4 dB SINR; wifi-bianchi turns it
off, as `--ns3-no-preamble-detection`); the default retry limit (7 attempts, as airtcp;
wifi-bianchi retries forever, as `--retry-limit 65535`, which the model then takes as
unlimited); ACKs at the rate ns-3 picks by the standard's rule (802.11g: 24 or 6 Mbit/s;
802.11b: the highest of its basic rates 1, 2 Mbit/s not above the data rate, so airtcp's
`basic_rate` is set to it); and a 1 µs propagation delay between the AP and the stations
(airtcp's, Bianchi's δ: the stations sit together 1 mm from the AP, and the propagation
speed is 1 km/s; `--ns3-delay-us 0` for wifi-bianchi's). Offered load is twice the
channel's capacity, as crates/airtcp-sim/tests/common/mod.rs. Each point runs max(10 s, the
time for `--frames` frames by the model) after a 2 s warm-up.

Upload (`--upload`, the issue's second observation): one 802.11g station uploads TCP
(NewReno, 1024-byte segments, 1 MiB buffers, no SACK or timestamps, delayed ACKs on and off)
at 54 Mbit/s to a server behind its AP (100 Mbit/s, 5 ms), for `--upload-seconds` after 5 s:
collisions per second between the station's frames and the AP's (its TCP ACKs), and the
mean idle time from the end of a collision to the next frame on the air; airtcp's from its
802.11 capture (`--pcap-80211`), ns-3's from its PHYs' transmissions (no queue disc on the
WLAN: a DropTail MAC queue in both).

ns-3 lives in its own virtualenv (python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip
install ns3==3.44.post0); this script runs there as a worker, one simulation at a time.
Without it, it prints a line and exits 0.

Run: python bench/ns3_compare.py --ns3-python /work/ns3venv/bin/python [--upload]
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ns3_env import ns3_available

MSDU = 1024  # LLC/SNAP 8 + IPv4 20 + UDP 8 + 988 in airtcp; LLC/SNAP 8 + 1016 in ns-3
WARMUP_S = 2.0
STATIONS = (5, 10, 20, 50)
# (airtcp phy, rate, airtcp basic_rate (None: the default), ns-3 standard, ns-3 mode)
POINTS = (
    ("802.11g", 54_000_000, None, "11g", "ErpOfdmRate54Mbps"),
    ("802.11g", 6_000_000, None, "11g", "ErpOfdmRate6Mbps"),
    ("802.11b", 11_000_000, 2_000_000, "11b", "DsssRate11Mbps"),
    ("802.11b", 1_000_000, 1_000_000, "11b", "DsssRate1Mbps"),
)
RESULT = "NS3-RESULT "


# ---------------------------------------------------------------------------------------
# The ns-3 side: runs in the ns-3 virtualenv (`--worker`), requests on stdin, one JSON line
# each, answers on stdout prefixed with RESULT.

NS3_HELPERS = r"""
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-phy.h"
#include "ns3/wifi-psdu.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/txop.h"
#include "ns3/simulator.h"
#include "ns3/config.h"
#include <map>
#include <sstream>
#include <vector>

namespace airtcp_ns3 {
using namespace ns3;

// Saturation: MSDUs the AP's MAC hands up, data frames the stations put on the air, ACKs
// the AP sends, and the rate of those ACKs.
uint64_t rxMsdus = 0;
uint64_t dataAttempts = 0;
uint64_t acks = 0;
std::map<std::string, uint64_t> ackModes;

void MacRx(Ptr<const Packet> p) { ++rxMsdus; }

void PhyTxPsdu(std::string context, WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    bool ap = context.rfind("/NodeList/0/", 0) == 0;
    for (const auto& [id, psdu] : psdus)
    {
        const auto& header = psdu->GetHeader(0);
        if (!ap && header.IsData() && psdu->GetSize() > 100)
        {
            ++dataAttempts;
        }
        if (ap && header.IsAck())
        {
            ++acks;
            ackModes[txVector.GetMode().GetUniqueName()]++;
        }
    }
}

void ConnectSaturation()
{
    rxMsdus = dataAttempts = acks = 0;
    ackModes.clear();
    Config::ConnectWithoutContext("/NodeList/0/DeviceList/0/$ns3::WifiNetDevice/Mac/MacRx",
                                  MakeCallback(&MacRx));
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin",
                    MakeCallback(&PhyTxPsdu));
}

std::string AckModes()
{
    std::ostringstream os;
    for (const auto& [mode, count] : ackModes)
    {
        os << mode << "=" << count << " ";
    }
    return os.str();
}

// Upload: every transmission on the channel (start, end in ns, node, data frame or not).
std::vector<double> txStart, txEnd;
std::vector<int> txNode, txKind;

void PhyTxTimeline(std::string context, WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    auto node = std::stoi(context.substr(10, context.find('/', 10) - 10));
    auto phy = DynamicCast<WifiNetDevice>(NodeList::GetNode(node)->GetDevice(0))->GetPhy();
    auto duration = WifiPhy::CalculateTxDuration(psdus, txVector, phy->GetPhyBand());
    const auto& header = psdus.begin()->second->GetHeader(0);
    auto now = Simulator::Now().GetNanoSeconds();
    txStart.push_back(now);
    txEnd.push_back(now + duration.GetNanoSeconds());
    txNode.push_back(node);
    txKind.push_back(header.IsData() ? 1 : (header.IsAck() ? 2 : 0));
}

void ConnectTimeline(std::string path)
{
    txStart.clear();
    txEnd.clear();
    txNode.clear();
    txKind.clear();
    Config::Connect(path, MakeCallback(&PhyTxTimeline));
}

std::string Describe(Ptr<Node> node)
{
    auto device = DynamicCast<WifiNetDevice>(node->GetDevice(0));
    auto phy = device->GetPhy();
    auto txop = device->GetMac()->GetTxop();
    auto sta = DynamicCast<StaWifiMac>(device->GetMac());
    std::ostringstream os;
    os << "slot " << phy->GetSlot().GetMicroSeconds() << " us, SIFS "
       << phy->GetSifs().GetMicroSeconds() << " us, CW " << txop->GetMinCw() << ".."
       << txop->GetMaxCw() << ", AIFSN " << int(txop->GetAifsn())
       << (sta && !sta->IsAssociated() ? ", NOT ASSOCIATED" : "");
    return os.str();
}
}  // namespace airtcp_ns3
"""


def ns3_worker() -> None:
    import math

    from ns import ns

    ns.cppyy.cppdef('#include "ns3/node-list.h"\n' + NS3_HELPERS)
    helpers = ns.cppyy.gbl.airtcp_ns3

    ns.Config.SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold", ns.UintegerValue(65535))
    ns.Config.SetDefault(
        "ns3::WifiRemoteStationManager::FragmentationThreshold", ns.UintegerValue(65535)
    )
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.QueueSizeValue(ns.QueueSize("100p")))
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(1e6)))

    def bss(request: dict, standard: str, mode: str, stations: int):
        ns.RngSeedManager.SetSeed(1)
        ns.RngSeedManager.SetRun(request["seed"])
        retry_limit = request.get("retry_limit", 7)
        ns.Config.SetDefault("ns3::WifiMac::FrameRetryLimit", ns.UintegerValue(retry_limit))
        nodes = ns.NodeContainer()
        nodes.Create(stations + 1)
        delay_us = request["delay_us"]
        channel = ns.YansWifiChannelHelper()
        if delay_us > 0:  # AP to stations, 1 mm
            speed = ns.DoubleValue(1e-3 / (delay_us * 1e-6))
            channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel", "Speed", speed)
        else:
            channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
        channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel")  # 1 m reference
        phy = ns.YansWifiPhyHelper()
        phy.SetChannel(channel.Create())
        if not request["preamble_detection"]:
            phy.DisablePreambleDetectionModel()
        wifi = ns.WifiHelper()
        wifi.SetStandard(ns.WIFI_STANDARD_80211g if standard == "11g" else ns.WIFI_STANDARD_80211b)
        wifi.SetRemoteStationManager(
            "ns3::ConstantRateWifiManager",
            "DataMode",
            ns.StringValue(mode),
            "ControlMode",
            ns.StringValue(mode),
        )
        mac = ns.WifiMacHelper()
        ssid = ns.Ssid("airtcp")
        # One beacon at 0 s, the next 67 s later; stations probe actively to associate.
        mac.SetType(
            "ns3::ApWifiMac",
            "Ssid",
            ns.SsidValue(ssid),
            "BeaconInterval",
            ns.TimeValue(ns.MicroSeconds(65535 * 1024)),
            "EnableBeaconJitter",
            ns.BooleanValue(False),
        )
        devices = wifi.Install(phy, mac, nodes.Get(0))
        mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid), "ActiveProbing",
                    ns.BooleanValue(True))  # fmt: skip
        for i in range(1, stations + 1):
            devices.Add(wifi.Install(phy, mac, nodes.Get(i)))
        ns.WifiHelper.AssignStreams(devices, request["seed"])
        positions = ns.ListPositionAllocator()
        positions.Add(ns.Vector(0, 0, 0))
        for i in range(stations):  # 1 mm from the AP, as wifi-bianchi.cc
            # With a delay, all in one place: the AP's frames reach every station, and a
            # station's frame the AP, after it (and the other stations at once).
            angle = 2 * math.pi * i / stations if delay_us == 0 else 0
            positions.Add(ns.Vector(1e-3 * math.cos(angle), 1e-3 * math.sin(angle), 0))
        mobility = ns.MobilityHelper()
        mobility.SetPositionAllocator(positions)
        mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel")
        mobility.Install(nodes)
        return nodes, devices

    def saturation(request: dict) -> dict:
        started = time.perf_counter()
        n = request["stations"]
        nodes, devices = bss(request, request["standard"], request["mode"], n)
        ns.PacketSocketHelper().Install(nodes)
        interval = 8 * (MSDU - 8) / request["offered_bps"]
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
            server = ns.CreateObject[ns.PacketSocketServer]()
            server.SetLocal(address)
            nodes.Get(0).AddApplication(server)
        helpers.ConnectSaturation()
        ns.Simulator.Stop(ns.Seconds(WARMUP_S))
        ns.Simulator.Run()
        setup = [str(helpers.Describe(nodes.Get(k))) for k in (0, 1)]
        before = (helpers.rxMsdus, helpers.dataAttempts, helpers.acks)
        ns.Simulator.Stop(ns.Seconds(request["seconds"]))
        ns.Simulator.Run()
        msdus, attempts, acks = (
            after - b
            for after, b in zip((helpers.rxMsdus, helpers.dataAttempts, helpers.acks), before,
                                strict=True)
        )  # fmt: skip
        ack_modes = str(helpers.AckModes())
        ns.Simulator.Destroy()
        return {
            "throughput_bps": msdus * MSDU * 8 / request["seconds"],
            "collision_probability": 1 - acks / attempts if attempts else 0.0,
            "ack_modes": ack_modes,
            "setup": setup,
            "wall_s": time.perf_counter() - started,
        }

    def upload(request: dict) -> dict:
        started = time.perf_counter()
        ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(1024))
        ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 20))
        ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 20))
        ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(request["del_ack"]))
        ns.Config.SetDefault("ns3::TcpSocketBase::Sack", ns.BooleanValue(False))
        ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", ns.BooleanValue(False))
        ns.Config.SetDefault("ns3::TcpSocketBase::WindowScaling", ns.BooleanValue(True))
        ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.StringValue("ns3::TcpNewReno"))
        nodes, devices = bss(request, "11g", "ErpOfdmRate54Mbps", 1)
        server = ns.NodeContainer()
        server.Create(1)
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue("100Mbps"))
        p2p.SetChannelAttribute("Delay", ns.StringValue("5ms"))
        wired = p2p.Install(nodes.Get(0), server.Get(0))
        stack = ns.InternetStackHelper()
        stack.Install(nodes)
        stack.Install(server)
        addresses = ns.Ipv4AddressHelper()
        addresses.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
        addresses.Assign(devices)
        # No queue disc on the WLAN (Assign installs FqCoDel): a DropTail MAC queue, as airtcp.
        ns.TrafficControlHelper().Uninstall(devices)
        addresses.SetBase(ns.Ipv4Address("10.1.2.0"), ns.Ipv4Mask("255.255.255.0"))
        wired_interfaces = addresses.Assign(wired)
        ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
        sink_address = ns.InetSocketAddress(wired_interfaces.GetAddress(1), 9)
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", sink_address.ConvertTo())
        sink.Install(server.Get(0)).Start(ns.Seconds(0))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", sink_address.ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(1024))
        bulk.Install(nodes.Get(1)).Start(ns.Seconds(1))
        warmup, seconds = 5.0, request["seconds"]
        ns.Simulator.Stop(ns.Seconds(warmup))
        ns.Simulator.Run()
        helpers.ConnectTimeline("/NodeList/*/DeviceList/0/$ns3::WifiNetDevice/Phy/PhyTxPsduBegin")
        ns.Simulator.Stop(ns.Seconds(seconds))
        ns.Simulator.Run()
        frames = [
            (int(s), int(e), int(node), int(kind))
            for s, e, node, kind in zip(helpers.txStart, helpers.txEnd, helpers.txNode,
                                        helpers.txKind, strict=True)
        ]  # fmt: skip
        ns.Simulator.Destroy()
        result = collisions_and_gaps(
            [(s, e, node, kind == 1) for s, e, node, kind in frames], seconds
        )
        result["wall_s"] = time.perf_counter() - started
        return result

    for line in sys.stdin:
        request = json.loads(line)
        handler = saturation if request["kind"] == "saturation" else upload
        print(RESULT + json.dumps(handler(request)), flush=True)
    # cppyy's exit handlers sometimes crash after ns-3 has run (a double free): skip them.
    os._exit(0)


def collisions_and_gaps(frames: list[tuple[int, int, str | int, bool]], seconds: float) -> dict:
    """Collisions (frames of different transmitters that overlap; data-data: two of them
    data frames, here the station's and the AP's TCP ACK) and the mean idle time from a
    collision's end to the next frame, from (start ns, end ns, transmitter, is data)."""
    frames = sorted(frames)
    collisions, data_collisions, gaps = 0, 0, []
    i = 0
    while i < len(frames):
        end = frames[i][1]
        group = [frames[i]]
        j = i + 1
        while j < len(frames) and frames[j][0] < end:
            group.append(frames[j])
            end = max(end, frames[j][1])
            j += 1
        if len({f[2] for f in group}) > 1:
            collisions += 1
            if len({f[2] for f in group if f[3]}) > 1:
                data_collisions += 1
            if j < len(frames):
                gaps.append(frames[j][0] - end)
        i = j
    return {
        "collisions_per_s": collisions / seconds,
        "data_collisions_per_s": data_collisions / seconds,
        "mean_gap_us": sum(gaps) / len(gaps) / 1e3 if gaps else float("nan"),
        "frames_per_s": len(frames) / seconds,
    }


# ---------------------------------------------------------------------------------------
# The airtcp side.


def saturation_scenario(phy, rate, basic, n, seconds, eifs, retry_limit) -> dict:
    wlan = {"ap": "ap", "stations": n, "phy": phy, "rate": f"{rate}bps", "rts_threshold": "off",
            "queue": 50, "msdu_lifetime": "off", "eifs_after_collision": eifs,
            "short_retry_limit": retry_limit}  # fmt: skip
    if basic is not None:
        wlan["basic_rate"] = f"{basic}bps"
    return {
        "simulation": {"name": "ns3-compare", "duration": f"{WARMUP_S + seconds}s",
                       "measure_from": f"{WARMUP_S}s"},
        "wlan": wlan,
        "flows": [{"name": "udp{i}", "kind": "udp_cbr", "src": "sta{i}", "dst": "ap",
                   "rate": f"{offered_bps(rate, n)}bps", "payload": MSDU - 36,
                   "per_station": True}],
    }  # fmt: skip


def offered_bps(rate: int, n: int) -> int:
    """Twice the channel's capacity, as the Rust saturation tests."""
    return 2 * rate // n + 1_000_000


def airtcp_saturation(phy, rate, basic, n, seconds, eifs, seed, retry_limit) -> dict:
    import airtcp

    scenario = saturation_scenario(phy, rate, basic, n, seconds, eifs, retry_limit)
    started = time.perf_counter()
    summary = airtcp.run(scenario, seed=seed, timeseries=False).summary
    wall = time.perf_counter() - started
    return {
        "throughput_bps": summary["aggregate_goodput_bps"] * MSDU / (MSDU - 36),
        "collision_probability": summary["wlans"][0]["collision_probability"],
        "wall_s": wall,
    }


def model(phy, rate, basic, n, eifs, retry_limit) -> float:
    """The model of the standard's DCF; `retry_limit` attempts a frame (above 100: unlimited,
    as the model's chain then never reaches the limit)."""
    from airtcp import _core

    retries = retry_limit - 1 if retry_limit <= 100 else None
    result = json.loads(
        _core.bianchi_model(phy, MSDU, n, n, False, None, None, rate_bps=rate,
                            basic_rate_bps=basic, retry_limit=retries, model="mac",
                            eifs_after_collision=eifs)
    )  # fmt: skip
    return result["points"][0]["throughput_bps"]


def airtcp_upload(seconds: float, seed: int, del_ack: int, eifs: bool) -> dict:
    import airtcp

    warmup = 5.0
    scenario = {
        "simulation": {"name": "ns3-upload", "duration": f"{warmup + seconds}s",
                       "measure_from": f"{warmup}s"},
        "tcp": {"mss": 1024, "send_buffer": "1MiB", "receive_buffer": "1MiB"},
        "wlan": {"ap": "ap", "stations": 1, "phy": "802.11g", "rate": "54Mbps",
                 "rts_threshold": "off", "eifs_after_collision": eifs},
        "links": [{"a": "ap", "b": "srv", "rate": "100Mbps", "delay": "5ms"}],
        "flows": [{"name": "up", "src": "sta1", "dst": "srv"}],
    }  # fmt: skip
    if del_ack == 1:
        scenario["tcp"]["delayed_ack"] = False
    with tempfile.TemporaryDirectory() as out:
        started = time.perf_counter()
        result = airtcp.run(scenario, seed=seed, timeseries=False, wlan_pcap_dir=out)
        wall = time.perf_counter() - started
        (capture,) = Path(out).rglob("*.pcap")
        frames = [f for f in read_capture(capture) if f[0] >= warmup * 1e9]
    stats = collisions_and_gaps(frames, seconds)
    stats["wall_s"] = wall
    stats["goodput_bps"] = result.summary["aggregate_goodput_bps"]
    return stats


def read_capture(path: Path) -> list[tuple[int, int, str, bool]]:
    """(start ns, end ns, transmitter, is data) of each frame of an airtcp radiotap capture:
    the record's time is the frame's start, the TSFT (µs) its last symbol's end, before an
    ERP-OFDM frame's 6 µs signal extension."""
    data = path.read_bytes()
    order = ">" if data[:4] == b"\xa1\xb2\x3c\x4d" else "<"  # nanosecond pcap, either order
    frames = []
    offset = 24
    while offset < len(data):
        seconds, nanos, caplen, _ = struct.unpack_from(order + "IIII", data, offset)
        record = data[offset + 16 : offset + 16 + caplen]
        offset += 16 + caplen
        radiotap_len = struct.unpack_from("<H", record, 2)[0]
        present = struct.unpack_from("<I", record, 4)[0]
        assert present & 1, "TSFT"
        fields = 8
        while struct.unpack_from("<I", record, fields - 4)[0] & (1 << 31):
            fields += 4
        tsft = struct.unpack_from("<Q", record, (fields + 7) // 8 * 8)[0]
        frame = record[radiotap_len:]
        kind = (frame[0] >> 2) & 3
        subtype = frame[0] >> 4
        ack = kind == 1 and subtype == 13
        transmitter = "ack-sender-of-" + frame[4:10].hex() if ack else frame[10:16].hex()
        start = seconds * 1_000_000_000 + nanos
        frames.append((start, tsft * 1000 + 6000, transmitter, kind == 2))
    return frames


# ---------------------------------------------------------------------------------------


class Ns3:
    """The ns-3 worker: one process for the whole run, one simulation at a time."""

    def __init__(self, python: str, phy: dict) -> None:
        """`phy`: `preamble_detection` (bool) and `delay_us`, the AP-station propagation
        delay (0: 1 mm at the speed of light, as wifi-bianchi.cc)."""
        self.phy = phy
        # cppyy's warnings while it loads ns-3 go here; shown if the worker fails.
        self.stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed in close())
        self.process = subprocess.Popen(
            [python, __file__, "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self.stderr, text=True
        )  # fmt: skip

    def run(self, request: dict) -> dict:
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(json.dumps({**request, **self.phy}) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(RESULT):
                return json.loads(line[len(RESULT) :])
        self.stderr.seek(0)
        errors = [line for line in self.stderr if "Failed to materialize" not in line]
        raise RuntimeError("the ns-3 worker stopped:\n" + "".join(errors[-30:]))

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait()
        self.stderr.close()


COLUMNS = (  # heading, width, format
    ("PHY", 7, ""),
    ("Mbit/s", 6, ""),
    ("n", 3, ""),
    ("s", 4, ".0f"),
    ("ns-3", 7, ".3f"),
    ("F", 7, ".3f"),
    ("T", 7, ".3f"),
    ("model", 7, ".3f"),
    ("F/ns3", 7, ".4f"),
    ("T/ns3", 7, ".4f"),
    ("mdl/ns3", 7, ".4f"),
    ("p ns-3", 7, ".4f"),
    ("p F", 7, ".4f"),
    ("wall ns-3", 9, ".2f"),
    ("wall F", 7, ".3f"),
    ("wall T", 7, ".3f"),
    ("ns-3/F", 7, ".0f"),
)


def saturation_table(ns3: Ns3, args: argparse.Namespace) -> None:
    limit = "unlimited" if args.retry_limit > 100 else f"{args.retry_limit}"
    print(
        f"Saturation throughput, Mbit/s of {MSDU}-byte MSDUs, attempts a frame: {limit}. "
        "F, T: airtcp with eifs_after_collision = false, true; model: airtcp bianchi --model "
        "mac --difs-after-collision; p: collision probability of an attempt; wall s of a run "
        "(build and run); ns-3/F: their ratio"
    )
    print(" ".join(f"{heading:>{width}}" for heading, width, _ in COLUMNS), flush=True)
    airtcp_saturation("802.11b", 11_000_000, None, 5, 1.0, False, 1, 7)  # loads airtcp
    ack_modes = {}
    for phy, rate, basic, standard, mode in POINTS:
        if args.only and f"{phy}@{rate // 1_000_000}" not in args.only:
            continue
        for n in args.stations:
            predicted = model(phy, rate, basic, n, False, args.retry_limit)
            seconds = max(args.min_seconds, round(args.frames * 8 * MSDU / predicted))
            for seed in range(1, args.seeds + 1):
                request = {
                    "kind": "saturation",
                    "standard": standard,
                    "mode": mode,
                    "stations": n,
                    "seed": seed,
                    "seconds": seconds,
                    "offered_bps": offered_bps(rate, n),
                    "retry_limit": args.retry_limit,
                }
                peer = ns3.run(request)
                ack_modes[f"{phy} {rate / 1e6:g}"] = peer["ack_modes"].strip()
                if args.verbose:
                    print("  ns-3:", "; ".join(peer["setup"]), "| ACKs:", peer["ack_modes"])
                point = (phy, rate, basic, n, seconds)
                difs = airtcp_saturation(*point, False, seed, args.retry_limit)
                eifs = airtcp_saturation(*point, True, seed, args.retry_limit)
                base = peer["throughput_bps"]
                cells = (
                    phy,
                    f"{rate / 1e6:g}",
                    n,
                    seconds,
                    base / 1e6,
                    difs["throughput_bps"] / 1e6,
                    eifs["throughput_bps"] / 1e6,
                    predicted / 1e6,
                    difs["throughput_bps"] / base,
                    eifs["throughput_bps"] / base,
                    predicted / base,
                    peer["collision_probability"],
                    difs["collision_probability"],
                    peer["wall_s"],
                    difs["wall_s"],
                    eifs["wall_s"],
                    peer["wall_s"] / difs["wall_s"],
                )
                line = (f"{c:>{w}{f}}" for c, (_, w, f) in zip(cells, COLUMNS, strict=True))
                print(" ".join(line), flush=True)
    print("ns-3's ACKs from the AP by rate (last run of each PHY rate; 1 Mbit/s: association):")
    for point, modes in ack_modes.items():
        print(f"  {point}: {modes}")


def upload_table(ns3: Ns3, args: argparse.Namespace) -> None:
    print(
        f"\nOne 802.11g station uploading TCP at 54 Mbit/s to a wired server, "
        f"{args.upload_seconds:g} s after 5 s (airtcp F, T: eifs_after_collision = false, "
        "true); "
        "collisions: frames of the station and the AP that overlap (data-data: the station's "
        "data and the AP's TCP ACK); gap: idle time from a collision's end to the next frame"
    )
    headings = ("coll/s", "data-data/s", "gap us", "frames/s", "wall s")
    print(f"{'sim':<9}{'del. ACK':>9}" + "".join(f"{h:>12}" for h in headings))
    for del_ack in (2, 1):
        request = {"kind": "upload", "seed": 1, "seconds": args.upload_seconds, "del_ack": del_ack}
        runs = (
            ("ns-3", ns3.run(request)),
            ("airtcp F", airtcp_upload(args.upload_seconds, 1, del_ack, False)),
            ("airtcp T", airtcp_upload(args.upload_seconds, 1, del_ack, True)),
        )
        for name, r in runs:
            cells = (
                f"{r['collisions_per_s']:>12.1f}{r['data_collisions_per_s']:>12.1f}"
                f"{r['mean_gap_us']:>12.1f}{r['frames_per_s']:>12.0f}{r['wall_s']:>12.2f}"
            )
            print(f"{name:<9}{'on' if del_ack == 2 else 'off':>9}{cells}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--ns3-python",
        default=os.environ.get("NS3_PYTHON"),
        help="a Python that imports ns (the ns3 package); default $NS3_PYTHON",
    )
    parser.add_argument("--frames", type=int, default=20_000, help="frames a point carries")
    parser.add_argument("--min-seconds", type=float, default=10.0, help="of a point")
    parser.add_argument("--seeds", type=int, default=1, help="runs per point (seeds 1..)")
    parser.add_argument("--stations", type=int, nargs="+", default=list(STATIONS))
    parser.add_argument("--only", nargs="*", help="PHY@Mbit/s, e.g. 802.11g@54 802.11b@1")
    parser.add_argument(
        "--retry-limit",
        type=int,
        default=7,
        help="attempts a frame in both simulators (ns-3's FrameRetryLimit, airtcp's "
        "short_retry_limit; ns-3 allows up to 65535, which the model takes as unlimited)",
    )
    parser.add_argument("--upload", action="store_true", help="also the TCP upload")
    parser.add_argument("--upload-only", action="store_true")
    parser.add_argument("--upload-seconds", type=float, default=20.0)
    parser.add_argument(
        "--ns3-no-preamble-detection",
        action="store_true",
        help="ns-3's PHY as wifi-bianchi.cc has it (DisablePreambleDetectionModel)",
    )
    parser.add_argument(
        "--ns3-delay-us",
        type=float,
        default=1.0,
        help="ns-3's propagation delay between the AP and the stations, µs (default 1, "
        "airtcp's; 0: wifi-bianchi.cc's, 1 mm at the speed of light)",
    )
    parser.add_argument("--verbose", action="store_true", help="ns-3's setup of each run")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        ns3_worker()
        return
    missing = ns3_available(args.ns3_python)
    if missing:
        print(f"ns3_compare: skipped, {missing} (ns-3 needs its own venv: see the docstring)")
        return
    phy = {"preamble_detection": not args.ns3_no_preamble_detection, "delay_us": args.ns3_delay_us}
    ns3 = Ns3(args.ns3_python, phy)
    try:
        if not args.upload_only:
            saturation_table(ns3, args)
        if args.upload or args.upload_only:
            upload_table(ns3, args)
    finally:
        ns3.close()
    detection = "off" if args.ns3_no_preamble_detection else "on (its default)"
    print(
        f"\nns-3 3.44 ({args.ns3_python}): preamble detection {detection}, AP-station "
        f"propagation delay {args.ns3_delay_us:g} µs"
    )


if __name__ == "__main__":
    main()
