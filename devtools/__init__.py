"""Tools for the project's developers, outside the runtime package: the benchmark and scratch projects."""
