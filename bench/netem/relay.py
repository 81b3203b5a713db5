#!/usr/bin/env python3
"""A link emulator for kernels without sch_netem: a transparent TCP relay on the namespace's
loopback that every connection to 127.0.0.1 is redirected through (iptables REDIRECT; the
relay's own connections carry a mark the rule skips), adding the link's delay and bandwidth.

The link is one shared full-duplex pipe: each direction carries every connection's bytes in
turn at RATE bit/s (a chunk departs when the pipe is free and arrives one one-way delay later);
a new connection's first request waits one extra round trip, as a TCP handshake would. Each
connection buffers at most BUFFER bytes per direction, so a fast sender is held back.

Because the relay ends each TCP connection locally, the kernel's own congestion control never
sees the link's round trip, so each direction of each connection also keeps the sender's
congestion window as Linux's defaults grow it: 10 segments at first (RFC 6928), doubling every
round trip in slow start (no loss on this link, so it never leaves slow start) up to the
largest send buffer (tcp_wmem's 4 MiB), and shrunk back after an idle spell longer than the
retransmission timeout (tcp_slow_start_after_idle, RFC 5681 section 4.1: halved for every RTO
idle, never below the initial window). A round's bytes leave once the first of the previous
round's is acknowledged, one round trip after it left. SLOW_START=0 in the environment leaves
the window out (the link then carries a new connection at full rate from its first byte).

With RELAY_TRACE=FILE in the environment, the relay keeps FILE up to date with how full the
link was in each tenth of a second (wall-clock start, then 0 to 1), to see where a contender
leaves the link idle.

Usage: relay.py RTT_MS RATE_MBIT MARK [MTU]   (prints its port on stdout once listening)
"""

import asyncio
import os
import socket
import struct
import sys
import time

SO_ORIGINAL_DST = 80
CHUNK = 65536
BUFFER_CHUNKS = 64
INITIAL_SEGMENTS = 10
MAX_WINDOW = 4 << 20
RTO_MIN_S = 0.2


class Pipe:
    """One direction of the link: serialises chunks at the rate, then delays them. With a
    trace, counts the bytes that depart in each tenth of a second."""

    def __init__(self, rate_bps, one_way_s, trace=None):
        self.rate = rate_bps
        self.delay = one_way_s
        self.free_at = 0.0
        self.trace = trace

    def deliver_at(self, size, not_before):
        depart = max(time.monotonic(), self.free_at, not_before)
        self.free_at = depart + size * 8 / self.rate
        if self.trace is not None:
            tenth = int(depart * 10)
            self.trace[tenth] = self.trace.get(tenth, 0) + size
        return self.free_at + self.delay


async def write_trace(path, trace, rate_bps):
    """Every second, rewrites `path` with one line per busy tenth of a second: its start on
    the wall clock (seconds since the epoch) and how full the link was (0 to 1)."""
    offset = time.time() - time.monotonic()
    while True:
        await asyncio.sleep(1)
        lines = [f"{tenth / 10 + offset:.1f} {count * 8 / (rate_bps / 10):.3f}"
                 for tenth, count in sorted(trace.items())]
        with open(path + ".tmp", "w") as out:
            out.write("\n".join(lines) + "\n")
        os.replace(path + ".tmp", path)


class Window:
    """One sender's congestion window: how many bytes it may send in the current round trip."""

    def __init__(self, rtt_s, mss):
        self.rtt = rtt_s
        self.initial = INITIAL_SEGMENTS * mss
        self.cwnd = self.initial
        self.rto = self.rtt + RTO_MIN_S
        self.round_acked_at = None  # when the first byte of the current round is acknowledged
        self.round_start = 0.0
        self.in_round = 0
        self.last_departure = None

    def next_piece(self, size, now):
        """How many of `size` bytes ready at `now` may go next, and when at the earliest."""
        if self.last_departure is not None and now - self.last_departure > self.rto:
            idle_rtos = int((now - self.last_departure) / self.rto)
            self.cwnd = max(self.initial, self.cwnd >> min(idle_rtos, 30))
            self.round_acked_at = None
            self.in_round = 0
        if self.round_acked_at is not None and self.in_round >= self.cwnd:
            # The window is full: the next round starts when the first of this one is acked.
            self.round_start = max(now, self.round_acked_at)
            self.cwnd = min(self.cwnd * 2, MAX_WINDOW)
            self.in_round = 0
            self.round_acked_at = None
        elif self.round_acked_at is None:
            self.round_start = now
        return min(size, self.cwnd - self.in_round), self.round_start

    def sent(self, size, departed):
        """Records `size` bytes that leave at `departed`."""
        if self.round_acked_at is None:
            self.round_acked_at = departed + self.rtt
        self.in_round += size
        self.last_departure = departed


async def carry(reader, writer, pipe, first_not_before, window):
    queue = asyncio.Queue(BUFFER_CHUNKS)

    async def read():
        not_before = first_not_before
        while True:
            data = await reader.read(CHUNK)
            if not data:
                await queue.put(None)
                return
            while data:
                piece = data
                if window:
                    size, start = window.next_piece(len(data), time.monotonic())
                    piece, not_before = data[:size], max(not_before, start)
                # A piece that may not leave yet (its connection's handshake, or the ack that
                # opens its window, is still on the way) waits here, not in the link: the link
                # carries the other connections' bytes meanwhile, as a real one would. Booked
                # ahead, its slot would hold every later byte back and leave the link idle.
                wait = not_before - time.monotonic()
                if wait > 0:
                    await asyncio.sleep(wait)
                at = pipe.deliver_at(len(piece), not_before)
                if window:
                    window.sent(len(piece), at - pipe.delay - len(piece) * 8 / pipe.rate)
                await queue.put((at, piece))
                data = data[len(piece):]
                not_before = 0.0

    async def write():
        while True:
            item = await queue.get()
            if item is None:
                break
            at, data = item
            pause = at - time.monotonic()
            if pause > 0:
                await asyncio.sleep(pause)
            writer.write(data)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()

    try:
        await asyncio.gather(read(), write())
    except (ConnectionError, OSError):
        writer.close()


def main():
    rtt_ms, rate_mbit, mark = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3], 0)
    mss = (int(sys.argv[4]) if len(sys.argv) > 4 else 1500) - 40
    slow_start = os.environ.get("SLOW_START", "1") != "0"
    one_way = rtt_ms / 2000
    trace_path = os.environ.get("RELAY_TRACE")
    # Both directions in one count: the answers (nearly all the bytes) and the requests.
    trace = {} if trace_path else None
    up = Pipe(rate_mbit * 1e6, one_way, trace)
    down = Pipe(rate_mbit * 1e6, one_way, trace)

    async def serve(client_reader, client_writer):
        accepted = time.monotonic()
        sock = client_writer.get_extra_info("socket")
        raw = sock.getsockopt(socket.SOL_IP, SO_ORIGINAL_DST, 16)
        port = struct.unpack("!H", raw[2:4])[0]
        host = socket.inet_ntoa(raw[4:8])
        out = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        out.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, mark)
        out.setblocking(False)
        try:
            await asyncio.get_running_loop().sock_connect(out, (host, port))
        except OSError:
            out.close()
            client_writer.close()
            return
        server_reader, server_writer = await asyncio.open_connection(sock=out)
        window = (lambda: Window(2 * one_way, mss)) if slow_start else (lambda: None)
        await asyncio.gather(
            carry(client_reader, server_writer, up, accepted + 2 * one_way, window()),
            carry(server_reader, client_writer, down, 0.0, window()),
        )
        for w in (client_writer, server_writer):
            w.close()

    async def run():
        server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=1024)
        print(server.sockets[0].getsockname()[1], flush=True)
        if trace_path:
            asyncio.ensure_future(write_trace(trace_path, trace, rate_mbit * 1e6))
        await server.serve_forever()

    asyncio.run(run())


if __name__ == "__main__":
    main()
