"""Adapters that plug the agents-testing doubles into real agent frameworks.

Each module adapts one framework and imports it; import only the one you use, e.g.
``agents_testing.adapters.openai_agents``. This package itself imports nothing.
"""
