"""`rulebook docs`: see verifier/docs/site.py."""
from __future__ import annotations


def run(args, sources, out):
    from ..docs.site import run as site_run
    return site_run(args, sources, out)
