"""One-way delays between two namespaces by the kernel's own timestamps, for checking the
emulator (the never-early test, bench/emu_link.py): run ``python -m airtcp.emulation.one_way_probe
receive PORT COUNT`` in one namespace and ``... send HOST PORT COUNT INTERVAL_S`` in the
other. The sender asks for software transmit timestamps (``SO_TIMESTAMPING``: taken as the
datagram is handed to the device, a TUN device's queue or a veth pair), the receiver for
receive timestamps (``SO_TIMESTAMPNS``: taken as the datagram reaches its stack); each prints
{probe id: ns} as JSON, the receiver once COUNT arrived or none for 5 s. Both clocks are
CLOCK_REALTIME of one machine, so a delay is exact up to the clock's slew (500 ppm at most).
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import time

SO_TIMESTAMPING = 37
SO_TIMESTAMPNS = 35
TX_SOFTWARE, SOFTWARE, OPT_ID, OPT_TSONLY = 1 << 1, 1 << 4, 1 << 7, 1 << 11
TIMESPEC = struct.Struct("qq")


def send(host: str, port: int, count: int, interval_s: float) -> dict[int, int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    flags = TX_SOFTWARE | SOFTWARE | OPT_ID | OPT_TSONLY
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING, flags)
    stamps: dict[int, int] = {}
    for probe in range(count):
        sock.sendto(struct.pack("!I", probe) + bytes(60), (host, port))
        time.sleep(interval_s)
        while True:
            try:
                _, ancillary, _, _ = sock.recvmsg(
                    0, 1024, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT
                )
            except BlockingIOError:
                break
            stamp, ident = None, None
            for level, kind, data in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPING:
                    seconds, nanoseconds = TIMESPEC.unpack_from(data)
                    stamp = seconds * 10**9 + nanoseconds
                elif level == socket.SOL_IP:
                    # struct sock_extended_err: errno, origin, type, code, pad, info, data;
                    # with OPT_ID, data is the datagram's count from 0.
                    ident = struct.unpack_from("IBBBBII", data)[6]
            if stamp is not None and ident is not None:
                stamps[ident] = stamp
    return stamps


def receive(port: int, count: int) -> dict[int, int]:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
    sock.bind(("0.0.0.0", port))
    sock.settimeout(5.0)
    stamps: dict[int, int] = {}
    try:
        while len(stamps) < count:
            data, ancillary, _, _ = sock.recvmsg(2048, 1024)
            for level, kind, cmsg in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    seconds, nanoseconds = TIMESPEC.unpack_from(cmsg)
                    stamps[struct.unpack("!I", data[:4])[0]] = seconds * 10**9 + nanoseconds
    except TimeoutError:
        pass
    return stamps


if __name__ == "__main__":
    if sys.argv[1] == "send":
        result = send(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        result = receive(int(sys.argv[2]), int(sys.argv[3]))
    print(json.dumps(result))
