"""Writing a function the request hands over: its examples run as checks, new versions drawn after a failure, and
the choice among the versions that pass by the model's own asserts."""
