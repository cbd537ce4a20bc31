"""The agents and tools a repository works with, one record per host."""
