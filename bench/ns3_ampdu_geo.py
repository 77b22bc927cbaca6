"""airtcp's 802.11ac A-MPDU on a channel with geometry side by side with ns-3 (the PyPI
package `ns3`, 3.44), in one run: one station uploading saturated UDP to its AP at distances
across an MCS's cliff, where each MPDU of an A-MPDU succeeds or fails at its own SINR.

The BSS, in both simulators: an AP at (0, 0) and one station at (d, 0) (`--distances`,
metres), 802.11ac (ns-3: WIFI_STANDARD_80211ac, ChannelSettings {42, 80, BAND_5GHZ, 0}: 5
GHz, 80 MHz), one spatial stream, the 800 ns guard interval, BCC (ns-3: LdpcSupported false,
its default; airtcp has no LDPC), one MCS for every data frame (`--mcs`; ns-3:
ConstantRateWifiManager, DataMode VhtMcsM, ControlMode OfdmRate24Mbps, the rate of its
BlockAckReqs), no RTS/CTS (ns-3: RtsCtsThreshold 4692480; airtcp: `rts_threshold = "off"`),
no fragmentation, A-MPDU with immediate compressed Block Ack (ns-3: BE_MaxAmpduSize 1048575,
MpduBufferSize 64; airtcp: `max_amsdu` off, `max_ampdu` 1048575 B, `ba_window = 64`; both
also end an A-MPDU at aPPDUMaxTime, 5.484 ms), 7 attempts an MPDU (ns-3:
WifiMac::FrameRetryLimit; airtcp: `short_retry_limit`), a DropTail MAC queue of 500 packets
(ns-3: WifiMacQueue MaxSize, MaxDelay 1e6 s; airtcp: `queue`, no MSDU lifetime or
`queue_max_delay`), EDCA's AC_BE on both nodes (AIFSN 3, CWmin 15, CWmax 1023; airtcp's AP
with the stations' CWmax, as ns-3's), `--amsdu` bytes of A-MSDU inside the A-MPDUs (ns-3:
BE_MaxAmsduSize; airtcp: `max_amsdu`; 0: none, both defaults). The station sends 1508-byte
MSDUs at 1.5 x the PHY rate from 0.5 s (ns-3: packet sockets, LLC/SNAP 8 + 1500 bytes;
airtcp: UDP, LLC/SNAP 8 + IPv4 20 + UDP 8 + 1472), measured over `--seconds` (3) after 1 s.

The channel and the radios, in both: log-distance propagation, exponent 3, 46.6777 dB at 1 m
(ns-3: YansWifiChannel, LogDistancePropagationLossModel, its defaults), the speed of light
(ns-3: ConstantSpeedPropagationDelayModel; airtcp: `propagation_delay`), 16.0206 dBm (ns-3:
TxPowerStart and TxPowerEnd), noise figure 7 dB (noise -87.95 dBm over 80 MHz), preamble
detection at 4 dB SNR and -82 dBm (ns-3: ThresholdPreambleDetectionModel), CCA -62 dBm and,
for PPDUs a PHY does not receive, -82 dBm (ns-3: CcaEdThreshold, CcaSensitivity; airtcp:
`cca_sensitivity`), ns-3's channel access (airtcp: `dcf = "ns3"`), no frame capture, and
ns-3's NistErrorRateModel (ns-3: YansWifiPhyHelper::SetErrorRateModel, not its default
TableBasedErrorRateModel for HT and later; airtcp implements the Nist formulas), each MPDU of
an A-MPDU at its own SINR in both (ns-3: PhyEntity::EndOfMpdu), after the PHY header
(airtcp: the preamble after the legacy training fields as one 6 Mbit/s BPSK chunk; ns-3: its
L-SIG and VHT-SIG-A chunks; none fails at these SNRs, 20 dB and more, ns-3's PhyRxDrop
printing none with `--verbose`).

Per point: UDP goodput (Mbit/s of payload: ns-3 1472 bytes for each MSDU its packet socket
server got) and the ratio airtcp / ns-3; the fraction of MPDUs in A-MPDUs that failed (ns-3:
of the MPDUs the station's PHY sent in the measurement, PhyTxPsduBegin, those the AP's
MonitorSnifferRx did not report, matched by packet uid: it reports only MPDUs received
without error, PhyEntity::EndOfMpdu; airtcp: `ampdu_failed_mpdus` / `ampdu_mpdus`); MPDUs per
A-MPDU (ns-3: the station's MPDUs over its data PSDUs; airtcp: `ampdu_mpdus` / `ampdus`);
the fraction of A-MPDUs without a response (ns-3: 1 - the AP's BlockAcks, less one for each
BlockAckReq, and ACKs, a lone MPDU being answered with an ACK, over the station's data
PSDUs; airtcp: `failed_attempts` / `ampdus`, its BlockAckReqs all answered here); the
BlockAckReqs each sent (ns-3: PhyTxPsduBegin; airtcp: `block_ack_reqs`); the MPDUs each
dropped at the retry limit (ns-3: WifiMac DroppedMpdu, reasons REACHED_RETRY_LIMIT and
QOS_OLD_PACKET; airtcp: `retry_drops`); airtcp's SNR at the AP. `--verbose` adds ns-3's
frames by kind, its MPDUs of PSDUs its PHYs dropped whole (PhyRxDrop, by reason), its MAC's
drops by reason, its A-MPDUs by size, and airtcp's counters. Both over the measurement
(airtcp: the run's counters less those of a run of the warm-up alone, the same events up to
then).

Differences left:
- after an A-MPDU without a BlockAck (its PHY header failed, or every MPDU did) ns-3 by
  default sends a BlockAckReq (QosTxop::UseExplicitBarAfterMissedBlockAck) and then only
  the MPDUs its BlockAck reports missing; airtcp sends the MPDUs again, as Linux's ath9k. The
  bench turns the BlockAckReq off in ns-3 (the A-MPDU goes again, an implicit BAR, as
  airtcp), `--ns3-explicit-bar` turns it on;
- ns-3 counts no retries of MPDUs under a Block Ack agreement
  (WifiRemoteStationManager::IncrementRetryCountUnderBa false) and never drops them, its CW
  staying at CWmax until a BlockAck; airtcp drops an MPDU at its 7th failed attempt, resets
  CW and sends a BlockAckReq to move the recipient's window. Above 50 % MPDU loss this
  decides the A-MPDUs' length (ns-3's window waits for its slowest MPDU) and the goodput:
  `--airtcp-retry-limit 255` stands in for ns-3's default, `--ns3-retry-under-ba` turns
  ns-3's counting on, which still drops far fewer MPDUs than airtcp (printed): ns-3 then
  counts a retry of an MPDU only when its PSDU got no response at all, not when a BlockAck
  reports it missing (ns-3's WifiRetransmitTest, src/wifi/test/wifi-retransmit-test.cc);
- airtcp's VHT PPDUs count VHT-SIG-B (4 us) in their duration; ns-3's SU PPDUs do not;
- ns-3's station associates (a beacon at 0 s, then probes) and sets up its Block Ack
  agreement with one MSDU at 0.3 s (ADDBA at the data rate: past the cliff it may fail, and
  the station then sends lone MPDUs; printed with `--verbose`); airtcp has neither.

ns-3 lives in its own virtualenv (python3 -m venv /work/ns3venv && /work/ns3venv/bin/pip
install ns3==3.44.post0); this script runs there as a worker, one simulation at a time. A
fresh worker first runs 0.05 s at MCS 9, 8.5 m (cppyy compiles ns-3's code on first use, and
a worker whose first point lost nothing died at its second with "corrupted double-linked
list"); one that dies is started again once. Without ns-3, the script prints a line and
exits 0.

Run: python bench/ns3_ampdu_geo.py [--ns3-python PYTHON (default $NS3_PYTHON, else
/work/ns3venv/bin/python)] [--mcs 9 5] [--distances 5 7 8 ... (for every MCS; default each
MCS's own)] [--seconds 3] [--quick] [--amsdu 0] [--ns3-explicit-bar] [--ns3-retry-under-ba]
[--airtcp-retry-limit 7] [--seed 1] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from ns3_env import RESULT, Ns3Worker, add_ns3_python_option, parse_ns3_args

PAYLOAD = 1472  # UDP payload
MSDU = 8 + 20 + 8 + PAYLOAD  # LLC/SNAP, IPv4, UDP: 1508 bytes; ns-3: LLC/SNAP 8 + 1500
WARMUP_S = 1.0
START_S = 0.5
PRIMER_S = 0.3
QUEUE = 500
RETRY_LIMIT = 7
BA_WINDOW = 64
MAX_AMPDU = 1_048_575
AIFSN = 3
# VHT, 80 MHz, one stream, 800 ns GI: data rate by MCS (bit/s)
VHT80_RATE = {
    0: 29_250_000, 1: 58_500_000, 2: 87_750_000, 3: 117_000_000, 4: 175_500_000,
    5: 234_000_000, 6: 263_250_000, 7: 292_500_000, 8: 351_000_000, 9: 390_000_000,
}  # fmt: skip
# Each MCS's distances (m) across its cliff (airtcp: 50 % of MPDUs lost near 8.7 m at MCS 9,
# 16.3 m at MCS 5, 13.6 m at MCS 7).
DISTANCES = {
    9: [5.0, 7.0, 8.0, 8.5, 8.75, 9.0, 9.5, 10.0, 11.0],
    7: [10.0, 12.0, 13.0, 13.5, 14.0, 14.5, 15.0],
    5: [12.0, 14.0, 15.0, 15.5, 16.0, 16.5, 17.0, 18.0],
}
QUICK_DISTANCES = {9: [5.0, 8.0, 8.5, 9.0, 10.0], 7: [12.0, 13.5, 14.5], 5: [14.0, 16.0, 17.0]}
# airtcp's [radio]: ns-3's values (airtcp's defaults too, set so that they stay).
RADIO = {
    "propagation": {"model": "log_distance", "exponent": 3.0, "reference_loss": "46.6777dB",
                    "reference_distance": 1.0},
    "tx_power": "16.0206dBm", "noise_figure": "7dB", "cca_threshold": "-62dBm",
    "preamble_threshold": "-82dBm", "preamble_snr": "4dB", "capture_margin": "off",
    "propagation_delay": True, "cca_sensitivity": "-82dBm", "dcf": "ns3",
}  # fmt: skip


def offered_bps(mcs: int) -> int:
    """1.5 x the PHY rate: saturated."""
    return 3 * VHT80_RATE[mcs] // 2


# ---------------------------------------------------------------------------------------
# The ns-3 side: runs in the ns-3 virtualenv (`--worker`), requests on stdin, one JSON line
# each, answers on stdout prefixed with RESULT.

NS3_HELPERS = r"""
#include "ns3/wifi-net-device.h"
#include "ns3/wifi-mac.h"
#include "ns3/wifi-phy.h"
#include "ns3/wifi-psdu.h"
#include "ns3/sta-wifi-mac.h"
#include "ns3/originator-block-ack-agreement.h"
#include "ns3/config.h"
#include "ns3/node-list.h"
#include <map>
#include <sstream>

namespace airtcp_ampdu_geo {
using namespace ns3;

// Counts by name: PSDUs put on the air by kind and node ("tx:data:sta", "tx:blockack:ap",
// ...), the MPDUs of the station's data PSDUs ("mpdus:sta"), the MPDUs the AP's PHY received
// without error ("rxok:ap", those of A-MPDUs "rxok_ampdu:ap"), the MPDUs of PSDUs dropped
// whole by reason ("drop:ap:L_SIG_FAILURE"), the MSDUs the packet socket server got ("rx").
std::map<std::string, uint64_t> counts;
// The station's MPDUs sent while `measuring` ("mpdus_measured"), each by its packet's uid, and
// those of them the AP's PHY received without error ("rxok_measured"), whenever it did.
bool measuring = false;
std::map<uint64_t, uint64_t> sent;

void Measure(bool on) { measuring = on; }

std::string NodeOf(const std::string& context)
{
    // "/NodeList/<i>/...": the AP is node 0
    return context.substr(10, context.find('/', 10) - 10) == "0" ? "ap" : "sta";
}

void PhyTxPsdu(std::string context, WifiConstPsduMap psdus, WifiTxVector, double)
{
    std::string node = NodeOf(context);
    for (const auto& [id, psdu] : psdus)
    {
        const auto& header = psdu->GetHeader(0);
        std::string kind = header.IsQosData()       ? "data"
                           : header.IsBlockAck()    ? "blockack"
                           : header.IsBlockAckReq() ? "bar"
                           : header.IsAck()         ? "ack"
                           : header.IsMgt()         ? "mgt"
                                                    : "other";
        if (kind == "data")
        {
            counts["mpdus:" + node] += psdu->GetNMpdus();
            // A-MPDU sizes in buckets of 8 MPDUs: "size:00" 1-8, ..., "size:56" 57-64
            uint32_t bucket = (psdu->GetNMpdus() - 1) / 8 * 8;
            counts[std::string("size:") + (bucket < 10 ? "0" : "") + std::to_string(bucket)]++;
            if (measuring && node == "sta")
            {
                for (const auto& mpdu : *PeekPointer(psdu))
                {
                    sent[mpdu->GetPacket()->GetUid()]++;
                    counts["mpdus_measured"]++;
                }
            }
        }
        counts["tx:" + kind + ":" + node]++;
    }
}

void SniffRx(std::string context, Ptr<const Packet> packet, uint16_t, WifiTxVector,
             MpduInfo aMpdu, SignalNoiseDbm, uint16_t)
{
    std::string node = NodeOf(context);
    counts["rxok:" + node]++;
    auto it = sent.find(packet->GetUid());
    if (node == "ap" && it != sent.end() && it->second > 0)
    {
        it->second--;
        counts["rxok_measured"]++;
    }
    if (aMpdu.type != NORMAL_MPDU)
    {
        counts["rxok_ampdu:" + node]++;
    }
}

void RxDrop(std::string context, Ptr<const Packet>, WifiPhyRxfailureReason reason)
{
    std::ostringstream os;
    os << "drop:" << NodeOf(context) << ":" << reason;
    counts[os.str()]++;
}

void ServerRx(Ptr<const Packet>, const Address&) { counts["rx"]++; }

void MacDrop(std::string context, WifiMacDropReason reason, Ptr<const WifiMpdu>)
{
    counts["macdrop:" + NodeOf(context) + ":" + std::to_string(int(reason))]++;
}

void Connect()
{
    counts.clear();
    sent.clear();
    measuring = false;
    std::string phy = "/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Phy/";
    Config::Connect(phy + "PhyTxPsduBegin", MakeCallback(&PhyTxPsdu));
    Config::Connect(phy + "MonitorSnifferRx", MakeCallback(&SniffRx));
    Config::Connect(phy + "PhyRxDrop", MakeCallback(&RxDrop));
    Config::Connect("/NodeList/*/DeviceList/*/$ns3::WifiNetDevice/Mac/DroppedMpdu",
                    MakeCallback(&MacDrop));
    Config::ConnectWithoutContextFailSafe(
        "/NodeList/*/ApplicationList/*/$ns3::PacketSocketServer/Rx", MakeCallback(&ServerRx));
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

// The station's association and Block Ack agreement, its MAC's A-MPDU and A-MSDU limits.
std::string Describe()
{
    std::ostringstream os;
    auto device = DynamicCast<WifiNetDevice>(NodeList::GetNode(1)->GetDevice(0));
    auto sta = DynamicCast<StaWifiMac>(device->GetMac());
    os << "max A-MPDU " << sta->GetMaxAmpduSize(AC_BE) << " B, max A-MSDU "
       << sta->GetMaxAmsduSize(AC_BE) << " B";
    if (!sta->IsAssociated())
    {
        os << ", not associated";
    }
    else if (auto agreement = sta->GetBaAgreementEstablishedAsOriginator(sta->GetBssid(0), 0))
    {
        os << ", BA agreement with the AP: window " << agreement->get().GetBufferSize();
    }
    else
    {
        os << ", no BA agreement with the AP";
    }
    return os.str();
}
}  // namespace airtcp_ampdu_geo
"""


def ns3_worker() -> None:
    from ns import ns

    ns.cppyy.cppdef(NS3_HELPERS)
    helpers = ns.cppyy.gbl.airtcp_ampdu_geo

    ns.Config.SetDefault("ns3::WifiRemoteStationManager::RtsCtsThreshold",
                         ns.UintegerValue(4692480))  # fmt: skip
    ns.Config.SetDefault("ns3::WifiRemoteStationManager::FragmentationThreshold",
                         ns.UintegerValue(65535))  # fmt: skip
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxDelay", ns.TimeValue(ns.Seconds(1e6)))
    ns.Config.SetDefault("ns3::WifiMacQueue::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{QUEUE}p")))
    ns.Config.SetDefault("ns3::WifiMac::FrameRetryLimit", ns.UintegerValue(RETRY_LIMIT))
    ns.Config.SetDefault("ns3::WifiMac::BE_MaxAmpduSize", ns.UintegerValue(MAX_AMPDU))
    ns.Config.SetDefault("ns3::WifiMac::MpduBufferSize", ns.UintegerValue(BA_WINDOW))

    def counts() -> dict[str, int]:
        pairs = (line.split("=") for line in str(helpers.Dump()).splitlines())
        return {name: int(value) for name, value in pairs}

    def run(request: dict) -> dict:
        started = time.perf_counter()
        ns.RngSeedManager.SetSeed(1)
        ns.RngSeedManager.SetRun(request["seed"])
        ns.Config.SetDefault("ns3::WifiMac::BE_MaxAmsduSize", ns.UintegerValue(request["amsdu"]))
        ns.Config.SetDefault("ns3::QosTxop::UseExplicitBarAfterMissedBlockAck",
                             ns.BooleanValue(request["explicit_bar"]))  # fmt: skip
        ns.Config.SetDefault("ns3::WifiRemoteStationManager::IncrementRetryCountUnderBa",
                             ns.BooleanValue(request["retry_under_ba"]))  # fmt: skip
        nodes = ns.NodeContainer()
        nodes.Create(2)
        channel = ns.YansWifiChannelHelper()
        channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel")
        channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel", "Exponent",
                                   ns.DoubleValue(3.0), "ReferenceDistance", ns.DoubleValue(1.0),
                                   "ReferenceLoss", ns.DoubleValue(46.6777))  # fmt: skip
        phy = ns.YansWifiPhyHelper()
        phy.SetChannel(channel.Create())
        phy.SetErrorRateModel("ns3::NistErrorRateModel")
        phy.Set("ChannelSettings", ns.StringValue("{42, 80, BAND_5GHZ, 0}"))
        phy.Set("TxPowerStart", ns.DoubleValue(16.0206))
        phy.Set("TxPowerEnd", ns.DoubleValue(16.0206))
        phy.Set("RxNoiseFigure", ns.DoubleValue(7.0))
        phy.Set("CcaEdThreshold", ns.DoubleValue(-62.0))
        phy.Set("CcaSensitivity", ns.DoubleValue(-82.0))
        phy.SetPreambleDetectionModel("ns3::ThresholdPreambleDetectionModel", "Threshold",
                                      ns.DoubleValue(4.0), "MinimumRssi",
                                      ns.DoubleValue(-82.0))  # fmt: skip
        wifi = ns.WifiHelper()
        wifi.SetStandard(ns.WIFI_STANDARD_80211ac)
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager", "DataMode",
                                     ns.StringValue(f"VhtMcs{request['mcs']}"), "ControlMode",
                                     ns.StringValue("OfdmRate24Mbps"))  # fmt: skip
        mac = ns.WifiMacHelper()
        ssid = ns.Ssid("airtcp")
        # One beacon at 0 s, the next 67 s later; the station probes actively to associate.
        mac.SetType("ns3::ApWifiMac", "Ssid", ns.SsidValue(ssid), "BeaconInterval",
                    ns.TimeValue(ns.MicroSeconds(65535 * 1024)), "EnableBeaconJitter",
                    ns.BooleanValue(False))  # fmt: skip
        devices = wifi.Install(phy, mac, nodes.Get(0))
        mac.SetType("ns3::StaWifiMac", "Ssid", ns.SsidValue(ssid), "ActiveProbing",
                    ns.BooleanValue(True))  # fmt: skip
        devices.Add(wifi.Install(phy, mac, nodes.Get(1)))
        ns.WifiHelper.AssignStreams(devices, request["seed"])
        positions = ns.ListPositionAllocator()
        positions.Add(ns.Vector(0, 0, 0))
        positions.Add(ns.Vector(request["distance"], 0, 0))
        mobility = ns.MobilityHelper()
        mobility.SetPositionAllocator(positions)
        mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel")
        mobility.Install(nodes)

        ns.PacketSocketHelper().Install(nodes)
        server_address = ns.PacketSocketAddress()
        server_address.SetSingleDevice(devices.Get(0).GetIfIndex())
        server_address.SetProtocol(1)
        server = ns.CreateObject[ns.PacketSocketServer]()
        server.SetLocal(server_address)
        nodes.Get(0).AddApplication(server)
        address = ns.PacketSocketAddress()
        address.SetSingleDevice(devices.Get(1).GetIfIndex())
        address.SetPhysicalAddress(devices.Get(0).GetAddress())
        address.SetProtocol(1)
        client = ns.CreateObject[ns.PacketSocketClient]()
        client.SetRemote(address)
        client.SetAttribute("PacketSize", ns.UintegerValue(MSDU - 8))
        client.SetAttribute("MaxPackets", ns.UintegerValue(0))
        interval = 8 * MSDU / offered_bps(request["mcs"])
        client.SetAttribute("Interval", ns.TimeValue(ns.Seconds(interval)))
        client.SetStartTime(ns.Seconds(START_S))
        nodes.Get(1).AddApplication(client)
        # One MSDU that sets up the Block Ack agreement before the saturated flow starts.
        primer = ns.CreateObject[ns.PacketSocketClient]()
        primer.SetRemote(address)
        primer.SetAttribute("PacketSize", ns.UintegerValue(MSDU - 8))
        primer.SetAttribute("MaxPackets", ns.UintegerValue(1))
        primer.SetStartTime(ns.Seconds(PRIMER_S))
        nodes.Get(1).AddApplication(primer)

        helpers.Connect()
        ns.Simulator.Stop(ns.Seconds(WARMUP_S))
        ns.Simulator.Run()
        setup = str(helpers.Describe())
        before = counts()
        helpers.Measure(True)
        ns.Simulator.Stop(ns.Seconds(request["seconds"]))
        ns.Simulator.Run()
        after = counts()
        # The MPDUs sent in the measurement and received: those of its last PSDU too.
        helpers.Measure(False)
        ns.Simulator.Stop(ns.MilliSeconds(10))
        ns.Simulator.Run()
        tail = counts()
        for name in ("mpdus_measured", "rxok_measured"):
            after[name] = tail.get(name, 0)
        ns.Simulator.Destroy()
        return {
            "counts": {k: v - before.get(k, 0) for k, v in after.items()},
            "setup": setup,
            "wall_s": time.perf_counter() - started,
        }

    for line in sys.stdin:
        print(RESULT + json.dumps(run(json.loads(line))), flush=True)
    # cppyy's exit handlers sometimes crash after ns-3 has run (a double free): skip them.
    os._exit(0)


def ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def ns3_figures(result: dict, request: dict) -> dict:
    """ns-3's counts as the figures the table prints."""
    c = result["counts"]
    psdus, mpdus = c.get("tx:data:sta", 0), c.get("mpdus:sta", 0)
    # ns-3 answers a lone MPDU (a VHT S-MPDU, outside the window's A-MPDUs) with an ACK
    responses = c.get("tx:blockack:ap", 0) + c.get("tx:ack:ap", 0)
    return {
        "goodput_bps": c.get("rx", 0) * PAYLOAD * 8 / request["seconds"],
        "mpdu_failure": 1 - ratio(c.get("rxok_measured", 0), c.get("mpdus_measured", 0)),
        "mpdus_per_ampdu": ratio(mpdus, psdus),
        # at least 0: the first response may answer an A-MPDU sent before the measurement
        "no_ba": max(0.0, 1 - ratio(responses - c.get("tx:bar:sta", 0), psdus))
        if psdus
        else float("nan"),
        "bars": c.get("tx:bar:sta", 0),
        # WifiMacDropReason 2, WIFI_MAC_DROP_REACHED_RETRY_LIMIT, and 3,
        # WIFI_MAC_DROP_QOS_OLD_PACKET (with IncrementRetryCountUnderBa its MPDUs go so)
        "retry_drops": c.get("macdrop:sta:2", 0) + c.get("macdrop:sta:3", 0),
        "macdrops": {k[8:]: v for k, v in c.items() if k.startswith("macdrop:") and v},
        "drops": {k[5:]: v for k, v in c.items() if k.startswith("drop:") and v},
        "frames": {k[3:]: v for k, v in c.items() if k.startswith("tx:") and v},
        "sizes": {k[5:]: v for k, v in c.items() if k.startswith("size:") and v},
        "setup": result["setup"],
        "wall_s": result["wall_s"],
    }


# ---------------------------------------------------------------------------------------
# The airtcp side: scenarios in the user schema (docs/scenarios.md), run by `airtcp.run`.

WINDOW_COUNTERS = ("ampdus", "ampdu_mpdus", "ampdu_failed_mpdus", "attempts",
                   "failed_attempts", "retry_drops", "block_ack_reqs")  # fmt: skip


def airtcp_scenario(mcs: int, distance: float, seconds: float, amsdu: int, retries: int) -> dict:
    wlan = {"ap": "ap", "stations": ["sta"], "phy": "802.11ac", "mcs": mcs,
            "channel_width": 80, "spatial_streams": 1, "guard_interval": "800ns",
            "ampdu": True, "ba_window": BA_WINDOW, "max_ampdu": f"{MAX_AMPDU}B",
            "rts_threshold": "off", "queue": QUEUE, "short_retry_limit": retries,
            "msdu_lifetime": "off", "queue_max_delay": "off", "edca": True,
            "edca_params": {"be": {"aifsn": AIFSN}},
            "ap_edca_params": {"be": {"aifsn": AIFSN, "cw_max": 1023}}}  # fmt: skip
    if amsdu:
        wlan["max_amsdu"] = amsdu
    return {
        "simulation": {"name": "ns3-ampdu-geo", "duration": f"{WARMUP_S + seconds}s",
                       "measure_from": f"{WARMUP_S}s"},
        "wlan": wlan,
        "radio": RADIO,
        "positions": {"ap": [0.0, 0.0], "sta": [distance, 0.0]},
        "flows": [{"name": "up", "kind": "udp_cbr", "src": "sta", "dst": "ap",
                   "rate": f"{offered_bps(mcs)}bps", "payload": PAYLOAD,
                   "start": f"{START_S}s"}],
    }  # fmt: skip


def airtcp_figures(scenario: dict, seed: int) -> dict:
    """The figures of `scenario`'s run; the WLAN's counters the run's less those of a run of
    its warm-up alone (the same events up to its end): the measurement's, as ns-3's."""
    import airtcp

    started = time.perf_counter()
    summary = airtcp.run(scenario, seed=seed, timeseries=False).summary
    wall = time.perf_counter() - started
    simulation = {**scenario["simulation"], "duration": f"{WARMUP_S}s", "measure_from": "0s"}
    before = airtcp.run({**scenario, "simulation": simulation}, seed=seed, timeseries=False)
    first, last = before.summary["wlans"][0], summary["wlans"][0]
    w = {k: last[k] - first[k] for k in WINDOW_COUNTERS}
    snr = last["macs"][1]["snr_db"]
    return {
        "goodput_bps": summary["aggregate_goodput_bps"],
        "mpdu_failure": ratio(w["ampdu_failed_mpdus"], w["ampdu_mpdus"]),
        "mpdus_per_ampdu": ratio(w["ampdu_mpdus"], w["ampdus"]),
        # failed exchanges over A-MPDUs: the BlockAckReqs' exchanges left out (they all
        # succeed here, at 24 Mbit/s)
        "no_ba": ratio(w["failed_attempts"], w["ampdus"]),
        "window": w,
        "snr_db": float("nan") if snr is None else snr,
        "wall_s": wall,
    }


# ---------------------------------------------------------------------------------------

COLUMNS = (
    ("ns-3", 7, ".1f"),
    ("airtcp", 7, ".1f"),
    ("a/ns3", 6, ".3f"),
    ("lost3", 6, ".4f"),
    ("lostA", 6, ".4f"),
    ("mpdu3", 5, ".1f"),
    ("mpduA", 5, ".1f"),
    ("noBA3", 6, ".4f"),
    ("noBAA", 6, ".4f"),
    ("bar3", 5, "d"),
    ("barA", 5, "d"),
    ("drop3", 5, "d"),
    ("dropA", 5, "d"),
)


def header() -> str:
    cells = [f"{'MCS':>3}", f"{'d m':>5}", f"{'SNR dB':>6}"]
    cells += [f"{heading:>{width}}" for heading, width, _ in COLUMNS]
    return " ".join(cells)


def row(mcs: int, distance: float, peer: dict, own: dict) -> str:
    cells = (
        peer["goodput_bps"] / 1e6,
        own["goodput_bps"] / 1e6,
        ratio(own["goodput_bps"], peer["goodput_bps"]),
        peer["mpdu_failure"],
        own["mpdu_failure"],
        peer["mpdus_per_ampdu"],
        own["mpdus_per_ampdu"],
        peer["no_ba"],
        own["no_ba"],
        peer["bars"],
        own["window"]["block_ack_reqs"],
        peer["retry_drops"],
        own["window"]["retry_drops"],
    )
    formatted = [f"{mcs:>3}", f"{distance:>5g}", f"{own['snr_db']:>6.2f}"]
    formatted += [f"{c:>{w}{f}}" for c, (_, w, f) in zip(cells, COLUMNS, strict=True)]
    return " ".join(formatted)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_ns3_python_option(parser)
    parser.add_argument("--mcs", type=int, nargs="+", default=[9, 5], choices=sorted(DISTANCES))
    parser.add_argument("--distances", type=float, nargs="+", help="m, for every MCS")
    parser.add_argument("--seconds", type=float, default=3.0, help="measured, a point")
    parser.add_argument("--quick", action="store_true", help="fewer points, 1 s measured")
    parser.add_argument("--amsdu", type=int, default=0, help="max A-MSDU, bytes (0: none)")
    parser.add_argument(
        "--ns3-explicit-bar",
        action="store_true",
        help="ns-3 sends a BlockAckReq after a missed BlockAck (its default; airtcp does not)",
    )
    parser.add_argument(
        "--ns3-retry-under-ba",
        action="store_true",
        help="ns-3 counts retries of MPDUs under Block Ack and drops them at the retry limit "
        "(WifiRemoteStationManager::IncrementRetryCountUnderBa; airtcp does, ns-3's default not)",
    )
    parser.add_argument(
        "--airtcp-retry-limit",
        type=int,
        default=RETRY_LIMIT,
        help="airtcp's short_retry_limit (7, as ns-3's FrameRetryLimit; 255 stands in for "
        "ns-3's default of never dropping an MPDU under Block Ack)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="ns-3's frames, drops, setup")
    args = parse_ns3_args(parser, "ns3_ampdu_geo", ns3_worker)
    if args is None:
        return
    if args.quick:
        args.seconds = 1.0
    print(
        "802.11ac, 80 MHz, 1 stream, 800 ns GI, BCC; one station uploading saturated UDP "
        "(1472-byte payloads) to its AP d m away; log-distance (3, 46.6777 dB at 1 m), 16.0206 "
        "dBm, NF 7 dB, NistErrorRateModel; A-MPDU, 64-MPDU window"
        f"{f', A-MSDU up to {args.amsdu} B' if args.amsdu else ''}; {WARMUP_S:g} s warm-up, "
        f"{args.seconds:g} s measured; ns-3 explicit BAR "
        f"{'on' if args.ns3_explicit_bar else 'off'}, retries counted under BA "
        f"{'on' if args.ns3_retry_under_ba else 'off'}; airtcp's retry limit "
        f"{args.airtcp_retry_limit}.\nGoodput Mbit/s (a/ns3: airtcp's over "
        "ns-3's); lost: MPDUs of A-MPDUs that failed; mpdu: MPDUs per A-MPDU; noBA: A-MPDUs "
        "without a BlockAck (3: ns-3, A: airtcp); bar: BlockAckReqs; drop: MPDUs "
        "dropped at the retry limit; SNR: airtcp's at the AP"
    )
    settings = {"amsdu": args.amsdu, "explicit_bar": args.ns3_explicit_bar,
                "retry_under_ba": args.ns3_retry_under_ba, "seed": args.seed}  # fmt: skip
    primer = {"mcs": 9, "distance": 8.5, "seconds": 0.05}
    ns3 = Ns3Worker(args.ns3_python, __file__, settings, ns3_figures, primer)
    started = time.perf_counter()
    try:
        # A short point with losses first: cppyy compiles ns-3's code on first use, and a
        # worker whose first point had none died at its next with "corrupted double-linked
        # list" (a new worker, as after a crash, is primed the same way).
        ns3.run({"mcs": 9, "distance": 8.5, "seconds": 0.05})
        print(header(), flush=True)
        for mcs in args.mcs:
            table = QUICK_DISTANCES if args.quick else DISTANCES
            for distance in args.distances or table[mcs]:
                peer = ns3.run({"mcs": mcs, "distance": distance, "seconds": args.seconds})
                scenario = airtcp_scenario(
                    mcs, distance, args.seconds, args.amsdu, args.airtcp_retry_limit
                )
                own = airtcp_figures(scenario, args.seed)
                print(row(mcs, distance, peer, own), flush=True)
                if args.verbose:
                    frames = " ".join(f"{k}={v}" for k, v in sorted(peer["frames"].items()))
                    drops = " ".join(f"{k}={v}" for k, v in sorted(peer["drops"].items()))
                    sizes = " ".join(f"{k}={v}" for k, v in sorted(peer["sizes"].items()))
                    print(f"    ns-3: {peer['setup']}; frames {frames}; MPDUs dropped whole "
                          f"{drops or 'none'}; MAC drops by reason {peer['macdrops']}; "
                          f"A-MPDUs by MPDUs (1-8: 00, 9-16: 08, ...) {sizes}; "
                          f"airtcp: {own['window']}")  # fmt: skip
    finally:
        ns3.close()
    print(f"ns-3 3.44 ({args.ns3_python}); worker restarts: {ns3.restarts}; "
          f"{time.perf_counter() - started:.0f} s")  # fmt: skip


if __name__ == "__main__":
    main()
