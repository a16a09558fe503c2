"""Registers the catalogue's plugin when pytest is pointed at ``harness/suite`` without
``-p harness.suite.plugin`` (both spellings work; ``harness.check`` passes ``-p``)."""

from __future__ import annotations


def pytest_addoption(parser, pluginmanager):
    if not pluginmanager.has_plugin("harness.suite.plugin"):
        from harness.suite import plugin

        # pytest_addoption is a historic hook: registering replays it for the plugin.
        pluginmanager.register(plugin, "harness.suite.plugin")
