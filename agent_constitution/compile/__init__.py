"""`doit compile`: the files agents read, per manifest segment, from the lock and the constitution."""
