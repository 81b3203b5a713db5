#!/usr/bin/env python3
"""A link emulator for kernels without sch_netem: a transparent TCP relay on the namespace's
loopback that every connection to 127.0.0.1 is redirected through (iptables REDIRECT; the
relay's own connections carry a mark the rule skips), adding the link's delay and bandwidth.

The link is one shared full-duplex pipe: each direction carries every connection's bytes in
turn at RATE bit/s (a chunk departs when the pipe is free and arrives one one-way delay later);
a new connection's first request waits one extra round trip, as a TCP handshake would. Each
connection buffers at most BUFFER bytes per direction, so a fast sender is held back.

Usage: relay.py RTT_MS RATE_MBIT MARK   (prints its port on stdout once listening)
"""

import asyncio
import socket
import struct
import sys
import time

SO_ORIGINAL_DST = 80
CHUNK = 65536
BUFFER_CHUNKS = 64


class Pipe:
    """One direction of the link: serialises chunks at the rate, then delays them."""

    def __init__(self, rate_bps, one_way_s):
        self.rate = rate_bps
        self.delay = one_way_s
        self.free_at = 0.0

    def deliver_at(self, size, not_before):
        depart = max(time.monotonic(), self.free_at, not_before)
        self.free_at = depart + size * 8 / self.rate
        return self.free_at + self.delay


async def carry(reader, writer, pipe, first_not_before):
    queue = asyncio.Queue(BUFFER_CHUNKS)

    async def read():
        not_before = first_not_before
        while True:
            data = await reader.read(CHUNK)
            if not data:
                await queue.put(None)
                return
            await queue.put((pipe.deliver_at(len(data), not_before), data))
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
    one_way = rtt_ms / 2000
    up = Pipe(rate_mbit * 1e6, one_way)
    down = Pipe(rate_mbit * 1e6, one_way)

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
        await asyncio.gather(
            carry(client_reader, server_writer, up, accepted + 2 * one_way),
            carry(server_reader, client_writer, down, 0.0),
        )
        for w in (client_writer, server_writer):
            w.close()

    async def run():
        server = await asyncio.start_server(serve, "127.0.0.1", 0, backlog=1024)
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()

    asyncio.run(run())


if __name__ == "__main__":
    main()
