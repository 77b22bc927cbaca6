"""Reading the nanosecond Ethernet pcaps airtcp writes and verifying their IPv4, TCP and
UDP checksums (RFC 791, RFC 9293 §3.1, RFC 768) independently of the Rust code."""

from __future__ import annotations

import struct
from pathlib import Path


def ones_complement_sum(data: bytes) -> int:
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return total


def read_pcap(path: Path, whole: bool = True) -> list[tuple[bytes, int]]:
    """The records of a nanosecond Ethernet pcap, as (kept bytes, original length)."""
    data = path.read_bytes()
    order = "<" if data[:4] == bytes.fromhex("4d3cb2a1") else ">"
    magic, _, _, _, _, _, linktype = struct.unpack(order + "IHHiIII", data[:24])
    assert magic == 0xA1B23C4D, "nanosecond pcap"
    assert linktype == 1, "Ethernet"
    offset, packets = 24, []
    while offset < len(data):
        _, _, caplen, origlen = struct.unpack(order + "IIII", data[offset : offset + 16])
        packets.append((data[offset + 16 : offset + 16 + caplen], origlen))
        if whole:
            assert caplen == origlen
        offset += 16 + caplen
    return packets


def checksums_verify(frame: bytes) -> bool:
    """Whether a whole Ethernet frame's IPv4 header checksum, total length and TCP or UDP
    checksum (over the pseudo-header) are right."""
    assert frame[12:14] == b"\x08\x00", "IPv4"
    ip = frame[14:]
    header_len = (ip[0] & 0x0F) * 4
    if ones_complement_sum(ip[:header_len]) != 0xFFFF:
        return False
    if struct.unpack("!H", ip[2:4])[0] != len(ip):
        return False
    protocol = ip[9]
    if protocol not in (6, 17):
        return True
    segment = ip[header_len:]
    pseudo = ip[12:20] + struct.pack("!BBH", 0, protocol, len(segment))
    return ones_complement_sum(pseudo + segment) == 0xFFFF
