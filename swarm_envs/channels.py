"""Direct messages and public channels, delivered with latency, exactly once, in order.

A message sent at virtual time `t` is delivered at `t + latency` to the recipient's
next observation at or after that time. Each recipient has its own FIFO inbox: since
messages are sent in time order and the latency is constant, FIFO order is delivery
order, so routing a direct message costs O(1) whatever the number of agents, and a
channel post costs O(subscribers).

Agents are addressed by index inside and by name (`agent_<index>`) outside.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import TypedDict


def agent_name(index: int) -> str:
    """The name of agent `index`: `agent_<index>`."""
    return f"agent_{index}"


def agent_names(n: int) -> list[str]:
    """The agent names of a swarm of `n`: agent_0 .. agent_{n-1}."""
    return [agent_name(i) for i in range(n)]


def agent_range(n: int) -> str:
    """The names of a swarm of `n` in words, for messages: `agent_0 .. agent_3`."""
    return f"{agent_name(0)} .. {agent_name(n - 1)}"


#: one delivered message in `AgentInfo.messages`; `from` is the sender's name, `channel`
#: None for a direct message
MessageInfo = TypedDict(
    "MessageInfo",
    {"sent_at": float, "deliver_at": float, "from": str, "channel": "str | None", "text": str},
)


@dataclass(frozen=True, slots=True)
class Message:
    """One delivered or pending message."""

    sent_at: float
    deliver_at: float
    sender: int
    recipient: int
    text: str
    channel: str | None = None  # None for a direct message

    def to_dict(self, names: list[str]) -> MessageInfo:
        """The message as agents see it in their infos (sender by name)."""
        return {
            "sent_at": self.sent_at,
            "deliver_at": self.deliver_at,
            "from": names[self.sender],
            "channel": self.channel,
            "text": self.text,
        }


class PostOffice:
    """Inboxes and channel subscriptions of a fixed set of agents (by index)."""

    def __init__(self, num_agents: int, latency: float, default_channel: str = "general"):
        self.latency = latency
        self.inboxes: list[deque[Message]] = [deque() for _ in range(num_agents)]
        self.channels: dict[str, list[int]] = {default_channel: list(range(num_agents))}
        self._subscribed: list[set[str]] = [{default_channel} for _ in range(num_agents)]
        self.sent = 0

    def send(self, now: float, sender: int, recipient: int, text: str) -> Message:
        """Queue a direct message, delivered at `now + latency`."""
        msg = Message(now, now + self.latency, sender, recipient, text)
        self.inboxes[recipient].append(msg)
        self.sent += 1
        return msg

    def post(self, now: float, sender: int, channel: str, text: str) -> list[int]:
        """Post to `channel`; returns the recipients (every subscriber but the sender)."""
        members = self.channels.get(channel, [])
        deliver_at = now + self.latency
        recipients = []
        for r in members:
            if r != sender:
                self.inboxes[r].append(Message(now, deliver_at, sender, r, text, channel))
                recipients.append(r)
        self.sent += len(recipients)
        return recipients

    def subscribe(self, agent: int, channel: str) -> bool:
        """Subscribe; False if already subscribed."""
        if channel in self._subscribed[agent]:
            return False
        self._subscribed[agent].add(channel)
        self.channels.setdefault(channel, []).append(agent)
        return True

    def subscriptions(self, agent: int) -> list[str]:
        """The channels `agent` is subscribed to, sorted."""
        return sorted(self._subscribed[agent])

    def collect(self, agent: int, now: float) -> list[Message]:
        """Remove and return the messages deliverable to `agent` by time `now`."""
        inbox = self.inboxes[agent]
        out = []
        while inbox and inbox[0].deliver_at <= now:
            out.append(inbox.popleft())
        return out

    def next_arrival(self, agent: int) -> float | None:
        """Delivery time of the agent's earliest pending message, if any."""
        inbox = self.inboxes[agent]
        return inbox[0].deliver_at if inbox else None
