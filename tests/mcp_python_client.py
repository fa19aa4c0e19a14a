#!/usr/bin/env python3
"""A second, independent MCP client for `prof mcp`: the official Python SDK (`pip install mcp`).
Started by tests/mcp.rs as `python3 tests/mcp_python_client.py PROF BEFORE AFTER` with the NVIDIA
fakes on PATH; lists the tools, calls each one that starts nothing (and a confirmed breakdown on
the fake nsys), and prints what it got as one JSON object for the Rust test to check.
"""
import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main(prof, before, after):
    params = StdioServerParameters(command=prof, args=["mcp"], env=dict(os.environ))
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server"] = init.server_info.name
            out["protocol"] = init.protocol_version
            tools = await session.list_tools()
            out["tools"] = sorted(t.name for t in tools.tools)
            out["required"] = {t.name: sorted(t.input_schema.get("required", [])) for t in tools.tools}

            def doc(result):
                return {"error": result.is_error, "doc": result.structured_content,
                        "text": "".join(getattr(c, "text", "") for c in result.content)}

            out["detect"] = doc(await session.call_tool("detect", {}))
            out["analyze"] = doc(await session.call_tool("analyze", {"rows": 2}))
            out["diff"] = doc(await session.call_tool("diff", {"before": before, "after": after}))
            out["refused"] = doc(await session.call_tool("profile", {"command": ["true"]}))
            progress = []

            async def on_progress(value, total, message):
                progress.append(message)

            out["breakdown"] = doc(await session.call_tool(
                "breakdown", {"command": ["true"], "tool": "nsys", "confirm": True}, progress_callback=on_progress))
            out["progress"] = progress
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
