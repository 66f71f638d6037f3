"""Which topics a recorder (``baton bag record``) or the live view (``baton view``) takes, and
what discovery says about each: type name, type hash and the publisher's QoS."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Optional


def is_hidden(name: str) -> bool:
    """ROS convention: a name with a token starting with '_' is hidden."""
    return any(tok.startswith("_") for tok in name.split("/") if tok)


@dataclass(frozen=True)
class PublishedTopic:
    """A topic with a publisher, as discovery sees it (the first publisher's endpoint)."""

    name: str
    type_name: str
    type_hash: str
    qos: dict  # depth, reliability, durability


class TopicSelection:
    """Topics by name (already resolved), by ``regex`` (matched against the full name) or
    ``all_topics``; hidden topics only by name or with ``include_hidden``."""

    def __init__(
        self,
        names: Iterable[str] = (),
        regex: Optional[str] = None,
        all_topics: bool = False,
        include_hidden: bool = False,
    ):
        self.names = list(names)
        self.regex = re.compile(regex) if regex else None
        self.all_topics = all_topics
        self.include_hidden = include_hidden

    def wanted(self, name: str) -> bool:
        if name in self.names:
            return True
        if is_hidden(name) and not self.include_hidden:
            return False
        return self.all_topics or bool(self.regex and self.regex.fullmatch(name))

    def published(self, snapshot: dict) -> dict[str, PublishedTopic]:
        """The wanted topics that have a publisher in this graph snapshot, by name."""
        out: dict[str, PublishedTopic] = {}
        for ep in snapshot["endpoints"]:
            name = ep["name"]
            if ep["kind"] != "publisher" or name in out or not self.wanted(name):
                continue
            qos = {k: ep[k] for k in ("depth", "reliability", "durability")}
            out[name] = PublishedTopic(name, ep["type"], ep["type_hash"], qos)
        return out
