"""Sign-in end to end (issue 24): a real browser user, the official TypeScript and Python SDK OAuth clients."""
