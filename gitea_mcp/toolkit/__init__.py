"""What the tools share: arguments, the registry, rendering, the envelope, the write guards; no tool lives here."""
