"""The only code that speaks HTTP to Gitea."""

from gitea_mcp.gitea.client import ApiResponse, GiteaClient
from gitea_mcp.gitea.errors import GiteaError

__all__ = ["ApiResponse", "GiteaClient", "GiteaError"]
