"""Scenarios: what users write in TOML and what the simulator runs.

``schema`` (the pydantic models, one-line errors naming the user's key), ``units`` (rates,
durations, sizes, dB), ``overrides`` (``--set a.b=v``), ``geometry`` (positions, layouts and
the ``[radio]`` settings), ``stations`` (some of a WLAN's stations: selections and groups)
and ``resolve`` (templates expanded into the simulator's JSON, with the origin of each part,
so the simulator's errors come back in the user's keys).

Nothing is imported here: ``import airtcp.scenario.units`` does not load pydantic.
"""
