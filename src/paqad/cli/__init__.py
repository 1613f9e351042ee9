"""Command-line interface: parses options and prints; the work is in the library."""
