"""Connections to `camlib serve` that never finish their request are closed: a client
trickling a header a byte at a time, or one that connects and says nothing, does not hold
a connection (and its memory) forever."""

import socket
import time
from urllib.parse import urlparse


def test_slow_and_silent_clients_are_disconnected(server):
    url = urlparse(server.base)
    silent = socket.create_connection((url.hostname, url.port), timeout=5)
    trickling = socket.create_connection((url.hostname, url.port), timeout=5)
    started = time.monotonic()
    header = b"GET /api/years HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "
    closed = {}
    # A byte every 0.5 s: never idle long, never a whole header.
    for i in range(120):
        now = time.monotonic() - started
        for name, sock in (("silent", silent), ("trickling", trickling)):
            if name in closed:
                continue
            try:
                if name == "trickling":
                    sock.send(header[i:i + 1] if i < len(header) else b"a")
                sock.settimeout(0.01)
                if sock.recv(1) == b"":
                    closed[name] = now
            except (socket.timeout, BlockingIOError):
                pass
            except (ConnectionResetError, BrokenPipeError):
                closed[name] = now
        if len(closed) == 2:
            break
        time.sleep(0.5)
    silent.close()
    trickling.close()
    assert "silent" in closed, "a connection that sent nothing was kept open for a minute"
    assert closed["silent"] < 30, closed
    # The trickling client keeps sending, so an idle timer alone never fires for it.
    assert "trickling" in closed, "a header trickled a byte every half second kept its connection for a minute"
    assert closed["trickling"] < 40, closed
