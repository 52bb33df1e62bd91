"""A small OpenAI-compatible server for tests: scripted replies, no model, loopback only.

It speaks enough of the protocol for the official `openai` SDK: `POST
/v1/chat/completions` and `POST /v1/responses`, with usage in each reply. What it
answers is scripted: a function from the request (its JSON) to a `Reply`, which can be
tool calls, plain text, several calls, malformed arguments, an HTTP error, a broken
body, or a slow answer (each request is served on its own thread, so slow replies to
concurrent requests overlap, as on a real server).

    with ScriptedServer(lambda request: Reply(calls=[("list_files", {})])) as server:
        client = openai.AsyncOpenAI(base_url=server.url, api_key="test")
"""

from __future__ import annotations

import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer.

    Attributes:
        calls: tool calls as (name, arguments); arguments a dict, or a string sent as is
            (malformed JSON, for example).
        content: the assistant's text.
        status: HTTP status; not 200 sends an OpenAI-style error body.
        delay_s: seconds to wait before answering (slow replies, timeouts).
        body: a raw body to send instead of a completion (a broken reply).
        usage: the usage to report; by default, 4 characters a token of the request
            and of the reply, plus `reasoning_tokens`.
        reasoning_tokens: hidden reasoning reported in the usage.
        finish_reason: the reply's finish reason (default: "tool_calls" or "stop").
    """

    calls: list[tuple[str, dict | str]] = field(default_factory=list)
    content: str | None = None
    status: int = 200
    delay_s: float = 0.0
    body: str | None = None
    usage: dict | None = None
    reasoning_tokens: int = 0
    finish_reason: str | None = None


Script = Callable[[dict], Reply]
_AGENT = re.compile(r"\bagent_\d+\b")


def agent_of(request: dict) -> str | None:
    """The agent a request comes from: the first agent name in its system prompt."""
    for m in request.get("messages", []):
        if m.get("role") == "system":
            found = _AGENT.search(str(m.get("content")))
            return found.group(0) if found else None
    return None


def in_turn(*replies: Reply) -> Script:
    """A script that answers with `replies` in order, then repeats the last one."""
    lock = threading.Lock()
    it = iter(replies)
    last = [replies[-1]]

    def script(request: dict) -> Reply:
        with lock:
            last[0] = next(it, last[0])
            return last[0]

    return script


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 1024  # the default 5 drops a swarm's simultaneous connects


class ScriptedServer:
    """An OpenAI-compatible HTTP server on 127.0.0.1 that answers from a script.

    Attributes:
        url: the base URL to give the SDK (`.../v1`).
        requests: every request's JSON, in arrival order.
        max_in_flight: the most requests that were being served at the same time.
    """

    def __init__(self, script: Script):
        self.script = script
        self.requests: list[dict] = []
        self.max_in_flight = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._ids = itertools.count()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            # Headers and body go out as two writes: with Nagle's algorithm the second
            # waits for the client's delayed ACK, 40 ms a request on loopback.
            disable_nagle_algorithm = True

            def log_message(self, *args: Any) -> None:  # quiet test output
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", 0))
                request = json.loads(self.rfile.read(length) or b"{}")
                status, body, headers = server._serve(self.path, request)
                data = body.encode()
                try:
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(data)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test): nothing to answer

        self._httpd = _Server(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def __enter__(self) -> ScriptedServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop serving and release the port."""
        self._httpd.shutdown()
        self._httpd.server_close()

    # ------------------------------------------------------------------ serving

    def _serve(self, path: str, request: dict) -> tuple[int, str, dict[str, str]]:
        with self._lock:
            self.requests.append(request)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
        try:
            reply = self.script(request)
            if reply.delay_s:
                time.sleep(reply.delay_s)
        finally:
            with self._lock:
                self._in_flight -= 1
        if reply.status != 200:
            error = {"error": {"message": f"scripted {reply.status}", "type": "server_error"}}
            # The SDK honours retry-after-ms: retries in tests take milliseconds.
            return reply.status, json.dumps(error), {"retry-after-ms": "10"}
        if reply.body is not None:
            return 200, reply.body, {}
        n = next(self._ids)
        if path.endswith("/responses"):
            return 200, json.dumps(self._response(n, request, reply)), {}
        return 200, json.dumps(self._completion(n, request, reply)), {}

    @staticmethod
    def _arguments(args: dict | str) -> str:
        return args if isinstance(args, str) else json.dumps(args)

    def _usage(self, request: dict, reply: Reply) -> tuple[int, int]:
        prompt = len(json.dumps(request.get("messages", request.get("input", "")))) // 4
        prompt += len(json.dumps(request["tools"])) // 4 if request.get("tools") else 0
        text = (reply.content or "") + "".join(n + self._arguments(a) for n, a in reply.calls)
        return prompt, len(text) // 4 + 1 + reply.reasoning_tokens

    def _completion(self, n: int, request: dict, reply: Reply) -> dict:
        prompt, completion = self._usage(request, reply)
        calls = [
            {
                "id": f"call_{n}_{k}",
                "type": "function",
                "function": {"name": name, "arguments": self._arguments(args)},
            }
            for k, (name, args) in enumerate(reply.calls)
        ]
        message: dict[str, Any] = {"role": "assistant", "content": reply.content}
        if calls:
            message["tool_calls"] = calls
        usage = reply.usage or {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        }
        return {
            "id": f"chatcmpl-{n}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.get("model", "scripted"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": reply.finish_reason or ("tool_calls" if calls else "stop"),
                }
            ],
            "usage": usage,
        }

    def _response(self, n: int, request: dict, reply: Reply) -> dict:
        prompt, completion = self._usage(request, reply)
        output: list[dict] = []
        if reply.content:
            output.append(
                {
                    "type": "message",
                    "id": f"msg_{n}",
                    "role": "assistant",
                    "status": "completed",
                    "content": [{"type": "output_text", "text": reply.content, "annotations": []}],
                }
            )
        for k, (name, args) in enumerate(reply.calls):
            output.append(
                {
                    "type": "function_call",
                    "id": f"fc_{n}_{k}",
                    "call_id": f"call_{n}_{k}",
                    "name": name,
                    "arguments": self._arguments(args),
                    "status": "completed",
                }
            )
        usage = reply.usage or {
            "input_tokens": prompt,
            "output_tokens": completion,
            "total_tokens": prompt + completion,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        }
        return {
            "id": f"resp_{n}",
            "object": "response",
            "created_at": time.time(),
            "model": request.get("model", "scripted"),
            "status": "completed",
            "output": output,
            "parallel_tool_calls": False,
            "tool_choice": "auto",
            "tools": request.get("tools", []),
            "usage": usage,
        }
