#!/usr/bin/env python3
"""A tiny HTTP/1.x test server for loadgen's integration tests and benchmarks.

Binds 127.0.0.1 (or ::1 with --ipv6) on port 0 and writes the port to --port-file.
Behaviour is chosen by the request path:
  /ok            200, "ok" (Content-Length), keep-alive as the request asks
  /chunked       200, chunked body "hello world" in three chunks
  /close         200, body delimited by closing the connection
  /delay?ms=N    200 after N ms (fixed delay; for latency accuracy)
  /status?code=N reply with status N
  /vary          body length grows with every request (ab's Length failures)
  /truncate      Content-Length 100, 10 bytes, then close
  /garbage       a non-HTTP reply, then close
  /never         read the request, never answer (the client must time out)
  /reset         read the request, reset the connection (RST, no reply)
  /slowheader    the status line in three pieces, 50 ms apart
With --tls CERT KEY it serves HTTPS. Every connection is handled by its own thread; --max-seconds bounds the server's life.
"""
import argparse
import os
import socket
import struct
import sys
import threading
import time
import urllib.parse


def read_request(f):
    line = f.readline()
    if not line:
        return None
    headers = {}
    while True:
        h = f.readline()
        if not h or h in (b"\r\n", b"\n"):
            break
        k, _, v = h.decode("latin-1").partition(":")
        headers[k.strip().lower()] = v.strip()
    n = int(headers.get("content-length", "0") or 0)
    if n:
        f.read(n)
    parts = line.decode("latin-1").split()
    return parts[0], parts[1], parts[2] if len(parts) > 2 else "HTTP/1.0", headers


counter = {"vary": 0}
lock = threading.Lock()


def handle(conn):
    f = conn.makefile("rb")
    try:
        while True:
            req = read_request(f)
            if req is None:
                return
            method, target, version, headers = req
            u = urllib.parse.urlsplit(target)
            q = urllib.parse.parse_qs(u.query)
            conn_hdr = headers.get("connection", "").lower()
            keep = (version == "HTTP/1.1" and conn_hdr != "close") or conn_hdr == "keep-alive"
            ka = b"Connection: keep-alive\r\n" if keep else b"Connection: close\r\n"
            path = u.path
            body = b"ok"
            status = b"200 OK"
            if path == "/chunked":
                conn.sendall(b"HTTP/1.1 200 OK\r\nServer: lgtest\r\nTransfer-Encoding: chunked\r\n" + ka +
                             b"\r\n5\r\nhello\r\n1\r\n \r\n5;ext=1\r\nworld\r\n0\r\n\r\n")
                if not keep:
                    return
                continue
            if path == "/close":
                conn.sendall(b"HTTP/1.0 200 OK\r\nServer: lgtest\r\n\r\nclosed body")
                return
            if path == "/truncate":
                conn.sendall(b"HTTP/1.1 200 OK\r\nServer: lgtest\r\nContent-Length: 100\r\n\r\n0123456789")
                return
            if path == "/garbage":
                conn.sendall(b"SSH-2.0-OpenSSH_9.2\r\nthis is not http\r\n")
                return
            if path == "/reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                f.close()
                return
            if path == "/never":
                time.sleep(3600)
                return
            if path == "/slowheader":
                for piece in (b"HTTP/1.1 2", b"00 OK\r\nContent-Le", b"ngth: 2\r\n" + ka + b"\r\nok"):
                    conn.sendall(piece)
                    time.sleep(0.05)
                if not keep:
                    return
                continue
            if path == "/delay":
                time.sleep(int(q.get("ms", ["10"])[0]) / 1000.0)
            if path == "/status":
                code = int(q.get("code", ["500"])[0])
                status = b"%d Status" % code
            if path == "/vary":
                with lock:
                    counter["vary"] += 1
                    body = b"x" * counter["vary"]
            if method == "HEAD":
                payload = b""
            else:
                payload = body
            conn.sendall(b"HTTP/1.1 " + status + b"\r\nServer: lgtest\r\nContent-Type: text/plain\r\n"
                         b"Content-Length: " + str(len(body)).encode() + b"\r\n" + ka + b"\r\n" + payload)
            if not keep:
                return
    except (ConnectionError, OSError):
        return
    finally:
        try:
            conn.close()
        except OSError:
            pass


def serve(c, tls):
    if tls:
        c.settimeout(10)
        try:
            c = tls.wrap_socket(c, server_side=True)
        except (OSError, ValueError):
            c.close()
            return
        c.settimeout(None)
    handle(c)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--ipv6", action="store_true")
    ap.add_argument("--max-seconds", type=float, default=120)
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS")
    a = ap.parse_args()
    tls = None
    if a.tls:
        import ssl
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(a.tls[0], a.tls[1])
    fam = socket.AF_INET6 if a.ipv6 else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("::1" if a.ipv6 else "127.0.0.1", 0))
    s.listen(1024)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(s.getsockname()[1]))
    os.rename(tmp, a.port_file)
    deadline = time.monotonic() + a.max_seconds
    s.settimeout(0.5)
    while time.monotonic() < deadline:
        try:
            c, _ = s.accept()
        except socket.timeout:
            continue
        c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=serve, args=(c, tls), daemon=True).start()
    sys.exit(0)


if __name__ == "__main__":
    main()
