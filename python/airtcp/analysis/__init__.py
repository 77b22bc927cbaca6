"""What one run's outputs say: ``timeseries`` (the simulator's raw columns as a DataFrame or
Parquet), ``ping`` (iputils ping's statistics from probe times), ``acks`` (a receiver's ACKs
over time from its pcap trace), ``intervals`` (iperf3-like per-interval lines), ``fct`` (a
workload's flow completion times) and ``plot`` (``airtcp plot``: one run at a glance).
"""
