"""The websocket's dispatch table: every message the parser returns has its handler."""

from __future__ import annotations

import typing

from kamisado.web.basics.messages import Message
from kamisado.web.site.websocket import HANDLERS


def test_every_message_type_has_a_handler() -> None:
    assert set(typing.get_args(Message)) == set(HANDLERS)
