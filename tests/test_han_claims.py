"""Paper 004's claims judged on synthetic measurements: the RTT and the backbone's capacity,
which the scenario was set from, are "calibrated" while the calibration holds; variant
rankings need 95 % intervals apart ("not significant" if they overlap); the hybrid, ours,
is "beyond the paper" whatever it measures. Each TCP claim is judged once per lossy wireless
model (the shared channel, the stand-in), on that model's runs only."""

import pandas as pd
from airtcp.reproductions.han_mesh import JUDGED, PROBED, VARIANTS, WINDOWS, WIRELESS, claims


def paths(rtt_ms=192.6, backbone=60.0, meshes=(28.2, 27.9), through=(28.2, 27.3)):
    """Every probed model measures the same, except the per-hop meshes' capacity, 30."""
    rtts = {1: 0.35, 2: rtt_ms - 0.6, 3: 0.37, 4: rtt_ms - 0.4, 5: rtt_ms}
    capacities = {1: meshes[0], 2: backbone, 3: meshes[1], 4: through[0], 5: through[1]}
    ideal = {**capacities, 1: 30.0, 3: 30.0, 4: 30.0, 5: 30.0}
    return pd.DataFrame(
        [{"wireless": w, "segment": s, "rtt_avg_ms": rtts[s],
          "capacity_mbps": (capacities if w == "shared channel" else ideal)[s]}
         for w in PROBED for s in rtts]
    )  # fmt: skip


# Goodput (Mbit/s) and 95 % half-width with 2 MB windows and loss on segments 4 and 5.
PAPER_LIKE = {
    "reno": (8.0, 0.5),
    "veno": (10.0, 0.5),
    "westwood": (12.0, 0.5),
    "cubic": (16.0, 0.5),
    "westwood_cubic": (20.0, 0.5),
}


def tcp(lossy_2mb=None, judged=JUDGED) -> pd.DataFrame:
    """Every (segment, variant, wireless, window) point: 16 KiB windows 0.65 Mbit/s through
    the backbone, 22 on the mesh alone; 2 MiB ideal 20 for all; with the ``judged`` models'
    loss as given, with the other lossy model's paper-like."""
    rows = []
    for segment in (1, 4, 5):
        for variant in VARIANTS:
            for wireless in WIRELESS:
                lossy = {**PAPER_LIKE, **(lossy_2mb or {} if wireless in judged else {})}
                for window in WINDOWS:
                    mean, half = (22.0, 0.05) if segment == 1 else (0.65, 0.01)
                    if window == "2MiB" and segment != 1:
                        mean, half = lossy[variant] if wireless in JUDGED else (20.0, 0.1)
                    point = {"segment": segment, "variant": variant, "wireless": wireless}
                    rows.append({**point, "window": window, "goodput_mbps": mean,
                                 "ci95_mbps": half})  # fmt: skip
    return pd.DataFrame(rows)


def row(start: str, path_frame=None, tcp_frame=None, wireless="shared channel"):
    rows = claims(paths() if path_frame is None else path_frame,
                  tcp() if tcp_frame is None else tcp_frame)  # fmt: skip
    (found,) = [r for r in rows if r.claim.startswith(start)
                and (r.claim.endswith(f"[{wireless}]") or "[" not in r.claim)]  # fmt: skip
    return found


def test_a_paper_like_run():
    rows = claims(paths(), tcp())
    tcp_verdicts = ["agrees", "agrees", "agrees", "agrees", "beyond the paper"]
    assert [r.verdict for r in rows] == [
        "calibrated", "calibrated", "agrees", "agrees", *tcp_verdicts, *tcp_verdicts,
    ]  # fmt: skip
    assert all(len(r.why) > 20 for r in rows if r.verdict != "agrees")
    assert [r.claim.rsplit("[", 1)[-1] for r in rows[4:]] == [
        f"{w}]" for w in JUDGED for _ in tcp_verdicts
    ]


def test_each_model_is_judged_on_its_own_runs():
    only_standin = tcp({"westwood": (6.0, 0.5)}, judged=("stand-in",))
    assert row("Westwood and CUBIC", tcp_frame=only_standin).verdict == "agrees"
    found = row("Westwood and CUBIC", tcp_frame=only_standin, wireless="stand-in")
    assert found.verdict == "differs"


def test_calibrated_values_are_calibrated_only_while_the_calibration_holds():
    assert row("End-to-end RTT", paths(rtt_ms=184.5)).verdict == "calibrated"  # 4.8 % off
    assert row("End-to-end RTT", paths(rtt_ms=183.5)).verdict == "differs"  # 5.3 % off
    broken = row("End-to-end RTT", paths(rtt_ms=200.5))  # 3.4 % off, but over 200 ms
    assert broken.verdict == "differs" and "no longer" in broken.why
    assert row("The KOREN", paths(backbone=59.0)).verdict == "calibrated"
    assert row("The KOREN", paths(backbone=58.5)).verdict == "differs"
    assert row("The KOREN", paths(backbone=63.5)).verdict == "differs"


def test_the_mesh_capacity_is_judged_not_calibrated():
    assert row("The wireless", paths(through=(32.0, 27.3))).verdict == "agrees"  # 13.5 %
    assert row("The wireless", paths(through=(33.0, 27.3))).verdict == "partly"  # 17 %
    assert row("The wireless", paths(meshes=(65.0, 70.0), through=(65, 65))).verdict == "differs"


def test_rankings_need_intervals_apart():
    start = "Westwood and CUBIC"
    assert row(start, tcp_frame=tcp()).verdict == "agrees"
    # Westwood x1.25 Reno, intervals apart: above, but by less than x1.3.
    assert row(start, tcp_frame=tcp({"westwood": (10.0, 0.5)})).verdict == "partly"
    # The same means with Reno's interval reaching Westwood's: not significant.
    wide = row(start, tcp_frame=tcp({"westwood": (10.6, 0.65), "reno": (8.4, 3.5)}))
    assert wide.verdict == "not significant"
    assert "westwood on segment 4" in wide.why and "cubic" not in wide.why
    assert "10.60 ± 0.65" in wide.ours
    assert row(start, tcp_frame=tcp({"westwood": (6.0, 0.5)})).verdict == "differs"
    # Veno's threshold is x1.05.
    assert row("Veno", tcp_frame=tcp({"veno": (8.5, 0.1), "reno": (8.0, 0.1)})).verdict == "agrees"
    assert row("Veno", tcp_frame=tcp({"veno": (8.3, 0.1), "reno": (8.0, 0.1)})).verdict == "partly"
    assert row("Veno", tcp_frame=tcp({"veno": (8.3, 0.2), "reno": (8.0, 0.2)})).verdict == (
        "not significant"
    )


def test_the_window_gain_needs_intervals_apart():
    start = "With 2 MB windows"
    assert row(start, tcp_frame=tcp({"reno": (1.5, 0.1)})).verdict == "partly"  # x2.3
    assert row(start, tcp_frame=tcp({"reno": (0.9, 0.1)})).verdict == "differs"  # x1.4
    assert row(start, tcp_frame=tcp({"reno": (3.0, 2.5)})).verdict == "not significant"


def test_the_hybrid_is_beyond_the_paper_whatever_it_measures():
    for hybrid in ((20.0, 0.5), (15.0, 0.5), (9.0, 5.0)):
        found = row("A Westwood + CUBIC", tcp_frame=tcp({"westwood_cubic": hybrid}))
        assert found.verdict == "beyond the paper" and "airtcp's design" in found.why
    below = row("A Westwood + CUBIC", tcp_frame=tcp({"westwood_cubic": (14.0, 0.5)}))
    assert "below" in below.ours
