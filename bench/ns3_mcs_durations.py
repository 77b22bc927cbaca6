#!/usr/bin/env python3
"""Reference values: ns-3 3.44 WifiPhy::CalculateTxDuration(size, txVector, band) in ns.

Run: /work/ns3venv/bin/python bench/ns3_mcs_durations.py > durations.txt
(cppyy "Failed to materialize symbols" lines go to stderr and are not part of the output)

Structure: the parent builds the case list and feeds it to a worker subprocess
(this same script with --worker) which evaluates one case per line and flushes.
A Python exception in a case is reported and the worker goes on; if the worker
process dies (abort/segfault), the case it was on is recorded as crashed and a new
worker is started with the remaining cases.
"""

import json
import subprocess
import sys

PY = sys.executable
CMD = "/work/ns3venv/bin/python bench/ns3_mcs_durations.py > durations.txt"


def first_line(error: Exception) -> str:
    return (str(error).splitlines() or [""])[0][:200]


# ---------------------------------------------------------------- case list
def build_cases():
    cases = []  # (format, mcs, width_mhz, gi_ns, nss, band_ghz, size_bytes)
    for rate in (6, 54):
        for size in (14, 1500):
            cases.append(("ofdm", rate, 20, 800, 1, 5, size))
    for mcs in (0, 7, 15, 23, 31):
        for width in (20, 40):
            for gi in (800, 400):
                for band in (5, 2.4):
                    for size in (100, 1538, 65535):
                        cases.append(("ht", mcs, width, gi, mcs // 8 + 1, band, size))
    for mcs in (0, 4, 8, 9):
        for width in (20, 40, 80, 160):
            for gi in (800, 400):
                for nss in (1, 2, 3, 4):
                    for size in (100, 1538, 100000):
                        cases.append(("vht", mcs, width, gi, nss, 5, size))
    for mcs in (0, 7, 11):
        for width in (20, 80, 160):
            for gi in (800, 1600, 3200):
                for nss in (1, 2):
                    for band in (5, 2.4):
                        if band == 2.4 and width > 40:
                            continue
                        for size in (100, 1538, 100000):
                            cases.append(("he", mcs, width, gi, nss, band, size))
    return cases


# ---------------------------------------------------------------- ns-3 side
def make_txv(ns, fmt, mcs, width, gi, nss):
    tx = ns.WifiTxVector()
    if fmt == "ofdm":
        mode = {6: ns.OfdmPhy.GetOfdmRate6Mbps, 54: ns.OfdmPhy.GetOfdmRate54Mbps}[mcs]()
        pre = ns.WIFI_PREAMBLE_LONG
    elif fmt == "ht":
        mode = ns.HtPhy.GetHtMcs(mcs)
        pre = ns.WIFI_PREAMBLE_HT_MF
    elif fmt == "vht":
        mode = ns.VhtPhy.GetVhtMcs(mcs)
        pre = ns.WIFI_PREAMBLE_VHT_SU
    elif fmt == "he":
        mode = ns.HePhy.GetHeMcs(mcs)
        pre = ns.WIFI_PREAMBLE_HE_SU
    else:
        raise ValueError(fmt)
    tx.SetMode(mode)
    tx.SetPreambleType(pre)
    tx.SetChannelWidth(width)
    tx.SetGuardInterval(ns.NanoSeconds(gi))
    tx.SetNss(nss)
    return tx


def band_of(ns, band):
    return ns.WIFI_PHY_BAND_5GHZ if band == 5 else ns.WIFI_PHY_BAND_2_4GHZ


def refusal(ns, case):
    """Reason string if ns-3 itself declares the combination invalid, else None.
    (The PyPI build is optimised, so NS_ASSERTs such as the one in
    VhtPhy::CalculateDataRate are compiled out; we apply ns-3's own validity
    checks explicitly instead of relying on an abort.)"""
    fmt, mcs, width, _gi, nss, _band, _size = case
    if fmt == "vht" and not ns.VhtPhy.IsCombinationAllowed(mcs, width, nss):
        return f"VhtPhy::IsCombinationAllowed({mcs}, {width}, {nss}) == false"
    return None


def worker():
    from ns import ns

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        case = tuple(json.loads(line))
        print(json.dumps({"case": case, "start": True}), flush=True)
        try:
            why = refusal(ns, case)
            if why:
                print(json.dumps({"case": case, "skip": why}), flush=True)
                continue
            fmt, mcs, width, gi, nss, band, size = case
            tx = make_txv(ns, fmt, mcs, width, gi, nss)
            d = ns.WifiPhy.CalculateTxDuration(size, tx, band_of(ns, band))
            print(
                json.dumps(
                    {"case": case, "ns": int(d.GetNanoSeconds()), "fs": int(d.GetFemtoSeconds())}
                ),
                flush=True,
            )
        except Exception as e:
            print(
                json.dumps({"case": case, "skip": f"exception: {first_line(e)}"}),
                flush=True,
            )


def preamble_info():
    """Runs in its own subprocess; returns printable comment lines."""
    from ns import ns

    out = []
    for case in (
        ("vht", 8, 80, 400, 2, 5, 1538),
        ("he", 11, 80, 800, 2, 5, 1538),
        ("he", 7, 20, 3200, 1, 2.4, 1538),
        ("ht", 7, 20, 400, 1, 5, 100),
    ):
        fmt, mcs, width, gi, nss, band, size = case
        tx = make_txv(ns, fmt, mcs, width, gi, nss)
        pre = ns.WifiPhy.CalculatePhyPreambleAndHeaderDuration(tx)
        tot = ns.WifiPhy.CalculateTxDuration(size, tx, band_of(ns, band))
        sym_ns = (3200 if fmt in ("ht", "vht") else 12800) + gi
        ext = 6000 if band == 2.4 else 0
        pay_fs = tot.GetFemtoSeconds() - pre.GetFemtoSeconds() - ext * 10**6
        nsym = pay_fs / (sym_ns * 10**6)
        rate = tx.GetMode().GetDataRate(tx)
        ndbps = rate * sym_ns / 1e9
        out.append(
            f"# preamble+header {case!r}: CalculatePhyPreambleAndHeaderDuration = "
            f"{pre.GetNanoSeconds()} ns; CalculateTxDuration = {tot.GetNanoSeconds()} ns; "
            f"symbol = {sym_ns} ns; signal extension = {ext} ns; data symbols = (total - "
            f"preamble - ext) / symbol = {nsym!r}; data rate = {rate} bit/s, NDBPS = {ndbps!r}"
        )
    print(json.dumps(out), flush=True)


NOTES = """\
# How ns-3 3.44 counts (read from src/wifi/model/{wifi-phy,phy-entity}.cc, ht/ht-phy.cc,
# vht/vht-phy.cc, he/he-phy.cc, non-ht/ofdm-phy.cc at tag ns-3.44; all 706 rows above were
# re-derived from these rules with an independent formula, 0 mismatches):
#  - TxDuration = CalculatePhyPreambleAndHeaderDuration (sum of all fields before DATA) + payload.
#  - payload = N_sym * T_sym, plus a 6 us signal extension in the 2.4 GHz band
#    (OfdmPhy::GetSignalExtension, inherited by HT and HE; the VHT rows are all 5 GHz), with N_sym
#    = ceil((16 service + 8*size + 6*N_ES) / N_DBPS) (x STBC, unused here), N_DBPS = data_rate *
#    T_sym as a double (data rate is an integer bit/s rounded up, e.g. HT MCS7 SGI 72222223 ->
#    N_DBPS 260.0000028; HE N_DBPS is not floored to an integer, e.g. HE MCS11 80 MHz Nss2 ->
#    16333.33).
#  - HT-mixed: 16 (L-STF+L-LTF) + 4 (L-SIG) + 8 (HT-SIG) + 4 (HT-STF) + 4*N_LTF (Nss 1,2,3,4 ->
#    1,2,4,4) us; N_ES = ceil(rate / 320 Mb/s (LGI) or 350 Mb/s (SGI)).
#  - VHT SU: 16 + 4 (L-SIG) + 8 (VHT-SIG-A) + 4 (VHT-STF) + 4*N_LTF us. VHT-SIG-B is NOT counted
#    for VHT SU (VhtPhy::GetSigBDuration returns 4 us only for VHT MU, 0 for SU), i.e. 4 us less
#    than the standard TXTIME. N_ES = ceil(rate / 540 Mb/s (LGI) or 600 Mb/s (SGI)) plus an
#    exception table (entries for 160 MHz/Nss 4/MCS 7 and for Nss >= 5 only; none is hit by the
#    rows above).
#  - Short GI (400 ns) for HT/VHT: T_sym = 3.6 us and the data part is N_sym * 3.6 us exactly; ns-3
#    does NOT round the SGI data duration up to a multiple of 4 us (the standard's
#    T_SYML*ceil(T_SYMS*N_SYM/T_SYML)); 217 of the SGI rows above would differ from the standard
#    because of this.
#  - HE SU: 16 + 8 (L-SIG+RL-SIG) + 8 (HE-SIG-A; 16 for ER SU) + 4 (HE-STF) + 8*N_LTF us: every
#    HE-LTF symbol is 8 us whatever the GI (hard-coded "TODO extract from TxVector", i.e. 2x HE-LTF
#    6.4 us + 1.6 us GI even when the data GI is 0.8 or 3.2 us); N_LTF from the HT mapping (Nss
#    1->1, 2->2). T_sym = 12.8 us + GI (13.6 / 14.4 / 16 us); N_ES = 1 always with 6 tail bits
#    (BCC-style formula, no LDPC / pre-FEC padding a-factor); NO packet extension (PE) is added
#    (he-phy.cc: "Ignoring PE").
#  - non-HT OFDM (11a): 20 us (preamble + SIGNAL) + 4 us * ceil((16 + 8*size + 6)/N_DBPS).
#  - VHT MCS 9 at 20 MHz with Nss != 3 is refused by VhtPhy::IsCombinationAllowed (the NS_ASSERT in
#    VhtPhy::CalculateDataRate is compiled out in this optimised PyPI build, so the script checks
#    IsCombinationAllowed itself and skips those cases). MCS 6 / 80 MHz / Nss 3 is not in the grid.
"""


# ---------------------------------------------------------------- parent
def run_all(cases):
    results, skipped = {}, []
    todo = list(cases)
    while todo:
        p = subprocess.Popen(
            [PY, __file__, "--worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        p.stdin.write("".join(json.dumps(c) + "\n" for c in todo))
        p.stdin.close()
        current = None
        done = set()
        for line in p.stdout:
            msg = json.loads(line)
            c = tuple(msg["case"])
            if msg.get("start"):
                current = c
                continue
            done.add(c)
            current = None
            if "skip" in msg:
                skipped.append((c, msg["skip"]))
            else:
                results[c] = msg
        rc = p.wait()
        rest = [c for c in todo if c not in done]
        if current is not None:  # worker died on this case
            skipped.append((current, f"process crashed (rc={rc})"))
            rest = [c for c in rest if c != current]
        elif rest:
            raise RuntimeError(f"worker exited (rc={rc}) before starting {rest[0]!r}")
        todo = rest
    return results, skipped


def main():
    import importlib.util

    if importlib.util.find_spec("ns") is None:
        print(
            "ns-3's Python package is not installed here: run this with ns-3's python (docstring)"
        )
        return
    cases = build_cases()
    results, skipped = run_all(cases)
    info = json.loads(
        subprocess.run([PY, __file__, "--preamble"], capture_output=True, text=True, check=True)
        .stdout.strip()
        .splitlines()[-1]
    )
    print("# " + CMD)
    print(
        "# ns-3 3.44 (PyPI ns3==3.44.post0): WifiPhy::CalculateTxDuration(size, txVector, band), "
        "single (NORMAL_MPDU) PSDU, no STBC, no LDPC flag, SU, staId default."
    )
    print(
        "# txVector: SetMode, SetPreambleType (LONG / HT_MF / VHT_SU / HE_SU), "
        "SetChannelWidth, SetGuardInterval(NanoSeconds(gi)), SetNss."
    )
    print(
        "# format, mcs: ofdm -> mcs is the rate in Mbit/s (OfdmPhy::GetOfdmRate6Mbps/54Mbps); "
        "ht -> HT MCS index 0..31 (nss = mcs//8 + 1)."
    )
    print("# (format, mcs, width_mhz, gi_ns, nss, band_ghz, size_bytes, duration_ns),")
    for c in cases:
        if c in results:
            fmt, mcs, width, gi, nss, band, size = c
            r = results[c]
            assert r["fs"] == r["ns"] * 10**6, (c, r)  # all durations are whole ns
            print(f"({fmt!r}, {mcs}, {width}, {gi}, {nss}, {band!r}, {size}, {r['ns']}),")
    print("#")
    print(NOTES, end="")
    print("#")
    for line in info:
        print(line)
    print("#")
    print(f"# skipped cases ({len(skipped)}):")
    for c, why in skipped:
        print(f"#   {c!r}: {why}")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    elif "--preamble" in sys.argv:
        preamble_info()
    else:
        main()
