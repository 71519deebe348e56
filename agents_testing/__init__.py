"""Deterministic test doubles for agent loops: model, sandbox session, realtime transport."""
