"""Emulation: a scenario over real Linux TCP, the end hosts in network namespaces, the
network the simulator's own engine on the wall clock (crates/airtcp-emu).

``runner`` (check, run, summary), ``kernel`` (a scenario's TCP settings as sysctls, route
attributes and iperf3 options), ``traffic`` (iperf3 and ping, their output, the kernel's
counters), ``compare`` (one scenario simulated and emulated, paired) and ``one_way_probe``
(one-way delays by the kernels' timestamps, for checking the emulator). See
docs/emulation.md.
"""
