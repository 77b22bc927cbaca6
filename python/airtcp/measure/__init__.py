"""Path measurement, as ping, packet-pair tools and iperf do it: ``path`` (round-trip times,
capacity and TCP bandwidth between two nodes of any scenario, simulated or emulated), ``mbt``
(paper 002's Maximum Buffer Threshold analysis) and ``mbt_sweep`` (``airtcp mbt``'s buffer x
RTT sweep on the experiment layer). See docs/measurement.md.
"""
