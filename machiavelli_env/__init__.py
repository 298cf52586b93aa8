"""Machiavelli, the open-table Italian rummy, as a reinforcement-learning environment."""

__version__ = "0.1.0"
