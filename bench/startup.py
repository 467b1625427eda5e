#!/usr/bin/python3
# bench/startup.py: cold start of the MCP server and its footprint.
#
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# For each run: spawn `stagewright` on pipes, send `initialize`, time until
# its answer is read (cold start → initialize answered), then read VmRSS of
# the server from /proc (RSS after initialize), send notifications/initialized
# and close stdin. Then, as a floor, the same spawn of `stagewright
# --version` until it exits: it loads every library the server loads and
# does nothing else. Prints one JSON line of medians.
#
#   /usr/bin/python3 bench/startup.py BINARY [RUNS]

import json
import statistics
import subprocess
import sys
import time

binary = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
initialize = json.dumps({
    'jsonrpc': '2.0', 'id': 1, 'method': 'initialize',
    'params': {'protocolVersion': '2025-11-25', 'capabilities': {},
               'clientInfo': {'name': 'bench', 'version': '0'}}}).encode() + b'\n'

start_ms, rss_kb = [], []
for _ in range(runs):
    started = time.perf_counter()
    server = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)
    server.stdin.write(initialize)
    server.stdin.flush()
    line = server.stdout.readline()
    start_ms.append((time.perf_counter() - started) * 1000)
    assert json.loads(line)['id'] == 1, line
    with open('/proc/%d/status' % server.pid) as status:
        for field in status:
            if field.startswith('VmRSS:'):
                rss_kb.append(int(field.split()[1]))
    server.stdin.close()
    server.wait(10)

version_ms = []
for _ in range(runs):
    started = time.perf_counter()
    subprocess.run([binary, '--version'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    version_ms.append((time.perf_counter() - started) * 1000)

print(json.dumps({'runs': runs,
                  'cold_start_ms': round(statistics.median(start_ms), 2),
                  'cold_start_min_ms': round(min(start_ms), 2),
                  'rss_after_initialize_mb': round(statistics.median(rss_kb) / 1024, 2),
                  'version_ms': round(statistics.median(version_ms), 2)}))
