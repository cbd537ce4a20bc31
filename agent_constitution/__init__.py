"""agent-constitution: a versioned constitution and rules for AI coding agents, compiled and checked."""
