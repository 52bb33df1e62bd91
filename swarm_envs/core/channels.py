"""Direct messages and public channels, delivered with latency, exactly once, in order.

A message sent at virtual time `t` is delivered at `t + latency` to the recipient's
next observation at or after that time. Since messages are sent in time order and the
latency is constant, send order is delivery order: each recipient has a FIFO inbox of
direct messages, and each channel one log that every subscriber reads from its own
cursor. So a direct message and a channel post both cost O(1) whatever the number of
agents (a post to 1,000 subscribers is stored once, not 1,000 times), and collecting
costs O(messages delivered).

Agents are addressed by index inside and by name (`agent_<index>`) outside.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field
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
    seq: int = 0  # send order; a channel post has recipient -1 (every subscriber)
    # Built once, when sent: every recipient of a post shares it (read-only).
    info: MessageInfo = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        info: MessageInfo = {
            "sent_at": self.sent_at,
            "deliver_at": self.deliver_at,
            "from": agent_name(self.sender),
            "channel": self.channel,
            "text": self.text,
        }
        object.__setattr__(self, "info", info)

    def to_dict(self, names: list[str] | None = None) -> MessageInfo:
        """The message as agents see it in their infos (sender by name; shared, read-only)."""
        return self.info


class _Channel:
    """One channel: its members and the log of its posts, in send order."""

    __slots__ = ("members", "log")

    def __init__(self, members: list[int]):
        self.members = members
        self.log: list[Message] = []


class PostOffice:
    """Inboxes and channel subscriptions of a fixed set of agents (by index)."""

    def __init__(self, num_agents: int, latency: float, default_channel: str = "general"):
        self.latency = latency
        self.inboxes: list[deque[Message]] = [deque() for _ in range(num_agents)]
        self._channels: dict[str, _Channel] = {default_channel: _Channel(list(range(num_agents)))}
        # Per agent: channel -> log index of its next unread post.
        self._cursors: list[dict[str, int]] = [{default_channel: 0} for _ in range(num_agents)]
        self._seq = 0  # send order, the tie-break between an agent's sources
        self.sent = 0  # deliveries: a post counts once per recipient

    @property
    def channels(self) -> dict[str, list[int]]:
        """Channel -> its subscribers, in subscription order."""
        return {name: ch.members for name, ch in self._channels.items()}

    def _message(
        self, now: float, sender: int, recipient: int, text: str, channel: str | None
    ) -> Message:
        self._seq += 1
        return Message(now, now + self.latency, sender, recipient, text, channel, self._seq)

    def send(self, now: float, sender: int, recipient: int, text: str) -> Message:
        """Queue a direct message, delivered at `now + latency`."""
        msg = self._message(now, sender, recipient, text, None)
        self.inboxes[recipient].append(msg)
        self.sent += 1
        return msg

    def post(self, now: float, sender: int, channel: str, text: str) -> int:
        """Post to `channel` (stored once); returns the number of recipients.

        Every subscriber but the sender receives it; `members(channel)` says who.
        """
        ch = self._channels.get(channel)
        if ch is None:
            return 0
        ch.log.append(self._message(now, sender, -1, text, channel))
        n = len(ch.members) - self.is_subscribed(sender, channel)
        self.sent += n
        return n

    def is_subscribed(self, agent: int, channel: str) -> bool:
        """Whether `agent` receives the posts to `channel`."""
        return channel in self._cursors[agent]

    def members(self, channel: str) -> list[int]:
        """The subscribers of `channel` (empty for a channel nobody joined)."""
        ch = self._channels.get(channel)
        return ch.members if ch is not None else []

    def subscribe(self, agent: int, channel: str) -> bool:
        """Subscribe (to posts from now on); False if already subscribed."""
        cursors = self._cursors[agent]
        if channel in cursors:
            return False
        ch = self._channels.get(channel)
        if ch is None:
            ch = self._channels[channel] = _Channel([])
        ch.members.append(agent)
        cursors[channel] = len(ch.log)
        return True

    def subscriptions(self, agent: int) -> list[str]:
        """The channels `agent` is subscribed to, sorted."""
        return sorted(self._cursors[agent])

    def collect(self, agent: int, now: float) -> list[Message]:
        """Remove and return the messages deliverable to `agent` by time `now`, in order."""
        inbox = self.inboxes[agent]
        out = []
        while inbox and inbox[0].deliver_at <= now:
            out.append(inbox.popleft())
        cursors = self._cursors[agent]
        merged = bool(out)
        for name, at in cursors.items():
            log = self._channels[name].log
            end = bisect_right(log, now, lo=at, key=_delivery)
            if end == at:
                continue
            cursors[name] = end
            # The sender does not get its own post.
            out.extend([m for m in log[at:end] if m.sender != agent])
            if merged:
                out.sort(key=_send_order)  # several sources: back into send order
            merged = True
        return out

    def next_arrival(self, agent: int) -> float | None:
        """Delivery time of the agent's earliest pending message, if any."""
        inbox = self.inboxes[agent]
        best = inbox[0].deliver_at if inbox else None
        for name, at in self._cursors[agent].items():
            log = self._channels[name].log
            for k in range(at, len(log)):
                msg = log[k]
                if msg.sender != agent:
                    if best is None or msg.deliver_at < best:
                        best = msg.deliver_at
                    break
        return best


def _send_order(m: Message) -> int:
    return m.seq


def _delivery(m: Message) -> float:
    return m.deliver_at
