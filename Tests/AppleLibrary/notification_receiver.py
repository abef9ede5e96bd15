"""A loopback backend for the notification delivery tests (Tests/StoreServerTests/NotificationDeliveryTests.swift).

usage: notification_receiver.py LOG [--fail-first N] [--fail-mode 500|hang]
Listens on 127.0.0.1 (a free port, printed as the first line of stdout) and appends each POST as a
JSON line {"path", "contentType", "body"} to LOG. The first N requests fail (an HTTP 500, or no answer
at all), the rest get 200; N = -1 fails them all.
"""
import argparse
import json
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("log")
parser.add_argument("--fail-first", type=int, default=0)
parser.add_argument("--fail-mode", choices=["500", "hang"], default="500")
args = parser.parse_args()
lock = threading.Lock()
count = 0


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        global count
        body = self.rfile.read(int(self.headers.get("content-length", 0))).decode()
        with lock:
            count += 1
            failing = args.fail_first < 0 or count <= args.fail_first
            with open(args.log, "a") as log:
                log.write(json.dumps({"path": self.path, "contentType": self.headers.get("content-type"), "body": body}) + "\n")
        if failing and args.fail_mode == "hang":
            time.sleep(3600)
            return
        self.send_response(500 if failing else 200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *_):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
server.daemon_threads = True
print(server.server_address[1], flush=True)
server.serve_forever()
