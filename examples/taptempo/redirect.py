#!/usr/bin/env python3
"""The "TapTempo du Web" endpoint with Python's standard library only:
every GET answers 302 to http://example.com, HTTP/1.1 keep-alive.
usage: redirect.py PORT"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Redirect(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.send_response(302)
        self.send_header("Location", "http://example.com")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


ThreadingHTTPServer.daemon_threads = True
ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Redirect).serve_forever()
