#!/usr/bin/env python3
"""A local stand-in for the API with a fixed latency on every response, for the benchmark.

Usage: mock_api.py SNAPSHOT_DIR [--latency 0.3] [--port 0]
Prints "listening on http://127.0.0.1:PORT" and serves the snapshot's four site endpoints,
and the snapshot's ATC bookings list (bookings.json, or an empty one) at /api/booking (so that a
build from it reads no bookings from VATSIM), until killed. Only 127.0.0.1 is ever bound.
"""
import argparse
import http.server
import os
import sys
import time

ROUTES = {
    "/api/v2/facility/roster": "facility-roster.json",
    "/api/v2/facility/events": "facility-events.json",
    "/api/v2/facility/documents": "facility-documents.json",
    "/api/v2/division/events": "division-events.json",
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshot")
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--port", type=int, default=0)
    args = ap.parse_args()
    bodies = {path: open(os.path.join(args.snapshot, f), "rb").read() for path, f in ROUTES.items()}
    bookings = os.path.join(args.snapshot, "bookings.json")
    bodies["/api/booking"] = open(bookings, "rb").read() if os.path.exists(bookings) else b"[]"

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            time.sleep(args.latency)
            body = bodies.get(self.path.split("?")[0])
            status = 200 if body is not None else 404
            body = body if body is not None else b'{"error":"not found"}'
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
