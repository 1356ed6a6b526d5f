"""Drift: every example under another torch, recorded per example (``make drift``)."""
