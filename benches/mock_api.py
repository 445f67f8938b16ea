#!/usr/bin/env python3
"""A local stand-in for the API with a fixed latency on every response, for the benchmark.

Usage: mock_api.py SNAPSHOT_DIR [--latency 0.3] [--port 0] [--banner PNG]
                   [--banners DIR [--banner-latency S] [--banner-origin URL]]
Prints "listening on http://127.0.0.1:PORT" and serves the snapshot's four site endpoints,
and the snapshot's ATC bookings list (bookings.json, or an empty one) at /api/booking (so that a
build from it reads no bookings from VATSIM), until killed. Only 127.0.0.1 is ever bound.
With --banner, every event's image_url names this server instead (/banners/<event id>.png, each
answered with PNG), so that a build fetches, resizes and serves its banners without reaching
the API's host (scripts/ci/sites.sh).
With --banners, the facility's events name the files of DIR in turn (sorted, one an event, the
division's events none), served after --banner-latency (by default --latency), or named at
--banner-origin instead of this server (a host that does not resolve, say); GET /_banner-requests
answers how many banner requests were served (benches/banners.py).
"""
import json
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


def banners_here(body, origin):
    """The events' answer with each image_url on this server, one address an event."""
    answer = json.loads(body)
    for event in answer.get("data", []):
        if isinstance(event, dict) and event.get("image_url"):
            event["image_url"] = f"{origin}/banners/{event.get('id')}.png"
    return json.dumps(answer).encode()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("snapshot")
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--banner")
    ap.add_argument("--banners")
    ap.add_argument("--banner-latency", type=float)
    ap.add_argument("--banner-origin")
    args = ap.parse_args()
    files = sorted(os.listdir(args.banners)) if args.banners else []
    banner_files = {f"/banners/{name}": os.path.join(args.banners, name) for name in files}
    served = [0]
    bodies = {path: open(os.path.join(args.snapshot, f), "rb").read() for path, f in ROUTES.items()}
    banner = open(args.banner, "rb").read() if args.banner else None
    bookings = os.path.join(args.snapshot, "bookings.json")
    bodies["/api/booking"] = open(bookings, "rb").read() if os.path.exists(bookings) else b"[]"

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            path = self.path.split("?")[0]
            if path == "/_banner-requests":
                return self.answer(200, "application/json", str(served[0]).encode())
            if path in banner_files:
                latency = args.banner_latency
                time.sleep(args.latency if latency is None else latency)
                served[0] += 1
                with open(banner_files[path], "rb") as f:
                    return self.answer(200, "image/jpeg", f.read())
            time.sleep(args.latency)
            if banner is not None and path.startswith("/banners/"):
                self.send_response(200)
                self.send_header("Content-Type", "image/png")
                self.send_header("Content-Length", str(len(banner)))
                self.end_headers()
                self.wfile.write(banner)
                return
            body = bodies.get(path)
            status = 200 if body is not None else 404
            body = body if body is not None else b'{"error":"not found"}'
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def answer(self, status, media_type, body):
            self.send_response(status)
            self.send_header("Content-Type", media_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *_):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    if banner is not None:
        for path in ("/api/v2/facility/events", "/api/v2/division/events"):
            bodies[path] = banners_here(bodies[path], origin)
    if files:
        events = json.loads(bodies["/api/v2/facility/events"])
        for n, event in enumerate(events.get("data", [])):
            name = files[n % len(files)]
            event["image_url"] = f"{args.banner_origin or origin}/banners/{name}"
        bodies["/api/v2/facility/events"] = json.dumps(events).encode()
        division = json.loads(bodies["/api/v2/division/events"])
        for event in division.get("data", []):
            event["image_url"] = None
        bodies["/api/v2/division/events"] = json.dumps(division).encode()
    print(f"listening on {origin}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    sys.exit(main())
