#!/usr/bin/env python3
"""An example external agent for `evalog run <suite> --agent "python3 examples/agents/python_agent.py"`.

Python 3 standard library only, and nothing of evalog: it reads the job contract of docs/agents.md
(environment variables and the task file), calls the model with OpenAI chat completions over
urllib, and uses its tools over MCP as plain JSON-RPC over HTTP (the endpoint is stateless and
answers JSON, so no session and no event stream are needed).

The loop: the task's messages, the tools the MCP endpoint lists, then model call -> tool calls ->
model call ... until a reply without tool calls (its text is the answer) or limits.modelCalls.
Everything it sends is a function of the task and the answers it got, and it makes one call at a
time, so evalog's resume and replay can serve it the recorded answers.

Exit codes: 0 done (an answer, or a budget evalog set), 1 anything that went wrong.
"""

import json
import os
import sys
import urllib.error
import urllib.request

MCP_PROTOCOL_VERSION = "2025-06-18"
# Generous: evalog's own time limit ends a job that hangs, by killing this process.
HTTP_TIMEOUT_S = 600
# Every endpoint is on loopback: a proxy from the environment (HTTP_PROXY passed through) must not see it.
OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


class AgentStop(Exception):
    """Ends the agent with a one-line message and an exit code."""

    def __init__(self, message, exit_code):
        super().__init__(message)
        self.exit_code = exit_code


def require_env(name):
    value = os.environ.get(name)
    if not value:
        raise AgentStop(f"{name} is not set (is this process started by evalog?)", 1)
    return value


def post_json(url, body, headers):
    """POSTs a JSON body; returns (status, parsed body or None). HTTP errors are returned, not raised."""
    data = json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, method="POST", headers={"Content-Type": "application/json", **headers})
    try:
        with OPENER.open(request, timeout=HTTP_TIMEOUT_S) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as err:
        status, raw = err.code, err.read()
    text = raw.decode("utf-8")
    try:
        return status, json.loads(text) if text.strip() else None
    except json.JSONDecodeError:
        return status, {"error": {"message": text[:200]}}


class Mcp:
    """The four JSON-RPC messages an agent needs: initialize, initialized, tools/list, tools/call."""

    def __init__(self, url, token):
        self.url = url
        self.headers = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {token}"}
        self.next_id = 1

    def request(self, method, params=None):
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.next_id += 1
        status, body = post_json(self.url, message, self.headers)
        if status != 200 or not isinstance(body, dict) or "result" not in body:
            detail = body.get("error", {}).get("message") if isinstance(body, dict) else body
            raise AgentStop(f"python-agent: MCP {method} failed (HTTP {status}): {detail}", 1)
        return body["result"]

    def notify(self, method):
        status, _ = post_json(self.url, {"jsonrpc": "2.0", "method": method}, self.headers)
        if status not in (200, 202):
            raise AgentStop(f"python-agent: MCP {method} failed (HTTP {status})", 1)

    def connect(self):
        self.request(
            "initialize",
            {
                "protocolVersion": MCP_PROTOCOL_VERSION,
                "capabilities": {},
                "clientInfo": {"name": "evalog-example-python-agent", "version": "1.0.0"},
            },
        )
        self.notify("notifications/initialized")

    def list_tools(self):
        return self.request("tools/list")["tools"]

    def call_tool(self, name, arguments):
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        return "\n".join(part["text"] for part in result.get("content", []) if part.get("type") == "text")


def complete(base_url, token, body):
    """One non-streaming chat completion; returns the assistant message."""
    status, reply = post_json(f"{base_url}/chat/completions", body, {"Authorization": f"Bearer {token}"})
    if status == 200 and isinstance(reply, dict) and reply.get("choices"):
        return reply["choices"][0]["message"]
    error = reply.get("error", {}) if isinstance(reply, dict) else {}
    code, message = error.get("code"), error.get("message")
    # A budget is evalog's stop, not the agent's failure; an upstream failure (502) or anything else is.
    if status == 403 and code == "budget_exhausted":
        raise AgentStop(f"python-agent: budget exhausted: {message}", 0)
    raise AgentStop(f"python-agent: model call failed (HTTP {status}, {code}): {message}", 1)


def tool_arguments(text):
    """The model's arguments as an object when they are one; otherwise its text unchanged.

    MCP types `arguments` as an object, but evalog's endpoint takes anything and its tool answers
    the mistake, so the model's malformed call is recorded and the model is told, not hidden here.
    """
    if text.strip() == "":
        return {}  # some models send "" for a call without arguments
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return text
    return value if isinstance(value, dict) else text


def run(task, base_url, token, mcp):
    tools = [
        {"type": "function", "function": {"name": t["name"], "description": t.get("description", ""), "parameters": t["inputSchema"]}}
        for t in mcp.list_tools()
    ]
    messages = list(task["messages"])
    for _ in range(task["limits"]["modelCalls"]):
        body = {"model": task["model"], "messages": messages}
        if tools:
            body["tools"] = tools
        message = complete(base_url, token, body)
        tool_calls = message.get("tool_calls") or []
        if not tool_calls:
            return message.get("content") or ""
        messages.append({"role": "assistant", "content": message.get("content"), "tool_calls": tool_calls})
        # One at a time, in the model's order: replay matches the n-th tool call to the n-th recorded one.
        for call in tool_calls:
            result = mcp.call_tool(call["function"]["name"], tool_arguments(call["function"].get("arguments", "")))
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": result})
    print(f"python-agent: stopped at limits.modelCalls ({task['limits']['modelCalls']}) without a final reply", file=sys.stderr)
    return None


def deliver(answer):
    path = os.environ.get("EVALOG_RESULT")
    if path:
        with open(path, "w", encoding="utf-8") as out:
            out.write(answer)
    else:
        sys.stdout.buffer.write(answer.encode("utf-8"))


def main():
    with open(require_env("EVALOG_TASK"), encoding="utf-8") as f:
        task = json.load(f)
    token = require_env("OPENAI_API_KEY")
    base_url = require_env("OPENAI_BASE_URL").rstrip("/")
    mcp = Mcp(require_env("EVALOG_MCP_URL"), token)
    mcp.connect()
    answer = run(task, base_url, token, mcp)
    if answer is not None:
        deliver(answer)


if __name__ == "__main__":
    try:
        main()
    except AgentStop as stop:
        print(str(stop), file=sys.stderr)
        sys.exit(stop.exit_code)
    except (OSError, ValueError, KeyError, TypeError) as err:
        print(f"python-agent: {type(err).__name__}: {err}", file=sys.stderr)
        sys.exit(1)
