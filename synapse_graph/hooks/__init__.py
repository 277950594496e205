"""Claude Code hooks: install them in a project's settings, and the commands they run."""
