"""The simulator's own error, in a module of its own: mypyc compiles the table (shengji/sim/table.py)
but cannot compile a subclass of `RuntimeError`, so the class lives where it stays Python."""

from __future__ import annotations


class BotError(RuntimeError):
    """A bot answered something the table cannot accept: a program bug, never a data fault."""
