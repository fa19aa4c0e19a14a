#!/usr/bin/env python3
"""`prof mcp` on a real workload (issue #23): a stdlib-only JSON-RPC client (the machine has no
MCP SDK and no network) starts `prof mcp`, calls the `profile` tool on a client of
profile_clients.py with confirm and a progress token, and prints the progress notifications it
got and the summary's answer. Usage: mcp_profile.py PROF CLIENT [CLIENT...]
"""
import json
import os
import subprocess
import sys
import time

prof, clients = sys.argv[1], sys.argv[2:]
here = os.path.dirname(os.path.abspath(__file__))
server = subprocess.Popen([prof, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)


def send(message):
    server.stdin.write(json.dumps(message) + "\n")
    server.stdin.flush()


def wait_for(request_id, on_note=None):
    while True:
        line = server.stdout.readline()
        if not line:
            raise SystemExit("prof mcp closed its output")
        message = json.loads(line)
        if message.get("id") == request_id:
            return message
        if on_note:
            on_note(message)


send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
      "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "h200", "version": "0"}}})
init = wait_for(1)["result"]
print("server", init["serverInfo"], "protocol", init["protocolVersion"])
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
for n, client in enumerate(clients, start=2):
    notes = []
    start = time.time()
    send({"jsonrpc": "2.0", "id": n, "method": "tools/call",
          "params": {"name": "profile", "_meta": {"progressToken": f"p{n}"},
                     "arguments": {"command": ["python3", os.path.join(here, "profile_clients.py"), client],
                                   "confirm": True, "max_depth": "breakdown"}}})
    reply = wait_for(n, lambda m: notes.append(m["params"].get("message", "")) if m.get("method") == "notifications/progress" else None)
    doc = reply["result"].get("structuredContent", {})
    print(f"== {client}: {time.time() - start:.0f} s, {len(notes)} progress notifications, isError={reply['result'].get('isError')}")
    for line in notes[:6]:
        print("   progress:", line[:140])
    print("   stopped_after:", doc.get("stopped_after"), "| answer:", doc.get("answer"))
    print("   why:", doc.get("why"))
    for step in doc.get("steps", []):
        print(f"   step {step['name']}: {step['headline']}")
        for line in step.get("evidence", [])[:3]:
            print("      -", line[:160])
    print("   omitted:", doc.get("omitted"), "| bytes:", len(json.dumps(doc)))
server.stdin.close()
server.wait(timeout=30)
