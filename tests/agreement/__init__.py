"""Agreement tests: the exact odds, the fast simulator and the event engine give the same numbers."""
