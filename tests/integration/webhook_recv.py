"""tests/integration/webhook_recv.py: a tiny loopback HTTP receiver for the emulator's
--notify-webhook. Each POST's headers and body are appended as one JSON line to --out;
--delay-ms holds every answer that long (a slow subscriber). Binds 127.0.0.1 port 0, writes
the port to --port-file, ends after --max-seconds."""
import argparse, json, os, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ap = argparse.ArgumentParser()
ap.add_argument("--port-file", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--delay-ms", type=int, default=0)
ap.add_argument("--max-seconds", type=int, default=300)
args = ap.parse_args()
lock = threading.Lock()


class H(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        rec = {"path": self.path, "headers": {k.lower(): v for k, v in self.headers.items()},
               "body": body.decode("utf-8", "replace")}
        with lock, open(args.out, "a") as f:
            f.write(json.dumps(rec) + "\n")
        if args.delay_ms:
            time.sleep(args.delay_ms / 1000)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *a):
        pass


srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
srv.daemon_threads = True
tmp = args.port_file + ".tmp"
with open(tmp, "w") as f:
    f.write(str(srv.server_address[1]))
os.rename(tmp, args.port_file)
threading.Timer(args.max_seconds, srv.shutdown).start()
srv.serve_forever()
