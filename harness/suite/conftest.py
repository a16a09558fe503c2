"""Registers the catalogue's plugins when pytest is pointed at ``harness/suite`` without
``-p harness.suite.plugin`` (both spellings work; ``harness.grading.check`` passes ``-p``):
the candidate plugin and the tiers plugin (``--strict``, notes; ``harness.suite.tiers``)."""

from __future__ import annotations


def pytest_addoption(parser, pluginmanager):
    if not pluginmanager.has_plugin("harness.suite.plugin"):
        from harness.suite import plugin

        # pytest_addoption is a historic hook: registering replays it for the plugin.
        pluginmanager.register(plugin, "harness.suite.plugin")
    if not pluginmanager.has_plugin("harness.suite.tiers"):
        from harness.suite import tiers

        pluginmanager.register(tiers, "harness.suite.tiers")
