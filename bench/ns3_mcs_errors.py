#!/usr/bin/env python3
"""Reference values: ns-3 3.44 NistErrorRateModel chunk success rate for
VHT MCS 0..9 and HE MCS 10, 11 (20 MHz, Nss 1, SU preamble).

Run: /work/ns3venv/bin/python bench/ns3_mcs_errors.py > nist_mcs.txt
(cppyy "Failed to materialize symbols" lines go to stderr and are not part of the output)
"""

import importlib.util
import sys

if importlib.util.find_spec("ns") is None:
    print("ns-3's Python package is not installed here: run this with ns-3's python (docstring)")
    sys.exit(0)

from ns import ns

CMD = "/work/ns3venv/bin/python bench/ns3_mcs_errors.py > nist_mcs.txt"

model = ns.CreateObject[ns.NistErrorRateModel]()


def txv(mode, preamble):
    tx = ns.WifiTxVector()
    tx.SetMode(mode)
    tx.SetChannelWidth(20)
    tx.SetNss(1)
    tx.SetPreambleType(preamble)
    return tx


def csr(mode, tx, snr_linear, nbits):
    return float(model.GetChunkSuccessRate(mode, tx, snr_linear, nbits))


def bisect_half(mode, tx, nbits=12224, lo=-30.0, hi=60.0, tol=1e-10):
    def f(db):
        return csr(mode, tx, 10 ** (db / 10), nbits)

    assert f(lo) < 0.5 < f(hi), (mode, f(lo), f(hi))
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if f(mid) < 0.5:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


cases = [("vht", i, ns.VhtPhy.GetVhtMcs(i), ns.WIFI_PREAMBLE_VHT_SU) for i in range(10)]
cases += [("he", i, ns.HePhy.GetHeMcs(i), ns.WIFI_PREAMBLE_HE_SU) for i in (10, 11)]

print("# " + CMD)
print(
    "# ns-3 3.44 (PyPI ns3==3.44.post0) "
    "NistErrorRateModel::GetChunkSuccessRate(mode, txVector, snr_linear, nbits);"
)
print("# txVector: mode, channel width 20 MHz, nss 1, preamble VHT_SU / HE_SU.")
print("# 'half <format> <mcs> <dB>': SINR (dB) where a 12224-bit chunk succeeds with p=0.5,")
print("#   bisected on [-30, 60] dB to 1e-10 dB.")
print(
    "# tuples: (format, mcs, snr_linear, bits, success) at snr_linear = 10**((round(half,2)+d)/10),"
)
print("#   d in (-4, -1, -0.25, 0, 0.25, 1, 4), bits in (112, 12224).")
rows = []
for fmt, i, mode, pre in cases:
    tx = txv(mode, pre)
    half = bisect_half(mode, tx)
    print(f"half {fmt} {i} {half!r}")
    for d in (-4, -1, -0.25, 0, 0.25, 1, 4):
        snr = 10 ** ((round(half, 2) + d) / 10)
        for bits in (112, 12224):
            success = csr(mode, tx, snr, bits)
            rows.append(f'("{fmt}", {i}, {snr!r}, {bits}, {success!r}),')
print("# --- tuples ---")
for r in rows:
    print(r)
