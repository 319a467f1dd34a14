"""The referee's tracker: a web page over the engine (`referee serve`)."""
