#!/usr/bin/env python3
"""Opens a panel with the top-level open_panel frame as soon as it is ready (test_e2e.py)."""
from zot_sdk import Extension

ext = Extension("opener", "1.0.0")


@ext.on_hello
def opened(host):
    ext.open_panel("ask", title="Approve?", lines=["go"], footer="y/n")  # sent right after ready


ext.run()
