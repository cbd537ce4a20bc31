from agent_constitution.loader import namespace

globals().update(namespace())
