#!/usr/bin/env python3
"""From a save to the reload: how long `serve` takes to tell an open page to reload.

Usage: python3 benches/serve_reload.py [--bin PATH] [--runs 20] [-- SERVE FLAGS...]

Serves a copy of the demo's site folder (demo/site: content/ and static/, with a config file
beside them, over the demo data) with the release binary (built first unless --bin is
given), then, run after run, opens the live-reload long poll (`/__vatcar-site/changes`, as a
page's script does), appends a line to content/join.md at a random moment, and times until
the poll answers. Prints the median, the extremes and every run. Nothing here asserts a time.
"""
import argparse
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", help="measure this vatcar-site binary instead of building one")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("flags", nargs="*", help="more flags for serve (after --), such as --poll")
    args = parser.parse_args()
    binary = args.bin
    if not binary:
        subprocess.run(["cargo", "build", "--release", "--quiet"], cwd=ROOT, check=True)
        binary = os.path.join(ROOT, "target", "release", "vatcar-site")

    site = tempfile.mkdtemp(prefix="vatcar-reload-")
    try:
        for folder in ["content", "static"]:
            shutil.copytree(os.path.join(ROOT, "demo", "site", folder), os.path.join(site, folder))
        with open(os.path.join(site, "vatcar-site.toml"), "w") as f:
            f.write('title = "Reload bench"\nlogo = "logo.svg"\n')
        times = measure(binary, site, args.runs, args.flags)
    finally:
        shutil.rmtree(site, ignore_errors=True)
    times.sort()
    print(f"edit to reload, {len(times)} runs: median {statistics.median(times):.0f} ms, "
          f"fastest {times[0]:.0f}, slowest {times[-1]:.0f}")
    print("every run (ms): " + " ".join(f"{t:.0f}" for t in times))


def measure(binary, site, runs, flags):
    server = subprocess.Popen([binary, "serve", "--demo", "--port", "0", "--output", "site", *flags],
                              cwd=site, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    found = threading.Event()
    port = []

    def read():
        for line in server.stderr:
            match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
            if match and not port:
                port.append(int(match.group(1)))
                found.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        if not found.wait(60):
            sys.exit("serve did not start")
        page = os.path.join(site, "content", "join.md")
        times = []
        for run in range(runs):
            since = int(body(port[0], "/__vatcar-site/changes"))
            answered = {}

            def poll():
                answered["generation"] = int(body(port[0], f"/__vatcar-site/changes?since={since}"))
                answered["at"] = time.perf_counter()

            waiting = threading.Thread(target=poll)
            waiting.start()
            # The poll is waiting by now; the edit falls at any moment of a polling watcher's cycle.
            time.sleep(0.2 + random.random() * 0.4)
            saved = time.perf_counter()
            with open(page, "a") as f:
                f.write(f"\nLine {run}.\n")
            waiting.join()
            if answered["generation"] <= since:
                sys.exit("the poll answered without a rebuild")
            times.append((answered["at"] - saved) * 1000)
        return times
    finally:
        server.kill()
        server.wait()


def body(port, path):
    with socket.create_connection(("127.0.0.1", port)) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    return data.decode().split("\r\n\r\n", 1)[1].strip()


if __name__ == "__main__":
    main()
