"""One module per tool: its arguments, its Gitea calls, the shaping of its result."""
