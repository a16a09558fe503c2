"""The channel's frames and values, as the student's process imports them.

``harness.grading.gradetests.suite_run`` copies ``harness/sandbox/channel.py`` over this file in the
student's private copy of the shim (the student's process cannot import ``harness``);
inside the harness it is the wall's module itself.
"""

from harness.sandbox.channel import ChannelClosed, Described, Handle, ProtocolError, receive, send  # noqa: F401
