"""referee: a combat rules engine for old-school fantasy role-playing games."""

__version__ = "0.1.0"
