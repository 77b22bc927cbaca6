"""One-command reproductions of the experiments in ../shared/papers."""

from . import ryu_ack_priority

REPRODUCTIONS = {ryu_ack_priority.NAME: ryu_ack_priority}
